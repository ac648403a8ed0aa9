/**
 * The index cache's on-disk format (what is written and how it is read back): `.memtier/index/` (derived, versioned, rebuildable; deleting it loses
 * nothing; gitignored with the rest of .memtier). Read lazily, never stale. Binary, so a cold
 * query parses almost nothing (no JSON for postings, no object per file or posting).
 *
 *   .memtier/index/manifest.json   { v, tok, build, shards, N, totalLen, slots, nfiles,
 *                                    paths: "p0\np1\n…", dirs: [[dir, mtimeMs, [subdirs], first, count]] }
 *   .memtier/index/<build>/files.bin  Float64 mtimeMs[nfiles], Float64 size[nfiles],
 *                                    Float64 unitsAt[nfiles + 1], Int32 entries[nfiles],
 *                                    Int32 len[nfiles], Int32 info[nfiles], Int32 entryLen[slots]
 *                                    (info: the file's layout class, kinds[info & 31], and its
 *                                    day as YYYYMMDD in info >>> 5 — no path regex per query)
 *   .memtier/index/<build>/units.json  per file (bytes unitsAt[f] … unitsAt[f + 1]) a JSON array
 *                                    of its entries: [line, endLine, text, heading, tags, id, type,
 *                                    date, time, superseded] (0 for absent)
 *   .memtier/index/<build>/t-<n>.bin  term shard n: u32 terms, u32 tableAt, then postings as Int32
 *                                    pairs (slot, tf << 1 | tag), then the table: per term
 *                                    u32 first pair, u32 pairs, u16 bytes, the term in UTF-8
 *
 * Files are listed folder by folder (a folder's files are contiguous: first, count). A slot is an
 * entry's number over all files (file's first slot + entry index).
 *
 * Freshness, per query (the "never stale" rule): every folder is stat'ed; a folder whose mtime is
 * unchanged has the same entries as at build time (adds, removes and renames change it), so its
 * files are taken from the manifest and only changed folders are listed again. Then every file
 * is stat'ed, one statSync each (an in-place append changes only the file; measured cheaper than
 * parallel fs.stat through libuv, whose callbacks cost the main thread more than they overlap;
 * from PARALLEL_STAT_MIN files a worker thread takes half, statmany.ts): a
 * file whose size or mtime differs, or that is new, is re-read and indexed in memory for this
 * query (its cached postings masked); a file gone is masked. A folder modified within RACY_MS of
 * the build's scan is stored with mtime −1 (always listed), so a file created in the same
 * timestamp tick as the scan is not missed. Only the shards of the query's terms are read; the
 * entries of the few files that reach the final ranking come from units.json (the file was
 * stat-checked unchanged since the build, so its entries are exactly what re-parsing it would
 * give; bump CACHE_VERSION whenever units.ts or the tokenizer changes what an entry is). Past REBUILD_AT changed files (or REBUILD_BYTES) the whole cache
 * is rebuilt. Concurrent builders each write their own build folder and swap the manifest
 * atomically; a reader that meets a vanished build falls back to reading the files
 * (StaleBuildError → search.ts withIndex).
 */
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { type FileInfo } from '../format/layout.js';
import { stateDirProblem } from '../store/state-dir.js';
import { Doc, MemoryIndex, packInfo } from './corpus.js';
import type { Unit } from './units.js';
import { tokenizerConfigKey, TOKENIZER_VERSION } from './tokenize.js';

export const INDEX_DIR = '.memtier/index';
export const NOENT = { throwIfNoEntry: false } as const;
export const CACHE_VERSION = 7;
/** Rebuild the cache when more files than this changed since it was built. */
export const REBUILD_AT = 24;
export const REBUILD_BYTES = 2 * 1024 * 1024;
/** Postings per shard the writer aims at. */
export const SHARD_POSTINGS = 4000;
/** A folder modified this close to the build's scan is always listed again (same-tick creations). */
export const RACY_MS = 1000;

export type DirRow = [dir: string, mtimeMs: number, subdirs: string[], first: number, count: number];
export interface Manifest { v: number; tok: string; build: string; shards: number; N: number; totalLen: number; slots: number; nfiles: number; paths: string; dirs: DirRow[]; kinds: [FileInfo['kind'], FileInfo['tier']][] }
/** files.bin, as typed-array views over one read. */
export interface FileTable { mtimeMs: Float64Array; size: Float64Array; unitsAt: Float64Array; n: Int32Array; len: Int32Array; info: Int32Array; entryLen: Int32Array }

export class StaleBuildError extends Error {}

/** A manifest with its file table and paths (openManifest). */
export interface OpenManifest { m: Manifest; ft: FileTable; paths: string[] }

