/**
 * An index build's worker thread (started by index-pool.ts, never loaded by a search): reads and
 * encodes batches of memory files (term-coder.ts) with a dictionary of its own, and answers each
 * batch with its files' entry counts (−1: unreadable), their encoded entries (transferred, not
 * copied), and the terms it numbered since its last answer. When its dictionary holds more than
 * `maxTerms` terms it is emptied before the next batch, and the answer says so (`reset`).
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import { readMemoryText } from './corpus.js';
import { Dictionary, IntList, TermCoder } from './term-coder.js';
import { setCjkMode } from './tokenize.js';

export interface WorkerInit { root: string; port: MessagePort; ctl: Int32Array; slot: number; cjk: string; maxTerms: number }
export interface BatchAnswer { reset: boolean; terms: string[]; entries: Int32Array; data: Int32Array; error?: string }

const { root, port, ctl, slot, cjk, maxTerms } = workerData as WorkerInit;
if (cjk === 'icu' || cjk === 'bigram') setCjkMode(cjk);
const dict = new Dictionary();
const coder = new TermCoder(dict, 17);
let sent = 0;

port.on('message', (paths: string[]) => {
  let answer: BatchAnswer;
  try {
    let reset = false;
    if (dict.size > maxTerms) { coder.reset(); sent = 0; reset = true; }
    const out = new IntList(64 * 1024);
    const entries = new Int32Array(paths.length);
    for (let i = 0; i < paths.length; i++) {
      const r = readMemoryText(root, paths[i]!);
      entries[i] = r ? coder.encodeFile(paths[i]!, r.text, out) : -1;
    }
    const terms = dict.termsFrom(sent);
    sent = dict.size;
    const data = out.view().slice();
    answer = { reset, terms, entries, data };
    port.postMessage(answer, [data.buffer, entries.buffer]);
  } catch (e) {
    port.postMessage({ error: String(e) });
  }
  // the main thread waits on this counter (it blocks: it cannot take a message event)
  Atomics.add(ctl, slot, 1);
  Atomics.notify(ctl, slot);
});
