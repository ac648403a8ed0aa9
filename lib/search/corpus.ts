/**
 * The index as the ranking sees it (IndexView), and its in-memory implementation built from
 * files. The on-disk cache (lib/search/index-view.ts) implements the same view lazily: postings of
 * the query's terms from binary term shards, entries of the few files that reach the final
 * ranking parsed again from the files themselves (stat-checked unchanged since the build).
 *
 * Postings are flat number arrays, five numbers per occurrence: file, pos (entry index in the
 * file), tf (weighted), len (the entry's weighted length), tag (1 when the term is a tag).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { classify, listMemoryFiles, type FileInfo } from '../format/layout.js';
import { tokenize } from './tokenize.js';
import { MAX_FILE_BYTES } from '../store/guards/text.js';
import { fileUnits, type Unit } from './units.js';
import { aliasTerm, declaredAliases } from './aliases.js';

/** The alias pairs a unit declares: in its text, and its note's `aliases:` frontmatter. */
export function unitAliases(u: Unit): [string, string][] {
  const own = declaredAliases(u.text);
  return u.aliases ? [...u.aliases, ...own] : own;
}

/** The zero-weight terms of the names a unit declares (aliasTerm of each side's tokens). */
export function aliasTerms(u: Unit): string[] {
  const out = new Set<string>();
  for (const pair of unitAliases(u)) for (const name of pair) { const t = aliasTerm(tokenize(name)); if (t) out.add(t); }
  return [...out];
}

/** Field weights (BM25F-style): a term in a tag or heading counts this many body occurrences. */
export const FIELD_WEIGHTS = { body: 1, heading: 2, tags: 3 } as const;
/** Prefix of the zero-weight term that indexes an entry id. */
export const ID_TERM_PREFIX = '^';
/** Numbers per posting in a flat postings array. */
export const STRIDE = 5;

interface Terms { tf: Map<string, number>; len: number; tagTerms: Set<string> }

function unitTerms(u: Unit): Terms {
  const tf = new Map<string, number>();
  let len = 0;
  const add = (toks: string[], w: number): void => {
    for (const t of toks) { tf.set(t, (tf.get(t) ?? 0) + w); len += w; }
  };
  add(tokenize(u.text), FIELD_WEIGHTS.body);
  if (u.heading) add(tokenize(u.heading), FIELD_WEIGHTS.heading);
  const tagToks = tokenize([...u.tags.map((t) => t.replace(/[-_/]/g, ' ')), u.type ?? ''].join(' '));
  add(tagToks, FIELD_WEIGHTS.tags);
  // the entry id as a zero-weight term `^id`: findable (hot tier, citations), never scored
  if (u.id) tf.set(ID_TERM_PREFIX + u.id.toLowerCase(), 0);
  // each name it declares for another as a zero-weight term (search/aliases.ts)
  for (const t of aliasTerms(u)) tf.set(t, 0);
  return { tf, len: Math.max(1, len), tagTerms: new Set(tagToks) };
}

/** An entry of the index. Its terms are computed on first use (most entries never need them). */
export class Doc {
  private t?: Terms;
  constructor(readonly u: Unit, readonly pos: number) {}
  private terms(): Terms { return (this.t ??= unitTerms(this.u)); }
  /** term → weighted term frequency (body + heading×2 + tags×3). */
  get tf(): Map<string, number> { return this.terms().tf; }
  /** Weighted length. */
  get len(): number { return this.terms().len; }
  /** Terms that came from tags (the type tag included). */
  get tagTerms(): Set<string> { return this.terms().tagTerms; }
  /** Drop the computed terms (memory) — they are recomputed if asked again. */
  forget(): void { delete this.t; }
}

export interface FileRecord { path: string; mtimeMs: number; size: number; docs: Doc[] }

