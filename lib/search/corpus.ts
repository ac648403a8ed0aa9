/**
 * The in-memory index: units with weighted term frequencies and postings, built from files.
 * The on-disk cache (lib/search/cache.ts) produces the same shape from shards.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { listMemoryFiles } from '../format/layout.js';
import { tokenize } from './tokenize.js';
import { fileUnits, type Unit } from './units.js';

/** Field weights (BM25F-style): a term in a tag or heading counts this many body occurrences. */
export const FIELD_WEIGHTS = { body: 1, heading: 2, tags: 3 } as const;

export interface Doc {
  u: Unit;
  /** term → weighted term frequency (body + heading×2 + tags×3). */
  tf: Map<string, number>;
  /** Weighted length. */
  len: number;
  /** Terms that came from tags (type tag included). */
  tagTerms: Set<string>;
  /** Index of this doc within its file (for neighbours). */
  pos: number;
}

export interface FileRecord { path: string; mtimeMs: number; size: number; docs: Doc[] }

export interface Corpus {
  files: Map<string, FileRecord>;
  docs: Doc[];
  postings: Map<string, Doc[]>;
  totalLen: number;
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
  return { u, tf, len: Math.max(1, len), tagTerms: new Set(tagToks), pos };
}

export function indexFile(path: string, text: string, mtimeMs = 0, size = text.length): FileRecord {
  return { path, mtimeMs, size, docs: fileUnits(path, text).map((u, i) => indexUnit(u, i)) };
}

export function corpusFromFiles(files: FileRecord[]): Corpus {
  const c: Corpus = { files: new Map(), docs: [], postings: new Map(), totalLen: 0 };
  for (const f of files) addFile(c, f);
  return c;
}

export function addFile(c: Corpus, f: FileRecord): void {
  c.files.set(f.path, f);
  for (const d of f.docs) {
    c.docs.push(d);
    c.totalLen += d.len;
    for (const t of d.tf.keys()) {
      let p = c.postings.get(t);
      if (!p) c.postings.set(t, (p = []));
      p.push(d);
    }
  }
}

/** Read and index every memory file of `root` (no cache). */
export function loadCorpusFresh(root: string): Corpus {
  const recs: FileRecord[] = [];
  for (const rel of listMemoryFiles(root)) {
    const abs = join(root, rel);
    let text: string;
    let st;
    try { st = statSync(abs); text = readFileSync(abs, 'utf8'); } catch { continue; }
    recs.push(indexFile(rel, text.replace(/\r\n?/g, '\n'), st.mtimeMs, st.size));
  }
  return corpusFromFiles(recs);
}
