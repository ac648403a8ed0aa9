/**
 * `memtier watch`'s server: keeps a memory's index warm and its files watched (tree.ts), and runs
 * the CLI's searches and recalls for it over a unix socket (protocol.ts), each after the cookie
 * handshake, through the same main() a CLI process runs: the output is the one the CLI would print.
 *
 * The socket is a door into the memory, so it admits little: it lives in a folder only the owner
 * can enter (.memtier/run/, 0700) and is itself 0600, whatever the umask; a request runs only when
 * the command its argv names (main()'s own rule) is a read the server serves, for this root, and
 * only the environment variables those reads use are taken from it (protocol.ts: REQUEST_ENV).
 * Writes never come through here: hosts run them in-process (runner.ts). The announcement,
 * .memtier/watch.json, is 0600 (and .memtier/ 0700 when the server makes it): a client asks only a
 * server whose announcement and socket no other user could have made (protocol.ts trustedWatchInfo).
 * A request line is read up to MAX_REQUEST_BYTES (1 MiB); a longer one is declined as it passes
 * the limit and the connection closed.
 *
 * Requests run one at a time, in order. A client that gave up (closed its socket) before its turn
 * is skipped, so a request runs at most once. Startup is serialized by the memory's write lock, so
 * two servers never both announce themselves for one root.
 */
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { Main } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { acquireLock } from '../store/lock.js';
import { stateDirProblem } from '../store/state-dir.js';
import { readMemoryFile } from '../store/store.js';
import { commandIndex } from '../cli/args.js';
import { ask, buildId, HOLD_SESSION_RE, lineReader, MAX_REQUEST_BYTES, PROCESS_ENV, readWatchInfo, requestEnv, rootOf, SERVED_COMMANDS, SOCKET_DIR, SOCKET_FILE, textStream, trustedWatchInfo, WATCH_FILE, type Reply, type Request, type RunRequest, type WatchInfo } from './protocol.js';
import type { TreeStatus } from './tree.js';
import { warmMemory } from './warm.js';

export interface ServerStatus {
  pid: number;
  root: string;
  socket: string;
  build: string;
  started: string;
  requests: number;
  declined: number;
  tree: TreeStatus;
  /** A host-started server (`--session`): how many host sessions still hold it. */
  sessions?: number;
  /** It stops after this long without a request. */
  idleMs?: number;
}

export interface WatchServer {
  info: WatchInfo;
  status(): ServerStatus;
  /** Wait until every change made before this call is seen (for a host serving its own tools on the same warm memory). */
  sync(): Promise<void>;
  /** Stop listening, unwatch, remove the announcement; resolves when done. */
  close(): Promise<void>;
  /** Resolves when the server stopped (close(), or a stop request). */
  closed: Promise<void>;
}


/** How often a server checks that it is still the one announced in .memtier/watch.json. */
export const ORPHAN_CHECK_MS = 5000;

/** Where builds before .memtier/run/ put the socket; removed when a server starts. */
const LEGACY_SOCKET = '.memtier/watch.sock';

/** The real path of `p`, or undefined when it cannot be resolved. */
function realOf(p: string): string | undefined {
  try { return realpathSync(p); } catch { return undefined; }
}

/** Why a run request is not one this server can read (any JSON reaches it), or undefined. */
function malformed(req: RunRequest): string | undefined {
  const r = req as unknown as Record<string, unknown>;
  if (typeof r.build !== 'string') return 'no build';
  if (!Array.isArray(r.argv) || !r.argv.every((a) => typeof a === 'string')) return 'argv must be a list of strings';
  if (typeof r.cwd !== 'string' || !isAbsolute(r.cwd)) return 'cwd must be an absolute path';
  if (typeof r.env !== 'object' || r.env === null || Array.isArray(r.env)) return 'env must be an object';
  if (r.command !== undefined && typeof r.command !== 'string') return 'command must be a string';
  if (r.stdin !== undefined && typeof r.stdin !== 'string') return 'stdin must be a string';
  return undefined;
}

/** A unix socket path must fit in sun_path (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

/**
 * Make `dir` a folder only this user can enter (0700, whatever the umask): created when missing,
 * its mode tightened when looser; refused when it is a symbolic link, not a folder, or another
 * user's. Returns the reason it cannot be used, or undefined.
 */
function privateDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (st.isSymbolicLink() || !st.isDirectory()) return `${dir} is not a folder`;
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) return `${dir} belongs to another user (uid ${st.uid})`;
    if ((st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
    return undefined;
  } catch (e) {
    return `${dir}: ${(e as Error).message}`;
  }
}

/**
 * Where `root`'s server listens: .memtier/run/watch.sock in the private folder .memtier/run/, or,
 * when that path is too long for a socket, a private folder of this user under the temp folder
 * (tmp/memtier-UID/, else a fresh one when that name is taken by someone else).
 */
function socketPlace(root: string): { socket: string; made?: string } {
  const own = join(root, SOCKET_FILE);
  if (Buffer.byteLength(own) <= MAX_SOCKET_PATH) {
    const why = privateDir(dirname(own));
    if (why) throw new MemtierError(`cannot make the private folder of the watch socket: ${why}`, { code: 'watch-failed', file: SOCKET_DIR, hint: `remove ${SOCKET_DIR} (it is recreated)` });
    return { socket: own };
  }
  const name = `memtier-${createHash('sha256').update(root).digest('hex').slice(0, 16)}.sock`;
  const shared = join(tmpdir(), `memtier-${process.getuid?.() ?? 'user'}`);
  if (!privateDir(shared)) return { socket: join(shared, name) };
  const made = mkdtempSync(join(tmpdir(), 'memtier-'));
  return { socket: join(made, name), made };
}

/**
 * A few searches before announcing, with words of MEMORY.md: the first requests of a fresh server
 * would otherwise run unoptimized code (measured 40–60 ms against 5 ms once warm at 10k notes).
 */
async function warmUp(ctx: Ctx, main: Main): Promise<void> {
  let text = '';
  // read as every command reads it: a MEMORY.md that is a link (out of the root) gives no words
  try { text = (readMemoryFile(ctx.root, 'MEMORY.md') ?? '').slice(0, 20_000); } catch { return; }
  const words = [...new Set(text.toLowerCase().match(/\p{L}{4,}/gu) ?? [])].slice(0, 40);
  const sink = { write: (): boolean => true, isTTY: false };
  for (let i = 0; i + 1 < words.length; i += 2) {
    await main({ argv: ['search', `${words[i]} ${words[i + 1]}`, '--root', ctx.root, '--json'], env: ctx.env, cwd: ctx.root, stdout: sink, stderr: sink });
  }
}

/** Throw when another server of `root` is announced and answers (an announcement another user could have made is none). */
async function refuseIfRunning(root: string): Promise<void> {
  const t = trustedWatchInfo(root);
  const w = t && 'info' in t ? t.info : undefined;
  if (w && w.pid !== process.pid && (await ask(w.socket, { op: 'status' }, 1000))) {
    throw new MemtierError(`memtier watch is already running for ${root} (pid ${w.pid})`, { code: 'watch-running', file: WATCH_FILE, hint: 'stop it with "memtier watch --stop"' });
  }
}

export interface ServerOptions {
  burstLimit?: number | undefined;
  version?: string;
  /** Stop after this long without a request (hold, release and status count): a server a host started must not outlive it. */
  idleMs?: number | undefined;
  /** Started by a host for these sessions (`--session`): stops when the last one is released. */
  sessions?: string[] | undefined;
}

