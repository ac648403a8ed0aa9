import type { Check, Finding } from '../types.js';
import { arrayOf, isStr, packInts, summaryOf, unpackInts, type FileMemo } from '../summary.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';
import { factKey } from '../markdown.js';
import { KeyWordIds, Vocab } from '../key-words.js';
import type { LocatedEntry } from '../../format/entry.js';
import { FACT_KINDS } from './canonical-home.js';

/** Logs compared with each other. SESSION-STATE.md mirrors the buffer by design (the WAL writes both), so it is left out. */
const LOG_KINDS = new Set<MemFile['kind']>(['buffer', 'episodic', 'legacy-daily']);

/** An entry compared: its file, the entry, its group, and its distinct words (`count` numbers from `start` in the pool). */
export class Rec {
  constructor(readonly f: MemFile, readonly e: LocatedEntry, readonly group: 'fact' | 'log', readonly start: number, readonly count: number, readonly pool: KeyWordIds) {}
  /** The words compared (keyWords of the fact key). */
  get words(): string[] { return Array.from(this.pool.ids.subarray(this.start, this.start + this.count), (id) => this.pool.vocab.words[id]!); }
  /** The entry's fact key (normalizeFact). */
  get key(): string { return factKey(this.e); }
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
export function similarPairs(recs: { words: string[] }[], t: number): [number, number, number][] {
  const vocab = new Vocab();
  const ids: number[] = [];
  const start = recs.map((r) => { const at = ids.length; for (const w of new Set(r.words)) ids.push(vocab.id(w)); return at; });
  const count = recs.map((_, k) => (k + 1 < recs.length ? start[k + 1]! : ids.length) - start[k]!);
  return similarIdPairs(Int32Array.from(ids), start, count, vocab.size, t);
}

/**
 * similarPairs over sets of distinct word numbers below `vocab`: set k is
 * pool[start[k], start[k] + count[k]) (the pool is not changed).
 */
export function similarIdPairs(pool: Int32Array, start: ArrayLike<number>, count: ArrayLike<number>, vocab: number, t: number): [number, number, number][] {
  const n = start.length;
  // words in one global order: rarest first (ties by number, that is by first appearance)
  const df = new Int32Array(vocab);
  let total = 0;
  for (let y = 0; y < n; y++) { total += count[y]!; for (let i = start[y]!, e = i + count[y]!; i < e; i++) df[pool[i]!]!++; }
  const ranked = Array.from({ length: vocab }, (_, i) => i).sort((a, b) => df[a]! - df[b]! || a - b);
  const rank = new Int32Array(vocab);
  ranked.forEach((id, r) => { rank[id] = r; });
  // every set's ranks, ascending, in one array: set y is flat[off[y] .. off[y + 1])
  const off = new Int32Array(n + 1);
  const flat = new Int32Array(total);
  for (let y = 0, at = 0; y < n; y++) {
    off[y] = at;
    for (let i = start[y]!, e = i + count[y]!; i < e; i++) {
      const r = rank[pool[i]!]!;
      let k = at++;
      while (k > off[y]! && flat[k - 1]! > r) { flat[k] = flat[k - 1]!; k--; }
      flat[k] = r;
    }
    off[n] = at;
  }
  const len = (y: number): number => off[y + 1]! - off[y]!;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => len(a) - len(b) || a - b);
  // the bounds are filters: rounded in the generous direction, the similarity itself decides
  const eps = 1e-9;
  const ceil = (x: number): number => Math.ceil(x - eps);
  // each word's list of (set, position) in one array: word w's at postAt[w] .. postAt[w] + postLen[w]
  // (filled in processing order), its sets too short for the ones to come skipped up to postStart[w]
  const indexed = (lx: number): number => lx - ceil(((2 * t) / (1 + t)) * lx) + 1;
  const postAt = new Int32Array(vocab + 1);
  for (let y = 0; y < n; y++) for (let p = 0, m = Math.max(0, Math.min(len(y), indexed(len(y)))); p < m; p++) postAt[flat[off[y]! + p]! + 1]!++;
  for (let w = 0; w < vocab; w++) postAt[w + 1]! += postAt[w]!;
  const postRec = new Int32Array(postAt[vocab]!);
  const postPos = new Int32Array(postAt[vocab]!);
  const postLen = new Int32Array(vocab);
  const postStart = new Int32Array(vocab);
  const overlap = new Int32Array(n);
  const touched: number[] = [];
  const out: [number, number, number][] = [];
  const PRUNED = -(1 << 30);
  for (const x of order) {
    const xs = off[x]!;
    const lx = len(x);
    if (lx === 0) continue;
    const probe = lx - ceil(t * lx) + 1;
    const minLen = t * lx - eps;
    for (let p = 0; p < probe; p++) {
      const w = flat[xs + p]!;
      const base = postAt[w]!;
      const end = base + postLen[w]!;
      let s = base + postStart[w]!;
      while (s < end && len(postRec[s]!) < minLen) s++;
      postStart[w] = s - base;
      for (let k = s; k < end; k++) {
        const y = postRec[k]!;
        const o = overlap[y]!;
        if (o < 0) continue; // pruned for x
        const ly = len(y);
        const need = ceil((t / (1 + t)) * (lx + ly));
        const bound = o + 1 + Math.min(lx - p - 1, ly - postPos[k]! - 1);
        if (o === 0) touched.push(y);
        overlap[y] = bound >= need ? o + 1 : PRUNED;
      }
    }
    for (const y of touched) {
      if (overlap[y]! > 0) {
        const ly = len(y);
        let i = xs;
        let j = off[y]!;
        const iEnd = xs + lx;
        const jEnd = j + ly;
        let inter = 0;
        // given up once the words left cannot reach the overlap t needs (then the similarity is below t)
        const need = ceil((t / (1 + t)) * (lx + ly));
        while (i < iEnd && j < jEnd) {
          const a = flat[i]!;
          const b = flat[j]!;
          if (a === b) { inter++; i++; j++; } else {
            if (a < b) i++; else j++;
            if (inter + Math.min(iEnd - i, jEnd - j) < need) break;
          }
        }
        const jac = inter / (lx + ly - inter);
        if (inter >= need && jac >= t) out.push(x < y ? [x, y, jac] : [y, x, jac]);
      }
      overlap[y] = 0;
    }
    touched.length = 0;
    for (let p = 0, m = Math.min(lx, indexed(lx)); p < m; p++) {
      const w = flat[xs + p]!;
      const k = postAt[w]! + postLen[w]!++;
      postRec[k] = x;
      postPos[k] = p;
    }
  }
  return out.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
}

