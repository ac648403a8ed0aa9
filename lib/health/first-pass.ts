/**
 * A full run's first pass over the files whose summaries or kept findings do not hold (every file
 * on a first run): a file at a time, its text is read, every check's summaries of it made
 * (Check.summarize, and its token count) and the findings that depend on it alone worked out
 * (localFindings), then its text let go of, so the memory's texts are never all held at once and
 * the checks then run from summaries, as over an unchanged memory.
 *
 * On a large pass (core/workers.ts: 4 MB of text or more, a core idle; MEMTIER_HEALTH_WORKERS=N
 * says otherwise) a worker thread (first-pass-worker.ts) shares it: the main thread takes the files
 * from the front, the worker from the back, each claiming the next through one shared counter
 * until none is left, so neither waits for the other however fast each goes. The worker hands its
 * files' summaries and findings back in batches (BATCH_FILES), which the main thread takes in
 * between its own files, its summaries' words numbered in a vocabulary of its own, which
 * FileMemo.adopt numbers in the run's (Check.renumberSummary). The
 * checks then see every file's summaries as if the main thread had made them: the report is the
 * same. A worker that fails or stays silent for STALL_MS is given up and the main thread does its
 * files itself.
 */
import type { Worker } from 'node:worker_threads';
import { estimateTokens } from '../memory/tokens.js';
import { fileProgress } from '../core/progress.js';
import type { MemFile, PlainFile, Snapshot } from '../memory/snapshot.js';
import { AUTO_WORKER_BYTES, AUTO_WORKER_FILES, machine, poolSize, workerUrl, type Host } from '../core/workers.js';
import { localFindings, type Kept } from './reuse.js';
import { isNum, summaryOf } from './summary.js';
import type { Check, CheckEnv, Finding } from './types.js';
import type { Limits } from '../memory/limits.js';

/** A worker silent this long after the main thread's share is done is given up. */
const STALL_MS = 60_000;
/** The worker's young generation (MB): measured at 10,000 notes, 4 MB keeps the process's peak at 161 MB (V8's default: 175-184 MB) at the same speed. */
const YOUNG_MB = 4;

/** The file's token estimate, kept per file (-1: unreadable). */
export const fileTokens = (env: CheckEnv, f: MemFile): number => summaryOf(env, 'tokens', f, () => (f.text === undefined ? -1 : estimateTokens(f.text)), (x) => (isNum(x) ? x : undefined));

/** What does the pass over one file: its summaries and tokens made, its local findings returned, its text let go of. */
export function filePass(checks: readonly Check[], snap: Snapshot, env: CheckEnv): (f: MemFile) => Promise<Finding[]> {
  const each: ((f: MemFile) => void)[] = [];
  for (const c of checks) { const s = c.summarize?.(snap, env); if (s) each.push(s); }
  const ids = new Set(checks.map((c) => c.id));
  return async (f) => {
    for (const s of each) s(f);
    fileTokens(env, f);
    const found = await localFindings(snap, f, ids);
    snap.release(f);
    return found;
  };
}

/** What the worker is started with (workerData): the counter it shares with the main thread. */
export interface PassStart {
  /** [0]: files claimed so far, by either thread; [1]: 1 once the worker has claimed its first file. */
  ctl: Int32Array;
}

/** What the worker is then sent, once the walk is done (first-pass-worker.ts). */
export interface PassInit {
  root: string;
  /** Every file of the snapshot (its lazy snapshot has them all: a check's summarize may look at another, e.g. TAGS.md). */
  files: PlainFile[];
  /** The paths to pass over, in order: the worker claims them from the back. */
  todo: string[];
  /** The checks by id (the registry's). */
  checks: string[];
  today: string;
  limits: Limits;
  env: Record<string, string | undefined>;
  tz: string;
  nowMs: number;
  atMs: number;
  cwd: string;
  /** Files a batch of the answer holds (BATCH_FILES; tests: fewer). */
  batch: number;
}

/**
 * A batch of the worker's answer: its files' summaries (words numbered in its vocabulary, of which
 * `words` are the ones added since the batch before) and local findings; `done` on the last, or
 * why it failed.
 */
