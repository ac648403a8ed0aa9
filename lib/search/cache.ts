/**
 * The on-disk index cache: `.memtier/index/` (derived, versioned, rebuildable; deleting it loses
 * nothing). Read lazily, never stale.
 *
 *   .memtier/index/manifest.json      { v, tok, build, shards, N, totalLen, files: [[path, mtimeMs, size, nDocs, len]] }
 *   .memtier/index/<build>/t-<n>.json  term shard n: { term: [file, pos, tf, len, tag, file, pos, …] }
 *
 * A query reads the manifest, lists the memory files (readdir) and stats each one; a file whose
 * size or mtime differs from the manifest, or that is new, is re-read and indexed in memory for
 * this query (its cached postings are masked); a file gone from disk is masked. Only the shards
 * of the query's terms are parsed, and only the files that reach the final ranking are re-read
 * (from the stat-checked file itself, so entries are never stale). When more than REBUILD_AT
 * files (or REBUILD_BYTES) changed, the whole cache is rebuilt. Concurrent builders each write
 * their own build folder and swap the manifest atomically; a reader that meets a vanished build
 * falls back to reading the files.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Ctx } from '../core/context.js';
import { classify, listMemoryFiles, type FileInfo } from '../format/layout.js';
import { MemoryIndex, readAndIndex, type Doc, type IndexView, type Posting } from './corpus.js';
import { TOKENIZER_VERSION } from './tokenize.js';

export const INDEX_DIR = '.memtier/index';
export const CACHE_VERSION = 1;
/** Rebuild the cache when more files than this changed since it was built. */
export const REBUILD_AT = 24;
export const REBUILD_BYTES = 2 * 1024 * 1024;

type FileRow = [path: string, mtimeMs: number, size: number, nDocs: number, len: number];
export interface Manifest { v: number; tok: number; build: string; shards: number; N: number; totalLen: number; files: FileRow[] }

export class StaleBuildError extends Error {}

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
    if (m.v !== CACHE_VERSION || m.tok !== TOKENIZER_VERSION || !Array.isArray(m.files)) return undefined;
    return m;
  } catch {
    return undefined;
  }
}

