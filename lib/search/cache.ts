/**
 * The index cache, opened or rebuilt: `openIndex` (the cache plus changed files, or a rebuild when
 * too much changed), `rebuildIndex`, `clearIndex`, `indexStatus`. Its on-disk format is
 * index-format.ts, the freshness check freshness.ts, the lazy view over a build index-view.ts; this
 * module re-exports what callers use from them.
 */
import { lstatSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Ctx } from '../core/context.js';
import { stateDirProblem } from '../store/state-dir.js';
import { MAX_FILE_BYTES } from '../store/guards/text.js';
import { MemoryIndex, readAndIndex, type IndexView } from './corpus.js';
import { setCjkMode } from './tokenize.js';
import { INDEX_DIR, openManifest, readFileTable, readManifest, REBUILD_AT, REBUILD_BYTES, type DirRow } from './index-format.js';
import { IndexBuilder } from './index-build.js';
import { withSmallYoungGeneration } from '../core/heap.js';
import { poolSize } from './index-pool.js';
import { checkFreshness, freshnessSourceFor, scanFiles, type Scan } from './freshness.js';
import { CachedIndex } from './index-view.js';
import { buildProgress } from './progress.js';

export * from './index-format.js';
export * from './freshness.js';
export * from './index-view.js';

/** Apply MEMTIER_CJK from the command's environment (ctx.env) to the tokenizer. */
export function applyTokenizerEnv(env: NodeJS.ProcessEnv): void {
  const v = env.MEMTIER_CJK;
  setCjkMode(v === 'bigram' || v === 'icu' ? v : undefined);
}

export interface LoadReport { mode: 'cache' | 'built' | 'fresh'; changed: number; files: number }

/**
 * Build the whole index from the files, streamed into a new cache build (index-build.ts), and
 * open it; when the cache cannot be written (a read-only memory), an in-memory index instead.
 * Progress (files done / total, rate, time left) goes to the terminal or `memtier watch`'s log
 * once the build has taken a second (progress.ts); nothing anywhere else.
 */
function buildFrom(ctx: Ctx, scan: Scan): IndexView {
  const view = buildFiles(ctx, scan);
  const big = scan.files.filter((f) => f.size > MAX_FILE_BYTES).map((f) => f.path);
  if (big.length) view.tooLarge = big;
  return view;
}

function buildFiles(ctx: Ctx, scan: Scan): IndexView {
  const progress = buildProgress(ctx.log.progress ?? freshnessSourceFor(ctx.root)?.progress, scan.files.length, ctx.env);
  try {
    let bytes = 0;
    for (const f of scan.files) bytes += f.size;
    let b: IndexBuilder | undefined;
    try {
      if (stateDirProblem(ctx.root, 'index')) throw new Error('linked .memtier'); // never written (health reports it)
      b = new IndexBuilder(ctx.root, bytes);
    } catch { b = undefined; /* read-only memory: search without a cache */ }
    if (b) {
      try {
        const at = b.addFiles(ctx.root, scan.files, poolSize(ctx.env, { files: scan.files.length, bytes }), (done) => progress.tick(done));
        // this build, opened as any cached one (another builder's swap of the manifest in the
        // meantime does not remove it for 30 s)
        const m = b.finish(ctx.root, remapDirs(scan, at, b.paths.length));
        const ft = readFileTable(ctx.root, m);
        if (ft) return new CachedIndex(ctx.root, m, ft, b.paths, [], new MemoryIndex());
      } catch {
        b.abort();
      }
    }
    const idx = new MemoryIndex([], ctx.root);
    progress.restart();
    scan.files.forEach((f, i) => {
      const rec = readAndIndex(ctx.root, f.path);
      if (rec) idx.add({ ...rec, mtimeMs: f.mtimeMs, size: f.size });
      progress.tick(i + 1);
    });
    return idx;
  } finally {
    progress.done();
  }
}

/** DirRow first/count in the build's file numbering (files that vanished between scan and read are left out). */
function remapDirs(scan: Scan, at: Int32Array, nfiles: number): DirRow[] {
  return scan.dirs.map(([dir, mt, subs, first, count]) => {
    let f = -1;
    let n = 0;
    for (let i = first; i < first + count; i++) { const j = at[i]!; if (j >= 0) { if (f < 0) f = j; n++; } }
    return [dir, n === count ? mt : -1, subs, f < 0 ? nfiles : f, n];
  });
}

/** Build the full index from the files, write it to the cache, return it. */
export function rebuildIndex(ctx: Ctx): IndexView {
  applyTokenizerEnv(ctx.env);
  return withSmallYoungGeneration(() => buildFrom(ctx, scanFiles(ctx.root)));
}

/** The index for ctx.root: the cache plus changed files, or a rebuild when too much changed. */
export function openIndex(ctx: Ctx, report?: LoadReport): IndexView {
  applyTokenizerEnv(ctx.env);
  const src = freshnessSourceFor(ctx.root);
  const o = src ? src.manifest(() => openManifest(ctx.root)) : openManifest(ctx.root);
  if (!o) {
    return withSmallYoungGeneration(() => {
      const scan = scanFiles(ctx.root);
      if (report) Object.assign(report, { mode: 'built', changed: -1, files: scan.files.length });
      return buildFrom(ctx, scan);
    });
  }
  const fr = src ? src.freshness(o.m, o.ft, o.paths) : checkFreshness(ctx.root, o.m, o.ft, o.paths, ctx.env);
  if (report) Object.assign(report, { mode: 'cache', changed: fr.changed.length + fr.gone, files: fr.files });
  if (fr.changed.length + fr.gone > REBUILD_AT || fr.bytes > REBUILD_BYTES) {
    if (report) report.mode = 'built';
    return withSmallYoungGeneration(() => buildFrom(ctx, scanFiles(ctx.root)));
  }
  const fresh = new MemoryIndex();
  const big: string[] = [];
  for (const p of fr.changed) {
    const rec = src ? src.record(p) : readAndIndex(ctx.root, p);
    if (rec) fresh.add(rec);
    else if (isTooLarge(ctx.root, p)) big.push(p); // never in the index: "changed" at every query
  }
  const view: IndexView = new CachedIndex(ctx.root, o.m, o.ft, o.paths, fr.masked, fresh, src?.shared(o.m.build));
  if (big.length) view.tooLarge = big;
  return view;
}

/** A memory file the index leaves out for its size (a regular file over MAX_FILE_BYTES). */
function isTooLarge(root: string, rel: string): boolean {
  try {
    const st = lstatSync(join(root, rel));
    return st.isFile() && st.size > MAX_FILE_BYTES;
  } catch { return false; }
}

/** Remove the cache (it is rebuilt by the next search). */
export function clearIndex(root: string): void {
  rmSync(join(root, INDEX_DIR), { recursive: true, force: true });
}

/** For `memtier health`: is the cache present, and how far is it behind the files? */
export function indexStatus(root: string): { missing: boolean; files: number; changed: number; build?: string } {
  const o = openManifest(root);
  if (!o) {
    const m = readManifest(root);
    if (!m) return { missing: true, files: 0, changed: 0 };
    // the manifest points at a build that is gone or damaged: every file must be read again
    const n = scanFiles(root).files.length;
    return { missing: false, files: n, changed: n, build: m.build };
  }
  const fr = checkFreshness(root, o.m, o.ft, o.paths);
  return { missing: false, files: fr.files, changed: fr.changed.length + fr.gone, build: o.m.build };
}

