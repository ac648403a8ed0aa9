/**
 * `memtier watch`'s server: keeps a memory's index warm and its files watched (tree.ts), and runs
 * the CLI's searches and recalls for it over a unix socket (protocol.ts), each after the cookie
 * handshake, through the same main() a CLI process runs: the output is the one the CLI would print.
 *
 * Requests run one at a time, in order. A client that gave up (closed its socket) before its turn
 * is skipped, so a request runs at most once. Startup is serialized by the memory's write lock, so
 * two servers never both announce themselves for one root.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Main } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { acquireLock } from '../store/lock.js';
import { ask, buildId, PROCESS_ENV, readWatchInfo, textStream, WATCH_FILE, SERVED_COMMANDS, type Reply, type Request, type RunRequest, type WatchInfo } from './protocol.js';
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

/** A unix socket path must fit in sun_path (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

/** The socket of `root`'s server: .memtier/watch.sock, or a private temp folder's when that path is too long. */
export function serverSocketPath(root: string): string {
  const own = join(root, '.memtier', 'watch.sock');
  if (Buffer.byteLength(own) <= MAX_SOCKET_PATH) return own;
  const dir = join(tmpdir(), `memtier-${process.getuid?.() ?? 'user'}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return join(dir, `memtier-${createHash('sha256').update(root).digest('hex').slice(0, 16)}.sock`);
}

/**
 * A few searches before announcing, with words of MEMORY.md: the first requests of a fresh server
 * would otherwise run unoptimized code (measured 40–60 ms against 5 ms once warm at 10k notes).
 */
async function warmUp(ctx: Ctx, main: Main): Promise<void> {
  let text = '';
  try { text = readFileSync(join(ctx.root, 'MEMORY.md'), 'utf8').slice(0, 20_000); } catch { return; }
  const words = [...new Set(text.toLowerCase().match(/\p{L}{4,}/gu) ?? [])].slice(0, 40);
  const sink = { write: (): boolean => true, isTTY: false };
  for (let i = 0; i + 1 < words.length; i += 2) {
    await main({ argv: ['search', `${words[i]} ${words[i + 1]}`, '--root', ctx.root, '--json'], env: ctx.env, cwd: ctx.root, stdout: sink, stderr: sink });
  }
}

/** Throw when another server of `root` is announced and answers. */
async function refuseIfRunning(root: string): Promise<void> {
  const w = readWatchInfo(root);
  if (w && w.pid !== process.pid && (await ask(w.socket, { op: 'status' }, 1000))) {
    throw new MemtierError(`memtier watch is already running for ${root} (pid ${w.pid})`, { code: 'watch-running', file: WATCH_FILE, hint: 'stop it with "memtier watch --stop"' });
  }
}

export async function startServer(ctx: Ctx, main: Main, opts: { burstLimit?: number | undefined; version?: string } = {}): Promise<WatchServer> {
  const root = ctx.root;
  const build = buildId();
  const socket = serverSocketPath(root);
  const version = opts.version ?? '';
  let server: Server | undefined;

  // one server per root: checked before the costly start, and again under the lock to announce
  await refuseIfRunning(root);
  // warm the index (builds the cache when there is none) before announcing
  const warm = await warmMemory(ctx, opts);
  const tree = warm.tree;
  await warmUp(ctx, main);

  const started = ctx.clock.now().toISOString();
  const info: WatchInfo = { pid: process.pid, socket, build, version, root, started };
  const stats = { requests: 0, declined: 0 };
  const trace = ctx.env.MEMTIER_WATCH_TRACE === '1';
  let queue: Promise<void> = Promise.resolve();
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => { resolveClosed = r; });
  let closing: Promise<void> | undefined;

  const status = (): ServerStatus => ({ pid: process.pid, root, socket, build, started, ...stats, tree: tree.status() });

  const run = async (s: Socket, req: RunRequest): Promise<Reply> => {
    if (req.build !== build) return { ok: false, decline: `the server runs build ${build}, the client ${req.build}` };
    for (const k of PROCESS_ENV) if ((req.env[k] ?? '') !== (ctx.env[k] ?? '')) return { ok: false, decline: `${k} differs from the server's` };
    if (!SERVED_COMMANDS.has(req.command)) return { ok: false, decline: `${req.command} is not a served command` };
    const t0 = performance.now();
    await tree.sync();
    if (s.destroyed) return { ok: false, decline: 'the client left' };
    const t1 = performance.now();
    let out = '';
    let err = '';
    const stdin = req.stdin === undefined ? undefined : textStream(req.stdin);
    const code = await main({ argv: req.argv, env: req.env, cwd: req.cwd, ...(stdin ? { stdin } : {}), stdout: { write: (t: string) => { out += t; return true; }, isTTY: false }, stderr: { write: (t: string) => { err += t; return true; }, isTTY: false } });
    if (trace) ctx.log.warn(`served ${req.command}: sync ${(t1 - t0).toFixed(1)} ms, run ${(performance.now() - t1).toFixed(1)} ms`);
    // a search of another root is answered correctly too, but without the watched freshness (main resolved that root itself)
    return { ok: true, code, out, err };
  };

  const handle = (s: Socket, line: string): void => {
    let req: Request;
    try { req = JSON.parse(line) as Request; } catch { s.end(JSON.stringify({ ok: false, decline: 'bad request' } satisfies Reply) + '\n'); return; }
    s.write('A\n');
    queue = queue.then(async () => {
      if (s.destroyed) return;
      let reply: Reply;
      try {
        if (req.op === 'status') reply = { ok: true, status: status() };
        else if (req.op === 'stop') { reply = { ok: true, status: status() }; setImmediate(() => void close()); }
        else {
          reply = await run(s, req);
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
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(orphanCheck);
      warm.close();
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
      await queue.catch(() => undefined);
      if (readWatchInfo(root)?.pid === process.pid) rmSync(join(root, WATCH_FILE), { force: true });
      try { unlinkSync(socket); } catch { /* gone */ }
      resolveClosed();
    })();
    return closing;
  };

  const lock = acquireLock(root, ctx.env);
  try {
    await refuseIfRunning(root);
    try { unlinkSync(socket); } catch { /* no stale socket */ }
    server = createServer((s) => {
      let buf = '';
      s.on('error', () => s.destroy());
      s.on('data', (d) => {
        buf += d.toString('utf8');
        const nl = buf.indexOf('\n');
        if (nl >= 0) { s.removeAllListeners('data'); handle(s, buf.slice(0, nl)); }
      });
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(socket, () => { server!.off('error', reject); resolve(); });
    });
    const tmp = join(root, `${WATCH_FILE}.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify(info, null, 2) + '\n');
    renameSync(tmp, join(root, WATCH_FILE));
  } catch (e) {
    warm.close();
    server?.close();
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
  return { info, status, sync: () => tree.sync(), close, closed };
}
