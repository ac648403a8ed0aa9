import type { Check, Finding } from '../types.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';
import { factKey, normalizeFact } from '../markdown.js';
import { compareWords } from '../../format/compare.js';
import type { LocatedEntry } from '../../format/entry.js';
import { FACT_KINDS } from './canonical-home.js';

/** Logs compared with each other. SESSION-STATE.md mirrors the buffer by design (the WAL writes both), so it is left out. */
const LOG_KINDS = new Set<MemFile['kind']>(['buffer', 'episodic', 'legacy-daily']);

export interface Rec { f: MemFile; e: LocatedEntry; key: string; words: string[]; group: 'fact' | 'log' }

/**
 * Word sets as numbers, one flat array for all of them: set i is `ids[start[i]] … ids[start[i + 1] − 1]`,
 * words numbered in the order they were first met (`vocab` of them). 46,000 entries' words take
 * a few MB this way, where as arrays of strings they took ~50 MB.
 */
export interface FlatSets { ids: Int32Array; start: Int32Array; vocab: number }

/** Builds FlatSets one set at a time (a word's number: its first appearance). */
export class SetBuilder {
  private idOf = new Map<string, number>();
  private ids = new Int32Array(1024);
  private starts: number[] = [0];
  private n = 0;
  add(words: readonly string[]): void {
    if (this.n + words.length > this.ids.length) {
      const grown = new Int32Array(Math.max(this.ids.length * 2, this.n + words.length));
      grown.set(this.ids.subarray(0, this.n));
      this.ids = grown;
    }
    for (const w of words) {
      let id = this.idOf.get(w);
      if (id === undefined) { id = this.idOf.size; this.idOf.set(w, id); }
      this.ids[this.n++] = id;
    }
    this.starts.push(this.n);
  }
  get size(): number { return this.starts.length - 1; }
  done(): FlatSets {
    return { ids: this.ids.subarray(0, this.n), start: Int32Array.from(this.starts), vocab: this.idOf.size };
  }
}

/** The word sets of `recs` as FlatSets. */
export function flatSets(recs: readonly { words: readonly string[] }[]): FlatSets {
  const b = new SetBuilder();
  for (const r of recs) b.add(r.words);
  return b.done();
}

/**
 * Pairs of entries whose word sets have Jaccard similarity ≥ `t`, exactly the pairs an all-pairs
 * comparison finds, without comparing all pairs (PPJoin: Xiao et al., "Efficient similarity joins for
 * near duplicate detection", WWW 2008). Each set's words are put in one global order, rarest first;
 * sets are taken shortest first. Two sets can reach `t` only if
 * - their sizes are within `t` of each other (length filter: shorter ones drop off the front of a
 *   word's list for good, as sizes only grow);
 * - they share one of their first few words (prefix filter: |x| − ⌈t·|x|⌉ + 1 words probed, the
 *   first |x| − ⌈2t/(1+t)·|x|⌉ + 1 indexed);
 * - the words they share so far plus what is left after the shared word's positions can still reach
 *   the overlap `t` needs (positional filter).
 * Only the candidates left are intersected. Pairs come as [earlier, later, similarity] in input
 * order, sorted by the later then the earlier index.
 */
