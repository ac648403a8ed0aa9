/**
 * health's first-pass worker thread (started by first-pass.ts, never loaded otherwise, often while
 * the main thread still walks the memory): sent the files the main thread walked, over a lazy snapshot of them it claims files from the back of the pass
 * through the shared counter until none is left, makes each one's summaries and local findings as
 * the main thread would (filePass), and hands them over init.batch (BATCH_FILES) files at a time, the last
 * batch marked done.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { silentLogger, type Ctx } from '../core/context.js';
import { lazySnapshotOf } from '../memory/snapshot.js';
import { CHECKS } from './checks/index.js';
import { filePass, type PassAnswer, type PassInit, type PassStart } from './first-pass.js';
import { FileMemo } from './summary.js';
import type { CheckEnv, Finding } from './types.js';

const { ctl } = workerData as PassStart;

async function main(init: PassInit): Promise<PassAnswer> {
  const snap = lazySnapshotOf(init.root, init.files);
  const ctx: Ctx = { root: init.root, clock: { tz: init.tz, now: () => new Date(init.nowMs) }, log: silentLogger, env: init.env, cwd: init.cwd, interactive: false };
  const memo = new FileMemo(undefined, init.atMs);
  const env: CheckEnv = { ctx, today: init.today, limits: init.limits, memo };
  const ids = new Set(init.checks);
  const one = filePass(CHECKS.filter((c) => ids.has(c.id)), snap, env);
  const n = init.todo.length;
  let files: PassAnswer['files'] = [];
  let findings: [string, Finding[]][] = [];
  let sent = 0;
  /** What the batch holds so far, handed over (with the words numbered since the last one): the worker keeps none of it. */
  const batch = (done: boolean): PassAnswer => {
    const words = memo.vocab.words.slice(sent);
    sent = memo.vocab.words.length;
    const out = { words, files, findings, done };
    files = [];
    findings = [];
    return out;
  };
  for (let w = 0; Atomics.add(ctl, 0, 1) < n; w++) {
    if (w === 0) { Atomics.store(ctl, 1, 1); Atomics.notify(ctl, 1); }
    const rel = init.todo[n - 1 - w]!;
    const f = snap.byRel.get(rel);
    if (!f) throw new Error(`not in the snapshot: ${rel}`);
    findings.push([rel, await one(f)]);
    files.push([rel, memo.takeOf(rel)]);
    if (files.length === init.batch) parentPort!.postMessage(batch(false));
  }
  return batch(true);
}

parentPort!.once('message', (init: PassInit) => main(init).then((a) => parentPort!.postMessage(a), (e: unknown) => parentPort!.postMessage({ words: [], files: [], findings: [], done: true, error: String(e) } satisfies PassAnswer)));
