/**
 * What `memtier watch` and the CLI agree on: where the server of a memory root is announced
 * (.memtier/watch.json), its socket, the build both must come from, and the messages.
 *
 * One request per connection, each a line of JSON: the client sends a request, the server answers
 * `A` at once (accepted: it is alive and will run it), then one reply line, then closes.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { resolveRoot } from '../core/root.js';

export const WATCH_FILE = '.memtier/watch.json';

/**
 * The server's private folder (0700, whatever the umask) and its socket inside (0600). Builds
 * before this one put the socket at .memtier/watch.sock, reachable by whoever the umask let in.
 */
export const SOCKET_DIR = '.memtier/run';
export const SOCKET_FILE = `${SOCKET_DIR}/watch.sock`;

/** Commands a server runs on behalf of the CLI (the per-turn reads of an agent). */
export const SERVED_COMMANDS = new Set(['search', 'recall']);

/**
 * Environment variables that set process-wide state in the server (the tokenizer's CJK mode, the
 * local time zone): a request whose values differ is declined and runs in the CLI's own process.
 */
export const PROCESS_ENV = ['MEMTIER_CJK', 'TZ'] as const;

/**
 * The environment a request may set: what a search or recall reads (the root, the clock and its
 * zone, the tokenizer, git on/off, the shared limits). Anything else a request sends is ignored and
 * the server's own value stands: the programs memtier runs (MEMTIER_GIT_BIN, PATH), its crash
 * points (MEMTIER_CRASH_AT would kill the server), HOME, and every secret a shell happens to hold.
 * The client sends only these.
 */
export const REQUEST_ENV: readonly string[] = [
  'MEMTIER_ROOT', 'OPENCLAW_WORKSPACE', 'OPENCLAW_SESSION_ID', 'MEMTIER_NOW', 'MEMTIER_TZ', 'TZ', 'MEMTIER_CJK', 'MEMTIER_GIT',
  'MEMTIER_DEBUG', 'MEMTIER_PARALLEL_STAT_MIN', 'MEMTIER_LOCK_TIMEOUT_MS', 'MEMTIER_BUFFER_MAX_LINES', 'MEMTIER_ARCHIVE_DAYS',
];
/** Prefixes of request keys accepted as well: the shared limits (lib/memory/limits.ts). */
const REQUEST_ENV_PREFIXES = ['MEMTIER_HEALTH_'];

export function isRequestEnv(key: string): boolean {
  return REQUEST_ENV.includes(key) || REQUEST_ENV_PREFIXES.some((p) => key.startsWith(p) && /^[A-Z_]+$/.test(key));
}

/** The accepted keys of `env` (string values only), as a client sends them. */
export function requestEnvOf(env: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string' && isRequestEnv(k)) out[k] = v;
  return out;
}

/**
 * The environment a request runs with: the server's own, except that every accepted key is the
 * request's (set or unset as in the caller's shell, so the answer is the one the CLI would print).
 */
export function requestEnv(server: NodeJS.ProcessEnv, sent: Record<string, unknown>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(server)) if (!isRequestEnv(k)) out[k] = v;
  return Object.assign(out, requestEnvOf(sent));
}

/** The memory root chosen as the CLI would (lib/core/root.ts), from --root DIR / --root=DIR or the environment. */
export function rootOf(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string {
  let flag: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break; // what follows is positional (node:util parseArgs)
    if (a === '--root' && i + 1 < argv.length) flag = argv[++i];
    else if (a.startsWith('--root=')) flag = a.slice(7);
  }
  return resolveRoot({ flag, env, cwd }).root;
}

export interface WatchInfo {
  pid: number;
  socket: string;
  /** The build the server runs (buildId()). */
  build: string;
  version: string;
  root: string;
  started: string;
}

/**
 * `command` is informative: the server runs what `argv` names (the rule of main()), and declines a
 * request whose `command` says otherwise.
 */
export interface RunRequest { op: 'run'; build: string; command?: string; argv: string[]; env: Record<string, string>; cwd: string; /** Standard input, for `--messages -`. */ stdin?: string }
export interface StatusRequest { op: 'status' }
export interface StopRequest { op: 'stop' }
/**
 * A host session using the server (a Claude Code session: its SessionStart hold, its SessionEnd
 * release). A server a host started (`memtier watch --session ID`) stops when the last session it
 * holds for is released; one a person started keeps running.
 */