export interface PassAnswer {
  words: string[];
  files: [rel: string, summaries: Record<string, unknown>][];
  findings: [rel: string, found: Finding[]][];
  done: boolean;
  error?: string;
}

/**
 * Files the worker hands over at a time: the main thread takes them in (FileMemo.adopt) while
 * both still pass over files, instead of all at the end, when it was the only thread working,
 * and the worker never holds more than a batch.
 */
export const BATCH_FILES = 128;
/** The main thread looks for the worker's batches every this many of its own files. */
const LOOK_EVERY = 16;

/** The worker's module beside this one (the bundle's dist/cli/_health-worker.js, or dist/lib/health/first-pass-worker.js), if built. */
const url = (): URL | undefined => workerUrl(import.meta.url, ['./_health-worker.js', './first-pass-worker.js']);

/**
 * A started worker: its shared counter, what takes its batches (`take`: those come before it is
 * set wait for it), and `end`, true once its last batch came, false when it failed or exited first.
 */
export interface PassWorker { worker: Worker; ctl: Int32Array; take: (f: (a: PassAnswer) => void) => void; end: Promise<boolean> }

/** Start a first-pass worker on the module at `u`; it waits for its PassInit. Undefined when it cannot start. */
function startWorker(u: URL): PassWorker | undefined {
  const wt = process.getBuiltinModule('node:worker_threads') as typeof import('node:worker_threads');
  const ctl = new Int32Array(new SharedArrayBuffer(8));
  let worker: Worker;
  try {
    // a small young generation: the worker's garbage is short-lived (a file's text, its parse), and each MB of it is resident
    worker = new wt.Worker(u, { workerData: { ctl } satisfies PassStart, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } });
  } catch {
    return undefined;
  }
  worker.unref();
  // listened to from the start: an error before the pass asks would otherwise be thrown
  const queue: PassAnswer[] = [];
  let taker: ((a: PassAnswer) => void) | undefined;
  const end = new Promise<boolean>((resolve) => {
    worker.on('message', (m: PassAnswer) => {
      if (m.error) { resolve(false); return; }
      if (taker) taker(m); else queue.push(m);
      if (m.done) resolve(true);
    });
    worker.once('error', () => resolve(false));
    worker.once('exit', () => resolve(false));
  });
  const take = (f: (a: PassAnswer) => void): void => { taker = f; for (const m of queue.splice(0)) f(m); };
  return { worker, ctl, take, end };
}

/**
 * A worker started during the walk, so that it starts and loads its module (~0.1-0.2 s) while the
 * main thread walks instead of after: `seen` is told each file the walk finds with whether the
 * pass will read it, and starts the worker once those hold AUTO_WORKER_BYTES of text (the size at
 * which the pass would take one unasked, core/workers.ts), and stops it should the files outnumber
 * AUTO_WORKER_FILES. `worker()` is what was started, for firstPass, which still decides (the
 * machine's load, MEMTIER_HEALTH_WORKERS); the caller stops it after the pass, used or not.
 */
export function earlyWorker(env: NodeJS.ProcessEnv, o: Pick<PassOptions, 'url'> = {}): { seen: (size: number, todo: boolean) => void; worker: () => PassWorker | undefined } {
  let bytes = 0;
  let files = 0;
  let started: PassWorker | undefined;
  let done = env.MEMTIER_HEALTH_WORKERS === '0';
  return {
    seen: (size, todo) => {
      if (done) return;
      if (++files > AUTO_WORKER_FILES) { done = true; if (started) void started.worker.terminate(); started = undefined; return; }
      if (!todo || started) return;
      bytes += size;
      if (bytes < AUTO_WORKER_BYTES) return;
      const u = o.url ?? url();
      if (u) started = startWorker(u);
      if (!started) done = true;
    },
    worker: () => started,
  };
}

export interface PassOptions {
  /** Whether a core is idle for a worker (core/workers.ts; asked only for a pass large enough). */
  host?: () => Host;
  /** A worker started during the walk (earlyWorker): used when the pass takes one (the caller stops it after). */
  early?: PassWorker;
  /** The worker's module (tests; default: the one built beside this module). */
  url?: URL;
  /** Tests: the main thread starts its share only once the worker has claimed its first file (else, on a small pass, it may do every file before the worker starts). */
  workerFirst?: boolean;
  /** Told how many of the files the worker did, and whether a worker was started during the walk (tests). */
  done?: (s: { files: number; onWorker: number; early: boolean; batches: number }) => void;
  /** Tests: files a batch of the worker's answer holds (default BATCH_FILES). */
  batch?: number;
}

