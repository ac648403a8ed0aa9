/**
 * The index as the ranking sees it (IndexView), and its in-memory implementation built from
 * files. The on-disk cache (lib/search/cache.ts) implements the same view lazily: postings of
 * the query's terms from term shards, entries of the few files that reach the final ranking
 * re-read from the (stat-checked) files themselves.
 *
 * Postings are flat number arrays, five numbers per occurrence: file, pos (entry index in the
 * file), tf (weighted), len (the entry's weighted length), tag (1 when the term is a tag).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { classify, listMemoryFiles, type FileInfo } from '../format/layout.js';
import { tokenize } from './tokenize.js';
import { fileUnits, type Unit } from './units.js';

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
  /** Flat postings chunks of a term (masked files may appear: check live()). */
  postingChunks(term: string): ArrayLike<number>[];
  /** Live entries holding the term. */
  df(term: string): number;
  /** The entries of one file (read on demand by lazy views). */
  fileDocs(file: number): Doc[];
  info(file: number): FileInfo;
}

export function fileDocsFromText(path: string, text: string): Doc[] {
  return fileUnits(path, text).map((u, i) => new Doc(u, i));
}

export function indexFile(path: string, text: string, mtimeMs = 0, size = text.length): FileRecord {
  return { path, mtimeMs, size, docs: fileDocsFromText(path, text) };
}

/** Read and index one memory file; undefined when it vanished. */
export function readAndIndex(root: string, rel: string): FileRecord | undefined {
  const abs = join(root, rel);
  try {
    const st = statSync(abs);
    const text = readFileSync(abs, 'utf8').replace(/^\ufeff/, '').replace(/\r\n?/g, '\n');
    return indexFile(rel, text, st.mtimeMs, st.size);
  } catch {
    return undefined;
  }
}

/**
 * The whole index in memory. With `root` given, entries are not kept (only postings and
 * counts): fileDocs re-reads the file — how a full rebuild of a large memory stays small.
 */
export class MemoryIndex implements IndexView {
  N = 0;
  totalLen = 0;
  slots = 0;
  paths: string[] = [];
  readonly files: { path: string; mtimeMs: number; size: number; n: number; len: number; docs?: Doc[] }[] = [];
  /** term → growable Int32 buffer of flat postings (4 bytes a number: a 10k-note build stays small). */
  private readonly post = new Map<string, { a: Int32Array; n: number }>();
  private readonly starts: number[] = [];
  private readonly infos: FileInfo[] = [];
  private readonly docsCache = new Map<number, Doc[]>();

  constructor(files: FileRecord[] = [], private readonly lazyRoot?: string) {
    for (const f of files) this.add(f);
  }

  add(f: FileRecord): void {
    const fi = this.files.length;
    let flen = 0;
    for (const d of f.docs) {
      const len = d.len;
      flen += len;
      const tags = d.tagTerms;
      for (const [t, tf] of d.tf) {
        let p = this.post.get(t);
        if (!p) this.post.set(t, (p = { a: new Int32Array(STRIDE * 2), n: 0 }));
        if (p.n + STRIDE > p.a.length) {
          const g = new Int32Array(p.a.length * 2);
          g.set(p.a);
          p.a = g;
        }
        const a = p.a;
        a[p.n] = fi; a[p.n + 1] = d.pos; a[p.n + 2] = tf; a[p.n + 3] = len; a[p.n + 4] = tags.has(t) ? 1 : 0;
        p.n += STRIDE;
      }
      if (this.lazyRoot) d.forget();
    }
    const rec: (typeof this.files)[number] = { path: f.path, mtimeMs: f.mtimeMs, size: f.size, n: f.docs.length, len: flen };
    if (!this.lazyRoot) rec.docs = f.docs;
    this.files.push(rec);
    this.paths.push(f.path);
    this.infos.push(classify(f.path));
    this.starts.push(this.slots);
    this.slots += f.docs.length;
    this.N += f.docs.length;
    this.totalLen += flen;
  }

  fileStart(file: number): number { return this.starts[file]!; }
  docCount(file: number): number { return this.files[file]?.n ?? 0; }
  live(): boolean { return true; }
  postingChunks(term: string): ArrayLike<number>[] { const p = this.flat(term); return p ? [p] : []; }
  /** The flat postings of a term. */
  flat(term: string): Int32Array | undefined { const p = this.post.get(term); return p ? p.a.subarray(0, p.n) : undefined; }
  df(term: string): number { return (this.post.get(term)?.n ?? 0) / STRIDE; }
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
  terms(): IterableIterator<string> { return this.post.keys(); }
  /** Number of postings (all terms). */
  postingCount(): number { let n = 0; for (const p of this.post.values()) n += p.n / STRIDE; return n; }
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
