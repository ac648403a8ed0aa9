/**
 * The CLI's side of `memtier watch`: hand a search or recall to the server of its memory root when
 * one runs, else let the CLI run it itself. Loaded by bin/memtier.js before anything else (bundled
 * alone as dist/cli/_client.js), so it stays small: node:net is loaded only when a server is
 * announced.
 *
 * MEMTIER_WATCH: `off` never asks a server; `require` fails (exit 2) instead of running locally
 * when no server answers (tests, and users who want to know).
 */
import { readFileSync } from 'node:fs';
import { resolveRoot } from '../core/root.js';
import { buildId, readWatchInfo, SERVED_COMMANDS, type Reply, type RunRequest } from './protocol.js';

export interface Delegated { code: number; out: string; err: string }

/** Standard input read for a request (`recall --messages -`), for the CLI to use when it runs the call itself. */
let stdinText: string | undefined;
export function consumedStdin(): string | undefined {
  return stdinText;
}

/** How long a server may take to accept a request before the CLI runs it itself. */
const ACCEPT_MS = 1000;
/** How long an accepted request may take (an index rebuild of a large memory included). */
const REPLY_MS = 120_000;

/** The memory root chosen as the CLI would (lib/core/root.ts), from --root DIR / --root=DIR or the environment. */
function rootOf(argv: string[], env: NodeJS.ProcessEnv, cwd: string): string {
  let flag: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--root' && i + 1 < argv.length) flag = argv[++i];
    else if (a.startsWith('--root=')) flag = a.slice(7);
  }
  return resolveRoot({ flag, env, cwd }).root;
}

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
  const info = readWatchInfo(root);
  if (!info) return required(`no memtier watch is announced for ${root}`);
  const build = buildId();
  if (info.build !== build || build === 'unknown') return required(`the memtier watch of ${root} runs another build (restart it)`);
  const penv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) penv[k] = v;
  const req: RunRequest = { op: 'run', build, command, argv, env: penv, cwd };
  // `recall --messages -`: the server cannot read this process's stdin, so it travels with the request
  if (wantsStdin) req.stdin = stdinText = readFileSync(0, 'utf8');
  const reply = await exchange(info.socket, req);
  if (!reply) return required(`the memtier watch of ${root} (pid ${info.pid}) does not answer`);
  if (!reply.ok) return required(`the memtier watch of ${root} declined: ${reply.decline}`);
  if (!('code' in reply)) return required('the memtier watch sent an unexpected reply');
  return { code: reply.code, out: reply.out, err: reply.err };
}

function exchange(socket: string, req: RunRequest): Promise<Reply | undefined> {
  const { connect } = process.getBuiltinModule('node:net') as typeof import('node:net');
  return new Promise((done) => {
    let buf = '';
    let accepted = false;
    let settled = false;
    const finish = (r: Reply | undefined): void => { if (!settled) { settled = true; clearTimeout(timer); s.destroy(); done(r); } };
    let timer = setTimeout(() => finish(undefined), ACCEPT_MS);
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
        if (line === 'A' && !accepted) {
          accepted = true;
          clearTimeout(timer);
          timer = setTimeout(() => finish(undefined), REPLY_MS);
          continue;
        }
        try { finish(JSON.parse(line) as Reply); } catch { finish(undefined); }
      }
    });
  });
}
