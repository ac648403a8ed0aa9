/**
 * search(ctx, query, opts): the one ranking used by `memtier search`, `memtier recall`,
 * `bench locomo` and in-process callers (dream, consolidate).
 *
 *   score = (bm25 + context) × file × tag × type × tier × activation × recency × time × superseded
 *
 * - bm25: Okapi BM25 over units with field weights (tags ×3, headings ×2, body ×1), k1 = 0.9,
 *   b = 0.4 (tuned on the LoCoMo dev split: entries are short and similar in length, so length
 *   normalization matters less than in the 1.2/0.75 textbook setting).
 * - context: an entry of a log (episodic day, buffer, archive) also earns contextWeight (0.5) ×
 *   the bm25 of each neighbour up to contextSpan (2) entries away, × contextDecay (0.7) per extra
 *   step: an answer carries the question it answers. dev: R@10 0.633 → 0.707 with fileWeight.
 * - file: 1 + fileWeight (1) × the share of the query's idf mass found anywhere in the entry's
 *   file (a day or note that covers the whole question ranks its entries higher).
 * - tag: 1 + tagBonus (0.3) per query term equal to a tag of the entry, its note or its type.
 * - type and tier: small fixed weights (TYPE_WEIGHT, TIER_WEIGHT); archive × 0.85 unless the
 *   query names a time; generated views × 0.8.
 * - activation: 1 − activationWeight (0.15) × (1 − activation): never below 0.85, so an old
 *   matching entry still ranks, it only yields ties to fresher ones.
 * - recency: 1 + recencyWeight (0.05) × 0.5^(age / 30 days) for dated entries.
 * - time: a time expression in the query ("yesterday", "in May 2023", "上周二") boosts entries
 *   dated inside its range × timeBoost (1.5) and adds that range's other entries at the end; a
 *   query made only of a time expression lists the range in date order.
 * - superseded entries × 0.5.
 * Near-duplicates are then collapsed (MMR-style): a result whose terms overlap an earlier
 * result's by dupJaccard (0.8) or more is folded into it (listed under `duplicates`).
 * Pseudo-relevance feedback is implemented but off (prfTerms 0): it lowered dev recall.
 */
import { daysBetween, localDate } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import type { EntryType } from '../format/entry.js';
import { activation } from './activation.js';
import type { Corpus, Doc } from './corpus.js';
import { readRecallHistory, type RecallRecord } from './history.js';
import { parseTimeRange, type TimeRange } from './timeexpr.js';
import { queryTokens } from './tokenize.js';

/** Ranking parameters (documented defaults; tuned on the LoCoMo dev split). Mutable only for tuning experiments. */
export const PARAMS = {
  k1: 0.9,
  b: 0.4,
  contextWeight: 0.5,
  tagBonus: 0.3,
  activationWeight: 0.15,
  recencyWeight: 0.05,
  timeBoost: 1.5,
  dupJaccard: 0.8,
  contextSpan: 2,
  contextDecay: 0.7,
  fileWeight: 1,
  prfDocs: 5,
  prfTerms: 0,
  prfWeight: 0.3,
};
export const TYPE_WEIGHT: Partial<Record<EntryType, number>> = { LESSON: 1.1, PREF: 1.1, DECISION: 1.1, TEMP: 0.9 };
export const TIER_WEIGHT: Record<string, number> = { hot: 1.15, warm: 1.1, buffer: 1.05, cold: 1, generated: 0.8, meta: 0.5 };
export const ARCHIVE_WEIGHT = 0.85;

export interface SearchOptions {
  k?: number;
  tags?: string[];
  type?: EntryType;
  since?: string;
  until?: string;
  tier?: 'hot' | 'warm' | 'cold';
  explain?: boolean;
  /** Recall history (read from .memtier when not given). */
  history?: Map<string, RecallRecord>;
  /** Leave out entries below this activation (recall's automatic block uses 0.15). */
  minActivation?: number;
  /** Keys (entry id or path#Lline) to leave out (the hot tier in recall). */
  exclude?: Set<string>;
  /** An index to search (else loaded from the cache). */
  corpus?: Corpus;
}