export interface IndexView {
  /** Number of live entries and their total weighted length (BM25 statistics). */
  N: number;
  totalLen: number;
  /** File paths; postings' file numbers index this list. */
  paths: string[];
  /** Entry slots: slot = fileStart(file) + pos, in [0, slots). */
  slots: number;
  fileStart(file: number): number;
  /** Entries per file (0 for a masked file). */
  docCount(file: number): number;
  /** False for files masked in a cached index (changed or deleted since it was built). */
  live(file: number): boolean;
  /** Memory files left out because they are over MAX_FILE_BYTES (set by cache.ts openIndex/rebuildIndex; search says so). */
  tooLarge?: string[];
  /** Flat postings chunks of a term (masked files may appear: check live()). */
  postingChunks(term: string): ArrayLike<number>[];
  /** Live entries holding the term. */
  df(term: string): number;
  /** The entries of one file (read on demand by lazy views). */
  fileDocs(file: number): Doc[];
  info(file: number): FileInfo;
  /**
   * A term's postings as (slot, tf << 1 | tag) pairs, slots ascending within a chunk (masked
   * files may appear: check FileArrays.live). What the ranking's hot loop reads: the slot is
   * already the index of its per-entry arrays, so no file/pos repack per query.
   */
  slotPostings(term: string): Int32Array[];
  /** Per-file and per-slot typed arrays for the ranking (built once per view). */
  arrays(): FileArrays;
  /**
   * The memory this view was read from, as a string: two views give the same one only when no
   * file changed between them, as far as the index's freshness check can tell (recall's cache
   * is keyed on it, so it never answers for a memory that changed).
   */
  state(): string;
}

/**
 * The index's per-file facts as typed arrays, so the ranking's loops over tens of thousands of
 * files and entries read numbers instead of asking for (and building) a FileInfo per file.
 */
export interface FileArrays {
  /** First slot of each file, then `slots`: file f holds slots [start[f], start[f + 1]). */
  start: Int32Array;
  /** 1 for a live file, 0 for one masked in a cached index. */
  live: Uint8Array;
  /** Per file: its class (index into `classes`) in the low 5 bits, its day as YYYYMMDD (0 when undated) in `>>> 5`: the cache's file-table int. */
  info: Int32Array;
  /** Kind and tier of each class. */
  classes: readonly (readonly [FileInfo['kind'], FileInfo['tier']])[];
  /** Weighted length of each entry, by slot. */
  entryLen: Int32Array;
}

/** Classes (kind, tier pairs) fit the 5 low bits of FileArrays.info. */
export const MAX_CLASSES = 32;

/** FileArrays.info for `info`, its class looked up (or added) in `classes` / `classAt`. */
export function packInfo(info: FileInfo, classes: [FileInfo['kind'], FileInfo['tier']][], classAt: Map<string, number>): number {
  const key = `${info.kind}\t${info.tier}`;
  let k = classAt.get(key);
  if (k === undefined) { classAt.set(key, (k = classes.length)); classes.push([info.kind, info.tier]); }
  if (k >= MAX_CLASSES) throw new Error('too many file classes');
  const day = info.date && /^\d{4}-\d{2}-\d{2}$/.test(info.date) ? Number(info.date.replace(/-/g, '')) : 0;
  return k | (day << 5);
}

export function fileDocsFromText(path: string, text: string): Doc[] {
  return fileUnits(path, text).map((u, i) => new Doc(u, i));
}

export function indexFile(path: string, text: string, mtimeMs = 0, size = text.length): FileRecord {
  return { path, mtimeMs, size, docs: fileDocsFromText(path, text) };
}

/** readMemoryText's buffer, reused (the text is copied out of it): an index build reads every file, and each buffer of its own would be freed only by a later GC. */
let readBuf: Buffer | undefined;

