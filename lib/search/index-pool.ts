/**
 * An index build's files read and encoded on worker threads (index-worker.ts), handed to the
 * build in file order: the build is the same, byte for byte, as one made in the main thread.
 *
 * The files are cut into batches of about BATCH_BYTES, dealt to the workers in turn (batch i to
 * worker i mod W), at most two per worker ahead of the build. The build's code is synchronous, so
 * the main thread cannot take message events: it blocks on a shared counter each worker bumps
 * after answering (Atomics.wait) and takes the answer with receiveMessageOnPort. A worker's term
 * numbers are translated to the build's through a table per worker (its new terms come with each
 * answer). A worker that fails, or says nothing for STALL_MS, ends the pool: the caller encodes
 * the files left itself (the same result). Only a build loads this module's workers; a search
 * never does.
 */
import { AUTO_WORKER_BYTES, AUTO_WORKER_FILES, poolSize as workersFor, workerUrl as findWorker, type Host } from '../core/workers.js';
import type { MessagePort, Worker } from 'node:worker_threads';
import type { Dictionary } from './term-coder.js';
import type { BatchAnswer, WorkerInit } from './index-worker.js';

export { AUTO_WORKER_BYTES, AUTO_WORKER_FILES };

/** Text per batch (bytes). */
const BATCH_BYTES = 256 * 1024;
const BATCH_FILES = 256;
/** A worker silent this long is given up (the build goes on in the main thread). */
const STALL_MS = 15_000;
/** Terms a worker keeps numbered (its memory stays bounded; it empties its dictionary past them). */
const MAX_TERMS = 10_000;
/** A worker's young generation (MB; V8's default lets it grow to 48). */
const YOUNG_MB = 2;
/** The worker's module beside this one (the bundle's dist/cli/_index-worker.js, or dist/lib/search/index-worker.js), if built. */
export const workerUrl = (): URL | undefined => findWorker(import.meta.url, ['./_index-worker.js', './index-worker.js']);

/**
 * How many workers an index build uses (core/workers.ts; MEMTIER_INDEX_WORKERS). Measured on the
 * 2-core machine, quiet, 10,000 notes: 4.0-4.2 s → 3.5-3.8 s wall (CPU 4.6 → 6.3 s: the two
 * threads slow each other), 120 → 137-151 MB.
 */
export const poolSize = (env: NodeJS.ProcessEnv = {}, build: { files: number; bytes: number } = { files: 0, bytes: 0 }, host?: Host): number => workersFor(env, 'MEMTIER_INDEX_WORKERS', build, host);

export interface PoolFile { path: string; size: number }

export interface PoolOptions {
  count: number;
  /** The worker's module (workerUrl()). */
  url: URL;
  /** The tokenizer's CJK setting (tokenizerConfigKey()), for the workers to tokenize alike. */
  cjk: string;
  /** For tests: how long a silent worker is waited for, its dictionary's bound, the batches' size. */
  stallMs?: number;
  maxTerms?: number;
  batchBytes?: number;
  /**
   * The main thread's share: encode files [from, to) itself, in order (the build's own addText).
   * The main thread takes every (W + 1)-th batch, the first included, instead of waiting while the
   * workers encode: with one worker, each thread does about half.
   */
  own: (from: number, to: number) => void;
}

/**
 * Encode `files` on worker threads, calling `onFile(i, entries, data, at)` for each file in order
 * (entries −1: unreadable; its encoded entries from data[at], term numbers of `dict`). Returns how
 * many files were handed over: fewer than all when the pool failed.
 */
