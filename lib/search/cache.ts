/**
 * The on-disk index cache: `.memtier/index/` (derived, versioned, rebuildable; deleting it loses
 * nothing; gitignored with the rest of .memtier). Read lazily, never stale.
 *
 *   .memtier/index/manifest.json      { v, tok, build, shards, N, totalLen,
 *                                       files: { path: [], mtimeMs: [], size: [], n: [], len: [] },
 *                                       dirs: [[dir, mtimeMs, [subdirs]]] }
 *   .memtier/index/<build>/t-<n>.json  term shard n: { term: [file, pos, tf, len, tag, file, …] }
 *
 * Freshness, per query: every folder of the memory is stat'ed; a folder whose mtime is unchanged
 * has the same entries as at build time (adds, removes and renames change it), so only changed
 * folders are read again. Then every file is stat'ed (an in-place append changes only the file):
 * a file whose size or mtime differs, or that is new, is re-read and indexed in memory for this
 * query (its cached postings masked); a file gone is masked. Only the shards of the query's terms
 * are parsed; only the few files that reach the final ranking are re-read (from the stat-checked
 * file itself, so shown entries are never stale). Past REBUILD_AT changed files (or
 * REBUILD_BYTES) the whole cache is rebuilt. Concurrent builders each write their own build
 * folder and swap the manifest atomically; a reader that meets a vanished build falls back to
 * reading the files (StaleBuildError → search.ts withIndex).
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Ctx } from '../core/context.js';
import { classify, PATHS, type FileInfo } from '../format/layout.js';
import { MemoryIndex, readAndIndex, STRIDE, type Doc, type IndexView } from './corpus.js';
import { setCjkMode, tokenizerConfigKey, TOKENIZER_VERSION } from './tokenize.js';

export const INDEX_DIR = '.memtier/index';
export const CACHE_VERSION = 3;
/** Rebuild the cache when more files than this changed since it was built. */
export const REBUILD_AT = 24;
export const REBUILD_BYTES = 2 * 1024 * 1024;
/** Postings per shard the writer aims at. */
export const SHARD_POSTINGS = 4000;

type DirRow = [dir: string, mtimeMs: number, subdirs: string[]];
/** Files as parallel arrays (5 arrays parse faster and leave less garbage than 10,000 rows). */
export interface ManifestFiles { path: string[]; mtimeMs: number[]; size: number[]; n: number[]; len: number[] }
export interface Manifest { v: number; tok: string; build: string; shards: number; N: number; totalLen: number; files: ManifestFiles; dirs: DirRow[] }

export class StaleBuildError extends Error {}

/** The tokenizer's version and CJK configuration: an index built with another is rebuilt. */
function tokenizerKey(): string {
  return `${TOKENIZER_VERSION}:${tokenizerConfigKey()}`;
}

/** Apply MEMTIER_CJK from the command's environment (ctx.env) to the tokenizer. */
export function applyTokenizerEnv(env: NodeJS.ProcessEnv): void {
  const v = env.MEMTIER_CJK;
  setCjkMode(v === 'bigram' || v === 'icu' ? v : undefined);
}