/** Do the two word sets differ in a word holding a digit (a different number, version, port, date)? */
export function numbersDiffer(a: string[], b: string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return a.some((w) => /\d/.test(w) && !sb.has(w)) || b.some((w) => /\d/.test(w) && !sa.has(w));
}

/** The entries compared, with their folded words (exported for the tests that hold the pairwise reference). */
export function records(snap: Snapshot, vocab = new Vocab()): Rec[] {
  const out: Rec[] = [];
  const pool = new KeyWordIds(vocab);
  for (const f of snap.files) {
    if (f.text === undefined) continue;
    const group = FACT_KINDS.has(f.kind) ? 'fact' : LOG_KINDS.has(f.kind) ? 'log' : undefined;
    if (!group) continue;
    for (const e of snap.entries(f)) {
      if (e.superseded) continue;
      const start = pool.add(e.text);
      const count = pool.length - start;
      if (count >= 4) out.push(new Rec(f, e, group, start, count, pool));
      else pool.length = start;
    }
  }
  return out;
}

/**
 * A file's compared entries as kept between full runs: `w` packs (packInts) each entry's line,
 * its number of words and the words' numbers in the memo's vocabulary, one entry after the
 * other; `ids` holds each one's ^id ("" without), `keys` its fact key (fact files only). Kept
 * packed from the moment it is made: a run holds every file's until health-summary.json is written.
 */
interface FileRecs { w: string; ids: string[]; keys: string[] }

/** FileRecs and its numbers unpacked (for this run only). */
interface Unpacked { recs: FileRecs; words: Int32Array }

