/**
 * `memtier mcp`'s first index build, on a worker thread: the server answers the protocol
 * (initialize, tools/list, pings) while the memory's index cache is built or brought up to date
 * here, as any CLI search would (search/cache.ts openIndex: the cache written to .memtier/index).
 * The server then opens that cache, warm (lib/watch/warm.ts), in a moment.
 *
 * Messages to the server: `{ progress: { done, total } }` as the build goes (the files indexed of
 * the total), then `{ done: true }`; a failure ends the thread with its error (the server then
 * builds on its own thread, as before).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Ctx } from '../core/context.js';

export interface IndexWorkerInit { root: string; env: Record<string, string>; tz: string; nowMs?: number | undefined }
export type IndexWorkerMessage = { progress: { done: number; total: number } } | { done: true };

const init = workerData as IndexWorkerInit;
const post = (m: IndexWorkerMessage): void => parentPort?.postMessage(m);
const ctx: Ctx = {
  root: init.root,
  clock: { tz: init.tz, now: () => (init.nowMs === undefined ? new Date() : new Date(init.nowMs)) },
  log: {
    info() {},
    warn() {},
    // the build's status line (search/progress.ts), often: "indexing memory: 4,000/10,001 files, …"
    progress: {
      mode: 'tty',
      write(line: string) {
        const m = /([\d,]+)\/([\d,]+) files/.exec(line);
        if (m) post({ progress: { done: Number(m[1]!.replace(/,/g, '')), total: Number(m[2]!.replace(/,/g, '')) } });
      },
    },
  },
  env: init.env,
  cwd: init.root,
  interactive: false,
};
const { openIndex } = await import('../search/cache.js');
openIndex(ctx);
post({ done: true });
