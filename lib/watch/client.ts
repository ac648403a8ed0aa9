/**
 * The CLI's side of `memtier watch`: hand a search or recall to the server of its memory root when
 * one runs, else let the CLI run it itself. Loaded by bin/memtier.js before anything else (bundled
 * alone as dist/cli/_client.js), so it stays small: node:net is loaded only when a server is
 * announced.
 *
 * A server is asked only when its announcement and socket are the owner's alone (another local
 * user's would read the query and answer it); otherwise the CLI runs the command itself, silently.
 *
 * MEMTIER_WATCH: `off` never asks a server; `require` fails (exit 2) instead of running locally
 * when no server answers (tests, and users who want to know).
 */
import { readFileSync } from 'node:fs';
import { ask, buildId, MAX_REQUEST_BYTES, requestEnvOf, rootOf, SERVED_COMMANDS, textStream, trustedWatchInfo, type RunRequest } from './protocol.js';

export interface Delegated { code: number; out: string; err: string }

/** Standard input read for a request (`recall --messages -`), for the CLI to use when it runs the call itself. */
let stdinText: string | undefined;
export function consumedStdin(): NodeJS.ReadableStream | undefined {
  return stdinText === undefined ? undefined : textStream(stdinText);
}

/** How long a server may take to accept a request before the CLI runs it itself. */
const ACCEPT_MS = 1000;
/** How long an accepted request may take (an index rebuild of a large memory included). */
const REPLY_MS = 120_000;

/**
 * Run `argv` through the root's server; undefined when it should run locally (no server, another
 * build, a declined request, a server that does not accept in time).
 */
export async function delegate(command: string, argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Delegated | undefined> {
  const mode = env.MEMTIER_WATCH;
  if (mode === 'off' || !SERVED_COMMANDS.has(command)) return undefined;
  if (argv.includes('--help') || argv.includes('-h')) return undefined; // help needs no memory
  const dash = argv.indexOf('-');
  const wantsStdin = dash > 0 && argv[dash - 1] === '--messages' || argv.includes('--messages=-');
  if (dash >= 0 && !wantsStdin) return undefined;
  const required = (why: string): Delegated | undefined =>
    mode === 'require' ? { code: 2, out: '', err: `memtier: MEMTIER_WATCH=require, but ${why}\n  fix: start "memtier watch" for this memory, or unset MEMTIER_WATCH\n` } : undefined;
  const root = rootOf(argv, env, cwd);
  // another local user must not be the one answering (nor reading the conversation): a server is
  // asked only when its announcement and its socket are the owner's alone (protocol.ts)
  const announced = trustedWatchInfo(root);
  if (!announced) return required(`no memtier watch is announced for ${root}`);
  if ('why' in announced) return required(`the memtier watch announced for ${root} is not trusted: ${announced.why}`);
  const info = announced.info;
  const build = buildId();
  if (info.build !== build || build === 'unknown') return required(`the memtier watch of ${root} runs another build (restart it)`);
  // only the variables a search or recall reads travel (the server ignores any other)
  const req: RunRequest = { op: 'run', build, command, argv, env: requestEnvOf(env), cwd };
  // `recall --messages -`: the server cannot read this process's stdin, so it travels with the request
  if (wantsStdin) {
    try { req.stdin = stdinText = readFileSync(0, 'utf8'); } catch { return required('standard input could not be read for it'); }
  }
  if (Buffer.byteLength(JSON.stringify(req)) + 1 > MAX_REQUEST_BYTES) return required(`the request is over the ${MAX_REQUEST_BYTES >> 20} MiB a memtier watch reads`);
  const reply = await ask(info.socket, req, ACCEPT_MS, REPLY_MS);
  if (!reply) return required(`the memtier watch of ${root} (pid ${info.pid}) does not answer`);
  if (!reply.ok) return required(`the memtier watch of ${root} declined: ${reply.decline}`);
  if (!('code' in reply)) return required('the memtier watch sent an unexpected reply');
  return { code: reply.code, out: reply.out, err: reply.err };
}