/** A growing buffer of numbers, reused from file to file. */
class Ints {
  a = new Int32Array(1 << 12);
  n = 0;
  push(v: number): void {
    if (this.n === this.a.length) { const b = new Int32Array(this.a.length * 2); b.set(this.a); this.a = b; }
    this.a[this.n++] = v;
  }
}

/** The compared entries of `f` (as records() takes them), their words numbered in `pool`'s vocabulary. */
function fileRecs(snap: Snapshot, f: MemFile, group: 'fact' | 'log', pool: KeyWordIds, buf: Ints): Unpacked {
  buf.n = 0;
  const ids: string[] = [];
  const keys: string[] = [];
  if (f.text !== undefined) {
    for (const e of snap.entries(f)) {
      if (e.superseded) continue;
      const start = pool.add(e.text);
      const count = pool.length - start;
      if (count >= 4) {
        buf.push(e.line);
        buf.push(count);
        for (let i = start; i < pool.length; i++) buf.push(pool.ids[i]!);
        ids.push(e.id ?? '');
        if (group === 'fact') keys.push(factKey(e));
      }
      pool.length = start;
    }
  }
  const words = buf.a.subarray(0, buf.n);
  return { recs: { w: packInts(words), ids, keys }, words };
}

/** Kept records and their numbers (in arrays reused by the next call), or undefined when they are not what fileRecs makes (word numbers below `words`). */
function reviveRecs(x: unknown, group: 'fact' | 'log', words: number): Unpacked | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const r = x as { w?: unknown; ids?: unknown; keys?: unknown };
  const ids = arrayOf(r.ids, isStr);
  const keys = arrayOf(r.keys, isStr);
  // in the shared arrays: good until the next unpackInts(…, true)
  const w = unpackInts(r.w, true);
  if (!ids || !keys || !w || keys.length !== (group === 'fact' ? ids.length : 0)) return undefined;
  let n = 0;
  for (let i = 0; i < w.length; n++) {
    const count = w[i + 1]!;
    if (i + 1 >= w.length || count < 4 || i + 2 + count > w.length) return undefined;
    for (let j = i + 2, e = j + count; j < e; j++) if (w[j]! >= words) return undefined;
    i += 2 + count;
  }
  return n === ids.length ? { recs: { w: r.w as string, ids, keys }, words: w } : undefined;
}

/** The pairs similarIdPairs found in each group, as kept: [i, j, shared words] packed, `n` the group's size. */
type KeptPairs = Record<'fact' | 'log', { n: number; p: string }>;

/** Kept pairs, or undefined when they do not fit groups of `sizes` (their counts `count`). */
function revivePairs(x: unknown, sizes: Record<'fact' | 'log', number[]>): Record<'fact' | 'log', [number, number, number][]> | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const out = { fact: [] as [number, number, number][], log: [] as [number, number, number][] };
  for (const group of ['fact', 'log'] as const) {
    const g = (x as Partial<KeptPairs>)[group];
    const counts = sizes[group];
    const p = g && g.n === counts.length ? unpackInts(g.p) : undefined;
    if (!p || p.length % 3 !== 0) return undefined;
    for (let k = 0; k < p.length; k += 3) {
      const [i, j, inter] = [p[k]!, p[k + 1]!, p[k + 2]!];
      if (i >= j || j >= counts.length || inter < 1 || inter > Math.min(counts[i]!, counts[j]!)) return undefined;
      out[group].push([i, j, inter / (counts[i]! + counts[j]! - inter)]);
    }
  }
  return out;
}

