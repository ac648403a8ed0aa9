import type { Check, Finding } from '../types.js';
import { arrayOf, isStr, packInts, summaryOf, unpackInts, type FileMemo } from '../summary.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';
import { factKey } from '../markdown.js';
import { KeyWordIds, Vocab } from '../key-words.js';
import { scratch, similarIdPairs } from '../../core/similarity-join.js';
import type { LocatedEntry } from '../../format/entry.js';
import { FACT_KINDS } from './canonical-home.js';
import { addDays } from '../../core/clock.js';

/**
 * Logs compared with each other. SESSION-STATE.md mirrors the buffer by design (the WAL writes both), so it is left out.
 * A log entry is compared with those of its own day and the day before (logPairs): the same line
 * on two days a week or a year apart is two events ("- gym with Ana at 7"), not a copy.
 */
const LOG_KINDS = new Set<MemFile['kind']>(['buffer', 'episodic', 'legacy-daily']);

/** An entry compared: its file, the entry, its group, and its distinct words (`count` numbers from `start` in the pool). */
export class Rec {
  constructor(readonly f: MemFile, readonly e: LocatedEntry, readonly group: 'fact' | 'log', readonly start: number, readonly count: number, readonly pool: KeyWordIds) {}
  /** The words compared (keyWords of the fact key). */
  get words(): string[] { return Array.from(this.pool.ids.subarray(this.start, this.start + this.count), (id) => this.pool.vocab.words[id]!); }
  /** The entry's fact key (normalizeFact). */
  get key(): string { return factKey(this.e); }
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
  const recs = { w: packInts(words), ids, keys };
  packed.set(recs, buf.n);
  return { recs, words };
}