const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Read one memory file's text (BOM dropped, line ends as \n) and stats; undefined when it
 * vanished, or is not a regular file (a symbolic link is never followed, a FIFO never blocks) or
 * is over MAX_FILE_BYTES: what the store's strict reader refuses is not searched either
 * (`memtier health` reports it).
 *
 * `scanned`: the file's size from a stat just taken (an index build's scan, which lstat'ed it as a
 * regular file): no fstat then (a syscall per file, measured ~10% of a 10k-note build's time on the
 * slow VM); the read asks for more than that size and stops at a short read (a regular file's end),
 * bounded by MAX_FILE_BYTES + 1 whatever the file became since. The stats returned are then the
 * scan's (those the build stores, taken before the read: a later change is seen by the next query).
 */
export function readMemoryText(root: string, rel: string, scanned?: { mtimeMs: number; size: number }): { text: string; mtimeMs: number; size: number } | undefined {
  let fd: number;
  try { fd = openSync(join(root, rel), READ_FLAGS); } catch { return undefined; }
  try {
    let size: number;
    let mtimeMs: number;
    let off = 0;
    if (scanned) {
      ({ size, mtimeMs } = scanned);
      if (size > MAX_FILE_BYTES) return undefined;
      const cap = MAX_FILE_BYTES + 1;
      let want = Math.min(cap, size + 1);
      if (!readBuf || readBuf.length < want) readBuf = Buffer.allocUnsafe(Math.max(want, 2 * (readBuf?.length ?? 32 * 1024)));
      for (;;) {
        const n = readSync(fd, readBuf, off, want - off, off);
        off += n;
        if (n === 0 || off < want || off >= cap) break;
        // longer than scanned: grow and go on
        want = Math.min(cap, want * 2);
        if (readBuf.length < want) { const g = Buffer.allocUnsafe(want); readBuf.copy(g, 0, 0, off); readBuf = g; }
      }
      if (off > MAX_FILE_BYTES) return undefined;
    } else {
      const st = fstatSync(fd);
      if (!st.isFile() || st.size > MAX_FILE_BYTES) return undefined;
      ({ size, mtimeMs } = st);
      if (!readBuf || readBuf.length < size) readBuf = Buffer.allocUnsafe(Math.max(size, 2 * (readBuf?.length ?? 32 * 1024)));
      for (let n; off < size && (n = readSync(fd, readBuf, off, size - off, off)) > 0;) off += n;
    }
    let text = readBuf.toString('utf8', 0, off);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    return { text, mtimeMs, size };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Read and index one memory file (readMemoryText); undefined when it cannot be read. */
export function readAndIndex(root: string, rel: string): FileRecord | undefined {
  const r = readMemoryText(root, rel);
  return r && indexFile(rel, r.text, r.mtimeMs, r.size);
}

/** Postings per chunk of MemoryIndex's posting log. */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;

/**
 * The whole index in memory. With `root` given, entries are not kept (only postings and
 * counts): fileDocs re-reads the file — how a full rebuild of a large memory stays small.
 *
 * Postings live in one log of fixed-size Int32 chunks, three numbers per posting (slot,
 * tf << 1 | tag, next posting of the same term): a term is a linked list through the log
 * (head, tail, count in typed arrays by term number), so 130,000 mostly rare terms cost no
 * typed array each. An entry's weighted length and file are kept once per slot.
 */
export class MemoryIndex implements IndexView {
  N = 0;
  totalLen = 0;
  slots = 0;
  paths: string[] = [];
  readonly files: { path: string; mtimeMs: number; size: number; n: number; len: number; docs?: Doc[] }[] = [];
  private readonly termIds = new Map<string, number>();
  private head = new Int32Array(1024);
  private tail = new Int32Array(1024);
  private count = new Int32Array(1024);
  private readonly log: Int32Array[] = [];
  private postings = 0;
  private slotFile = new Int32Array(1024);
  private slotLen = new Int32Array(1024);
  private readonly starts: number[] = [];
  private readonly infos: FileInfo[] = [];
  private readonly docsCache = new Map<number, Doc[]>();
  private fileArrays?: FileArrays;

  constructor(files: FileRecord[] = [], private readonly lazyRoot?: string) {
    for (const f of files) this.add(f);
  }

  /** Set when this index was built from every file and written as cache build `build`. */
  build?: string;

  state(): string {
    // the same string a CachedIndex of that build gives while no file changed
    if (this.build) return `${this.build}\n\n`;
    return this.files.map((f) => `${f.path}\t${f.mtimeMs}\t${f.size}`).join('\n');
  }

  private static grow(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
    if (need <= a.length) return a;
    const g = new Int32Array(Math.max(need, a.length * 2));
    g.set(a);
    return g;
  }

  private push(term: string, slot: number, tfTag: number): void {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.termIds.size;
      this.termIds.set(term, id);
      if (id >= this.head.length) {
        this.head = MemoryIndex.grow(this.head, id + 1);
        this.tail = MemoryIndex.grow(this.tail, id + 1);
        this.count = MemoryIndex.grow(this.count, id + 1);
      }
      this.head[id] = -1;
    }
    const r = this.postings++;
    const c = r >>> CHUNK_BITS;
    if (c === this.log.length) this.log.push(new Int32Array(CHUNK * 3));
    const o = (r & (CHUNK - 1)) * 3;
    const chunk = this.log[c]!;
    chunk[o] = slot; chunk[o + 1] = tfTag; chunk[o + 2] = -1;
    if (this.head[id] === -1) this.head[id] = r;
    else { const t = this.tail[id]!; this.log[t >>> CHUNK_BITS]![(t & (CHUNK - 1)) * 3 + 2] = r; }
    this.tail[id] = r;
    this.count[id]!++;
  }

  add(f: FileRecord): void {
    const fi = this.files.length;
    const first = this.slots;
    this.slotFile = MemoryIndex.grow(this.slotFile, first + f.docs.length);
    this.slotLen = MemoryIndex.grow(this.slotLen, first + f.docs.length);
    let flen = 0;
    for (const d of f.docs) {
      const len = d.len;
      const slot = first + d.pos;
      flen += len;
      this.slotFile[slot] = fi;
      this.slotLen[slot] = len;
      const tags = d.tagTerms;
      for (const [t, tf] of d.tf) this.push(t, slot, (tf << 1) | (tags.has(t) ? 1 : 0));
      if (this.lazyRoot) d.forget();
    }
    const rec: (typeof this.files)[number] = { path: f.path, mtimeMs: f.mtimeMs, size: f.size, n: f.docs.length, len: flen };
    if (!this.lazyRoot) rec.docs = f.docs;
    this.files.push(rec);
    this.paths.push(f.path);
    this.infos.push(classify(f.path));
    this.starts.push(first);
    this.slots += f.docs.length;
    this.N += f.docs.length;
    this.totalLen += flen;
    this.fileArrays = undefined;
  }

  fileStart(file: number): number { return this.starts[file]!; }
  docCount(file: number): number { return this.files[file]?.n ?? 0; }
  live(): boolean { return true; }
  postingChunks(term: string): ArrayLike<number>[] { const p = this.flat(term); return p ? [p] : []; }
  slotPostings(term: string): Int32Array[] { const p = this.pairs(term); return p ? [p] : []; }
  arrays(): FileArrays {
    if (!this.fileArrays) {
      const n = this.files.length;
      const start = new Int32Array(n + 1);
      start.set(this.starts);
      start[n] = this.slots;
      const classes: [FileInfo['kind'], FileInfo['tier']][] = [];
      const classAt = new Map<string, number>();
      const info = Int32Array.from(this.infos, (i) => packInfo(i, classes, classAt));
      this.fileArrays = { start, live: new Uint8Array(n).fill(1), info, classes, entryLen: this.slotLen.subarray(0, this.slots) };
    }
    return this.fileArrays;
  }
  /** A term's postings as (slot, tf << 1 | tag) pairs, in the order they were added (ascending slots). */
  pairs(term: string): Int32Array | undefined {
    const id = this.termIds.get(term);
    if (id === undefined) return undefined;
    const out = new Int32Array(this.count[id]! * 2);
    for (let r = this.head[id]!, o = 0; r !== -1; o += 2) {
      const chunk = this.log[r >>> CHUNK_BITS]!;
      const i = (r & (CHUNK - 1)) * 3;
      out[o] = chunk[i]!; out[o + 1] = chunk[i + 1]!;
      r = chunk[i + 2]!;
    }
    return out;
  }
  /** The flat postings of a term (STRIDE numbers each: file, pos, tf, len, tag). */
  flat(term: string): Int32Array | undefined {
    const p = this.pairs(term);
    if (!p) return undefined;
    const out = new Int32Array((p.length >> 1) * STRIDE);
    for (let i = 0, o = 0; i < p.length; i += 2, o += STRIDE) {
      const slot = p[i]!;
      const file = this.slotFile[slot]!;
      out[o] = file; out[o + 1] = slot - this.starts[file]!; out[o + 2] = p[i + 1]! >> 1; out[o + 3] = this.slotLen[slot]!; out[o + 4] = p[i + 1]! & 1;
    }
    return out;
  }
  /** Weighted length of the entry in `slot`. */
  entryLen(slot: number): number { return this.slotLen[slot]!; }
  df(term: string): number { const id = this.termIds.get(term); return id === undefined ? 0 : this.count[id]!; }
  fileDocs(file: number): Doc[] {
    const f = this.files[file];
    if (!f) return [];
    if (f.docs) return f.docs;
    let d = this.docsCache.get(file);
    if (!d) this.docsCache.set(file, (d = readAndIndex(this.lazyRoot!, f.path)?.docs ?? []));
    return d;
  }
  info(file: number): FileInfo { return this.infos[file]!; }
  /** Every term (for writing the cache). */
  terms(): IterableIterator<string> { return this.termIds.keys(); }
  /** Number of postings (all terms). */
  postingCount(): number { return this.postings; }
}

/** Read and index every memory file of `root` (no cache). */
export function loadCorpusFresh(root: string, keepDocs = true): MemoryIndex {
  const idx = new MemoryIndex([], keepDocs ? undefined : root);
  for (const rel of listMemoryFiles(root)) {
    const rec = readAndIndex(root, rel);
    if (rec) idx.add(rec);
  }
  return idx;
}
