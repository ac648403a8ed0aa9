/**
 * Similarity joins over word sets: every pair of sets whose Jaccard similarity reaches a
 * threshold, found without comparing all pairs. health's near-duplicates check and dream's merge
 * of near-duplicate candidates use it.
 */

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
export function similarPairs(recs: { words: Iterable<string> }[], t: number): [number, number, number][] {
  const vocab = new Map<string, number>();
  const ids: number[] = [];
  const start = recs.map((r) => {
    const at = ids.length;
    for (const w of new Set(r.words)) { let id = vocab.get(w); if (id === undefined) vocab.set(w, (id = vocab.size)); ids.push(id); }
    return at;
  });
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
  const df = scratch(0, vocab, true);
  let total = 0;
  for (let y = 0; y < n; y++) { total += count[y]!; for (let i = start[y]!, e = i + count[y]!; i < e; i++) df[pool[i]!]!++; }
  // ranked by a counting sort on df (stable: ties keep their numbers' order), as sorting with a
  // comparator was a fifth of the join on years of daily logs
  const rank = countingRank(vocab, (i) => df[i]!, 1, 2);
  // every set's ranks, ascending, in one array: set y is flat[off[y] .. off[y + 1])
  const off = scratch(3, n + 1, false);
  const flat = scratch(4, total, false);
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
  const byLen = countingRank(n, len, 5, 6);
  const order = scratch(7, n, false);
  for (let y = 0; y < n; y++) order[byLen[y]!] = y;
  // the bounds are filters: rounded in the generous direction, the similarity itself decides
  const eps = 1e-9;
  const ceil = (x: number): number => Math.ceil(x - eps);
  // each word's list of (set, position) in one array: word w's at postAt[w] .. postAt[w] + postLen[w]
  // (filled in processing order), its sets too short for the ones to come skipped up to postStart[w]
  const indexed = (lx: number): number => lx - ceil(((2 * t) / (1 + t)) * lx) + 1;
  const postAt = scratch(8, vocab + 1, true);
  for (let y = 0; y < n; y++) for (let p = 0, m = Math.max(0, Math.min(len(y), indexed(len(y)))); p < m; p++) postAt[flat[off[y]! + p]! + 1]!++;
  for (let w = 0; w < vocab; w++) postAt[w + 1]! += postAt[w]!;
  const postRec = scratch(9, postAt[vocab]!, false);
  const postPos = scratch(10, postAt[vocab]!, false);
  const postLen = scratch(11, vocab, true);
  const postStart = scratch(12, vocab, true);
  const overlap = scratch(13, n, true);
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

/** Each of 0 … n − 1's place when they are ordered by key(i) ≥ 0, ties by i (a stable counting sort; in scratch arrays `a`, `b`). */
function countingRank(n: number, key: (i: number) => number, a: number, b: number): Int32Array {
  let max = 0;
  for (let i = 0; i < n; i++) if (key(i) > max) max = key(i);
  const at = scratch(a, max + 2, true);
  for (let i = 0; i < n; i++) at[key(i) + 1]!++;
  for (let k = 0; k <= max; k++) at[k + 1]! += at[k]!;
  const rank = scratch(b, n, false);
  for (let i = 0; i < n; i++) rank[i] = at[key(i)]!++;
  return rank;
}

/**
 * The join's arrays, kept from call to call and grown as needed: health joins years of daily logs
 * in a hundred blocks, and a dozen new arrays a block were tens of MB of memory outside the heap,
 * given back only by a later collection. `slot` names the array; `zero`: cleared first. Good until
 * the next call of similarIdPairs (its results are copied out: pairs of numbers). Slots 0-13 are
 * the join's own; its callers use those above (near-duplicates' logPairs: 14-16).
 */
const buffers: Int32Array[] = [];
export function scratch(slot: number, size: number, zero: boolean): Int32Array {
  let b = buffers[slot];
  if (!b || b.length < size) { b = new Int32Array(Math.max(size, (b?.length ?? 0) * 2, 1024)); buffers[slot] = b; zero = false; }
  const v = b.subarray(0, size);
  if (zero) v.fill(0);
  return v;
}