/** How many numbers a FileRecs made or renumbered this run packs (its `w` not unpacked again to count them). */
const packed = new WeakMap<FileRecs, number>();

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
function revivePairs(x: unknown, sizes: Record<'fact' | 'log', ArrayLike<number>>): Record<'fact' | 'log', [number, number, number][]> | undefined {
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
  constructor(readonly pairs: Record<'fact' | 'log', [number, number, number][]>, private readonly rs: Record<'fact' | 'log', ArrayLike<number>>, private readonly count: ArrayLike<number>) {}
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

/** Where record k's words are: arr(k)[start(k) … + its count) (arr(k) good until the next call). */
export interface RecordWords { arr(k: number): Int32Array; start(k: number): number }

/** Records per join in logPairs: a join's fixed costs (its vocabulary ranked, its arrays) shared by many days, its candidates still few. */
const LOG_BLOCK = 4096;

/**
 * The pairs of log records (rs: their records, in input order) at similarity ≥ t whose days are
 * the same or one apart (records of an undated log, the working buffer, count as the newest day).
 * Days are joined in blocks of consecutive days (about LOG_BLOCK records, each block holding the
 * day before its first too), each over the block's own words, and pairs further apart dropped.
 * Comparing every log entry with every other was most of a first health run on years of daily logs
 * (half a million entries) and found the same line on days years apart, which is no copy.
 */
export function logPairs(rs: ArrayLike<number>, dayOf: (k: number) => string | undefined, words: RecordWords, count: ArrayLike<number>, vocab: number, t: number, block = LOG_BLOCK): [number, number, number][] {
  const byDay = new Map<string, number[]>();
  const undated: number[] = [];
  let newest = '';
  for (let i = 0; i < rs.length; i++) {
    const d = dayOf(rs[i]!);
    if (d === undefined) { undated.push(i); continue; }
    if (d > newest) newest = d;
    const l = byDay.get(d);
    if (l) l.push(i); else byDay.set(d, [i]);
  }
  if (undated.length) byDay.set(newest, [...(byDay.get(newest) ?? []), ...undated].sort((x, y) => x - y));
  const days = [...byDay.keys()].sort();
  const dayNo = days.map((d) => Date.UTC(Number(d.slice(0, 4)), Number(d.slice(5, 7)) - 1, Number(d.slice(8, 10))) / 86_400_000);
  const local = new Int32Array(vocab).fill(-1);
  const out: [number, number, number][] = [];
  for (let from = 0; from < days.length; ) {
    let to = from;
    for (let n = 0; to < days.length && (n === 0 || n + byDay.get(days[to]!)!.length <= block); to++) n += byDay.get(days[to]!)!.length;
    // the block's days, with the day before its first (the previous block's last): pairs across the seam
    const first = from;
    const lo = first > 0 ? first - 1 : first;
    const win: number[] = [];
    const winDay: number[] = [];
    for (let d = lo; d < to; d++) for (const i of byDay.get(days[d]!)!) { win.push(i); winDay.push(d); }
    from = to;
    if (win.length < 2) continue;
    // the block's words renumbered from 0 (the join's arrays are as long as its vocabulary)
    let size = 0;
    for (const i of win) size += count[rs[i]!]!;
    const pool = scratch(14, size, false);
    const st = scratch(15, win.length, false);
    const ct = scratch(16, win.length, false);
    const seen: number[] = [];
    let at = 0;
    win.forEach((i, y) => {
      const k = rs[i]!;
      st[y] = at;
      ct[y] = count[k]!;
      const ids = words.arr(k);
      for (let x = words.start(k), e = x + count[k]!; x < e; x++) {
        const w = ids[x]!;
        let l = local[w]!;
        if (l < 0) { l = local[w] = seen.length; seen.push(w); }
        pool[at++] = l;
      }
    });
    for (const [a, b, jac] of similarIdPairs(pool, st, ct, seen.length, t)) {
      const [da, db] = [winDay[a]!, winDay[b]!];
      if (Math.abs(dayNo[da]! - dayNo[db]!) > 1) continue; // further apart than the day before
      if (da < first && db < first) continue; // both of the seam day: the block before found them
      const [i, j] = [win[a]!, win[b]!];
      out.push(i < j ? [i, j, jac] : [j, i, jac]);
    }
    for (const w of seen) local[w] = -1;
  }
  return out.sort((x, y) => x[1] - y[1] || x[0] - y[0]);
}

/** Near-duplicate entries: the same fact or event written twice with small changes. */
export const check: Check = {
  id: 'near-duplicates',
  description: 'no two entries say nearly the same thing (word-set similarity ≥ 0.8), among facts and among a day\'s and the day before\'s log entries',
  severity: 'warn',
  fixable: false,
  source: 'seed 003 dedup, seed 000',
  doc: {
    trigger: 'two entries (facts with facts, log entries with log entries of the same day or the day before; not the same ^id) whose sets of words overlap by 80% or more and whose numbers agree (\"port 8080\" and \"port 8081\" are two values, not a duplicate); exact copies across fact files are reported by canonical-home instead',
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
    /** Each file's kept records and its first record (a record's ^id and key are read there: no array of every record's). */
    const byFile: [FileRecs, number][] = [];
    let nRecs = 0;
    // what the pairs depend on: the compared files as they are (the limit is added below)
    // node:crypto only here, where summaries are kept (a full run): `health --quiet` and the checks' other callers never load it
    const inputs = memo ? (process.getBuiltinModule('node:crypto') as typeof import('node:crypto')).createHash('sha1') : undefined;
    let settled = true;
    // first each file's records and how many records and (fact files) numbers they hold, then the
    // records' figures and the facts' pool at their exact sizes, each file's numbers unpacked again
    const got: [MemFile, 'fact' | 'log', FileRecs][] = [];
    let total = 0;
    const sizes = { fact: 0, log: 0 };
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
      // made now (`made`: the reused buffer), kept (`revived`: the shared arrays) or made earlier this run (counted then, else unpacked now)
      if (group === 'fact') total += (made ?? revived)?.length ?? packed.get(r) ?? unpackInts(r.w, true)!.length;
      got.push([f, group, r]);
      sizes[group] += r.ids.length;
    }
    // the records' figures in arrays of their exact size (a file's records are as many as its ids)
    const n = sizes.fact + sizes.log;
    const recFile = new Int32Array(n);
    const recLine = new Int32Array(n);
    const recStart = new Int32Array(n);
    const recCount = new Int32Array(n);
    /** Per file: 1 for a fact file (its records' words in the pool), 0 for a log. */
    const fileFact = new Uint8Array(got.length);
    const rsOf = { fact: new Int32Array(sizes.fact), log: new Int32Array(sizes.log) };
    const inGroup = { fact: 0, log: 0 };
    // the fact files' numbers in one pool (facts are joined all with all), each file's copied
    // whole (a record's line and count stay in the pool between the records' words, which start
    // and count delimit); a log record's stay packed in its file's summary, unpacked a block of
    // days at a time by the join (years of daily logs are most of the words: a pool of them all
    // was the largest array of a run)
    const ids = new Int32Array(total);
    let used = 0;
    for (const [f, group, r] of got) {
      const w = unpackInts(r.w, true)!;
      // a log record's start: in its file's numbers
      const base = group === 'fact' ? used : 0;
      if (group === 'fact') { ids.set(w, used); used += w.length; }
      byFile.push([r, nRecs]);
      const fi = files.push(f) - 1;
      fileFact[fi] = group === 'fact' ? 1 : 0;
      const rs = rsOf[group];
      for (let i = 0; i < w.length; ) {
        const count = w[i + 1]!;
        recFile[nRecs] = fi;
        recLine[nRecs] = w[i]!;
        recStart[nRecs] = base + i + 2;
        recCount[nRecs] = count;
        rs[inGroup[group]++] = nRecs++;
        i += 2 + count;
      }
    }
    got.length = 0;
    const isFact = (k: number): boolean => fileFact[recFile[k]!] === 1;
    if (memo) {
      // words no entry uses any more (kept words grow with every change): numbered afresh when over half
      // (a vocabulary made this run has no such word: every file's records were made with it)
      let live = vocab.size;
      if (memo.keptWords > 0 && vocab.size > 4096) {
        const mark = new Uint8Array(vocab.size);
        live = 0;
        for (const [r] of byFile) {
          const w = unpackInts(r.w, true)!;
          for (let i = 0; i < w.length; i += 2 + w[i + 1]!) for (let j = i + 2, e = j + w[i + 1]!; j < e; j++) if (!mark[w[j]!]) { mark[w[j]!] = 1; live++; }
        }
      }
      if (vocab.size > 4096 && live * 2 < vocab.size) {
        const next = new Vocab();
        const map = new Int32Array(vocab.size).fill(-1);
        const to = (o: number): number => { if (map[o]! < 0) map[o] = next.id(vocab.words[o]!); return map[o]!; };
        for (const [r] of byFile) {
          const w = unpackInts(r.w)!;
          for (let i = 0; i < w.length; i += 2 + w[i + 1]!) for (let j = i + 2, e = j + w[i + 1]!; j < e; j++) w[j] = to(w[j]!);
          r.w = packInts(w);
          packed.set(r, w.length);
        }
        for (let k = 0; k < nRecs; k++) if (isFact(k)) for (let i = recStart[k]!, e = i + recCount[k]!; i < e; i++) ids[i] = to(ids[i]!);
        vocab = next;
        memo.renumbered(next);
      }
    }
    /** Where a record's words are: facts in the pool, a log's in its file's numbers (the file last asked for kept unpacked). */
    let cached = -1;
    let cachedWords: Int32Array = ids;
    const source: RecordWords = {
      arr: (k) => {
        if (isFact(k)) return ids;
        const fi = recFile[k]!;
        if (fi !== cached) { cached = fi; cachedWords = unpackInts(byFile[fi]![0].w)!; }
        return cachedWords;
      },
      start: (k) => recStart[k]!,
    };
    const words = (k: number): string[] => Array.from(source.arr(k).subarray(recStart[k]!, recStart[k]! + recCount[k]!), (id) => vocab.words[id]!);
    const fileOf = (k: number): MemFile => files[recFile[k]!]!;
    const recId = (k: number): string => { const [r, first] = byFile[recFile[k]!]!; return r.ids[k - first]!; };
    const recKey = (k: number): string => { const [r, first] = byFile[recFile[k]!]!; return r.keys[k - first] ?? ''; };
    const t = env.limits.nearDuplicate;
    const counts = recCount;
    const join = (): Record<'fact' | 'log', [number, number, number][]> => ({
      fact: rsOf.fact.length ? similarIdPairs(ids, rsOf.fact.map((k) => recStart[k]!), rsOf.fact.map((k) => counts[k]!), vocab.size, t) : [],
      log: rsOf.log.length ? logPairs(rsOf.log, (k) => fileOf(k).date, source, counts, vocab.size, t) : [],
    });
    // the pairs, kept while no compared file changed, came or went (the join is most of the check)
    const pairs = !memo ? join() : memo.across('near-duplicates', settled ? `day-window\0${t}\0${inputs!.digest('base64')}` : undefined, () => new PairsOf(join(), rsOf, counts), (x) => {
      const p = revivePairs(x, { fact: rsOf.fact.map((k) => counts[k]!), log: rsOf.log.map((k) => counts[k]!) });
      return p ? new PairsOf(p, rsOf, counts) : undefined;
    }).pairs;
    const out: Finding[] = [];
    for (const group of ['fact', 'log'] as const) {
      const rs = rsOf[group];
      for (const [i, j, jac] of pairs[group]) {
        const a = rs[i]!;
        const b = rs[j]!;
        const idA = recId(a);
        if (idA && idA === recId(b)) continue; // the same entry moved (rotation), not a duplicate
        if (group === 'fact' && recKey(a) === recKey(b) && fileOf(a).rel !== fileOf(b).rel) continue; // canonical-home reports it
        if (numbersDiffer(words(a), words(b))) continue; // "port 8080" vs "port 8081": two values, not one fact twice
        out.push({
          check: 'near-duplicates',
          severity: 'warn',
          file: fileOf(b).rel,
          line: recLine[b]!,
          message: `${Math.round(jac * 100)}% the same as ${fileOf(a).rel}:${recLine[a]}`,
          fix: 'keep one: merge the two, or mark the older one superseded ("memtier supersede")',
        });
      }
    }
    return { findings: out, figures: { entriesCompared: nRecs } };
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
    const out = { ...r, w: packInts(w) };
    packed.set(out, w.length);
    return out;
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