/** The pairs of a run, kept as revivePairs reads them: [i, j, shared words] (the similarity is shared / (|i| + |j| − shared)). */
class PairsOf {
  constructor(readonly pairs: Record<'fact' | 'log', [number, number, number][]>, private readonly rs: Record<'fact' | 'log', number[]>, private readonly count: ArrayLike<number>) {}
  toJSON(): KeptPairs | null {
    const out = {} as KeptPairs;
    for (const group of ['fact', 'log'] as const) {
      const rs = this.rs[group];
      const p: number[] = [];
      for (const [i, j, jac] of this.pairs[group]) {
        const ci = this.count[rs[i]!]!;
        const cj = this.count[rs[j]!]!;
        const inter = Math.round((jac * (ci + cj)) / (1 + jac));
        // kept only when the similarity comes back exactly as computed (else null: not kept, made again)
        if (inter / (ci + cj - inter) !== jac) return null;
        p.push(i, j, inter);
      }
      out[group] = { n: rs.length, p: packInts(p) };
    }
    return out;
  }
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
    const memo = env.memo;
    let vocab = memo?.vocab ?? new Vocab();
    const fresh = new KeyWordIds(vocab);
    const buf = new Ints();
    // every compared entry of the memory, in file order: its file, line, ^id, key (facts) and words
    // (numbers in typed arrays: nothing for the garbage collector to scan or move)
    const files: MemFile[] = [];
    const recFile = new Ints();
    const recLine = new Ints();
    const recId: string[] = [];
    const recKey: string[] = [];
    const recStart = new Ints();
    const recCount = new Ints();
    const recFact = new Ints();
    /** Each file's kept records and its first record. */
    const byFile: [FileRecs, number][] = [];
    // what the pairs depend on: the compared files as they are (the limit is added below)
    // node:crypto only here, where summaries are kept (a full run): `health --quiet` and the checks' other callers never load it
    const inputs = memo ? (process.getBuiltinModule('node:crypto') as typeof import('node:crypto')).createHash('sha1') : undefined;
    let settled = true;
    // first each file's records and how many numbers they hold, then the pool of every record's
    // words at its exact size (the pool is the largest array here), each file's numbers unpacked
    // again into it: no array per file is held meanwhile
    const got: [MemFile, 'fact' | 'log', FileRecs][] = [];
    let total = 0;
    for (const f of snap.files) {
      const group = groupOf(f);
      if (!group) continue;
      if (memo) { inputs!.update(`${f.rel}\0${f.size}\0${f.mtimeMs}\n`); settled &&= memo.settled(f); }
      let made: Int32Array | undefined;
      let revived: Int32Array | undefined;
      const r = summaryOf(env, 'near-duplicates', f, () => { const m = fileRecs(snap, f, group, fresh, buf); made = m.words; return m.recs; }, (x) => {
        const m = memo ? reviveRecs(x, group, memo.keptWords) : undefined;
        revived = m?.words;
        return m?.recs;
      });
      // made now (`made`: the reused buffer), kept (`revived`: the shared arrays) or made earlier this run (unpacked now)
      total += (made ?? revived ?? unpackInts(r.w, true)!).length;
      got.push([f, group, r]);
    }
    const ids = new Int32Array(total);
    let used = 0;
    for (const [f, group, r] of got) {
      const w = unpackInts(r.w, true)!;
      byFile.push([r, recId.length]);
      const fi = files.push(f) - 1;
      for (let i = 0, k = 0; i < w.length; k++) {
        const count = w[i + 1]!;
        recFile.push(fi);
        recLine.push(w[i]!);
        recId.push(r.ids[k]!);
        recKey.push(group === 'fact' ? r.keys[k]! : '');
        recStart.push(used);
        recCount.push(count);
        recFact.push(group === 'fact' ? 1 : 0);
        for (let j = i + 2, e = j + count; j < e; j++) ids[used++] = w[j]!;
        i += 2 + count;
      }
    }
    got.length = 0;
    if (memo) {
      // words no entry uses any more (kept words grow with every change): numbered afresh when over half
      const mark = new Uint8Array(vocab.size);
      let live = 0;
      for (let i = 0; i < used; i++) if (!mark[ids[i]!]) { mark[ids[i]!] = 1; live++; }
      if (vocab.size > 4096 && live * 2 < vocab.size) {
        const next = new Vocab();
        const map = new Int32Array(vocab.size).fill(-1);
        for (let i = 0; i < used; i++) { const o = ids[i]!; if (map[o]! < 0) map[o] = next.id(vocab.words[o]!); ids[i] = map[o]!; }
        for (let b = 0; b < byFile.length; b++) {
          const [r, first] = byFile[b]!;
          const end = b + 1 < byFile.length ? byFile[b + 1]![1] : recId.length;
          const w: number[] = [];
          for (let k = first; k < end; k++) { w.push(recLine.a[k]!, recCount.a[k]!); for (let i = recStart.a[k]!, e = i + recCount.a[k]!; i < e; i++) w.push(ids[i]!); }
          r.w = packInts(w);
        }
        vocab = next;
        memo.renumbered(next);
      }
    }
    const words = (k: number): string[] => Array.from(ids.subarray(recStart.a[k]!, recStart.a[k]! + recCount.a[k]!), (id) => vocab.words[id]!);
    const fileOf = (k: number): MemFile => files[recFile.a[k]!]!;
    const t = env.limits.nearDuplicate;
    const rsOf = { fact: [] as number[], log: [] as number[] };
    for (let k = 0; k < recId.length; k++) rsOf[recFact.a[k] ? 'fact' : 'log'].push(k);
    const counts = recCount.a;
    const join = (): Record<'fact' | 'log', [number, number, number][]> => ({
      fact: rsOf.fact.length ? similarIdPairs(ids, rsOf.fact.map((k) => recStart.a[k]!), rsOf.fact.map((k) => counts[k]!), vocab.size, t) : [],
      log: rsOf.log.length ? similarIdPairs(ids, rsOf.log.map((k) => recStart.a[k]!), rsOf.log.map((k) => counts[k]!), vocab.size, t) : [],
    });
    // the pairs, kept while no compared file changed, came or went (the join is most of the check)
    const pairs = !memo ? join() : memo.across('near-duplicates', settled ? `${t}\0${inputs!.digest('base64')}` : undefined, () => new PairsOf(join(), rsOf, counts), (x) => {
      const p = revivePairs(x, { fact: rsOf.fact.map((k) => counts[k]!), log: rsOf.log.map((k) => counts[k]!) });
      return p ? new PairsOf(p, rsOf, counts) : undefined;
    }).pairs;
    const out: Finding[] = [];
    for (const group of ['fact', 'log'] as const) {
      const rs = rsOf[group];
      for (const [i, j, jac] of pairs[group]) {
        const a = rs[i]!;
        const b = rs[j]!;
        if (recId[a] && recId[a] === recId[b]) continue; // the same entry moved (rotation), not a duplicate
        if (group === 'fact' && recKey[a] === recKey[b] && fileOf(a).rel !== fileOf(b).rel) continue; // canonical-home reports it
        if (numbersDiffer(words(a), words(b))) continue; // "port 8080" vs "port 8081": two values, not one fact twice
        out.push({
          check: 'near-duplicates',
          severity: 'warn',
          file: fileOf(b).rel,
          line: recLine.a[b]!,
          message: `${Math.round(jac * 100)}% the same as ${fileOf(a).rel}:${recLine.a[a]}`,
          fix: 'keep one: merge the two, or mark the older one superseded ("memtier supersede")',
        });
      }
    }
    return { findings: out, figures: { entriesCompared: recId.length } };
  },
  renumberSummary(x, map) {
    const r = x as FileRecs;
    const w = unpackInts(r.w);
    if (!w) return x;
    for (let i = 0; i < w.length; ) {
      const end = i + 2 + w[i + 1]!;
      for (let j = i + 2; j < end; j++) w[j] = map[w[j]!]!;
      i = end;
    }
    return { ...r, w: packInts(w) };
  },
  summarize(snap, env) {
    const memo = env.memo;
    if (!memo) return undefined;
    const fresh = new KeyWordIds(memo.vocab);
    const buf = new Ints();
    return (f) => {
      const group = groupOf(f);
      if (group) summaryOf(env, 'near-duplicates', f, () => fileRecs(snap, f, group, fresh, buf).recs, (x) => reviveRecs(x, group, memo.keptWords)?.recs);
    };
  },
};

/** The group f's entries are compared in, if any. */
const groupOf = (f: MemFile): 'fact' | 'log' | undefined => (FACT_KINDS.has(f.kind) ? 'fact' : LOG_KINDS.has(f.kind) ? 'log' : undefined);
