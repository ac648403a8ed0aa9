/**
 * The on-disk index cache: `.memtier/index/` (derived, versioned, rebuildable; deleting it loses
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
import { closeSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Ctx } from '../core/context.js';
import { classify, PATHS, ROOT_FILES, type FileInfo, type FileKind, type Tier } from '../format/layout.js';
import { Doc, MemoryIndex, packInfo, readAndIndex, STRIDE, type FileArrays, type FileRecord, type IndexView } from './corpus.js';
import type { Unit } from './units.js';
import { setCjkMode, tokenizerConfigKey, TOKENIZER_VERSION } from './tokenize.js';
import { statMany } from './statmany.js';

export const INDEX_DIR = '.memtier/index';
export const CACHE_VERSION = 7;
/** Rebuild the cache when more files than this changed since it was built. */
export const REBUILD_AT = 24;
export const REBUILD_BYTES = 2 * 1024 * 1024;
/** Postings per shard the writer aims at. */
export const SHARD_POSTINGS = 4000;
/** A folder modified this close to the build's scan is always listed again (same-tick creations). */
export const RACY_MS = 1000;

type DirRow = [dir: string, mtimeMs: number, subdirs: string[], first: number, count: number];
export interface Manifest { v: number; tok: string; build: string; shards: number; N: number; totalLen: number; slots: number; nfiles: number; paths: string; dirs: DirRow[]; kinds: [FileInfo['kind'], FileInfo['tier']][] }
/** files.bin, as typed-array views over one read. */
export interface FileTable { mtimeMs: Float64Array; size: Float64Array; unitsAt: Float64Array; n: Int32Array; len: Int32Array; info: Int32Array; entryLen: Int32Array }

export class StaleBuildError extends Error {}

/** A manifest with its file table and paths (openManifest). */
export interface OpenManifest { m: Manifest; ft: FileTable; paths: string[] }

/** What queries of one build can share in a long-running process: term shards and parsed entries. */
export interface SharedBuild { build: string; shards: Map<number, Shard>; docs: Map<number, Doc[]>; slotFile?: Int32Array }

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
}

let source: FreshnessSource | undefined;

export function setFreshnessSource(s: FreshnessSource | undefined): void {
  source = s;
}

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
    if (m.v !== CACHE_VERSION || m.tok !== tokenizerKey() || typeof m.paths !== 'string' || !Array.isArray(m.dirs) || !Array.isArray(m.kinds)) return undefined;
    return m;
  } catch {
    return undefined;
  }
}