export function similarPairs(recs: readonly { words: readonly string[] }[] | FlatSets, t: number): [number, number, number][] {
  const flat = Array.isArray(recs) ? flatSets(recs) : (recs as FlatSets);
  const n = flat.start.length - 1;
  const vocab = flat.vocab;
  // one global order of the words: rarest first (ties by first appearance)
  const df = new Int32Array(vocab);
  for (let i = 0; i < flat.start[n]!; i++) df[flat.ids[i]!]!++;
  const ranked = Array.from({ length: vocab }, (_, i) => i).sort((a, b) => df[a]! - df[b]! || a - b);
  const rank = new Int32Array(vocab);
  ranked.forEach((id, r) => { rank[id] = r; });
  // each set's words by rank, a word said twice counted once: set x is sets[off[x] … off[x] + len[x] − 1]
  const sets = new Int32Array(flat.start[n]!);
  const off = new Int32Array(n);
  const len = new Int32Array(n);
  for (let x = 0; x < n; x++) {
    const a = flat.start[x]!;
    const b = flat.start[x + 1]!;
    for (let i = a; i < b; i++) sets[i] = rank[flat.ids[i]!]!;
    const seg = sets.subarray(a, b);
    seg.sort();
    let k = 0;
    for (let i = 0; i < seg.length; i++) if (k === 0 || seg[i] !== seg[k - 1]) seg[k++] = seg[i]!;
    off[x] = a;
    len[x] = k;
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => len[a]! - len[b]! || a - b);
  // the bounds are filters: rounded in the generous direction, the similarity itself decides
  const eps = 1e-9;
  const ceil = (x: number): number => Math.ceil(x - eps);
  const postRec: number[][] = Array.from({ length: vocab }, () => []);
  const postPos: number[][] = Array.from({ length: vocab }, () => []);
  const postStart = new Int32Array(vocab);
  const overlap = new Int32Array(n);
  const touched: number[] = [];
  const out: [number, number, number][] = [];
  const PRUNED = -(1 << 30);
  for (const x of order) {
    const xo = off[x]!;
    const lx = len[x]!;
    if (lx === 0) continue;
    const probe = lx - ceil(t * lx) + 1;
    const minLen = t * lx - eps;
    for (let p = 0; p < probe; p++) {
      const w = sets[xo + p]!;
      const recsW = postRec[w]!;
      const posW = postPos[w]!;
      let s = postStart[w]!;
      while (s < recsW.length && len[recsW[s]!]! < minLen) s++;
      postStart[w] = s;
      for (let k = s; k < recsW.length; k++) {
        const y = recsW[k]!;
        const o = overlap[y]!;
        if (o < 0) continue; // pruned for x
        const ly = len[y]!;
        const need = ceil((t / (1 + t)) * (lx + ly));
        const bound = o + 1 + Math.min(lx - p - 1, ly - posW[k]! - 1);
        if (o === 0) touched.push(y);
        overlap[y] = bound >= need ? o + 1 : PRUNED;
      }
    }
    for (const y of touched) {
      if (overlap[y]! > 0) {
        const yo = off[y]!;
        const ly = len[y]!;
        let i = 0;
        let j = 0;
        let inter = 0;
        while (i < lx && j < ly) {
          const a = sets[xo + i]!;
          const b = sets[yo + j]!;
          if (a === b) { inter++; i++; j++; } else if (a < b) i++; else j++;
        }
        const jac = inter / (lx + ly - inter);
        if (jac >= t) out.push(x < y ? [x, y, jac] : [y, x, jac]);
      }
      overlap[y] = 0;
    }
    touched.length = 0;
    const index = lx - ceil(((2 * t) / (1 + t)) * lx) + 1;
    for (let p = 0; p < index; p++) { postRec[sets[xo + p]!]!.push(x); postPos[sets[xo + p]!]!.push(p); }
  }
  return out.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
}

/** Do the two word sets differ in a word holding a digit (a different number, version, port, date)? */
export function numbersDiffer(a: string[], b: string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return a.some((w) => /\d/.test(w) && !sb.has(w)) || b.some((w) => /\d/.test(w) && !sa.has(w));
}

const HAN = /[\u3400-\u9fff]/;

/** The words compared of a fact key: one-letter words carry nothing, but numbers do ("decision 1" is not "decision 2"). */
function keyWords(key: string): string[] {
  // without CJK, compareWords is the key's words
  const all = HAN.test(key) ? compareWords(key) : key.split(' ');
  const seen = new Set<string>();
  for (const w of all) if (w.length > 1 || (w.length === 1 && ((w >= '0' && w <= '9') || HAN.test(w)))) seen.add(w);
  return [...seen];
}

/** The group an entry of this file is compared in, if any. */
function groupOf(f: MemFile): Rec['group'] | undefined {
  return FACT_KINDS.has(f.kind) ? 'fact' : LOG_KINDS.has(f.kind) ? 'log' : undefined;
}

