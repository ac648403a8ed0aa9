/**
 * The index cache, opened or rebuilt: `openIndex` (the cache plus changed files, or a rebuild when
 * too much changed), `rebuildIndex`, `clearIndex`, `indexStatus`. Its on-disk format is
 * index-format.ts, the freshness check freshness.ts, the lazy view over a build index-view.ts; this
 * module re-exports what callers use from them.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Ctx } from '../core/context.js';
import { stateDirProblem } from '../store/state-dir.js';
import { MemoryIndex, readAndIndex, type IndexView } from './corpus.js';
import { setCjkMode } from './tokenize.js';
import { INDEX_DIR, newBuildName, openManifest, readManifest, REBUILD_AT, REBUILD_BYTES, UnitsWriter, writeCache, type DirRow } from './index-format.js';
import { checkFreshness, freshnessSourceFor, scanFiles, type Scan } from './freshness.js';
import { CachedIndex } from './index-view.js';

export * from './index-format.js';
export * from './freshness.js';
export * from './index-view.js';

/** Apply MEMTIER_CJK from the command's environment (ctx.env) to the tokenizer. */
export function applyTokenizerEnv(env: NodeJS.ProcessEnv): void {
  const v = env.MEMTIER_CJK;
  setCjkMode(v === 'bigram' || v === 'icu' ? v : undefined);
}

export interface LoadReport { mode: 'cache' | 'built' | 'fresh'; changed: number; files: number }

function buildFrom(ctx: Ctx, scan: Scan): MemoryIndex {
  const idx = new MemoryIndex([], ctx.root);
  const progress = ctx.interactive && scan.files.length > 2000;
  // entries are written to units.json as files are indexed (none kept in memory)
  let units: { build: string; writer: UnitsWriter } | undefined;
  try {
    if (stateDirProblem(ctx.root, 'index')) throw new Error('linked .memtier');
    const build = newBuildName();
    mkdirSync(join(ctx.root, INDEX_DIR, build), { recursive: true });
    units = { build, writer: new UnitsWriter(join(ctx.root, INDEX_DIR, build, 'units.json')) };
  } catch { units = undefined; /* read-only memory: search without a cache */ }
  scan.files.forEach((f, i) => {
    const rec = readAndIndex(ctx.root, f.path);
    if (rec) {
      // the scan's stats, taken before the read: a change after them is seen by the next query
      idx.add({ ...rec, mtimeMs: f.mtimeMs, size: f.size });
      units?.writer.add(rec.docs);
    }
    if (progress && i % 1000 === 0) ctx.log.info(`indexing memory: ${i}/${scan.files.length} files`);
  });
  if (units && writeCache(ctx.root, idx, remapDirs(scan, idx), units)) idx.build = units.build;
  return idx;
}

/** DirRow first/count in the index's file numbering (files that vanished between scan and read are left out). */
function remapDirs(scan: Scan, idx: MemoryIndex): DirRow[] {
  const at = new Map<string, number>();
  idx.paths.forEach((p, i) => at.set(p, i));
  return scan.dirs.map(([dir, mt, subs, first, count]) => {
    let f = -1;
    let n = 0;
    for (let i = first; i < first + count; i++) { const j = at.get(scan.files[i]!.path); if (j !== undefined) { if (f < 0) f = j; n++; } }
    return [dir, n === count ? mt : -1, subs, f < 0 ? idx.paths.length : f, n];
  });
}

/** Build the full index from the files, write it to the cache, return it. */
export function rebuildIndex(ctx: Ctx): MemoryIndex {
  applyTokenizerEnv(ctx.env);
  return buildFrom(ctx, scanFiles(ctx.root));
}

/** The index for ctx.root: the cache plus changed files, or a rebuild when too much changed. */
export function openIndex(ctx: Ctx, report?: LoadReport): IndexView {
  applyTokenizerEnv(ctx.env);
  const src = freshnessSourceFor(ctx.root);
  const o = src ? src.manifest(() => openManifest(ctx.root)) : openManifest(ctx.root);
  if (!o) {
    const scan = scanFiles(ctx.root);
    if (report) Object.assign(report, { mode: 'built', changed: -1, files: scan.files.length });
    return buildFrom(ctx, scan);
  }
  const fr = src ? src.freshness(o.m, o.ft, o.paths) : checkFreshness(ctx.root, o.m, o.ft, o.paths, ctx.env);
  if (report) Object.assign(report, { mode: 'cache', changed: fr.changed.length + fr.gone, files: fr.files });
  if (fr.changed.length + fr.gone > REBUILD_AT || fr.bytes > REBUILD_BYTES) {
    if (report) report.mode = 'built';
    return buildFrom(ctx, scanFiles(ctx.root));
  }
  const fresh = new MemoryIndex();
  for (const p of fr.changed) {
    const rec = src ? src.record(p) : readAndIndex(ctx.root, p);
    if (rec) fresh.add(rec);
  }
  return new CachedIndex(ctx.root, o.m, o.ft, o.paths, fr.masked, fresh, src?.shared(o.m.build));
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

