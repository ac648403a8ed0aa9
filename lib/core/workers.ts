/**
 * When a long pass over a large memory (an index build, health's first run) takes a worker thread
 * beside the main thread, and where the worker's module is. One rule for both: a worker only pays
 * when there is enough text to share and a core that nothing else is using.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Most workers. */
const MAX_WORKERS = 4;
/** How long the CPUs are watched to tell whether a core is idle (machine()). */
const IDLE_SAMPLE_MS = 50;
/**
 * Most files a pass takes a worker for unasked. A worker adds ~30-35 MB to the process's peak
 * (its V8 heap and its thread's malloc arena); the main thread's peak, with the young generation
 * held small (core/heap.ts), is ~70 MB plus ~1.6 MB per 1,000 files (147-152 MB at 50,000 notes):
 * up to ~60,000 files the two stay under the 200 MB ceiling (182 MB at 50,000).
 */
export const AUTO_WORKER_FILES = 60_000;
/** Least text a pass takes a worker for unasked: below it, starting the worker (~30-50 ms) costs more than it saves. */
export const AUTO_WORKER_BYTES = 4 * 1024 * 1024;

/** The cores this process may use, and how many of them other work keeps busy. */
export interface Host { cores: number; load: number }

/**
 * How many workers a pass uses: the variable `name` of `env` when set (0 = none, at most
 * MAX_WORKERS); else one, beside the main thread's own share, when the pass has at least
 * AUTO_WORKER_BYTES of text in at most AUTO_WORKER_FILES files and a core is idle for it (two or
 * more, and other work keeping at most their count less 1.5 busy now: this thread and the worker
 * need one each); else none. On a loaded machine a worker only takes CPU from the rest (two
 * workers without a share of the main thread gave an index build no wall time back at load 4 and
 * 12-26), hence the load test. `host` is asked only when it matters (it may take IDLE_SAMPLE_MS).
 */
export function poolSize(env: NodeJS.ProcessEnv, name: string, pass: { files: number; bytes: number }, host: Host | (() => Host) = machine): number {
  const forced = env[name];
  if (forced !== undefined && forced !== '' && Number.isInteger(Number(forced))) return Math.max(0, Math.min(MAX_WORKERS, Number(forced)));
  if (pass.bytes < AUTO_WORKER_BYTES || pass.files > AUTO_WORKER_FILES) return 0;
  const h = typeof host === 'function' ? host() : host;
  return h.cores >= 2 && h.load <= h.cores - 1.5 ? 1 : 0;
}

/** The CPUs' ticks (idle and all), summed over the cores. */
function ticks(os: typeof import('node:os')): { idle: number; all: number } {
  let idle = 0;
  let all = 0;
  for (const c of os.cpus()) { const t = c.times; idle += t.idle; all += t.user + t.nice + t.sys + t.idle + t.irq; }
  return { idle, all };
}

/**
 * The cores this process may use, and how many of them other work keeps busy now: the CPUs' busy
 * share over IDLE_SAMPLE_MS (os.cpus() before and after, this thread asleep) times the cores. Not
 * the one-minute load average: right after a build (or any minute of work of this process's own)
 * it reads 1 on an idle machine, and a next build would then go without its worker.
 */
export function machine(): Host {
  const os = process.getBuiltinModule('node:os') as typeof import('node:os');
  const cores = os.availableParallelism();
  if (cores < 2) return { cores, load: cores };
  const a = ticks(os);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, IDLE_SAMPLE_MS);
  const b = ticks(os);
  const all = b.all - a.all;
  return { cores, load: all > 0 ? cores * (1 - (b.idle - a.idle) / all) : 0 };
}

/**
 * machine() measured over work this process does anyway instead of a sleep: watch() starts the
 * watch, and the Host it returns, asked at least IDLE_SAMPLE_MS later, is the load of everything
 * but this process (its own CPU time over the same span taken out). Asked sooner, it sleeps the rest.
 */
export function watchMachine(): () => Host {
  const os = process.getBuiltinModule('node:os') as typeof import('node:os');
  const cores = os.availableParallelism();
  const t0 = performance.now();
  const a = ticks(os);
  const own0 = process.cpuUsage();
  return () => {
    if (cores < 2) return { cores, load: cores };
    const left = IDLE_SAMPLE_MS - (performance.now() - t0);
    if (left > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, left);
    const b = ticks(os);
    const own = process.cpuUsage(own0);
    const all = b.all - a.all;
    if (all <= 0) return { cores, load: 0 };
    // ticks are in ms summed over the cores: the span's wall time is all / cores
    const busy = cores * (1 - (b.idle - a.idle) / all);
    const mine = (own.user + own.system) / 1000 / (all / cores);
    return { cores, load: Math.max(0, busy - mine) };
  };
}

/** The first of `names` (a worker's module) that exists beside the module at `base` (its import.meta.url), if built. */
export function workerUrl(base: string, names: readonly string[]): URL | undefined {
  for (const name of names) {
    const u = new URL(name, base);
    try { if (existsSync(fileURLToPath(u))) return u; } catch { /* not a file URL */ }
  }
  return undefined;
}