export async function startServer(ctx: Ctx, main: Main, opts: ServerOptions = {}): Promise<WatchServer> {
  const root = ctx.root;
  const build = buildId();
  let socket = '';
  let madeDir: string | undefined;
  const version = opts.version ?? '';
  let server: Server | undefined;

  // one server per root: checked before the costly start, and again under the lock to announce
  await refuseIfRunning(root);
  // .memtier/ holds the announcement, the index and the caches: the owner's only when made here
  // (0700 whatever the umask; one that exists keeps its mode), its index folder too
  for (const dir of ['.memtier', '.memtier/index']) {
    if (stateDirProblem(root)) break;
    try { mkdirSync(join(root, dir), { mode: 0o700 }); } catch { /* there already, or made by the first write */ }
  }
  // warm the index (builds the cache when there is none) before announcing
  const warm = await warmMemory(ctx, opts);
  const tree = warm.tree;
  await warmUp(ctx, main);

  const started = ctx.clock.now().toISOString();
  const info: WatchInfo = { pid: process.pid, socket, build, version, root, started };
  // the root as the file system sees it: a request names it through any path (a symbolic link)
  let realRoot = root;
  try { realRoot = realpathSync(root); } catch { /* compared as given */ }
  const stats = { requests: 0, declined: 0 };
  const trace = ctx.env.MEMTIER_WATCH_TRACE === '1';
  let queue: Promise<void> = Promise.resolve();
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => { resolveClosed = r; });
  let closing: Promise<void> | undefined;

  // the host sessions this server is held for (a host-started server stops when they are all released)
  const holds = new Set(opts.sessions ?? []);
  const hostStarted = opts.sessions !== undefined;
  let lastRequest = Date.now();
  const status = (): ServerStatus => ({ pid: process.pid, root, socket, build, started, ...stats, tree: tree.status(), ...(hostStarted ? { sessions: holds.size } : {}), ...(opts.idleMs ? { idleMs: opts.idleMs } : {}) });

  const run = async (s: Socket, req: RunRequest): Promise<Reply> => {
    const bad = malformed(req);
    if (bad) return { ok: false, decline: `bad request: ${bad}` };
    if (req.build !== build) return { ok: false, decline: `the server runs build ${build}, the client ${req.build}` };
    // what runs is what argv names, by the rule main() itself applies: never the `command` field
    const at = commandIndex(req.argv);
    const command = at >= 0 ? req.argv[at]! : undefined;
    if (command === undefined || !SERVED_COMMANDS.has(command)) return { ok: false, decline: `${command === undefined ? 'a request without a command' : `"${command.slice(0, 40)}"`} is not served (only ${[...SERVED_COMMANDS].join(' and ')})` };
    if (req.command !== undefined && req.command !== command) return { ok: false, decline: `the request says ${String(req.command).slice(0, 40)} but its argv runs ${command}` };
    const env = requestEnv(ctx.env, req.env);
    for (const k of PROCESS_ENV) if ((env[k] ?? '') !== (ctx.env[k] ?? '')) return { ok: false, decline: `${k} differs from the server's` };
    const asked = rootOf(req.argv, env, req.cwd);
    if (asked !== root && realOf(asked) !== realRoot) return { ok: false, decline: `the request is for ${asked}; this server serves ${root}` };
    const t0 = performance.now();
    await tree.sync();
    if (s.destroyed) return { ok: false, decline: 'the client left' };
    const t1 = performance.now();
    let out = '';
    let err = '';
    const stdin = req.stdin === undefined ? undefined : textStream(req.stdin);
    const code = await main({ argv: req.argv, env, cwd: req.cwd, ...(stdin ? { stdin } : {}), stdout: { write: (t: string) => { out += t; return true; }, isTTY: false }, stderr: { write: (t: string) => { err += t; return true; }, isTTY: false } });
    if (trace) ctx.log.warn(`served ${command}: sync ${(t1 - t0).toFixed(1)} ms, run ${(performance.now() - t1).toFixed(1)} ms`);
    return { ok: true, code, out, err };
  };

  const handle = (s: Socket, line: string): void => {
    let parsed: unknown;
    try { parsed = JSON.parse(line); } catch { /* declined below */ }
    // a line that is no JSON object (`null` included: reading its op was a server error)
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) { s.end(JSON.stringify({ ok: false, decline: 'bad request' } satisfies Reply) + '\n'); return; }
    const req = parsed as Request;
    lastRequest = Date.now();
    s.write('A\n');
    queue = queue.then(async () => {
      if (s.destroyed) return;
      let reply: Reply;
      try {
        if (req.op === 'status') reply = { ok: true, status: status() };
        else if (req.op === 'stop') { reply = { ok: true, status: status() }; setImmediate(() => void close()); }
        else if (req.op === 'hold' || req.op === 'release') {
          if (typeof req.session !== 'string' || !HOLD_SESSION_RE.test(req.session)) reply = { ok: false, decline: 'bad request: a hold names a session id ([A-Za-z0-9._:-], at most 128)' };
          else {
            if (req.op === 'hold') holds.add(req.session); else holds.delete(req.session);
            reply = { ok: true, status: status() };
            if (req.op === 'release' && hostStarted && holds.size === 0) {
              ctx.log.info(`memtier watch: the last host session (${req.session}) ended; stopping`);
              setImmediate(() => void close());
            }
          }
        } else {
          reply = await run(s, req as RunRequest);
          if ('code' in reply) stats.requests++; else stats.declined++;
        }
      } catch (e) {
        reply = { ok: false, decline: `server error: ${(e as Error).message}` };
        stats.declined++;
      }
      if (!s.destroyed) s.end(JSON.stringify(reply) + '\n');
    });
  };

  let orphanCheck: ReturnType<typeof setInterval> | undefined;
  let idleCheck: ReturnType<typeof setInterval> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(orphanCheck);
      clearInterval(idleCheck);
      warm.close();
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
      await queue.catch(() => undefined);
      if (readWatchInfo(root)?.pid === process.pid) rmSync(join(root, WATCH_FILE), { force: true });
      try { unlinkSync(socket); } catch { /* gone */ }
      if (madeDir) rmSync(madeDir, { recursive: true, force: true });
      resolveClosed();
    })();
    return closing;
  };

  const lock = acquireLock(root, ctx.env);
  try {
    await refuseIfRunning(root);
    ({ socket, made: madeDir } = socketPlace(root));
    info.socket = socket;
    try { unlinkSync(socket); } catch { /* no stale socket */ }
    // the socket of a server from before .memtier/run/ (none answers: refused above otherwise)
    try { if (lstatSync(join(root, LEGACY_SOCKET)).isSocket()) unlinkSync(join(root, LEGACY_SOCKET)); } catch { /* none */ }
    server = createServer((s) => {
      // one request line, looked for in each new chunk only; a line over the limit is declined
      // as soon as it passes it, and the connection closed (never read to its end)
      let over = false;
      const lines = lineReader(MAX_REQUEST_BYTES, () => { over = true; });
      s.on('error', () => s.destroy());
      s.on('data', (d: Buffer) => {
        const [line] = lines(d);
        if (line !== undefined) { s.removeAllListeners('data'); handle(s, line); return; }
        if (over) {
          s.removeAllListeners('data');
          stats.declined++;
          s.end(JSON.stringify({ ok: false, decline: `request over the ${MAX_REQUEST_BYTES >> 20} MiB limit` } satisfies Reply) + '\n');
          // what the client still sends is read and dropped until it closes (at most 5 s): a socket
          // closed with unread bytes resets the connection, and the client can lose the decline
          // before it reads it (seen under load by test/property/watch-frames.test.ts)
          s.resume();
          const drop = setTimeout(() => s.destroy(), 5_000);
          drop.unref();
          s.once('close', () => clearTimeout(drop));
        }
      });
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(socket, () => { server!.off('error', reject); resolve(); });
    });
    // the folder already keeps everyone else out; the socket itself is the owner's only too
    chmodSync(socket, 0o600);
    // the owner's alone, whatever the umask: a client trusts no announcement others can write
    const tmp = join(root, `${WATCH_FILE}.${process.pid}.tmp`);
    rmSync(tmp, { force: true });
    writeFileSync(tmp, JSON.stringify(info, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    chmodSync(tmp, 0o600);
    renameSync(tmp, join(root, WATCH_FILE));
  } catch (e) {
    warm.close();
    server?.close();
    if (madeDir) rmSync(madeDir, { recursive: true, force: true });
    throw e;
  } finally {
    lock.release();
  }
  // stop when no longer announced (.memtier removed, or the memory itself): nobody can find it
  orphanCheck = setInterval(() => {
    if (readWatchInfo(root)?.pid !== process.pid) {
      ctx.log.warn(`${WATCH_FILE} no longer names this server; stopping`);
      void close();
    }
  }, ORPHAN_CHECK_MS);
  const idleMs = opts.idleMs;
  if (idleMs && idleMs > 0) {
    idleCheck = setInterval(() => {
      if (Date.now() - lastRequest < idleMs) return;
      ctx.log.info(`memtier watch: no request for ${Math.round(idleMs / 1000)} s; stopping`);
      void close();
    }, Math.max(250, Math.min(60_000, Math.floor(idleMs / 4))));
    idleCheck.unref?.();
  }
  return { info, status, sync: () => tree.sync(), close, closed };
}