export interface HoldRequest { op: 'hold' | 'release'; session: string }
export type Request = RunRequest | StatusRequest | StopRequest | HoldRequest;

/** A host's session id as a hold names it (Claude Code's are UUIDs). */
export const HOLD_SESSION_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export type Reply =
  | { ok: true; code: number; out: string; err: string }
  | { ok: true; status: unknown }
  | { ok: false; decline: string };

/** The longest request line a server reads, and a client sends (a larger one runs in the CLI's own process). */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/** The longest announcement read (a real one is a few hundred bytes). */
const MAX_WATCH_FILE = 64 * 1024;

function parseWatchInfo(text: string): WatchInfo | undefined {
  try {
    const w = JSON.parse(text) as WatchInfo;
    return w && typeof w.pid === 'number' && typeof w.socket === 'string' && typeof w.build === 'string' ? w : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The announcement as it is, trusted or not: for a server comparing its own pid. Never blocks (a
 * FIFO there is no announcement). A client that will connect uses trustedWatchInfo.
 */
export function readWatchInfo(root: string): WatchInfo | undefined {
  const r = openWatchFile(root);
  return r && 'text' in r ? parseWatchInfo(r.text) : undefined;
}

/** .memtier/watch.json opened without following a link or blocking on a FIFO: its text and stats, or why not. */
function openWatchFile(root: string): { text: string; st: Stats } | { why: string } | undefined {
  let fd: number;
  try {
    fd = openSync(join(root, WATCH_FILE), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : { why: `${WATCH_FILE} cannot be opened (${code ?? 'error'}${code === 'ELOOP' ? ': a symbolic link' : ''})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { why: `${WATCH_FILE} is not a regular file` };
    if (st.size > MAX_WATCH_FILE) return { why: `${WATCH_FILE} is over ${MAX_WATCH_FILE} bytes` };
    return { text: readFileSync(fd, 'utf8'), st };
  } catch (e) {
    return { why: `${WATCH_FILE} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    closeSync(fd);
  }
}

/**
 * The users whose announcement and socket a client of `root` trusts: itself, and the owner of the
 * memory root (whose memory it is). Undefined without user ids (not a unix system).
 */
function trustedUids(root: string): Set<number> | undefined {
  const me = process.getuid?.();
  if (me === undefined) return undefined;
  const uids = new Set([me]);
  try { uids.add(statSync(root).uid); } catch { /* the running user only */ }
  return uids;
}

/** Why `st` (of `what`) is not the owner's alone: another user's, or writable by others. */
function notOwners(st: Stats, uids: Set<number> | undefined, what: string): string | undefined {
  if (!uids) return undefined;
  if (!uids.has(st.uid)) return `${what} belongs to another user (uid ${st.uid})`;
  if (st.mode & 0o022) return `${what} can be written by other users (mode ${(st.mode & 0o777).toString(8).padStart(3, '0')})`;
  return undefined;
}

/**
 * The announcement of `root`'s server, only when another local user cannot have written it nor
 * be the one listening: watch.json a regular file of the owner (this user or the memory root's
 * owner) that nobody else can write, and its socket a socket of the owner that nobody else can
 * write, in a folder nobody else can write: .memtier/run/ of this root, or the private folder a
 * server makes under the temp folder for a root too deep for a socket path (memtier-HASH.sock in a
 * 0700 folder). `undefined`: none announced; `why`: one is, but it is not trusted (the CLI then
 * runs the command itself).
 */
export function trustedWatchInfo(root: string): { info: WatchInfo } | { why: string } | undefined {
  const file = openWatchFile(root);
  if (!file) return undefined;
  if ('why' in file) return file;
  const info = parseWatchInfo(file.text);
  if (!info) return undefined;
  const uids = trustedUids(root);
  const why = notOwners(file.st, uids, WATCH_FILE);
  if (why) return { why };
  if (!uids) return { info };
  const socket = info.socket;
  if (!isAbsolute(socket)) return { why: `${WATCH_FILE} names a socket that is not an absolute path` };
  const dir = dirname(socket);
  let sst: Stats;
  let dst: Stats;
  try { sst = lstatSync(socket); dst = lstatSync(dir); } catch { return { why: `the socket ${socket} is not there` }; }
  if (!sst.isSocket()) return { why: `${socket} is not a socket` };
  const bad = notOwners(sst, uids, `the socket ${socket}`) ?? (dst.isDirectory() ? notOwners(dst, uids, `the folder of the socket ${dir}`) : `${dir} is not a folder`);
  if (bad) return { why: bad };
  const real = (p: string): string | undefined => { try { return realpathSync(p); } catch { return undefined; } };
  const own = real(join(root, SOCKET_DIR));
  if (own !== undefined && real(dir) === own && basename(socket) === basename(SOCKET_FILE)) return { info };
  // a root too deep for .memtier/run/: memtier-HASH.sock in a private folder of the owner
  if (/^memtier-[0-9a-f]{16}\.sock$/.test(basename(socket)) && (dst.mode & 0o077) === 0) return { info };
  return { why: `the socket ${socket} is neither in ${SOCKET_DIR}/ nor in a private folder of the owner` };
}

/**
 * Send one request and read its reply: undefined when nobody accepts it (`A`) within acceptMs, or
 * replies within replyMs after that, or when the request is over MAX_REQUEST_BYTES. node:net is
 * loaded here, only when a server is announced.
 */
export function ask(socket: string, req: Request, acceptMs: number, replyMs = acceptMs): Promise<Reply | undefined> {
  const line = JSON.stringify(req) + '\n';
  // a server reads no longer line: the caller runs it itself
  if (Buffer.byteLength(line) > MAX_REQUEST_BYTES) return Promise.resolve(undefined);
  const { connect } = process.getBuiltinModule('node:net') as typeof import('node:net');
  return new Promise((done) => {
    let settled = false;
    const finish = (r: Reply | undefined): void => { if (!settled) { settled = true; clearTimeout(timer); s.destroy(); done(r); } };
    let timer = setTimeout(() => finish(undefined), acceptMs);
    const s = connect(socket);
    s.on('error', () => finish(undefined));
    s.on('close', () => finish(undefined));
    s.on('connect', () => s.write(line));
    const lines = lineReader(Infinity);
    s.on('data', (d: Buffer) => {
      for (const line of lines(d)) {
        if (line === 'A') {
          clearTimeout(timer);
          timer = setTimeout(() => finish(undefined), replyMs);
          continue;
        }
        try { finish(JSON.parse(line) as Reply); } catch { finish(undefined); }
      }
    });
  });
}

/**
 * Lines of a byte stream, each decoded whole (a character split between two chunks stays one),
 * looking for the newline in each new chunk only: a long line costs its length once, not once per
 * chunk. A line that grows past `max` bytes is not kept: `onOver` gets its first KiB as soon as it
 * passes the limit, the rest of it is skipped up to its newline, and the lines after it are read.
 */
export function lineReader(max: number, onOver: (head: Buffer) => void = () => undefined): (chunk: Buffer) => string[] {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  return (chunk) => {
    const out: string[] = [];
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl < 0 ? chunk.length : nl;
      if (!skipping) {
        if (size + end - from > max) {
          const head = Buffer.concat([...parts, chunk.subarray(from, Math.min(end, from + 1024))]).subarray(0, 1024);
          parts = [];
          size = 0;
          skipping = true;
          onOver(head);
        } else if (nl >= 0) {
          parts.push(chunk.subarray(from, nl));
          out.push(Buffer.concat(parts).toString('utf8'));
          parts = [];
          size = 0;
        } else if (end > from) {
          parts.push(chunk.subarray(from));
          size += end - from;
        }
      }
      if (nl < 0) return out;
      skipping = false; // the line (kept or skipped) ends here
      from = nl + 1;
    }
  };
}

/** A string as the standard input main() reads (lib/cli/stdin.ts iterates it). */
export function textStream(text: string): NodeJS.ReadableStream {
  return { async *[Symbol.asyncIterator]() { yield Buffer.from(text, 'utf8'); } } as unknown as NodeJS.ReadableStream;
}

/** The build this code comes from (a server started before `npm run build` never answers for newer code). */
export { buildId } from '../core/version.js';