/** The tokenizer's version and CJK configuration: an index built with another is rebuilt. */
export function tokenizerKey(): string {
  return `${TOKENIZER_VERSION}:${tokenizerConfigKey()}`;
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

export function readManifest(root: string): Manifest | undefined {
  if (stateDirProblem(root, 'index')) return undefined; // a linked .memtier/ is never read nor written (health reports it)
  try {
    const m = JSON.parse(readFileSync(join(root, INDEX_DIR, 'manifest.json'), 'utf8')) as Manifest;
    if (m.v !== CACHE_VERSION || m.tok !== tokenizerKey() || typeof m.paths !== 'string' || !Array.isArray(m.dirs) || !Array.isArray(m.kinds)) return undefined;
    return m;
  } catch {
    return undefined;
  }
}

/** files.bin of the manifest's build; undefined when the build vanished or is damaged. */
export function readFileTable(root: string, m: Manifest): FileTable | undefined {
  let buf: Buffer;
  try { buf = readFileSync(join(root, INDEX_DIR, m.build, 'files.bin')); } catch { return undefined; }
  const n = m.nfiles;
  if (buf.length !== fileTableBytes(n, m.slots)) return undefined;
  const ab = buf.byteOffset % 8 === 0 ? buf : Buffer.from(buf); // typed views need aligned offsets
  const o = ab.byteOffset;
  const i = o + 8 * (3 * n + 1);
  return {
    mtimeMs: new Float64Array(ab.buffer, o, n),
    size: new Float64Array(ab.buffer, o + 8 * n, n),
    unitsAt: new Float64Array(ab.buffer, o + 16 * n, n + 1),
    n: new Int32Array(ab.buffer, i, n),
    len: new Int32Array(ab.buffer, i + 4 * n, n),
    info: new Int32Array(ab.buffer, i + 8 * n, n),
    entryLen: new Int32Array(ab.buffer, i + 12 * n, m.slots),
  };
}

export function fileTableBytes(nfiles: number, slots: number): number {
  return 8 * (3 * nfiles + 1) + 4 * (3 * nfiles + slots);
}

/** An entry as stored in units.json (path, tier and kind come from the file). */
export type UnitRow = [line: number, endLine: number, text: string, heading: string, tags: string[], id: string | 0, type: string | 0, date: string | 0, time: string | 0, superseded: 0 | 1];

export function unitRow(u: Unit): UnitRow {
  return [u.line, u.endLine, u.text, u.heading, u.tags, u.id ?? 0, u.type ?? 0, u.date ?? 0, u.time ?? 0, u.superseded ? 1 : 0];
}

export function rowUnit(r: UnitRow, info: FileInfo): Unit {
  const u: Unit = { path: info.rel, line: r[0], endLine: r[1], tags: r[4], tier: info.tier, kind: info.kind, heading: r[3], text: r[2] };
  if (r[5]) u.id = r[5];
  if (r[6]) u.type = r[6] as Unit['type'] & string;
  if (r[7]) u.date = r[7];
  if (r[8]) u.time = r[8];
  if (r[9]) u.superseded = true;
  return u;
}

/** units.json being written during a build: one JSON array per file, appended in file order. */
export class UnitsWriter {
  readonly at: number[] = [0];
  private readonly fd: number;
  private pending: string[] = [];
  private pendingBytes = 0;
  private bytes = 0;
  constructor(path: string) { this.fd = openSync(path, 'w'); }
  add(docs: Doc[]): void {
    const s = JSON.stringify(docs.map((d) => unitRow(d.u)));
    const n = Buffer.byteLength(s);
    this.pending.push(s);
    this.pendingBytes += n;
    this.bytes += n;
    this.at.push(this.bytes);
    if (this.pendingBytes > 256 * 1024) this.flush();
  }
  flush(): void {
    if (this.pending.length) writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingBytes = 0;
  }
  close(): void { this.flush(); closeSync(this.fd); }
  abort(): void { try { closeSync(this.fd); } catch { /* ignore */ } }
}

export function newBuildName(): string {
  return `b${Date.now().toString(36)}${process.pid.toString(36)}${Math.floor(Math.random() * 0xffffff).toString(36)}`;
}

/**
 * Write `idx` as a new build and point the manifest at it. `units` holds the entries written while
 * indexing (buildFrom); without it they are read from the files again. Errors are swallowed (a
 * cache is optional).
 */
export function writeCache(root: string, idx: MemoryIndex, dirs: DirRow[], units?: { build: string; writer: UnitsWriter }): Manifest | undefined {
  const dir = join(root, INDEX_DIR);
  if (stateDirProblem(root, 'index')) return undefined;
  const build = units?.build ?? newBuildName();
  const nf = idx.files.length;
  try {
    let at = units?.writer.at;
    if (!units) {
      mkdirSync(join(dir, build), { recursive: true });
      const w = new UnitsWriter(join(dir, build, 'units.json'));
      try { for (let f = 0; f < nf; f++) w.add(idx.fileDocs(f)); } finally { w.close(); }
      at = w.at;
    } else units.writer.close();
    if (!at || at.length !== nf + 1) throw new Error('units.json does not match the index');
    const postingsCount = idx.postingCount();
    let shards = 1;
    while (shards < 4096 && postingsCount / shards > SHARD_POSTINGS) shards *= 2;
    const ft = Buffer.alloc(fileTableBytes(nf, idx.slots));
    const f64 = new Float64Array(ft.buffer, ft.byteOffset, 3 * nf + 1);
    const i32 = new Int32Array(ft.buffer, ft.byteOffset + 8 * (3 * nf + 1), 3 * nf + idx.slots);
    const kinds: Manifest['kinds'] = [];
    const kindAt = new Map<string, number>();
    idx.files.forEach((f, i) => {
      f64[i] = f.mtimeMs; f64[nf + i] = f.size; i32[i] = f.n; i32[nf + i] = f.len;
      i32[2 * nf + i] = packInfo(idx.info(i), kinds, kindAt);
    });
    for (let i = 0; i <= nf; i++) f64[2 * nf + i] = at[i]!;
    for (let s = 0; s < idx.slots; s++) i32[3 * nf + s] = idx.entryLen(s);
    // one shard at a time (a whole-index buffer would double the peak memory)
    const byShard: string[][] = Array.from({ length: shards }, () => []);
    for (const t of idx.terms()) byShard[termHash(t) % shards]!.push(t);
    byShard.forEach((terms, n) => {
      const enc = terms.map((t) => Buffer.from(t, 'utf8'));
      const lists = terms.map((t) => idx.pairs(t)!);
      let pairs = 0;
      let tableBytes = 0;
      for (let j = 0; j < terms.length; j++) { pairs += lists[j]!.length >> 1; tableBytes += 10 + enc[j]!.length; }
      const buf = Buffer.alloc(8 + pairs * 8 + tableBytes);
      const post = new Int32Array(buf.buffer, buf.byteOffset + 8, pairs * 2);
      buf.writeUInt32LE(terms.length, 0);
      buf.writeUInt32LE(8 + pairs * 8, 4);
      let p = 0;
      let tAt = 8 + pairs * 8;
      for (let j = 0; j < terms.length; j++) {
        const l = lists[j]!;
        buf.writeUInt32LE(p, tAt);
        buf.writeUInt32LE(l.length >> 1, tAt + 4);
        buf.writeUInt16LE(enc[j]!.length, tAt + 8);
        enc[j]!.copy(buf, tAt + 10);
        tAt += 10 + enc[j]!.length;
        post.set(l, p * 2);
        p += l.length >> 1;
      }
      writeFileSync(join(dir, build, `t-${n}.bin`), buf);
    });
    writeFileSync(join(dir, build, 'files.bin'), ft);
    const m: Manifest = { v: CACHE_VERSION, tok: tokenizerKey(), build, shards, N: idx.N, totalLen: idx.totalLen, slots: idx.slots, nfiles: nf, paths: idx.paths.join('\n'), dirs, kinds };
    const tmp = join(dir, `manifest.json.${build}.tmp`);
    writeFileSync(tmp, JSON.stringify(m));
    renameSync(tmp, join(dir, 'manifest.json'));
    // remove other builds, but not one another process may still be writing or reading (< 30 s
    // old); a reader whose build vanished anyway falls back to the files and rebuilds
    const now = Date.now();
    for (const d of readdirSync(dir)) {
      if (d === build || !/^b[0-9a-z]+$/.test(d)) continue;
      const st = statSync(join(dir, d), NOENT);
      if (st && now - st.mtimeMs > 30_000) rmSync(join(dir, d), { recursive: true, force: true });
    }
    return m;
  } catch {
    units?.writer.abort();
    try { rmSync(join(dir, build), { recursive: true, force: true }); } catch { /* ignore */ }
    return undefined;
  }
}

/** One term shard, read whole into a Buffer; a term's postings are decoded only when asked. */
export class Shard {
  private readonly post: Int32Array;
  constructor(private readonly buf: Buffer) {
    const b = buf.byteOffset % 4 === 0 ? buf : Buffer.from(buf);
    this.buf = b;
    this.post = new Int32Array(b.buffer, b.byteOffset + 8, (b.readUInt32LE(4) - 8) >> 2);
  }
  /** The (slot, tf << 1 | tag) pairs of `term`, or undefined. */
  find(term: Buffer): Int32Array | undefined {
    const b = this.buf;
    const count = b.readUInt32LE(0);
    let at = b.readUInt32LE(4);
    for (let j = 0; j < count; j++) {
      const len = b.readUInt16LE(at + 8);
      if (len === term.length && b.compare(term, 0, len, at + 10, at + 10 + len) === 0) {
        const first = b.readUInt32LE(at);
        return this.post.subarray(first * 2, (first + b.readUInt32LE(at + 4)) * 2);
      }
      at += 10 + len;
    }
    return undefined;
  }
}

/** The manifest, its file table and paths, or undefined when missing, of another version, or its build vanished. */
export function openManifest(root: string): OpenManifest | undefined {
  const m = readManifest(root);
  if (!m) return undefined;
  const ft = readFileTable(root, m);
  if (!ft) return undefined;
  const paths = m.nfiles ? m.paths.split('\n') : [];
  return paths.length === m.nfiles ? { m, ft, paths } : undefined;
}

