/**
 * An index build's worker thread (started by index-pool.ts, never loaded by a search): reads and
 * encodes batches of memory files (term-coder.ts) with a dictionary of its own, and answers each
 * batch with its files' entry counts (−1: unreadable), the terms it numbered since its last answer,
 * and where its encoded entries are: one of two buffers shared with the build (SharedArrayBuffer),
 * used in turn, a new one sent only when the batch outgrows it. The build is done with a batch
 * before it sends the one that reuses its buffer (index-pool.ts), and no buffer per batch is
 * allocated in one thread and freed in the other (each such buffer stayed in the worker's malloc
 * arena: at 50,000 notes ~3 MB of the process's peak). When its dictionary holds more than
 * `maxTerms` terms it is emptied before the next batch, and the answer says so (`reset`).
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import { readMemoryText } from './corpus.js';
import { Dictionary, IntList, TermCoder } from './term-coder.js';
import { setCjkMode } from './tokenize.js';

export interface WorkerInit { root: string; port: MessagePort; ctl: Int32Array; slot: number; cjk: string; maxTerms: number }
export interface BatchAnswer {
  reset: boolean;
  terms: string[];
  entries: Int32Array;
  /** Which of the two shared buffers holds the batch (from its start, as the entry counts say). */
  buffer: number;
  /** That buffer, when it is new (the last one sent for `buffer` otherwise). */
  grown?: Int32Array;
  error?: string;
}

const { root, port, ctl, slot, cjk, maxTerms } = workerData as WorkerInit;
if (cjk === 'icu' || cjk === 'bigram') setCjkMode(cjk);
const dict = new Dictionary();
const coder = new TermCoder(dict, 17);
let sent = 0;
const out = new IntList(64 * 1024);
const shared: (Int32Array | undefined)[] = [undefined, undefined];
let batches = 0;

port.on('message', (paths: string[]) => {
  let answer: BatchAnswer;
  try {
    let reset = false;
    if (dict.size > maxTerms) { coder.reset(); sent = 0; reset = true; }
    out.n = 0;
    const entries = new Int32Array(paths.length);
    for (let i = 0; i < paths.length; i++) {
      const r = readMemoryText(root, paths[i]!);
      entries[i] = r ? coder.encodeFile(paths[i]!, r.text, out) : -1;
    }
    const terms = dict.termsFrom(sent);
    sent = dict.size;
    const buffer = batches++ & 1;
    let buf = shared[buffer];
    let grown: Int32Array | undefined;
    if (!buf || buf.length < out.n) buf = shared[buffer] = grown = new Int32Array(new SharedArrayBuffer(4 * Math.max(out.n, 2 * (buf?.length ?? 0))));
    buf.set(out.view());
    answer = { reset, terms, entries, buffer, ...(grown ? { grown } : {}) };
    port.postMessage(answer, [entries.buffer]);
  } catch (e) {
    port.postMessage({ error: String(e) });
  }
  // the main thread waits on this counter (it blocks: it cannot take a message event)
  Atomics.add(ctl, slot, 1);
  Atomics.notify(ctl, slot);
});
