/**
 * A full `health` run with nothing kept in .memtier/ (the first run on a memory, or after an
 * upgrade) works out every file's summaries and file-local findings a file at a time, letting go
 * of each file's text after it (summarizeFiles in lib/health/run.ts), then runs the checks from
 * the summaries. Its report must be the report of the checks over a snapshot holding every text
 * (no summaries, nothing kept), and it must read each note once: a check whose summaries
 * Check.summarize does not make would read every file again (and hold the texts) in run().
 */
import fs, { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync, type PathLike } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateMemory } from '../../lib/bench/perf.js';
import { CHECKS } from '../../lib/health/checks/index.js';
import { runHealth, type HealthReport } from '../../lib/health/run.js';
import { writeHealthJson } from '../../lib/health/report.js';
import { clearReads } from '../../lib/memory/reader.js';
import { rmTree, testCtx } from '../helpers.js';
import { copyFixture, expectations, fixtureNames } from './fixture-kit.js';

/** How many times each file under a test root was opened (node:fs openSync: every reader of memtier's goes through it). */
const reads = new Map<string, number>();
let watched = '\0';
const openSync = fs.openSync;
beforeAll(() => {
  fs.openSync = ((path: PathLike, ...rest: unknown[]) => {
    const p = String(path);
    if (p.startsWith(watched)) { const rel = p.slice(watched.length + 1); reads.set(rel, (reads.get(rel) ?? 0) + 1); }
    return (openSync as (...a: unknown[]) => number)(path, ...rest);
  }) as typeof fs.openSync;
  // the named imports (import { openSync } from 'node:fs') see the wrapper too
  syncBuiltinESMExports();
});
afterAll(() => { fs.openSync = openSync; syncBuiltinESMExports(); });

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmTree(r); });
beforeEach(() => { clearReads(); reads.clear(); });

/** What a report says, but for the disk's free space (which other writers change between two runs). */
function said(r: HealthReport): unknown {
  const figures = structuredClone(r.figures);
  if (figures.disk) delete figures.disk.freeBytes;
  const findings = r.findings.map((f) => (f.check === 'disk' ? { ...f, message: f.message.replace(/[\d.]+ MiB free/, 'N MiB free') } : f));
  return { exitCode: r.exitCode, counts: r.counts, results: r.results, findings, figures };
}

/** The first pass's worker as built (npm run build): the test runs lib/ from source, which has no worker module beside it. */
const WORKER = new URL('../../dist/lib/health/first-pass-worker.js', import.meta.url);

/** Nothing kept by an earlier run (the fixtures' own .memtier/ content stays). */
function forget(root: string): void {
  for (const name of ['health.json', 'health-files.json', 'health-summary.json']) rmSync(join(root, '.memtier', name), { force: true });
}

/**
 * Files opened more than once, but for the memory's root files, the buffer and TAGS.md (which
 * single-file checks read again) and the files MEMORY.md links to an entry of (`file.md#^id`:
 * decision-links reads them to find the entry): a handful per memory, whatever its size.
 */
