/**
 * Is the index cache still the memory? The freshness check of every query (the "never stale"
 * rule, described with the cache's format in index-format.ts): folders and files stat'ed against
 * the manifest, or, in a long-running process, a FreshnessSource that knows from file events.
 */
import { lstatSync, readdirSync } from 'node:fs';
import type { ProgressSink } from '../core/context.js';
import { PATHS, ROOT_FILES } from '../format/layout.js';
import type { FileRecord } from './corpus.js';
import { statMany } from './statmany.js';
import { NOENT, RACY_MS, type DirRow, type FileTable, type Manifest, type OpenManifest } from './index-format.js';
import type { SharedBuild } from './index-view.js';

/**
 * Who knows what changed without a stat per file: `memtier watch` (lib/watch/fresh.ts) sets one
 * for the root it serves. Without it (every CLI process), freshness is checkFreshness.
 */
export interface FreshnessSource {
  readonly root: string;
  /** The manifest (cached until manifest.json changes). */
  manifest(open: () => OpenManifest | undefined): OpenManifest | undefined;
  freshness(m: Manifest, ft: FileTable, paths: string[]): Freshness;
  /** A changed file, read and indexed (cached until the file changes again). */
  record(rel: string): FileRecord | undefined;
  shared(build: string): SharedBuild;
  /** Where a build this process runs for a request reports its progress (`memtier watch`'s log). */
  progress?: ProgressSink | undefined;
}

let source: FreshnessSource | undefined;

export function setFreshnessSource(s: FreshnessSource | undefined): void {
  source = s;
}

/** The source set for `root` by a long-running process, if any. */
export function freshnessSourceFor(root: string): FreshnessSource | undefined {
  return source?.root === root ? source : undefined;
}

export const SKIP_DIRS = new Set(['.trash', '.memtier', '.git', 'node_modules', 'scripts', '.dreams', '.obsidian']);
export const TOP_DIRS = [PATHS.memoryDir, PATHS.knowledge];

export interface Scan { files: { path: string; mtimeMs: number; size: number }[]; dirs: DirRow[] }

/**
 * Every memory file (same set as layout.listMemoryFiles) with its stats, folder by folder (a
 * folder's files contiguous, in DirRow first/count), for a full build.
 */
export function scanFiles(root: string): Scan {
  const prefix = root.endsWith('/') ? root : root + '/';
  const t0 = Date.now();
  const files: Scan['files'] = [];
  const dirs: DirRow[] = [];
  const addFile = (path: string): void => {
    const st = lstatSync(prefix + path, NOENT);
    if (st && st.isFile()) files.push({ path, mtimeMs: st.mtimeMs, size: st.size });
  };
  for (const f of ROOT_FILES) addFile(f);
  dirs.push(['', -1, [], 0, files.length]);
  const walk = (dir: string): void => {
    const st = lstatSync(prefix + dir, NOENT);
    if (!st || !st.isDirectory()) return;
    let ents;
    try { ents = readdirSync(prefix + dir, { withFileTypes: true }); } catch { return; }
    const subs: string[] = [];
    const names: string[] = [];
    for (const d of ents) {
      if (d.isDirectory()) { if (!SKIP_DIRS.has(d.name) && !d.name.startsWith('.')) subs.push(d.name); }
      else if (d.isFile() && d.name.endsWith('.md')) names.push(`${dir}/${d.name}`);
    }
    subs.sort();
    names.sort();
    const first = files.length;
    for (const p of names) addFile(p);
    dirs.push([dir, st.mtimeMs > t0 - RACY_MS ? -1 : st.mtimeMs, subs, first, files.length - first]);
    for (const s of subs) walk(`${dir}/${s}`);
  };
  for (const d of TOP_DIRS) walk(d);
  return { files, dirs };
}

export interface Freshness {
  /** Paths of files new or changed since the build (to re-read). */
  changed: string[];
  /** Manifest file numbers to mask (changed or gone). */
  masked: number[];
  /** Files gone since the build. */
  gone: number;
  /** Bytes of the changed files. */
  bytes: number;
  /** Memory files present now. */
  files: number;
}

/** Compare the memory's files with the manifest: one stat per file and folder, listing only changed folders. */
export function checkFreshness(root: string, m: Manifest, ft: FileTable, paths: string[], env: NodeJS.ProcessEnv = {}): Freshness {
  const prefix = root.endsWith('/') ? root : root + '/';
  const seen = new Uint8Array(m.nfiles);
  const fr: Freshness = { changed: [], masked: [], gone: 0, bytes: 0, files: 0 };
  const rows = new Map<string, DirRow>();
  for (const r of m.dirs) rows.set(r[0], r);
  const compare = (i: number, mtimeMs: number, size: number): void => {
    if (mtimeMs < 0) return;
    seen[i] = 1;
    fr.files++;
    if (mtimeMs !== ft.mtimeMs[i] || size !== ft.size[i]) { fr.masked.push(i); fr.changed.push(paths[i]!); fr.bytes += size; }
  };
  const known = (i: number): void => {
    const st = lstatSync(prefix + paths[i]!, NOENT);
    if (st && st.isFile()) compare(i, st.mtimeMs, st.size);
  };
  // the files of unchanged folders, stat'ed together at the end (on two threads for large memories)
  const later: number[] = [];
  const unknown = (rel: string): void => {
    const st = lstatSync(prefix + rel, NOENT);
    if (st && st.isFile()) { fr.changed.push(rel); fr.bytes += st.size; fr.files++; }
  };
  const byName = (row: DirRow | undefined): Map<string, number> => {
    const k = new Map<string, number>();
    if (row) for (let i = row[3]; i < row[3] + row[4]; i++) k.set(paths[i]!, i);
    return k;
  };
  const rootNames = byName(rows.get(''));
  for (const f of ROOT_FILES) { const i = rootNames.get(f); if (i !== undefined) known(i); else unknown(f); }
  const walk = (dir: string): void => {
    const st = lstatSync(prefix + dir, NOENT);
    if (!st || !st.isDirectory()) return;
    const row = rows.get(dir);
    if (row && row[1] === st.mtimeMs) {
      for (let i = row[3], end = row[3] + row[4]; i < end; i++) later.push(i);
      for (const s of row[2]) walk(`${dir}/${s}`);
      return;
    }
    let ents;
    try { ents = readdirSync(prefix + dir, { withFileTypes: true }); } catch { return; }
    const names = byName(row);
    const subs: string[] = [];
    for (const d of ents) {
      if (d.isDirectory()) { if (!SKIP_DIRS.has(d.name) && !d.name.startsWith('.')) subs.push(d.name); continue; }
      if (!d.isFile() || !d.name.endsWith('.md')) continue;
      const rel = `${dir}/${d.name}`;
      const i = names.get(rel);
      if (i !== undefined) known(i); else unknown(rel);
    }
    subs.sort();
    for (const s of subs) walk(`${dir}/${s}`);
  };
  for (const d of TOP_DIRS) walk(d);
  const st = statMany(prefix, later.map((i) => paths[i]!), env);
  for (let k = 0; k < later.length; k++) compare(later[k]!, st.mtimeMs[k]!, st.size[k]!);
  for (let i = 0; i < m.nfiles; i++) if (!seen[i]) { fr.masked.push(i); fr.gone++; }
  return fr;
}

