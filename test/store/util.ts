/** Helpers shared by the store tests. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { openStore, type Store } from '../../lib/store/store.js';
import { makeClock } from '../../lib/core/clock.js';
import { MemtierError } from '../../lib/core/errors.js';
import { FIXED_NOW, REPO } from '../helpers.js';

export const WORKER = join(REPO, 'test', 'store', 'worker.mjs');

export function store(root: string, env: NodeJS.ProcessEnv = {}): Store {
  return openStore({ root, env, clock: makeClock({ now: FIXED_NOW, tz: 'UTC' }) });
}

/** Run `fn` and return the MemtierError it throws (fails the test if it does not throw one). */
export function thrown(fn: () => unknown): MemtierError {
  try {
    fn();
  } catch (e) {
    if (e instanceof MemtierError) return e;
    throw new Error(`expected a MemtierError, got ${String(e)}`);
  }
  throw new Error('expected a MemtierError, nothing was thrown');
}

/** Every file under `dir` (path → sha256 of its bytes), including dot folders. */
export function snapshotBytes(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const d of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(r);
      else if (d.isFile()) out.set(r, createHash('sha256').update(readFileSync(join(dir, r))).digest('hex'));
    }
  };
  if (existsSync(dir)) walk('');
  return out;
}

/** Compile dist/ once per test file (the workers import the compiled store). */
export function buildDist(): void {
  const r = spawnSync('npx', ['tsc', '-p', '.'], { cwd: REPO, encoding: 'utf8' });
  // Errors in files other helpers are editing do not stop the emit; the store must be there.
  if (!existsSync(join(REPO, 'dist', 'lib', 'store', 'store.js'))) throw new Error(`tsc did not emit the store:\n${r.stdout}${r.stderr}`);
}

export interface WorkerResult { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; acks: string[] }

/** Run test/store/worker.mjs in a child process (async, so several can run at once). */
export function runWorker(args: string[], env: NodeJS.ProcessEnv = {}, shell?: string): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const cmd = shell ? 'bash' : process.execPath;
    const argv = shell ? ['-c', `${shell}; exec "$0" "$@"`, process.execPath, WORKER, ...args] : [WORKER, ...args];
    const child = spawn(cmd, argv, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => { stdout += s; });
    child.stderr.setEncoding('utf8').on('data', (s: string) => { stderr += s; });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const acks = stdout.split('\n').filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
      resolve({ code, signal, stdout, stderr, acks });
    });
  });
}

/** Ids (`^id` at line end) of every line of a log, in order. */
export function idsOf(text: string): string[] {
  return text.split('\n').map((l) => /\^([A-Za-z0-9-]+)$/.exec(l)?.[1]).filter((x): x is string => x !== undefined);
}