export function encodeOnWorkers(root: string, files: PoolFile[], dict: Dictionary, o: PoolOptions, onFile: (i: number, entries: number, data: Int32Array, at: number) => void): number {
  const wt = process.getBuiltinModule('node:worker_threads') as typeof import('node:worker_threads');
  const batches: number[] = [0]; // first file of each batch, then files.length
  for (let i = 0, bytes = 0; i < files.length; i++) {
    bytes += files[i]!.size;
    if (bytes >= (o.batchBytes ?? BATCH_BYTES) || i + 1 - batches[batches.length - 1]! >= BATCH_FILES) { if (i + 1 < files.length) batches.push(i + 1); bytes = 0; }
  }
  batches.push(files.length);
  const nb = batches.length - 1;
  const W = Math.min(o.count, nb);
  const ctl = new Int32Array(new SharedArrayBuffer(4 * W));
  const workers: Worker[] = [];
  const ports: MessagePort[] = [];
  const taken = new Int32Array(W);
  const xl = Array.from({ length: W }, () => ({ a: new Int32Array(1024), n: 0 }));
  // each worker's two shared answer buffers (index-worker.ts): a worker's batch k + 2 is sent only
  // after its batch k was taken (the send loop below runs at most 2 of a worker's batches ahead)
  const shared = Array.from({ length: W }, (): Int32Array[] => [new Int32Array(0), new Int32Array(0)]);
  let done = 0;
  try {
    for (let w = 0; w < W; w++) {
      const { port1, port2 } = new wt.MessageChannel();
      const init: WorkerInit = { root, port: port2, ctl, slot: w, cjk: o.cjk, maxTerms: o.maxTerms ?? MAX_TERMS };
      // a small young generation: a worker's garbage is short-lived strings, and each MB of it is resident
      const worker = new wt.Worker(o.url, { workerData: init, transferList: [port2], resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } });
      worker.unref();
      worker.on('error', () => { /* seen as silence: the main thread takes over */ });
      workers.push(worker);
      ports.push(port1);
    }
    // batch b's thread: the main thread at b mod S = 0, else worker (b mod S) - 1
    const S = W + 1;
    const worker = (b: number): number => (b % S) - 1;
    let sent = 0; // the batches looked at for sending: those of workers are sent, up to 2 per worker ahead
    const send = (): void => { const b = sent++; const w = worker(b); if (w >= 0) ports[w]!.postMessage(files.slice(batches[b]!, batches[b + 1]!).map((f) => f.path)); };
    for (let b = 0; b < nb; b++) {
      while (sent < nb && sent < b + 2 * S) send();
      const w = worker(b);
      if (w < 0) {
        o.own(batches[b]!, batches[b + 1]!);
        done = batches[b + 1]!;
        continue;
      }
      const ans = receive(wt, ports[w]!, ctl, w, taken, o.stallMs ?? STALL_MS);
      if (!ans || ans.error) break;
      // the worker's new terms, numbered in the build's dictionary
      const t = xl[w]!;
      if (ans.reset) t.n = 0;
      if (t.n + ans.terms.length > t.a.length) { const g = new Int32Array(Math.max(t.n + ans.terms.length, 2 * t.a.length)); g.set(t.a.subarray(0, t.n)); t.a = g; }
      for (const term of ans.terms) t.a[t.n++] = dict.id(term);
      if (ans.grown) shared[w]![ans.buffer] = ans.grown;
      const data = shared[w]![ans.buffer]!;
      let at = 0;
      for (let i = batches[b]!, k = 0; i < batches[b + 1]!; i++, k++) {
        const entries = ans.entries[k]!;
        const from = at;
        for (let e = 0; e < entries; e++) {
          const n = data[at + 1]!;
          at += 2;
          for (let j = 0; j < n; j++, at += 2) data[at] = t.a[data[at]!]!;
        }
        onFile(i, entries, data, from);
      }
      done = batches[b + 1]!;
    }
  } catch {
    /* a worker could not start: the caller goes on from `done` */
  } finally {
    for (const w of workers) void w.terminate();
    for (const p of ports) p.close();
  }
  return done;
}

/** Worker w's next answer, waiting while it works; undefined when it stays silent for STALL_MS. */
function receive(wt: typeof import('node:worker_threads'), port: MessagePort, ctl: Int32Array, w: number, taken: Int32Array, stallMs: number): BatchAnswer | undefined {
  for (;;) {
    const m = wt.receiveMessageOnPort(port);
    if (m) { taken[w]!++; return m.message as BatchAnswer; }
    if (Atomics.wait(ctl, w, taken[w]!, stallMs) === 'timed-out') return undefined;
  }
}
