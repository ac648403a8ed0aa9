/**
 * Progress of a long pass over the memory's files: `indexing memory: 4,000/10,001 files, 2,150
 * files/s, about 3 s left` (the index build), `checking memory: …` (health's first pass),
 * `reading memory: …` (consolidate, dream, palace, topics). Nothing during the first second
 * (MEMTIER_PROGRESS_AFTER_MS, for tests), so a small memory stays silent; then on a terminal a
 * status line rewritten every 100 ms and cleared at the end, and in a log (`memtier watch`) a line
 * every 5 s and one when done. No sink (a pipe, --json, --quiet): nothing at all.
 */
import type { ProgressSink } from './context.js';

export interface FileProgress {
  /** `done` files of the total are through. */
  tick(done: number): void;
  /** The count starts again (the pass falls back to another way). */
  restart(): void;
  /** The pass ended (clears the terminal line, logs the total). */
  done(): void;
}

/** What a pass says while it runs and when it is done. */
export interface ProgressWords { doing: string; did: string }

const AFTER_MS = 1000;
/** 12,345 (an Intl.NumberFormat costs milliseconds to create: only once a pass shows progress). */
let nfmt: Intl.NumberFormat | undefined;
const nf = { format: (n: number): string => (nfmt ??= new Intl.NumberFormat('en-US')).format(n) };

const SILENT: FileProgress = { tick() {}, restart() {}, done() {} };

export function fileProgress(sink: ProgressSink | undefined, total: number, words: ProgressWords, env: NodeJS.ProcessEnv = {}, now: () => number = () => performance.now()): FileProgress {
  if (!sink) return SILENT;
  const after = env.MEMTIER_PROGRESS_AFTER_MS !== undefined && Number.isFinite(Number(env.MEMTIER_PROGRESS_AFTER_MS)) ? Number(env.MEMTIER_PROGRESS_AFTER_MS) : AFTER_MS;
  const every = sink.mode === 'tty' ? 100 : 5000;
  let t0 = now();
  let last = -Infinity;
  let shown = false;
  let n = 0;
  const line = (t: number): string => {
    const s = Math.max(t - t0, 1) / 1000;
    const rate = n / s;
    const left = rate > 0 ? Math.ceil((total - n) / rate) : 0;
    return `${words.doing}: ${nf.format(n)}/${nf.format(total)} files, ${nf.format(Math.round(rate))} files/s, about ${left} s left`;
  };
  return {
    tick(done) {
      n = done;
      if (n % 16 !== 0 && n !== total) return; // the clock is read every 16 files
      const t = now();
      if (t - t0 < after || t - last < every) return;
      last = t;
      shown = true;
      sink.write(line(t));
    },
    restart() { t0 = now(); n = 0; },
    done() {
      if (!shown) return;
      const s = ((now() - t0) / 1000).toFixed(1);
      sink.write(sink.mode === 'tty' ? '' : `${words.did}: ${nf.format(n)} files in ${s} s`);
    },
  };
}