export interface SearchResult {
  /** History key: the entry id, else `path#Lline`. */
  key: string;
  path: string;
  line: number;
  endLine: number;
  id?: string;
  type?: EntryType;
  tags: string[];
  date?: string;
  tier: string;
  kind: string;
  heading: string;
  text: string;
  score: number;
  activation: number;
  /** Every factor of the score (--explain). */
  explain?: Record<string, number | string>;
  /** Near-duplicates folded into this result (`path#Lx`). */
  duplicates?: string[];
}

export interface SearchResponse {
  query: string;
  terms: string[];
  /** Terms added by pseudo-relevance feedback (weighted PARAMS.prfWeight). */
  expansion: string[];
  range?: TimeRange;
  /** Matching entries before the cut to k. */
  total: number;
  results: SearchResult[];
}

/** Base score of an in-range entry that matches no query term. */
const RANGE_FLOOR = 0.01;

const LOG_KINDS = new Set(['buffer', 'episodic', 'archive', 'legacy-daily', 'session-state']);

export function unitKey(d: Doc): string {
  return d.u.id ?? `${d.u.path}#L${d.u.line}`;
}

function tierWeight(d: Doc, range: TimeRange | undefined): number {
  if (d.u.kind === 'archive') return range ? 1 : ARCHIVE_WEIGHT;
  return TIER_WEIGHT[d.u.tier] ?? 1;
}

function tierOf(d: Doc): 'hot' | 'warm' | 'cold' | string {
  return d.u.tier === 'buffer' ? 'hot' : d.u.tier;
}

