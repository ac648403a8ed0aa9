/**
 * What `memtier watch` and the CLI agree on: where the server of a memory root is announced
 * (.memtier/watch.json), its socket, the build both must come from, and the messages.
 *
 * One request per connection, each a line of JSON: the client sends a request, the server answers
 * `A` at once (accepted: it is alive and will run it), then one reply line, then closes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
export type Request = RunRequest | StatusRequest | StopRequest;

export type Reply =
  | { ok: true; code: number; out: string; err: string }
  | { ok: true; status: unknown }
  | { ok: false; decline: string };

export function readWatchInfo(root: string): WatchInfo | undefined {
  let text: string;
  try { text = readFileSync(join(root, WATCH_FILE), 'utf8'); } catch { return undefined; }
  try {
    const w = JSON.parse(text) as WatchInfo;
    return typeof w.pid === 'number' && typeof w.socket === 'string' && typeof w.build === 'string' ? w : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Send one request and read its reply: undefined when nobody accepts it (`A`) within acceptMs, or
 * replies within replyMs after that. node:net is loaded here, only when a server is announced.
 */
export function ask(socket: string, req: Request, acceptMs: number, replyMs = acceptMs): Promise<Reply | undefined> {
  const { connect } = process.getBuiltinModule('node:net') as typeof import('node:net');
  return new Promise((done) => {
    let buf = '';
    let settled = false;
    const finish = (r: Reply | undefined): void => { if (!settled) { settled = true; clearTimeout(timer); s.destroy(); done(r); } };
    let timer = setTimeout(() => finish(undefined), acceptMs);
    const s = connect(socket);
    s.on('error', () => finish(undefined));
    s.on('close', () => finish(undefined));
    s.on('connect', () => s.write(JSON.stringify(req) + '\n'));
    s.on('data', (d) => {
      buf += d.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
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

/** A string as the standard input main() reads (lib/cli/stdin.ts iterates it). */
export function textStream(text: string): NodeJS.ReadableStream {
  return { async *[Symbol.asyncIterator]() { yield Buffer.from(text, 'utf8'); } } as unknown as NodeJS.ReadableStream;
}

/** The build this code comes from (a server started before `npm run build` never answers for newer code). */
export { buildId } from '../core/version.js';
