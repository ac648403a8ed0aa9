/**
 * What `memtier watch` and the CLI agree on: where the server of a memory root is announced
 * (.memtier/watch.json), its socket, the build both must come from, and the messages.
 *
 * One request per connection, each a line of JSON: the client sends a request, the server answers
 * `A` at once (accepted: it is alive and will run it), then one reply line, then closes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WATCH_FILE = '.memtier/watch.json';

/** Commands a server runs on behalf of the CLI (the per-turn reads of an agent). */
export const SERVED_COMMANDS = new Set(['search', 'recall']);

/**
 * Environment variables that set process-wide state in the server (the tokenizer's CJK mode, the
 * local time zone): a request whose values differ is declined and runs in the CLI's own process.
 */
export const PROCESS_ENV = ['MEMTIER_CJK', 'TZ'] as const;

export interface WatchInfo {
  pid: number;
  socket: string;
  /** The build the server runs (buildId()). */
  build: string;
  version: string;
  root: string;
  started: string;
}

export interface RunRequest { op: 'run'; build: string; command: string; argv: string[]; env: Record<string, string>; cwd: string; /** Standard input, for `--messages -`. */ stdin?: string }
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

let cachedBuild: string | undefined;

/**
 * The build this code comes from: dist/build-id, written by scripts/bundle.mjs on every build, so
 * a server started before `npm run build` never answers for newer code. 'unknown' when missing.
 */
export function buildId(): string {
  if (cachedBuild !== undefined) return cachedBuild;
  cachedBuild = 'unknown';
  // dist/cli/_client.js, dist/lib/watch/protocol.js, lib/watch/protocol.ts (tests)
  for (const up of ['../build-id', '../../build-id', '../../dist/build-id']) {
    try {
      cachedBuild = readFileSync(fileURLToPath(new URL(up, import.meta.url)), 'utf8').trim() || 'unknown';
      break;
    } catch { /* next */ }
  }
  return cachedBuild;
}
