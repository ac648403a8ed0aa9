/**
 * The progress of an index build: `indexing memory: 4,000/10,001 files, 2,150 files/s, about 3 s
 * left` (lib/core/progress.ts: silent for the first second, a status line on a terminal, a line
 * every 5 s in a log).
 */
import type { ProgressSink } from '../core/context.js';
import { fileProgress, type FileProgress } from '../core/progress.js';

export type BuildProgress = FileProgress;

export function buildProgress(sink: ProgressSink | undefined, total: number, env: NodeJS.ProcessEnv = {}, now: () => number = () => performance.now()): BuildProgress {
  return fileProgress(sink, total, { doing: 'indexing memory', did: 'indexed memory' }, env, now);
}