/** An entry's fact key: memoized for facts (canonical-home reduces the same ones), computed afresh for log entries (nothing else asks, and 46,000 kept keys cost ~10 MB). */
const keyOf = (e: LocatedEntry, group: Rec['group']): string => (group === 'fact' ? factKey(e) : normalizeFact(e.text));

/** The entries compared, with their folded words (the tests' reference for what the check compares). */
export function records(snap: Snapshot): Rec[] {
  const out: Rec[] = [];
  for (const f of snap.files) {
    if (f.text === undefined) continue;
    const group = groupOf(f);
    if (!group) continue;
    for (const e of snap.entries(f)) {
      if (e.superseded) continue;
      const key = keyOf(e, group);
      const words = keyWords(key);
      if (words.length >= 4) out.push({ f, e, key, words, group });
    }
  }
  return out;
}

/** Each group's entries compared, in records()' order, their words as FlatSets: what the check holds instead of records(). */
export interface Compared { f: MemFile[]; e: LocatedEntry[]; sets: FlatSets }

export function comparedSets(snap: Snapshot): Record<Rec['group'], Compared> {
  const g = { fact: { f: [] as MemFile[], e: [] as LocatedEntry[], b: new SetBuilder() }, log: { f: [] as MemFile[], e: [] as LocatedEntry[], b: new SetBuilder() } };
  for (const f of snap.files) {
    if (f.text === undefined) continue;
    const group = groupOf(f);
    if (!group) continue;
    const into = g[group];
    for (const e of snap.entries(f)) {
      if (e.superseded) continue;
      const words = keyWords(keyOf(e, group));
      if (words.length < 4) continue;
      into.f.push(f);
      into.e.push(e);
      into.b.add(words);
    }
  }
  return { fact: { f: g.fact.f, e: g.fact.e, sets: g.fact.b.done() }, log: { f: g.log.f, e: g.log.e, sets: g.log.b.done() } };
}

/** Near-duplicate entries: the same fact or event written twice with small changes. */
export const check: Check = {
  id: 'near-duplicates',
  description: 'no two entries say nearly the same thing (word-set similarity ≥ 0.8), among facts and among logs',
  severity: 'warn',
  fixable: false,
  source: 'seed 003 dedup, seed 000',
  doc: {
    trigger: 'two entries (facts with facts, log entries with log entries; not the same ^id) whose sets of words overlap by 80% or more and whose numbers agree (\"port 8080\" and \"port 8081\" are two values, not a duplicate); exact copies across fact files are reported by canonical-home instead',
    failing: '- 09:00 [PREF] Ana prefers short status reports on Fridays ^a1b2c3d4\n- 16:40 [PREF] Ana prefers short status reports on Friday ^e5f6a7b8',
    fixed: '- 09:00 [PREF] Ana prefers short status reports on Fridays ^a1b2c3d4\n(the second one removed, or struck through: `memtier supersede`)',
    why: 'duplicates waste the recall budget and drift into contradictions when only one copy is corrected',
  },
  run(snap, env) {
    const groups = comparedSets(snap);
    const out: Finding[] = [];
    for (const group of ['fact', 'log'] as const) {
      const { f, e, sets } = groups[group];
      for (const [i, j, jac] of similarPairs(sets, env.limits.nearDuplicate)) {
        const a = e[i]!;
        const b = e[j]!;
        if (a.id && a.id === b.id) continue; // the same entry moved (rotation), not a duplicate
        const ka = keyOf(a, group);
        const kb = keyOf(b, group);
        if (group === 'fact' && ka === kb && f[i]!.rel !== f[j]!.rel) continue; // canonical-home reports it
        if (numbersDiffer(keyWords(ka), keyWords(kb))) continue; // "port 8080" vs "port 8081": two values, not one fact twice
        out.push({
          check: 'near-duplicates',
          severity: 'warn',
          file: f[j]!.rel,
          line: b.line,
          message: `${Math.round(jac * 100)}% the same as ${f[i]!.rel}:${a.line}`,
          fix: 'keep one: merge the two, or mark the older one superseded ("memtier supersede")',
        });
      }
    }
    return { findings: out, figures: { entriesCompared: groups.fact.e.length + groups.log.e.length } };
  },
};