/** files.bin of the manifest's build; undefined when the build vanished or is damaged. */
function readFileTable(root: string, m: Manifest): FileTable | undefined {
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

function fileTableBytes(nfiles: number, slots: number): number {
  return 8 * (3 * nfiles + 1) + 4 * (3 * nfiles + slots);
}

/** An entry as stored in units.json (path, tier and kind come from the file). */
type UnitRow = [line: number, endLine: number, text: string, heading: string, tags: string[], id: string | 0, type: string | 0, date: string | 0, time: string | 0, superseded: 0 | 1];

function unitRow(u: Unit): UnitRow {
  return [u.line, u.endLine, u.text, u.heading, u.tags, u.id ?? 0, u.type ?? 0, u.date ?? 0, u.time ?? 0, u.superseded ? 1 : 0];
}

function rowUnit(r: UnitRow, info: FileInfo): Unit {
  const u: Unit = { path: info.rel, line: r[0], endLine: r[1], tags: r[4], tier: info.tier, kind: info.kind, heading: r[3], text: r[2] };
  if (r[5]) u.id = r[5];
  if (r[6]) u.type = r[6] as Unit['type'] & string;
  if (r[7]) u.date = r[7];
  if (r[8]) u.time = r[8];
  if (r[9]) u.superseded = true;
  return u;
}

/** units.json being written during a build: one JSON array per file, appended in file order. */
class UnitsWriter {
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

const SKIP_DIRS = new Set(['.trash', '.memtier', '.git', 'node_modules', 'scripts', '.dreams', '.obsidian']);
const TOP_DIRS = [PATHS.memoryDir, PATHS.knowledge];
const NOENT = { throwIfNoEntry: false } as const;

interface Scan { files: { path: string; mtimeMs: number; size: number }[]; dirs: DirRow[] }

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
    const st = statSync(prefix + path, NOENT);
    if (st && st.isFile()) files.push({ path, mtimeMs: st.mtimeMs, size: st.size });
  };
  for (const f of ROOT_FILES) addFile(f);
  dirs.push(['', -1, [], 0, files.length]);
  const walk = (dir: string): void => {
    const st = statSync(prefix + dir, NOENT);
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
    const st = statSync(prefix + paths[i]!, NOENT);
    if (st && st.isFile()) compare(i, st.mtimeMs, st.size);
  };
  // the files of unchanged folders, stat'ed together at the end (on two threads for large memories)
  const later: number[] = [];
  const unknown = (rel: string): void => {
    const st = statSync(prefix + rel, NOENT);
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
    const st = statSync(prefix + dir, NOENT);
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

function newBuildName(): string {
  return `b${Date.now().toString(36)}${process.pid.toString(36)}${Math.floor(Math.random() * 0xffffff).toString(36)}`;
}

/**
 * Write `idx` as a new build and point the manifest at it. `units` holds the entries written while
 * indexing (buildFrom); without it they are read from the files again. Errors are swallowed (a
 * cache is optional).
 */
export function writeCache(root: string, idx: MemoryIndex, dirs: DirRow[], units?: { build: string; writer: UnitsWriter }): Manifest | undefined {
  const dir = join(root, INDEX_DIR);
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

/** The lazy view: cached postings of unchanged files + in-memory index of changed ones. */
export class CachedIndex implements IndexView {
  N: number;
  totalLen: number;
  paths: string[];
  slots: number;
  private readonly masked: Uint8Array;
  private readonly starts: Int32Array;
  private readonly shardCache: Map<number, Shard>;
  private readonly chunkCache = new Map<string, ArrayLike<number>[]>();
  private readonly dfCache = new Map<string, number>();
  private readonly pairsCache = new Map<string, Int32Array[]>();
  private readonly anyMasked: boolean;
  private readonly docsCache: Map<number, Doc[]>;
  private readonly infos: (FileInfo | undefined)[] = [];
  private readonly base: number;
  private fileArrays?: FileArrays;
  private readonly maskedList: string;

  /** `shared`: caches of the build kept across queries by a long-running process (else this view's own). */
  constructor(private readonly root: string, private readonly m: Manifest, private readonly ft: FileTable, basePaths: string[], masked: ArrayLike<number>, private readonly fresh: MemoryIndex, private readonly shared: SharedBuild = { build: m.build, shards: new Map(), docs: new Map() }) {
    this.shardCache = shared.shards;
    this.docsCache = shared.docs;
    this.base = m.nfiles;
    this.masked = new Uint8Array(this.base);
    this.starts = new Int32Array(this.base + fresh.paths.length + 1);
    let N = m.N;
    let len = m.totalLen;
    for (let j = 0; j < masked.length; j++) { const f = masked[j]!; this.masked[f] = 1; N -= ft.n[f]!; len -= ft.len[f]!; }
    this.maskedList = Array.from(masked).sort((a, b) => a - b).join(',');
    this.anyMasked = masked.length > 0;
    let s = 0;
    for (let i = 0; i < this.base; i++) { this.starts[i] = s; s += ft.n[i]!; }
    for (let i = 0; i < fresh.paths.length; i++) this.starts[this.base + i] = s + fresh.fileStart(i);
    this.slots = s + fresh.slots;
    this.starts[this.base + fresh.paths.length] = this.slots;
    this.N = N + fresh.N;
    this.totalLen = len + fresh.totalLen;
    this.paths = fresh.paths.length ? [...basePaths, ...fresh.paths] : basePaths;
  }

  /** The build, the files masked since it (changed or gone) and the changed files' stats. */
  state(): string {
    return `${this.m.build}\n${this.maskedList}\n${this.fresh.state()}`;
  }

  private shard(n: number): Shard {
    let s = this.shardCache.get(n);
    if (!s) {
      try {
        s = new Shard(readFileSync(join(this.root, INDEX_DIR, this.m.build, `t-${n}.bin`)));
      } catch (e) {
        throw new StaleBuildError(`index build ${this.m.build} vanished: ${(e as Error).message}`);
      }
      this.shardCache.set(n, s);
    }
    return s;
  }

  /** The file of each cached slot (built on first use). */
  private fileOfSlot(): Int32Array {
    if (!this.shared.slotFile) {
      const sf = new Int32Array(this.m.slots);
      const n = this.ft.n;
      let s = 0;
      for (let f = 0; f < this.base; f++) { sf.fill(f, s, s + n[f]!); s += n[f]!; }
      this.shared.slotFile = sf;
    }
    return this.shared.slotFile;
  }

  postingChunks(term: string): ArrayLike<number>[] {
    let c = this.chunkCache.get(term);
    if (c) return c;
    c = [];
    const pairs = this.shard(termHash(term) % this.m.shards).find(Buffer.from(term, 'utf8'));
    if (pairs) {
      const sf = this.fileOfSlot();
      const el = this.ft.entryLen;
      const out = new Int32Array((pairs.length >> 1) * STRIDE);
      for (let i = 0, o = 0; i < pairs.length; i += 2, o += STRIDE) {
        const slot = pairs[i]!;
        const v = pairs[i + 1]!;
        const file = sf[slot]!;
        out[o] = file; out[o + 1] = slot - this.starts[file]!; out[o + 2] = v >> 1; out[o + 3] = el[slot]!; out[o + 4] = v & 1;
      }
      c.push(out);
    }
    const fr = this.fresh.flat(term);
    if (fr) {
      const copy = fr.slice();
      for (let i = 0; i < copy.length; i += STRIDE) copy[i]! += this.base;
      c.push(copy);
    }
    this.chunkCache.set(term, c);
    return c;
  }

  /**
   * The cached pairs as stored (a cached slot is the view's slot: cached files come first, in
   * build order), then the fresh files' pairs moved past them.
   */
  slotPostings(term: string): Int32Array[] {
    let c = this.pairsCache.get(term);
    if (c) return c;
    c = [];
    const pairs = this.shard(termHash(term) % this.m.shards).find(Buffer.from(term, 'utf8'));
    if (pairs) c.push(pairs);
    const fr = this.fresh.pairs(term);
    if (fr) {
      const at = this.starts[this.base]!;
      for (let i = 0; i < fr.length; i += 2) fr[i]! += at;
      c.push(fr);
    }
    this.pairsCache.set(term, c);
    return c;
  }

  df(term: string): number {
    let n = this.dfCache.get(term);
    if (n === undefined) {
      n = 0;
      const { start, live } = this.arrays();
      for (const c of this.slotPostings(term)) {
        if (!this.anyMasked) { n += c.length >> 1; continue; } // every posting is live: no loop
        // slots ascend: walk the files along (as rank() does)
        let f = 0;
        for (let i = 0; i < c.length; i += 2) {
          const slot = c[i]!;
          if (slot < start[f]!) f = 0;
          while (start[f + 1]! <= slot) f++;
          n += live[f]!;
        }
      }
      this.dfCache.set(term, n);
    }
    return n;
  }

  arrays(): FileArrays {
    if (!this.fileArrays) {
      const nFresh = this.fresh.paths.length;
      let info = this.ft.info;
      let entryLen = this.ft.entryLen;
      const classes = this.m.kinds.slice();
      if (nFresh) {
        // a changed or new file: its class from its path, its entries' lengths from the fresh index
        const classAt = new Map<string, number>(classes.map(([k, t], i) => [`${k}\t${t}`, i]));
        info = new Int32Array(this.base + nFresh);
        info.set(this.ft.info);
        for (let i = 0; i < nFresh; i++) info[this.base + i] = packInfo(this.fresh.info(i), classes, classAt);
        entryLen = new Int32Array(this.slots);
        entryLen.set(this.ft.entryLen);
        entryLen.set(this.fresh.arrays().entryLen, this.starts[this.base]!);
      }
      const live = new Uint8Array(this.base + nFresh).fill(1);
      if (this.anyMasked) for (let f = 0; f < this.base; f++) if (this.masked[f]) live[f] = 0;
      this.fileArrays = { start: this.starts, live, info, classes, entryLen };
    }
    return this.fileArrays;
  }

  live(file: number): boolean { return file >= this.base || this.masked[file] === 0; }
  fileStart(file: number): number { return this.starts[file]!; }

  docCount(file: number): number {
    return file < this.base ? (this.masked[file] ? 0 : this.ft.n[file]!) : this.fresh.docCount(file - this.base);
  }

  fileDocs(file: number): Doc[] {
    if (file >= this.base) return this.fresh.fileDocs(file - this.base);
    if (this.masked[file]) return [];
    let d = this.docsCache.get(file);
    if (!d) {
      const from = this.ft.unitsAt[file]!;
      const buf = Buffer.allocUnsafe(this.ft.unitsAt[file + 1]! - from);
      try {
        const fd = openSync(join(this.root, INDEX_DIR, this.m.build, 'units.json'), 'r');
        try { if (readSync(fd, buf, 0, buf.length, from) !== buf.length) throw new Error('units.json is short'); } finally { closeSync(fd); }
      } catch (e) {
        throw new StaleBuildError(`index build ${this.m.build} vanished: ${(e as Error).message}`);
      }
      const info = this.info(file);
      d = (JSON.parse(buf.toString('utf8')) as UnitRow[]).map((r, i) => new Doc(rowUnit(r, info), i));
      this.docsCache.set(file, d);
    }
    return d;
  }

  info(file: number): FileInfo {
    let i = this.infos[file];
    if (!i) {
      if (file >= this.base) i = classify(this.paths[file]!);
      else {
        const v = this.ft.info[file]!;
        const [kind, tier] = this.m.kinds[v & 31]!;
        i = new PackedInfo(this.paths[file]!, kind, tier, v >>> 5);
      }
      this.infos[file] = i;
    }
    return i;
  }
}

/**
 * A file's class from the file table, its day (YYYYMMDD) formatted only when asked: a cold query
 * at 50k notes asks the kind of tens of thousands of files and the date of few.
 */
class PackedInfo implements FileInfo {
  #date: string | undefined | null = null;
  constructor(readonly rel: string, readonly kind: FileKind, readonly tier: Tier, private readonly day: number) {}
  get date(): string | undefined {
    if (this.#date === null) {
      const d = this.day;
      this.#date = d ? `${Math.floor(d / 10000)}-${String(Math.floor(d / 100) % 100).padStart(2, '0')}-${String(d % 100).padStart(2, '0')}` : undefined;
    }
    return this.#date;
  }
}

export interface LoadReport { mode: 'cache' | 'built' | 'fresh'; changed: number; files: number }

function buildFrom(ctx: Ctx, scan: Scan): MemoryIndex {
  const idx = new MemoryIndex([], ctx.root);
  const progress = ctx.interactive && scan.files.length > 2000;
  // entries are written to units.json as files are indexed (none kept in memory)
  let units: { build: string; writer: UnitsWriter } | undefined;
  try {
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

/** The manifest, its file table and paths, or undefined when missing, of another version, or its build vanished. */
function openManifest(root: string): OpenManifest | undefined {
  const m = readManifest(root);
  if (!m) return undefined;
  const ft = readFileTable(root, m);
  if (!ft) return undefined;
  const paths = m.nfiles ? m.paths.split('\n') : [];
  return paths.length === m.nfiles ? { m, ft, paths } : undefined;
}

/** The index for ctx.root: the cache plus changed files, or a rebuild when too much changed. */
export function openIndex(ctx: Ctx, report?: LoadReport): IndexView {
  applyTokenizerEnv(ctx.env);
  const src = source?.root === ctx.root ? source : undefined;
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