/**
 * The first pass over `todo` (see the module's note). Returns `kept` with those files' local
 * findings in it (the checks take them as kept ones).
 */
export async function firstPass(checks: readonly Check[], snap: Snapshot, env: CheckEnv, kept: Kept | undefined, todo: MemFile[], o: PassOptions = {}): Promise<Kept> {
  const files = new Map(kept?.files);
  const one = filePass(checks, snap, env);
  // years of daily logs take seconds on a first run: said on a terminal (core/progress.ts)
  const progress = fileProgress(env.ctx.log.progress, todo.length, { doing: 'checking memory', did: 'checked memory' }, env.ctx.env);
  let through = 0;
  /** With a worker: the files both threads have claimed. */
  let claimed: Int32Array | undefined;
  const note = async (f: MemFile): Promise<void> => { files.set(f.rel, { size: f.size, mtimeMs: f.mtimeMs, findings: await one(f) }); progress.tick(claimed ? Math.min(Atomics.load(claimed, 0), todo.length) : ++through); };
  let onWorker = 0;
  let batches = 0;
  const result = (): Kept => { progress.done(); o.done?.({ files: todo.length, onWorker, early: o.early !== undefined, batches }); return { files, checks: kept?.checks ?? new Map() }; };
  let bytes = 0;
  for (const f of todo) bytes += f.size;
  const u = env.memo && todo.length > 1 && poolSize(env.ctx.env, 'MEMTIER_HEALTH_WORKERS', { files: todo.length, bytes }, o.host ?? machine) > 0 ? o.url ?? url() : undefined;
  const started = u ? o.early ?? startWorker(u) : undefined;
  if (!started) {
    for (const f of todo) await note(f);
    return result();
  }
  const { worker, ctl, take, end } = started;
  claimed = ctl;
  const n = todo.length;
  const init: PassInit = {
    root: snap.root,
    files: snap.files.map(({ rel, size, mtimeMs }) => ({ rel, size, mtimeMs })),
    todo: todo.map((f) => f.rel),
    checks: checks.map((c) => c.id),
    today: env.today,
    limits: env.limits,
    env: { ...env.ctx.env },
    tz: env.ctx.clock.tz,
    nowMs: env.ctx.clock.now().getTime(),
    atMs: env.memo!.atMs,
    cwd: env.ctx.cwd,
    batch: o.batch ?? BATCH_FILES,
  };
  try {
    worker.postMessage(init);
  } catch {
    void worker.terminate();
    for (const f of todo) await note(f);
    return result();
  }
  // the worker's batches, taken in as they come
  const renumber = new Map<string, (x: unknown, map: Int32Array) => unknown>();
  for (const c of checks) if (c.renumberSummary) renumber.set(c.id, c.renumberSummary.bind(c));
  const delivered = new Set<string>();
  take((m) => {
    batches++;
    env.memo!.adopt(m.words, m.files, renumber);
    for (const [rel, found] of m.findings) {
      const f = snap.byRel.get(rel)!;
      files.set(rel, { size: f.size, mtimeMs: f.mtimeMs, findings: found });
      delivered.add(rel);
    }
  });
  // the main thread's share: the next file from the front while any is unclaimed
  let mine = 0;
  if (o.workerFirst) Atomics.wait(ctl, 1, 0, STALL_MS);
  while (Atomics.add(ctl, 0, 1) < n) {
    await note(todo[mine++]!);
    // a turn of the event loop: the worker's batches come in as messages
    if (mine % LOOK_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (mine < n) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([end, new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), STALL_MS); })]);
    clearTimeout(timer);
  }
  void worker.terminate();
  // what the worker claimed and did not hand over (it failed or fell silent): done here
  for (let i = mine; i < n; i++) if (!delivered.has(todo[i]!.rel)) await note(todo[i]!);
  onWorker = delivered.size;
  return result();
}