/** Write `idx` as a new build and point the manifest at it. Errors are swallowed (a cache is optional). */
export function writeCache(root: string, idx: MemoryIndex): Manifest | undefined {
  let postingsCount = 0;
  for (const [, p] of idx.terms()) postingsCount += p.length;
  let shards = 1;
  while (shards < 1024 && postingsCount / shards > 6000) shards *= 2;
  const build = `b${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dir = join(root, INDEX_DIR);
  try {
    mkdirSync(join(dir, build), { recursive: true });
    const parts: Record<string, number[]>[] = Array.from({ length: shards }, () => ({}));
    for (const [t, post] of idx.terms()) {
      const flat: number[] = new Array(post.length * 5);
      let i = 0;
      for (const p of post) { flat[i++] = p.file; flat[i++] = p.pos; flat[i++] = p.tf; flat[i++] = p.len; flat[i++] = p.tag ? 1 : 0; }
      parts[termHash(t) % shards]![t] = flat;
    }
    parts.forEach((p, n) => writeFileSync(join(dir, build, `t-${n}.json`), JSON.stringify(p)));
    const files: FileRow[] = idx.files.map((f) => [f.path, f.mtimeMs, f.size, f.docs.length, f.docs.reduce((s, d) => s + d.len, 0)]);
    const m: Manifest = { v: CACHE_VERSION, tok: TOKENIZER_VERSION, build, shards, N: idx.N, totalLen: idx.totalLen, files };
    const tmp = join(dir, `manifest.json.${build}.tmp`);
    writeFileSync(tmp, JSON.stringify(m));
    renameSync(tmp, join(dir, 'manifest.json'));
    // remove older builds (a reader still on one falls back to the files)
    for (const d of readdirSync(dir)) if (d !== build && d !== 'manifest.json' && /^b[0-9a-z]+$/.test(d)) rmSync(join(dir, d), { recursive: true, force: true });
    return m;
  } catch {
    try { rmSync(join(dir, build), { recursive: true, force: true }); } catch { /* ignore */ }
    return undefined;
  }
}

interface Current { path: string; mtimeMs: number; size: number }

/** List and stat every memory file. */
function currentFiles(root: string): Current[] {
  const out: Current[] = [];
  for (const rel of listMemoryFiles(root)) {
    try {
      const st = statSync(join(root, rel));
      out.push({ path: rel, mtimeMs: st.mtimeMs, size: st.size });
    } catch { /* vanished between readdir and stat */ }
  }
  return out;
}

/** The lazy view: cached postings of unchanged files + in-memory index of changed ones. */
export class CachedIndex implements IndexView {
  N: number;
  totalLen: number;
  paths: string[];
  private readonly masked: Uint8Array;
  private readonly shardCache = new Map<number, Record<string, number[]>>();
  private readonly postCache = new Map<string, Posting[]>();
  private readonly docsCache = new Map<number, Doc[]>();
  private readonly infos: (FileInfo | undefined)[] = [];
  private readonly base: number;

  constructor(private readonly root: string, private readonly m: Manifest, masked: Set<number>, private readonly fresh: MemoryIndex) {
    this.base = m.files.length;
    this.masked = new Uint8Array(this.base);
    let N = m.N;
    let len = m.totalLen;
    for (const f of masked) { this.masked[f] = 1; N -= m.files[f]![3]; len -= m.files[f]![4]; }
    this.N = N + fresh.N;
    this.totalLen = len + fresh.totalLen;
    this.paths = [...m.files.map((f) => f[0]), ...fresh.paths];
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

  postings(term: string): Posting[] | undefined {
    let p = this.postCache.get(term);
    if (p) return p;
    p = [];
    const flat = this.shard(termHash(term) % this.m.shards)[term];
    if (flat) {
      for (let i = 0; i < flat.length; i += 5) {
        const file = flat[i]!;
        if (this.masked[file]) continue;
        p.push({ file, pos: flat[i + 1]!, tf: flat[i + 2]!, len: flat[i + 3]!, tag: flat[i + 4] === 1 });
      }
    }
    for (const q of this.fresh.postings(term) ?? []) p.push({ ...q, file: q.file + this.base });
    this.postCache.set(term, p);
    return p.length ? p : undefined;
  }

  df(term: string): number { return this.postings(term)?.length ?? 0; }

  docCount(file: number): number {
    return file < this.base ? (this.masked[file] ? 0 : this.m.files[file]![3]) : this.fresh.docCount(file - this.base);
  }

  fileDocs(file: number): Doc[] {
    if (file >= this.base) return this.fresh.fileDocs(file - this.base);
    if (this.masked[file]) return [];
    let d = this.docsCache.get(file);
    if (!d) {
      d = readAndIndex(this.root, this.m.files[file]![0])?.docs ?? [];
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

/** Build the full index from the files, write it to the cache, return it. */
export function rebuildIndex(ctx: Ctx): MemoryIndex {
  const files = listMemoryFiles(ctx.root);
  const idx = new MemoryIndex();
  const progress = ctx.interactive && files.length > 2000;
  files.forEach((rel, i) => {
    const rec = readAndIndex(ctx.root, rel);
    if (rec) idx.add(rec);
    if (progress && i % 1000 === 0) ctx.log.info(`indexing memory: ${i}/${files.length} files`);
  });
  writeCache(ctx.root, idx);
  return idx;
}

/** The index for ctx.root: the cache plus changed files, or a rebuild when too much changed. */
export function openIndex(ctx: Ctx, report?: LoadReport): IndexView {
  const m = readManifest(ctx.root);
  if (!m) {
    if (report) Object.assign(report, { mode: 'built', changed: -1 });
    return rebuildIndex(ctx);
  }
  const cur = currentFiles(ctx.root);
  const pos = new Map<string, number>();
  m.files.forEach((f, i) => pos.set(f[0], i));
  const masked = new Set<number>();
  const seen = new Uint8Array(m.files.length);
  const changed: string[] = [];
  let bytes = 0;
  for (const c of cur) {
    const i = pos.get(c.path);
    if (i !== undefined) {
      seen[i] = 1;
      const f = m.files[i]!;
      if (f[1] === c.mtimeMs && f[2] === c.size) continue;
      masked.add(i);
    }
    changed.push(c.path);
    bytes += c.size;
  }
  for (let i = 0; i < seen.length; i++) if (!seen[i]) masked.add(i);
  if (report) Object.assign(report, { mode: 'cache', changed: changed.length + (masked.size - changed.filter((p) => pos.has(p)).length), files: cur.length });
  if (changed.length > REBUILD_AT || bytes > REBUILD_BYTES || masked.size > REBUILD_AT * 4) {
    if (report) report.mode = 'built';
    return rebuildIndex(ctx);
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
  const cur = currentFiles(root);
  const byPath = new Map(m.files.map((f) => [f[0], f]));
  let changed = 0;
  for (const c of cur) { const f = byPath.get(c.path); if (!f || f[1] !== c.mtimeMs || f[2] !== c.size) changed++; byPath.delete(c.path); }
  changed += byPath.size;
  return { missing: false, files: cur.length, changed, build: m.build };
}
