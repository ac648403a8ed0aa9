import type { Check, Finding } from '../types.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';
import { normalizeFact } from '../markdown.js';
import { compareWords } from '../../format/compare.js';
import type { LocatedEntry } from '../../format/entry.js';
import { FACT_KINDS } from './canonical-home.js';

/** Logs compared with each other. SESSION-STATE.md mirrors the buffer by design (the WAL writes both), so it is left out. */
const LOG_KINDS = new Set<MemFile['kind']>(['buffer', 'episodic', 'legacy-daily']);

interface Rec { f: MemFile; e: LocatedEntry; key: string; words: string[]; group: 'fact' | 'log' }

/**
 * Pairs of entries whose word sets have Jaccard similarity ≥ `t`, by prefix filtering (exact for
 * Jaccard): order each set's words by rarity; two sets can reach `t` only if they share one of
 * their first |x| − ⌈t·|x|⌉ + 1 words. Near-linear on real memories, no all-pairs pass.
 */
export function similarPairs(recs: { words: string[] }[], t: number): [number, number, number][] {
  const df = new Map<string, number>();
  for (const r of recs) for (const w of r.words) df.set(w, (df.get(w) ?? 0) + 1);
  const sorted = recs.map((r) => r.words.map((w) => [df.get(w)!, w] as const).sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)).map(([, w]) => w));
  const sets = sorted.map((ws) => new Set(ws));
  const postings = new Map<string, number[]>();
  const out: [number, number, number][] = [];
  const seenAt = new Int32Array(recs.length).fill(-1);
  sorted.forEach((ws, i) => {
    const prefix = ws.length - Math.ceil(t * ws.length) + 1;
    for (let p = 0; p < prefix; p++) {
      const list = postings.get(ws[p]!);
      if (!list) continue;
      for (const j of list) {
        if (seenAt[j] === i) continue; // already compared with i
        seenAt[j] = i;
        const a = sorted[j]!;
        if (Math.min(a.length, ws.length) < t * Math.max(a.length, ws.length)) continue;
        const set = sets[j]!;
        let inter = 0;
        for (const w of ws) if (set.has(w)) inter++;
        const jac = inter / (a.length + ws.length - inter);
        if (jac >= t) out.push([j, i, jac]);
      }
    }
    for (let p = 0; p < prefix; p++) {
      const w = ws[p]!;
      const list = postings.get(w);
      if (list) list.push(i); else postings.set(w, [i]);
    }
  });
  return out;
}

/** Do the two word sets differ in a word holding a digit (a different number, version, port, date)? */
export function numbersDiffer(a: string[], b: string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return a.some((w) => /\d/.test(w) && !sb.has(w)) || b.some((w) => /\d/.test(w) && !sa.has(w));
}

function records(snap: Snapshot): Rec[] {
  const out: Rec[] = [];
  for (const f of snap.files) {
    if (f.text === undefined) continue;
    const group = FACT_KINDS.has(f.kind) ? 'fact' : LOG_KINDS.has(f.kind) ? 'log' : undefined;
    if (!group) continue;
    for (const e of snap.entries(f)) {
      if (e.superseded) continue;
      const key = normalizeFact(e.text);
      // one-letter words carry nothing, but numbers do ("decision 1" is not "decision 2")
      const words = [...new Set(compareWords(key).filter((w) => w.length > 1 || /\d/.test(w) || /[\u3400-\u9fff]/.test(w)))];
      if (words.length >= 4) out.push({ f, e, key, words, group });
    }
  }
  return out;
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
    const recs = records(snap);
    const out: Finding[] = [];
    for (const group of ['fact', 'log'] as const) {
      const rs = recs.filter((r) => r.group === group);
      for (const [i, j, jac] of similarPairs(rs, env.limits.nearDuplicate)) {
        const a = rs[i]!;
        const b = rs[j]!;
        if (a.e.id && a.e.id === b.e.id) continue; // the same entry moved (rotation), not a duplicate
        if (group === 'fact' && a.key === b.key && a.f.rel !== b.f.rel) continue; // canonical-home reports it
        if (numbersDiffer(a.words, b.words)) continue; // "port 8080" vs "port 8081": two values, not one fact twice
        out.push({
          check: 'near-duplicates',
          severity: 'warn',
          file: b.f.rel,
          line: b.e.line,
          message: `${Math.round(jac * 100)}% the same as ${a.f.rel}:${a.e.line}`,
          fix: 'keep one: merge the two, or mark the older one superseded ("memtier supersede")',
        });
      }
    }
    return { findings: out, figures: { entriesCompared: recs.length } };
  },
};