function readTwice(root: string): string[] {
  const hot = new Set(['MEMORY.md', 'SESSION-STATE.md', 'TAGS.md', 'memory/TAGS.md', 'memory/working-buffer.md']);
  let index = '';
  try { index = readFileSync(join(root, 'MEMORY.md'), 'utf8'); } catch { /* none */ }
  for (const m of index.matchAll(/\]\(([^)#\s]+)#\^/g)) hot.add(m[1]!);
  return [...reads].filter(([rel, n]) => n > 1 && !hot.has(rel)).map(([rel, n]) => `${rel} ×${n}`);
}

describe('health, first run (nothing kept)', () => {
  it('reports what the checks find over every text held at once, on every fixture', async () => {
    for (const name of fixtureNames()) {
      const root = copyFixture(name);
      roots.push(root);
      forget(root);
      const ctx = testCtx(root, undefined, undefined, expectations(name).env);
      watched = root;
      const held = await runHealth(ctx, { checks: CHECKS });
      forget(root);
      clearReads();
      reads.clear();
      const first = await runHealth(ctx);
      expect(said(first), name).toEqual(said(held));
      expect(readTwice(root), name).toEqual([]);
    }
  });

  it('reads each note once on a generated memory, and reports what the checks find over every text', async () => {
    const root = mkdtempSync(join(tmpdir(), 'memtier-first-run-'));
    roots.push(root);
    generateMemory(root, 200);
    // an hour old: summaries of files changed within 2 s of the run are not kept
    const old = new Date(Date.now() - 3_600_000);
    const walk = (d: string): void => { for (const e of readdirSync(d, { withFileTypes: true })) { const p = join(d, e.name); if (e.isDirectory()) walk(p); else utimesSync(p, old, old); } };
    walk(root);
    const ctx = testCtx(root);
    watched = root;
    const held = await runHealth(ctx, { checks: CHECKS });
    clearReads();
    reads.clear();
    const first = await runHealth(ctx);
    expect(said(first)).toEqual(said(held));
    const notes = [...reads.keys()].filter((rel) => rel.startsWith('memory/'));
    expect(notes.length).toBeGreaterThanOrEqual(200);
    expect(readTwice(root)).toEqual([]);
  });

  it('shares the pass with a worker thread (MEMTIER_HEALTH_WORKERS=1): the same report and kept findings as one thread alone', async () => {
    const root = mkdtempSync(join(tmpdir(), 'memtier-first-run-'));
    roots.push(root);
    generateMemory(root, 300);
    // a near-duplicate across the two threads' shares: MEMORY.md (a fact file, the first path) is
    // the main thread's first claim, the last path the worker's, so the pair is found only when the
    // worker's word numbers are translated into the main thread's (FileMemo.adopt)
    appendFileSync(join(root, 'MEMORY.md'), '\n- [PREF] Ana prefers short written status reports every Friday morning\n');
    writeFileSync(join(root, 'memory', 'semantic', 'zz-last.md'), '# Last\n\n- [PREF] Ana prefers short written status reports every Friday mornings\n');
    // and one in the worker's fifth file from the back: in a later batch when batches are small,
    // found only when that batch's words are numbered with the words of the batches before
    appendFileSync(join(root, 'MEMORY.md'), '- [DECISION] the billing exports run every night against the replica database\n');
    writeFileSync(join(root, 'memory', 'semantic', 'zv-later.md'), '# Later\n\n- [DECISION] the billing exports run every night against the replica databases\n');
    // files the worker must report as the main thread does: invalid UTF-8, a NUL byte, a credential
    writeFileSync(join(root, 'memory', 'semantic', 'zy-bad-utf8.md'), Buffer.from([0x23, 0x20, 0x78, 0xff, 0xfe, 0x0a]));
    writeFileSync(join(root, 'memory', 'semantic', 'zx-nul.md'), '# a\u0000b\n');
    writeFileSync(join(root, 'memory', 'semantic', 'zw-secret.md'), '# Keys\n\n- the deploy key is ghp_abcdefghijklmnopqrstuvwxyz0123456789\n');
    const old = new Date(Date.now() - 3_600_000);
    const walk = (d: string): void => { for (const e of readdirSync(d, { withFileTypes: true })) { const p = join(d, e.name); if (e.isDirectory()) walk(p); else utimesSync(p, old, old); } };
    walk(root);
    const kept = (): string => readFileSync(join(root, '.memtier', 'health-files.json'), 'utf8');
    const run = async (workers: string, url?: URL, batch?: number): Promise<{ report: HealthReport; onWorker: number; batches: number; files: string }> => {
      forget(root);
      let onWorker = -1;
      let batches = -1;
      const report = await runHealth(testCtx(root, undefined, undefined, { MEMTIER_HEALTH_WORKERS: workers }), { firstPass: { ...(url ? { url } : {}), ...(batch ? { batch } : {}), workerFirst: url === WORKER, done: (s) => { onWorker = s.onWorker; batches = s.batches; } } });
      writeHealthJson(testCtx(root), report);
      return { report, onWorker, batches, files: kept() };
    };
    const alone = await run('0');
    const shared = await run('1', WORKER);
    expect(alone.onWorker).toBe(0);
    // the worker took files from the back while the main thread took them from the front
    expect(shared.onWorker).toBeGreaterThanOrEqual(4); // at least the four z* files at the back
    expect(said(shared.report)).toEqual(said(alone.report));
    expect(shared.report.findings.filter((f) => f.check === 'near-duplicates' && f.file === 'memory/semantic/zz-last.md')).toHaveLength(1);
    expect(alone.report.findings.filter((f) => f.check === 'near-duplicates' && f.file === 'memory/semantic/zv-later.md')).toHaveLength(1);
    for (const file of ['memory/semantic/zy-bad-utf8.md', 'memory/semantic/zx-nul.md', 'memory/semantic/zw-secret.md']) expect(shared.report.findings.some((f) => f.file === file && f.severity === 'fail'), file).toBe(true);
    expect(shared.files).toEqual(alone.files);
    // the worker's files in batches of 3, each with the words it numbered since the batch before,
    // taken in while the main thread still passes over its own: the same report
    const batched = await run('1', WORKER, 3);
    expect(batched.batches).toBeGreaterThanOrEqual(2);
    expect(batched.onWorker).toBeGreaterThanOrEqual(4);
    expect(said(batched.report)).toEqual(said(alone.report));
    expect(batched.files).toEqual(alone.files);
    // the next run takes the summaries the shared pass kept, and reports the same
    // (but for what .memtier/ holds now: the kept files were written since)
    const next = await runHealth(testCtx(root));
    const noState = (r: HealthReport): unknown => { const x = said(r) as { figures: { disk: Record<string, unknown> } }; delete x.figures.disk.stateBytes; return x; };
    expect(noState(next)).toEqual(noState(alone.report));
    // a worker that cannot start (no such module): the main thread does every file, the same report
    const failed = await run('1', new URL('./no-such-worker.js', WORKER));
    expect(failed.onWorker).toBe(0);
    expect(said(failed.report)).toEqual(said(alone.report));
  });

  it('starts the worker during the walk once the files to read hold 4 MB, and stops it when the machine has no core idle', async () => {
    const root = mkdtempSync(join(tmpdir(), 'memtier-first-run-'));
    roots.push(root);
    generateMemory(root, 200);
    // 4.4 MB of notes: the size at which a pass takes a worker unasked (core/workers.ts)
    // (paragraphs of words drawn at random, so that no two are near-duplicates)
    let seed = 7;
    const word = (): string => { seed = (seed * 1103515245 + 12345) % 2147483648; return `w${(seed >> 8) % 5000}`; };
    for (let k = 0; k < 11; k++) {
      const paras = [`# Notes ${k}`];
      for (let size = 0; size < 400_000;) { const p = Array.from({ length: 24 }, word).join(' ') + '.'; paras.push(p); size += p.length + 2; }
      writeFileSync(join(root, 'memory', 'semantic', `big-${k}.md`), paras.join('\n\n') + '\n');
    }
    const old = new Date(Date.now() - 3_600_000);
    const walk = (d: string): void => { for (const e of readdirSync(d, { withFileTypes: true })) { const p = join(d, e.name); if (e.isDirectory()) walk(p); else utimesSync(p, old, old); } };
    walk(root);
    const run = async (env: Record<string, string>, load: number): Promise<{ report: HealthReport; onWorker: number; early: boolean }> => {
      forget(root);
      let onWorker = -1;
      let early = false;
      const report = await runHealth(testCtx(root, undefined, undefined, env), { firstPass: { url: WORKER, workerFirst: true, host: () => ({ cores: 2, load }), done: (s) => { onWorker = s.onWorker; early = s.early; } } });
      return { report, onWorker, early };
    };
    const alone = await run({ MEMTIER_HEALTH_WORKERS: '0' }, 0);
    expect([alone.early, alone.onWorker]).toEqual([false, 0]);
    // a core idle: the worker started during the walk takes files from the back (the main thread
    // waits for its first claim: on a pass this small it could otherwise do every file first)
    const idle = await run({}, 0);
    expect(idle.early).toBe(true);
    expect(idle.onWorker).toBeGreaterThan(0);
    expect(said(idle.report)).toEqual(said(alone.report));
    // both cores busy: started during the walk all the same, then stopped; the main thread does every file
    const busy = await run({}, 2);
    expect([busy.early, busy.onWorker]).toEqual([true, 0]);
    expect(said(busy.report)).toEqual(said(alone.report));
  });
});
