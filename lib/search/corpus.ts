/**
 * The index as the ranking sees it (IndexView), and its in-memory implementation built from
 * files. The on-disk cache (lib/search/cache.ts) implements the same view lazily: postings of
 * the query's terms from term shards, entries of the few files that reach the final ranking
 * re-read from the (stat-checked) files themselves.
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

export interface Doc {
  u: Unit;
  /** Weighted length. */
  len: number;
  /** Index of this entry within its file (neighbours are pos ± 1). */
  pos: number;
  /** term → weighted term frequency (body + heading×2 + tags×3). */
  tf: Map<string, number>;
  /** Terms that came from tags (the type tag included). */
  tagTerms: Set<string>;
}

export interface FileRecord { path: string; mtimeMs: number; size: number; docs: Doc[] }

/** One occurrence list item: entry `pos` of file `file` holds the term `tf` times (weighted). */
export interface Posting { file: number; pos: number; tf: number; len: number; tag: boolean }

export interface IndexView {
  /** Number of entries and their total weighted length (BM25 statistics). */
  N: number;
  totalLen: number;
  /** File paths; Posting.file indexes this list. */
  paths: string[];
  /** Entries per file (bounds neighbour positions). */
  docCount(file: number): number;
  postings(term: string): Posting[] | undefined;
  /** df of a term (entries holding it). */
  df(term: string): number;
  /** The entries of one file (read on demand by lazy views). */
  fileDocs(file: number): Doc[];
  info(file: number): FileInfo;
}

export function indexUnit(u: Unit, pos: number): Doc {
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
  return { u, tf, len: Math.max(1, len), tagTerms: new Set(tagToks), pos };
}

export function indexFile(path: string, text: string, mtimeMs = 0, size = text.length): FileRecord {
  return { path, mtimeMs, size, docs: fileUnits(path, text).map((u, i) => indexUnit(u, i)) };
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

/** The whole index in memory. */
export class MemoryIndex implements IndexView {
  N = 0;
  totalLen = 0;
  paths: string[] = [];
  readonly files: FileRecord[] = [];
  private readonly post = new Map<string, Posting[]>();
  private readonly infos: FileInfo[] = [];

  constructor(files: FileRecord[] = []) {
    for (const f of files) this.add(f);
  }

  add(f: FileRecord): void {
    const fi = this.files.length;
    this.files.push(f);
    this.paths.push(f.path);
    this.infos.push(classify(f.path));
    for (const d of f.docs) {
      this.N++;
      this.totalLen += d.len;
      for (const [t, tf] of d.tf) {
        let p = this.post.get(t);
        if (!p) this.post.set(t, (p = []));
        p.push({ file: fi, pos: d.pos, tf, len: d.len, tag: d.tagTerms.has(t) });
      }
    }
  }

  docCount(file: number): number { return this.files[file]?.docs.length ?? 0; }
  postings(term: string): Posting[] | undefined { return this.post.get(term); }
  df(term: string): number { return this.post.get(term)?.length ?? 0; }
  fileDocs(file: number): Doc[] { return this.files[file]?.docs ?? []; }
  info(file: number): FileInfo { return this.infos[file]!; }
  /** Every term with its postings (for writing the cache). */
  terms(): IterableIterator<[string, Posting[]]> { return this.post.entries(); }
}

/** Read and index every memory file of `root` (no cache). */
export function loadCorpusFresh(root: string): MemoryIndex {
  const idx = new MemoryIndex();
  for (const rel of listMemoryFiles(root)) {
    const rec = readAndIndex(root, rel);
    if (rec) idx.add(rec);
  }
  return idx;
}