/** Rank `corpus` for `query`. Pure: same corpus, history and clock → same results. */
export function rank(ctx: Ctx, corpus: Corpus, query: string, opts: SearchOptions = {}): SearchResponse {
  const k = opts.k ?? 10;
  const now = ctx.clock.now();
  const tz = ctx.clock.tz;
  const today = localDate(now, tz);
  const range = parseTimeRange(query, now, tz);
  let textQuery = query;
  if (range) for (const p of range.phrases) textQuery = textQuery.toLowerCase().replace(p, ' ');
  const terms = queryTokens(textQuery);
  const history = opts.history ?? new Map<string, RecallRecord>();
  const N = Math.max(1, corpus.docs.length);
  const avg = corpus.totalLen / N || 1;

  const wantTags = (opts.tags ?? []).map((t) => t.toLowerCase().replace(/^#/, ''));
  const pass = (d: Doc): boolean => {
    const u = d.u;
    if (opts.type && u.type !== opts.type) return false;
    if (opts.tier && tierOf(d) !== opts.tier) return false;
    if (wantTags.length && !wantTags.every((t) => u.tags.includes(t))) return false;
    if (opts.since && (!u.date || u.date < opts.since)) return false;
    if (opts.until && (!u.date || u.date > opts.until)) return false;
    return true;
  };

  // 1. BM25 per matching doc (query terms weigh 1; pseudo-relevance feedback terms less)
  const idf = new Map<string, number>();
  const idfOf = (t: string): number => {
    let w = idf.get(t);
    if (w === undefined) {
      const df = corpus.postings.get(t)?.length ?? 0;
      w = df ? Math.log(1 + (N - df + 0.5) / (df + 0.5)) : 0;
      idf.set(t, w);
    }
    return w;
  };
  const bm25 = (weights: Map<string, number>): Map<Doc, number> => {
    const out = new Map<Doc, number>();
    for (const [t, qw] of weights) {
      const post = corpus.postings.get(t);
      if (!post) continue;
      const w = idfOf(t) * qw;
      for (const d of post) {
        const tf = d.tf.get(t)!;
        const s = (w * tf * (PARAMS.k1 + 1)) / (tf + PARAMS.k1 * (1 - PARAMS.b + (PARAMS.b * d.len) / avg));
        out.set(d, (out.get(d) ?? 0) + s);
      }
    }
    return out;
  };
  const qWeights = new Map(terms.map((t) => [t, 1]));
  let bm = bm25(qWeights);
  const expansion: string[] = [];
  if (PARAMS.prfTerms > 0 && bm.size > 0) {
    const top = [...bm].sort((x, y) => y[1] - x[1]).slice(0, PARAMS.prfDocs);
    const cand = new Map<string, number>();
    for (const [d] of top) for (const [t, tf] of d.tf) if (!qWeights.has(t)) cand.set(t, (cand.get(t) ?? 0) + (tf / d.len) * idfOf(t));
    const picked = [...cand].filter(([t]) => (corpus.postings.get(t)?.length ?? 0) > 1).sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, PARAMS.prfTerms);
    if (picked.length) {
      const w = new Map(qWeights);
      for (const [t] of picked) { w.set(t, PARAMS.prfWeight); expansion.push(t); }
      bm = bm25(w);
    }
  }
  // file coverage: the share of the query's idf mass present anywhere in the entry's file
  const fileCov = new Map<string, number>();
  if (PARAMS.fileWeight > 0 && terms.length) {
    let total = 0;
    const perFile = new Map<string, Set<string>>();
    for (const t of terms) {
      total += idfOf(t);
      for (const d of corpus.postings.get(t) ?? []) {
        let set = perFile.get(d.u.path);
        if (!set) perFile.set(d.u.path, (set = new Set()));
        set.add(t);
      }
    }
    for (const [f, set] of perFile) {
      let m = 0;
      for (const t of set) m += idfOf(t);
      fileCov.set(f, total ? m / total : 0);
    }
  }
  // A query that is only a time expression lists the entries of that range.
  const listRange = terms.length === 0 && range !== undefined;
  // Otherwise entries of the range that match no term still come (last), so "what happened
  // last Tuesday" lists that day even when "happened" is not written anywhere.
  if (range) {
    for (const d of corpus.docs) {
      if (d.u.date && d.u.date >= range.from && d.u.date <= range.to && !bm.has(d)) bm.set(d, listRange ? 1 : RANGE_FLOOR);
    }
  }

  // 2. context from neighbours in the same log file
  const ctxScore = new Map<Doc, number>();
  if (PARAMS.contextWeight > 0 && !listRange) {
    for (const [d, score] of bm) {
      const f = corpus.files.get(d.u.path);
      if (!f || !LOG_KINDS.has(d.u.kind)) continue;
      for (let off = -PARAMS.contextSpan; off <= PARAMS.contextSpan; off++) {
        const nb = f.docs[d.pos + off];
        if (!nb || off === 0) continue;
        const add = PARAMS.contextWeight * score * Math.pow(PARAMS.contextDecay, Math.abs(off) - 1);
        if (add > (ctxScore.get(nb) ?? 0)) ctxScore.set(nb, add);
      }
    }
  }

  // 3. factors
  const scored: { d: Doc; score: number; act: number; explain?: Record<string, number | string> }[] = [];
  const cands = new Set<Doc>([...bm.keys(), ...ctxScore.keys()]);
  for (const d of cands) {
    if (!pass(d)) continue;
    const key = unitKey(d);
    if (opts.exclude?.has(key)) continue;
    const u = d.u;
    const rec = history.get(key);
    const actInput: Parameters<typeof activation>[0] = { kind: u.kind };
    if (u.type) actInput.type = u.type;
    if (u.date) actInput.date = u.date;
    if (rec) { actInput.lastRecall = rec.last; actInput.recallCount = rec.count; }
    const act = activation(actInput, now, tz);
    if (opts.minActivation !== undefined && act < opts.minActivation) continue;
    const base = bm.get(d) ?? 0;
    const context = ctxScore.get(d) ?? 0;
    let tagHits = 0;
    for (const t of terms) if (d.tagTerms.has(t)) tagHits++;
    const tag = 1 + PARAMS.tagBonus * tagHits;
    const type = (u.type && TYPE_WEIGHT[u.type]) || 1;
    const tier = tierWeight(d, range);
    const actF = 1 - PARAMS.activationWeight * (1 - act);
    const recency = u.date ? 1 + PARAMS.recencyWeight * Math.pow(0.5, Math.max(0, daysBetween(u.date, today)) / 30) : 1;
    const time = range && !listRange && u.date && u.date >= range.from && u.date <= range.to ? PARAMS.timeBoost : 1;
    const sup = u.superseded ? 0.5 : 1;
    const file = 1 + PARAMS.fileWeight * (fileCov.get(u.path) ?? 0);
    const score = (base + context) * file * tag * type * tier * actF * recency * time * sup;
    const item: (typeof scored)[number] = { d, score, act };
    if (opts.explain) {
      item.explain = { bm25: round(base), context: round(context), file: round(file), tag, type, tier, activation: round(act), activationFactor: round(actF), recency: round(recency), time, superseded: sup, score: round(score) };
      const matched = terms.filter((t) => d.tf.has(t));
      item.explain.matched = matched.map((t) => `${t}(idf ${round(idf.get(t) ?? 0)})`).join(' ');
    }
    scored.push(item);
  }
  scored.sort((a, b) => b.score - a.score || (a.d.u.path < b.d.u.path ? -1 : a.d.u.path > b.d.u.path ? 1 : a.d.u.line - b.d.u.line));
  if (listRange) scored.sort((a, b) => (a.d.u.date! < b.d.u.date! ? -1 : a.d.u.date! > b.d.u.date! ? 1 : 0) || (a.d.u.path < b.d.u.path ? -1 : a.d.u.path > b.d.u.path ? 1 : a.d.u.line - b.d.u.line));

  // 4. near-duplicate collapse
  const results: SearchResult[] = [];
  const chosen: { d: Doc; r: SearchResult }[] = [];
  for (const s of scored) {
    if (results.length >= k) break;
    const dup = chosen.find((c) => jaccard(c.d, s.d) >= PARAMS.dupJaccard);
    if (dup) { (dup.r.duplicates ??= []).push(`${s.d.u.path}#L${s.d.u.line}`); continue; }
    const r = toResult(s.d, s.score, s.act);
    if (s.explain) r.explain = s.explain;
    results.push(r);
    chosen.push({ d: s.d, r });
  }
  const resp: SearchResponse = { query, terms, expansion, total: scored.length, results };
  if (range) resp.range = range;
  return resp;
}

function jaccard(a: Doc, b: Doc): number {
  if (a.tf.size < 3 || b.tf.size < 3) return 0;
  let inter = 0;
  for (const t of a.tf.keys()) if (b.tf.has(t)) inter++;
  return inter / (a.tf.size + b.tf.size - inter);
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function toResult(d: Doc, score: number, act: number): SearchResult {
  const u = d.u;
  const r: SearchResult = { key: unitKey(d), path: u.path, line: u.line, endLine: u.endLine, tags: u.tags, tier: tierOf(d), kind: u.kind, heading: u.heading, text: u.text, score: round(score), activation: round(act) };
  if (u.id) r.id = u.id;
  if (u.type) r.type = u.type;
  if (u.date) r.date = u.date;
  return r;
}

/** Search the memory at ctx.root (index from the on-disk cache, fresh for every changed file). */
export async function search(ctx: Ctx, query: string, opts: SearchOptions = {}): Promise<SearchResult[]> {
  return (await searchDetailed(ctx, query, opts)).results;
}

export async function searchDetailed(ctx: Ctx, query: string, opts: SearchOptions = {}): Promise<SearchResponse> {
  const corpus = opts.corpus ?? (await loadIndex(ctx));
  const history = opts.history ?? readRecallHistory(ctx.root);
  return rank(ctx, corpus, query, { ...opts, history });
}

/** The index for ctx.root: the cache when present and fresh, else built (and cached). */
export async function loadIndex(ctx: Ctx): Promise<Corpus> {
  const { loadCorpusFresh } = await import('./corpus.js');
  return loadCorpusFresh(ctx.root);
}
