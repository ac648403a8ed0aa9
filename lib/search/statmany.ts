/**
 * Stat many files, on both cores when there are enough of them.
 *
 * The never-stale rule stats every memory file before a search, and the stat system call is the
 * floor: on the CI machine 10,000 stats cost ~30-45 ms even from C (`find -printf`). Above
 * PARALLEL_STAT_MIN files a worker thread shares the list with the main thread: both claim chunks
 * from one atomic counter and write into shared arrays. A worker needs ~50 ms before it runs
 * code, so it only pays off on large memories; below the threshold (and if the worker cannot
 * start) the main thread does it all, the same result either way.
 */
import { lstatSync } from 'node:fs';

/** Files from which a worker thread helps (MEMTIER_PARALLEL_STAT_MIN overrides; 0 = never). */
export const PARALLEL_STAT_MIN = 20_000;
const CHUNK = 256;
const NOENT = { throwIfNoEntry: false } as const;

export interface ManyStats {
  /** mtimeMs per path; -1 when the path is missing or not a regular file (a symbolic link is not followed). */
  mtimeMs: Float64Array;
  size: Float64Array;
  /** Whether a worker thread took part (for tests and benchmarks). */
  parallel: boolean;
}

// The worker: same loop as the main thread's. CommonJS through eval, so nothing is resolved.
const WORKER = `
const { workerData: w } = require('node:worker_threads');
const { lstatSync } = require('node:fs');
const paths = w.paths.split('\\n');
const ctl = new Int32Array(w.ctl);
const chunkDone = new Int32Array(w.chunkDone);
const mt = new Float64Array(w.mt);
const sz = new Float64Array(w.sz);
for (;;) {
  const from = Atomics.add(ctl, 0, ${CHUNK});
  if (from >= paths.length) break;
  const to = Math.min(from + ${CHUNK}, paths.length);
  for (let i = from; i < to; i++) {
    const st = lstatSync(w.prefix + paths[i], { throwIfNoEntry: false });
    if (st && st.isFile()) { mt[i] = st.mtimeMs; sz[i] = st.size; } else mt[i] = -1;
  }
  Atomics.store(chunkDone, from / ${CHUNK}, 1);
  Atomics.add(ctl, 1, to - from);
  Atomics.notify(ctl, 1);
}`;

/** Stat `prefix + p` for every p of `paths`. */
export function statMany(prefix: string, paths: string[], env: NodeJS.ProcessEnv = {}): ManyStats {
  const n = paths.length;
  const min = env.MEMTIER_PARALLEL_STAT_MIN !== undefined ? Number(env.MEMTIER_PARALLEL_STAT_MIN) : PARALLEL_STAT_MIN;
  const shared = min > 0 && n >= min && typeof SharedArrayBuffer === 'function';
  const buf = (bytes: number): ArrayBufferLike => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  const mtimeMs = new Float64Array(buf(8 * n));
  const size = new Float64Array(buf(8 * n));
  const ctl = new Int32Array(buf(8)); // [next index to claim, paths done]
  const chunkDone = new Int32Array(buf(4 * Math.ceil(n / CHUNK)));
  const statRange = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const st = lstatSync(prefix + paths[i]!, NOENT);
      if (st && st.isFile()) { mtimeMs[i] = st.mtimeMs; size[i] = st.size; } else mtimeMs[i] = -1;
    }
    Atomics.store(chunkDone, from / CHUNK, 1);
    Atomics.add(ctl, 1, to - from);
  };
  let worker: { terminate(): Promise<number> } | undefined;
  if (shared) {
    try {
      const { Worker } = process.getBuiltinModule('node:worker_threads') as typeof import('node:worker_threads');
      const w = new Worker(WORKER, { eval: true, workerData: { prefix, paths: paths.join('\n'), ctl: ctl.buffer, chunkDone: chunkDone.buffer, mt: mtimeMs.buffer, sz: size.buffer } });
      w.unref();
      worker = w;
    } catch { /* no worker: the main thread does it all */ }
  }
  for (;;) {
    const from = Atomics.add(ctl, 0, CHUNK);
    if (from >= n) break;
    statRange(from, Math.min(from + CHUNK, n));
  }
  // Chunks the worker claimed and has not finished: wait while it makes progress; if it stalls
  // (it died, or the machine is starved for a second), stat what is left here (stats are idempotent).
  for (let done = Atomics.load(ctl, 1); done < n; ) {
    Atomics.wait(ctl, 1, done, 1_000);
    const now = Atomics.load(ctl, 1);
    if (now === done) {
      for (let c = 0; c < chunkDone.length; c++) if (!Atomics.load(chunkDone, c)) statRange(c * CHUNK, Math.min((c + 1) * CHUNK, n));
      break;
    }
    done = now;
  }
  if (worker) void worker.terminate();
  return { mtimeMs, size, parallel: worker !== undefined };
}