/** FNV-1a 32-bit. */
export function termHash(t: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < t.length; i++) {
    h ^= t.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function readManifest(root: string): Manifest | undefined {
  try {
    const m = JSON.parse(readFileSync(join(root, INDEX_DIR, 'manifest.json'), 'utf8')) as Manifest;
    if (m.v !== CACHE_VERSION || m.tok !== tokenizerKey() || !m.files || !Array.isArray(m.files.path) || !Array.isArray(m.dirs)) return undefined;
    return m;
  } catch {
    return undefined;
  }
}

const SKIP_DIRS = new Set(['.trash', '.memtier', '.git', 'node_modules', 'scripts', '.dreams', '.obsidian']);
const ROOT_FILES = [PATHS.memoryIndex, PATHS.sessionState, PATHS.todos, PATHS.dreams];
const TOP_DIRS = [PATHS.memoryDir, PATHS.knowledge];

interface Scan { files: { path: string; mtimeMs: number; size: number }[]; dirs: DirRow[] }

/**
 * The memory's markdown files (same set as layout.listMemoryFiles) with their stats, reusing
 * the file lists of folders whose mtime did not change since `prev`.
 */
export function scanFiles(root: string, prev?: Manifest): Scan {
  const prevDirs = new Map<string, DirRow>();
  const prevFiles = new Map<string, string[]>();
  if (prev) {
    for (const d of prev.dirs) prevDirs.set(d[0], d);
    for (const f of prev.files.path) {
      const slash = f.lastIndexOf('/');
      const dir = slash < 0 ? '' : f.slice(0, slash);
      let l = prevFiles.get(dir);
      if (!l) prevFiles.set(dir, (l = []));
      l.push(f);
    }
  }
  const names: string[] = [];
  const dirs: DirRow[] = [];
  const walk = (dir: string): void => {
    let st;
    try { st = statSync(join(root, dir)); } catch { return; }
    if (!st.isDirectory()) return;
    const p = prevDirs.get(dir);
    if (p && p[1] === st.mtimeMs) {
      dirs.push(p);
      for (const f of prevFiles.get(dir) ?? []) names.push(f);
      for (const s of p[2]) walk(`${dir}/${s}`);
      return;
    }
    const subs: string[] = [];
    let ents;
    try { ents = readdirSync(join(root, dir), { withFileTypes: true }); } catch { return; }
    for (const d of ents) {
      if (d.isDirectory()) { if (!SKIP_DIRS.has(d.name) && !d.name.startsWith('.')) subs.push(d.name); }
      else if (d.isFile() && d.name.endsWith('.md')) names.push(`${dir}/${d.name}`);
    }
    subs.sort();
    dirs.push([dir, st.mtimeMs, subs]);
    for (const s of subs) walk(`${dir}/${s}`);
  };
  for (const f of ROOT_FILES) names.push(f);
  for (const d of TOP_DIRS) walk(d);
  const files: Scan['files'] = [];
  const prefix = root.endsWith('/') ? root : root + '/';
  for (const path of names) {
    const st = statSync(prefix + path, { throwIfNoEntry: false });
    if (st && st.isFile()) files.push({ path, mtimeMs: st.mtimeMs, size: st.size });
  }
  return { files, dirs };
}

/** Write `idx` as a new build and point the manifest at it. Errors are swallowed (a cache is optional). */
export function writeCache(root: string, idx: MemoryIndex, dirs: DirRow[]): Manifest | undefined {
  const postingsCount = idx.postingCount();
  let shards = 1;
  while (shards < 4096 && postingsCount / shards > SHARD_POSTINGS) shards *= 2;
  const build = `b${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dir = join(root, INDEX_DIR);
  try {
    mkdirSync(join(dir, build), { recursive: true });
    // one shard's JSON at a time (a whole-index string would double the peak memory)
    const byShard: string[][] = Array.from({ length: shards }, () => []);
    for (const t of idx.terms()) byShard[termHash(t) % shards]!.push(t);
    byShard.forEach((terms, n) => {
      const body = terms.map((t) => `${JSON.stringify(t)}:[${idx.flat(t)!.join(',')}]`).join(',');
      writeFileSync(join(dir, build, `t-${n}.json`), `{${body}}`);
    });
    const files: ManifestFiles = { path: idx.files.map((f) => f.path), mtimeMs: idx.files.map((f) => f.mtimeMs), size: idx.files.map((f) => f.size), n: idx.files.map((f) => f.n), len: idx.files.map((f) => f.len) };
    const m: Manifest = { v: CACHE_VERSION, tok: tokenizerKey(), build, shards, N: idx.N, totalLen: idx.totalLen, files, dirs };
    const tmp = join(dir, `manifest.json.${build}.tmp`);
    writeFileSync(tmp, JSON.stringify(m));
    renameSync(tmp, join(dir, 'manifest.json'));
    // remove other builds, but not one another process may still be writing or reading (< 30 s
    // old); a reader whose build vanished anyway falls back to the files and rebuilds
    const now = Date.now();
    for (const d of readdirSync(dir)) {
      if (d === build || !/^b[0-9a-z]+$/.test(d)) continue;
      const st = statSync(join(dir, d), { throwIfNoEntry: false });
      if (st && now - st.mtimeMs > 30_000) rmSync(join(dir, d), { recursive: true, force: true });
    }
    return m;
  } catch {
    try { rmSync(join(dir, build), { recursive: true, force: true }); } catch { /* ignore */ }
    return undefined;
  }
}

/** The lazy view: cached postings of unchanged files + in-memory index of changed ones. */
export class CachedIndex implements IndexView {
  N: number;
  totalLen: number;
  paths: string[];
  slots: number;
  private readonly masked: Uint8Array;
  private readonly starts: Int32Array;
  private readonly shardCache = new Map<number, Record<string, number[]>>();
  private readonly chunkCache = new Map<string, ArrayLike<number>[]>();
  private readonly dfCache = new Map<string, number>();
  private readonly docsCache = new Map<number, Doc[]>();
  private readonly infos: (FileInfo | undefined)[] = [];
  private readonly base: number;

  constructor(private readonly root: string, private readonly m: Manifest, masked: Set<number>, private readonly fresh: MemoryIndex) {
    this.base = m.files.path.length;
    this.masked = new Uint8Array(this.base);
    this.starts = new Int32Array(this.base + fresh.paths.length);
    let N = m.N;
    let len = m.totalLen;
    for (const f of masked) { this.masked[f] = 1; N -= m.files.n[f]!; len -= m.files.len[f]!; }
    let s = 0;
    for (let i = 0; i < this.base; i++) { this.starts[i] = s; s += m.files.n[i]!; }
    for (let i = 0; i < fresh.paths.length; i++) this.starts[this.base + i] = s + fresh.fileStart(i);
    this.slots = s + fresh.slots;
    this.N = N + fresh.N;
    this.totalLen = len + fresh.totalLen;
    this.paths = fresh.paths.length ? [...m.files.path, ...fresh.paths] : m.files.path;
  }

  private shard(n: number): Record<string, number[]> {
    let s = this.shardCache.get(n);
    if (!s) {
      try {
        s = JSON.parse(readFileSync(join(this.root, INDEX_DIR, this.m.build, `t-${n}.json`), 'utf8')) as Record<string, number[]>;
      } catch (e) {
        throw new StaleBuildError(`index build ${this.m.build} vanished: ${(e as Error).message}`);
      }
      this.shardCache.set(n, s);
    }
    return s;
  }

  postingChunks(term: string): ArrayLike<number>[] {
    let c = this.chunkCache.get(term);
    if (c) return c;
    c = [];
    const flat = this.shard(termHash(term) % this.m.shards)[term];
    if (flat) c.push(flat);
    const fr = this.fresh.flat(term);
    if (fr) {
      const copy = fr.slice();
      for (let i = 0; i < copy.length; i += STRIDE) copy[i]! += this.base;
      c.push(copy);
    }
    this.chunkCache.set(term, c);
    return c;
  }

  df(term: string): number {
    let n = this.dfCache.get(term);
    if (n === undefined) {
      n = 0;
      for (const c of this.postingChunks(term)) for (let i = 0; i < c.length; i += STRIDE) if (this.live(c[i]!)) n++;
      this.dfCache.set(term, n);
    }
    return n;
  }

  live(file: number): boolean { return file >= this.base || this.masked[file] === 0; }
  fileStart(file: number): number { return this.starts[file]!; }

  docCount(file: number): number {
    return file < this.base ? (this.masked[file] ? 0 : this.m.files.n[file]!) : this.fresh.docCount(file - this.base);
  }

  fileDocs(file: number): Doc[] {
    if (file >= this.base) return this.fresh.fileDocs(file - this.base);
    if (this.masked[file]) return [];
    let d = this.docsCache.get(file);
    if (!d) {
      d = readAndIndex(this.root, this.m.files.path[file]!)?.docs ?? [];
      this.docsCache.set(file, d);
    }
    return d;
  }

  info(file: number): FileInfo {
    let i = this.infos[file];
    if (!i) this.infos[file] = i = classify(this.paths[file]!);
    return i;
  }
}

export interface LoadReport { mode: 'cache' | 'built' | 'fresh'; changed: number; files: number }

function buildFrom(ctx: Ctx, scan: Scan): MemoryIndex {
  const idx = new MemoryIndex([], ctx.root);
  const progress = ctx.interactive && scan.files.length > 2000;
  scan.files.forEach((f, i) => {
    const rec = readAndIndex(ctx.root, f.path);
    if (rec) idx.add(rec);
    if (progress && i % 1000 === 0) ctx.log.info(`indexing memory: ${i}/${scan.files.length} files`);
  });
  writeCache(ctx.root, idx, scan.dirs);
  return idx;
}

/** Build the full index from the files, write it to the cache, return it. */
export function rebuildIndex(ctx: Ctx): MemoryIndex {
  applyTokenizerEnv(ctx.env);
  return buildFrom(ctx, scanFiles(ctx.root));
}

/** The index for ctx.root: the cache plus changed files, or a rebuild when too much changed. */
export function openIndex(ctx: Ctx, report?: LoadReport): IndexView {
  applyTokenizerEnv(ctx.env);
  let m = readManifest(ctx.root);
  if (m && !statSync(join(ctx.root, INDEX_DIR, m.build), { throwIfNoEntry: false })) m = undefined; // build vanished
  const scan = scanFiles(ctx.root, m);
  if (!m) {
    if (report) Object.assign(report, { mode: 'built', changed: -1, files: scan.files.length });
    return buildFrom(ctx, scan);
  }
  const pos = new Map<string, number>();
  m.files.path.forEach((f, i) => pos.set(f, i));
  const masked = new Set<number>();
  const seen = new Uint8Array(m.files.path.length);
  const changed: string[] = [];
  let bytes = 0;
  for (const c of scan.files) {
    const i = pos.get(c.path);
    if (i !== undefined) {
      seen[i] = 1;
      if (m.files.mtimeMs[i] === c.mtimeMs && m.files.size[i] === c.size) continue;
      masked.add(i);
    }
    changed.push(c.path);
    bytes += c.size;
  }
  let gone = 0;
  for (let i = 0; i < seen.length; i++) if (!seen[i]) { masked.add(i); gone++; }
  if (report) Object.assign(report, { mode: 'cache', changed: changed.length + gone, files: scan.files.length });
  if (changed.length + gone > REBUILD_AT || bytes > REBUILD_BYTES) {
    if (report) report.mode = 'built';
    return buildFrom(ctx, scan);
  }
  const fresh = new MemoryIndex();
  for (const p of changed) {
    const rec = readAndIndex(ctx.root, p);
    if (rec) fresh.add(rec);
  }
  return new CachedIndex(ctx.root, m, masked, fresh);
}

/** Remove the cache (it is rebuilt by the next search). */
export function clearIndex(root: string): void {
  rmSync(join(root, INDEX_DIR), { recursive: true, force: true });
}

/** For `memtier health`: is the cache present, and how far is it behind the files? */
export function indexStatus(root: string): { missing: boolean; files: number; changed: number; build?: string } {
  const m = readManifest(root);
  if (!m) return { missing: true, files: 0, changed: 0 };
  const { files } = scanFiles(root, m);
  const byPath = new Map(m.files.path.map((p, i) => [p, i]));
  let changed = 0;
  for (const c of files) { const i = byPath.get(c.path); if (i === undefined || m.files.mtimeMs[i] !== c.mtimeMs || m.files.size[i] !== c.size) changed++; byPath.delete(c.path); }
  changed += byPath.size;
  return { missing: false, files: files.length, changed, build: m.build };
}
