/**
 * Dream promotion (seed 001, after OpenClaw memory-core's short-term promotion), three phases:
 *
 *   light  stage candidates: entries of the last `maxAgeDays` days of the log and every entry in
 *          the recall history; the same ^id in two files is one candidate, near-duplicates
 *          (word sets ≥ 80% alike) are merged and their recalls added up
 *   REM    recurring themes: tags and content words shared by several candidates
 *   deep   six signals per candidate (0–1), weighted like memory-core's deep phase:
 *            relevance 0.30      type prior (decisions, preferences, lessons 1.0; people, tools,
 *                                projects 0.8; untyped 0.5; events 0.3) + 0.1 inside a theme
 *            frequency 0.24      log(1 + recalls) / log(11)
 *            diversity 0.15      distinct queries / 5
 *            recency 0.15        0.5 ^ (days since last recall or the entry's day / 14)
 *            consolidation 0.10  (distinct days seen or recalled − 1) / 3
 *            conceptual 0.06     (content words + 2 × tags) / 8
 *          and promotes only what passes every gate: score ≥ minScore (0.5), recalls ≥ 3,
 *          distinct queries ≥ 3, age ≤ 30 days, an `^id`, not yet promoted, at most `limit` (10).
 *
 * Promotion (`--apply`) re-reads each source under the lock (a changed or deleted source is not
 * promoted), files the fact in its canonical home (CANONICAL_HOME) when it is not there yet, and
 * writes one clean index line into MEMORY.md linking it there (text without time, type, tags or
 * scores, and the `^id` that marks memtier's lines; events and untyped entries, which have no
 * home, link their log line). MEMORY.md stays one line under its budget; past that, the fact
 * stays filed in its home and MEMORY.md gets one index line for that home if it has none.
 * DREAMS.md receives a diary entry.
 *
 * Why minScore 0.5 and not OpenClaw's 0.75–0.8: memory-core's relevance is an embedding
 * similarity; here it is a type prior, and the evidence is carried by the count gates (3 recalls,
 * 3 distinct queries) that every promoted entry passes anyway. With exactly that evidence over 3
 * days, a decision, preference or lesson scores 0.78 the day after its last recall and falls
 * under 0.75 a week later; an untyped note scores 0.63 and an event 0.57, so at 0.75 only fresh
 * decisions would ever pass. At 0.5 the score is a floor: an event recalled that way still passes
 * about two weeks after its last recall, and old, thin or one-day candidates do not.
 */
import { createHash } from 'node:crypto';
import { addDays, daysBetween, localDate, localTime } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { CANONICAL_HOME, parseEntries, type EntryType } from '../format/entry.js';
import { PATHS, type FileInfo } from '../format/layout.js';
import { readRecallHistory } from '../search/history-read.js';
import { EN_STOP } from '../search/stopwords.js';
import { keywordsOf } from './topics.js';
import { similarPairs } from '../core/similarity-join.js';
import { applyPlanned, cite, plural, read, type Op } from './common.js';
import { addToSection, memoryBudget } from './memory-index.js';
import {
  appendLines, contentWords, eachFileEntries, factKey, historyKey, recalledKey, homeLine, idSet, indexLine, indexSection, MEMORY_INDEX,
  own, plainText, SOURCE_KINDS, titleOf, withoutCitation, type MemEntry, type RecallRec,
} from './pipeline.js';

export const DREAM_DEFAULTS = { minScore: 0.5, minRecallCount: 3, minUniqueQueries: 3, maxAgeDays: 30, limit: 10, recencyHalfLifeDays: 14 };
export const WEIGHTS = { relevance: 0.3, frequency: 0.24, diversity: 0.15, recency: 0.15, consolidation: 0.1, conceptual: 0.06 } as const;
export const NEAR_DUPLICATE = 0.8;
export const DREAMS_FILE = PATHS.dreams;
export type Phase = 'light' | 'rem' | 'deep';
export type Signal = keyof typeof WEIGHTS;

export interface DreamOptions {
  phase?: Phase;
  apply?: boolean;
  dryRun?: boolean;
  limit?: number;
  minScore?: number;
  minRecallCount?: number;
  minUniqueQueries?: number;
  maxAgeDays?: number;
  beforeApply?: (attempt: number) => void;
}

export type Gate = 'age' | 'recalls' | 'queries' | 'score' | 'id' | 'promoted' | 'limit' | 'source' | 'budget';

/** What each gate protects, for --explain. */
export const GATE_WHY: Record<Gate, string> = {
  age: 'older than the short-term window: what was not promoted while fresh stays in the log',
  recalls: 'recalled too rarely: one lucky search is not evidence the fact matters',
  queries: 'recalled for too few different questions: the same question asked again is one need',
  score: 'weighted signals below the score gate (thin, old or untyped)',
  id: 'no ^id: a promoted line must cite its source stably (give it an id, e.g. `memtier adopt`)',
  promoted: 'already in MEMORY.md, or (MEMORY.md being full) filed in its home, which MEMORY.md links',
  limit: 'past the per-run limit: the best ones go first, the rest wait for the next run',
  source: 'the source changed or was deleted since it was recalled: the live file wins',
  budget: 'MEMORY.md is full and the entry has no canonical home to overflow to (or is already there, unlinked)',
};

export interface Candidate {
  key: string;
  id?: string;
  type?: EntryType;
  text: string;
  source: string;
  path: string;
  day?: string;
  sources: string[];
  recallCount: number;
  uniqueQueries: number;
  days: number;
  lastSeen?: string;
  ageDays?: number;
  /** 1-based line of the source entry. */
  line: number;
  /** Distinct days the fact was seen in the log or recalled. */
  recallDays: number;
  themes: string[];
  signals?: Record<Signal, number>;
  score?: number;
  /** Gates it failed (keys of GATE_WHY), in order; `failedDetail` says by how much. */
  failed: Gate[];
  failedDetail: string[];
  /** Where it was promoted to (MEMORY.md, or a canonical home and how MEMORY.md reaches it). */
  promoted?: string;
  to?: string;
}

export interface DreamResult {
  ok: true;
  phase: Phase;
  apply: boolean;
  dryRun: boolean;
  changed: boolean;
  config: typeof DREAM_DEFAULTS;
  staged: number;
  merged: number;
  themes: { theme: string; count: number }[];
  candidates: Candidate[];
  promoted: Candidate[];
  /** Facts filed in their canonical home because MEMORY.md was at its budget. */
  overflow: string[];
  /** Candidates that passed the gates but were not promoted (source changed, no room). */
  skipped: { source: string; why: string }[];
  /** True when the promotions were written. */
  applied: boolean;
  notes: string[];
  files: string[];
  retries: number;
  message: string;
}

export function dreamConfig(ctx: Ctx, opts: DreamOptions): typeof DREAM_DEFAULTS {
  const num = (name: string, flag: number | undefined, dflt: number, min: number, max: number): number => {
    const env = ctx.env[`MEMTIER_DREAM_${name}`];
    const v = flag ?? (env !== undefined && env !== '' ? Number(env) : dflt);
    if (!Number.isFinite(v) || v < min || v > max) throw new UsageError(`dream ${name.toLowerCase().replace(/_/g, '-')} ${v} is out of range`, `use a number from ${min} to ${max}`);
    return v;
  };
  return {
    minScore: num('MIN_SCORE', opts.minScore, DREAM_DEFAULTS.minScore, 0, 1),
    minRecallCount: num('MIN_RECALL_COUNT', opts.minRecallCount, DREAM_DEFAULTS.minRecallCount, 0, 1e6),
    minUniqueQueries: num('MIN_UNIQUE_QUERIES', opts.minUniqueQueries, DREAM_DEFAULTS.minUniqueQueries, 0, 1e6),
    maxAgeDays: num('MAX_AGE_DAYS', opts.maxAgeDays, DREAM_DEFAULTS.maxAgeDays, 0, 1e5),
    limit: Math.floor(num('LIMIT', opts.limit, DREAM_DEFAULTS.limit, 0, 1000)),
    recencyHalfLifeDays: num('RECENCY_HALF_LIFE_DAYS', undefined, DREAM_DEFAULTS.recencyHalfLifeDays, 0.1, 1e5),
  };
}

// ---- light ------------------------------------------------------------------------------------

const LOG_KINDS = new Set(['buffer', 'episodic', 'legacy-daily']);
const HOME_FILES = new Set(Object.values(CANONICAL_HOME));

/**
 * An entry of the staging pool: what light, REM, deep and promotion read of it, in strings of its
 * own (no raw line; nothing that keeps its file's text alive), with its recall-history key.
 */
export interface PoolEntry {
  path: string; line: number; kind: FileInfo['kind']; text: string; tags: string[];
  /** historyKey(entry) */
  hk: string;
  id?: string; type?: EntryType; day?: string; time?: string;
}

interface Staged { c: Candidate; entries: PoolEntry[]; queries: Set<string>; dayset: Set<string>; words: Set<string>; last?: string }

function words(text: string): Set<string> {
  // a light stem (plural s) so "Friday" and "Fridays" are one word
  return new Set(plainText(text).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1).map((w) => (w.length > 3 ? w.replace(/s$/, '') : w)));
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return n / (a.size + b.size - n);
}

/**
 * Each word set's merge target: for the sets in order, the place among the sets kept so far (a
 * set with no earlier similar one is kept) of the first whose Jaccard similarity with it is ≥
 * `t`, or undefined (the set is kept). What scanning every kept set for each new one finds, from
 * the pairs a similarity join finds (core/similarity-join.ts: its prefix, length and position
 * filters compare few pairs, where a plain prefix index compared every set sharing a common word:
 * dream at 50,000 notes took 64 s, most of it here).
 */
export function firstSimilar(sets: readonly Set<string>[], t: number): (number | undefined)[] {
  // the earlier sets similar to each set, in order (similarPairs sorts by the later, then the earlier)
  const earlier = new Map<number, number[]>();
  for (const [i, j] of similarPairs(sets.map((words) => ({ words })), t)) { const l = earlier.get(j); if (l) l.push(i); else earlier.set(j, [i]); }
  const keptAt = new Int32Array(sets.length).fill(-1);
  const out: (number | undefined)[] = [];
  let kept = 0;
  sets.forEach((_, j) => {
    const at = earlier.get(j)?.find((i) => keptAt[i]! >= 0);
    if (at === undefined) { keptAt[j] = kept++; out.push(undefined); } else out.push(keptAt[at]!);
  });
  return out;
}

/** Is the entry staged: not superseded, not TEMP, in the log of the last `maxAgeDays` days or in the recall history? */
function staged(e: MemEntry, from: string, today: string, recalled: (e: MemEntry) => string | undefined): string | undefined {
  if (e.superseded || e.type === 'TEMP' || e.kind === 'memory-index') return undefined;
  // a day after today (a plan written ahead) is not of the last days' log
  return LOG_KINDS.has(e.kind) && e.day !== undefined && e.day >= from && e.day <= today ? historyKey(e) : recalled(e);
}

function poolEntry(e: MemEntry, hk: string): PoolEntry {
  const p: PoolEntry = { path: e.path, line: e.line, kind: e.kind, text: own(e.text), tags: e.tags.map(own), hk: own(hk) };
  if (e.id) p.id = own(e.id);
  if (e.type) p.type = e.type;
  if (e.day) p.day = own(e.day);
  if (e.time) p.time = own(e.time);
  return p;
}

/**
 * The staging pool, one file at a time (eachFileEntries): the entries light stages, each kept in
 * its compact form; the rest of the memory is read and let go.
 */
export function stagingPool(ctx: Ctx, history: Map<string, RecallRec>, today: string, maxAgeDays: number): PoolEntry[] {
  const from = addDays(today, -maxAgeDays);
  const pool: PoolEntry[] = [];
  const recalled = recalledKey(history);
  eachFileEntries(ctx, SOURCE_KINDS, { freeForm: true, keepText: false }, (es) => {
    for (const e of es) { const hk = staged(e, from, today, recalled); if (hk !== undefined) pool.push(poolEntry(e, hk)); }
  });
  return pool;
}

/** Light over the staging pool (stagingPool). */
export function light(pool: PoolEntry[], history: Map<string, RecallRec>): { staged: Staged[]; merged: number } {
  // one candidate per ^id (a log line and its copy in a home are one fact); the home is the source
  const byKey = new Map<string, PoolEntry[]>();
  for (const e of pool) { const k = e.id ?? e.hk; const l = byKey.get(k); if (l) l.push(e); else byKey.set(k, [e]); }
  const staged: Staged[] = [];
  for (const [key, es] of [...byKey].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const primary = es.find((e) => HOME_FILES.has(e.path)) ?? es.find((e) => !LOG_KINDS.has(e.kind)) ?? es[0]!;
    const s: Staged = {
      c: { key, text: withoutCitation(primary.text), source: cite(primary), path: primary.path, sources: es.map(cite), recallCount: 0, uniqueQueries: 0, days: 0, line: primary.line, recallDays: 0, themes: [], failed: [], failedDetail: [],
        ...(primary.id ? { id: primary.id } : {}), ...(primary.type ? { type: primary.type } : {}), ...(primary.day ? { day: primary.day } : {}) },
      entries: es, queries: new Set(), dayset: new Set(), words: words(withoutCitation(primary.text)),
    };
    const keys = new Set<string>();
    for (const e of es) {
      if (e.day) s.dayset.add(e.day);
      const k = e.hk;
      const r = history.get(k);
      if (r && !keys.has(k)) addRecall(s, r);
      keys.add(k);
    }
    staged.push(s);
  }
  // near-duplicates: merged into the candidate with more recalls (then the newer, then the key)
  staged.sort((a, b) => b.c.recallCount - a.c.recallCount || ((b.c.day ?? '') < (a.c.day ?? '') ? -1 : (b.c.day ?? '') > (a.c.day ?? '') ? 1 : a.c.key < b.c.key ? -1 : 1));
  const out: Staged[] = [];
  let merged = 0;
  const targets = firstSimilar(staged.map((s) => s.words), NEAR_DUPLICATE);
  for (const [k, s] of staged.entries()) {
    const at = targets[k];
    const into = at === undefined ? undefined : out[at];
    if (!into) { out.push(s); continue; }
    merged++;
    into.c.sources.push(...s.c.sources);
    into.entries.push(...s.entries);
    for (const d of s.dayset) into.dayset.add(d);
    for (const q of s.queries) into.queries.add(q);
    into.c.recallCount += s.c.recallCount;
    if (s.last && (!into.last || s.last > into.last)) into.last = s.last;
  }
  for (const s of out) { s.c.uniqueQueries = s.queries.size; s.c.days = s.c.recallDays = s.dayset.size; }
  return { staged: out, merged };
}

function addRecall(s: Staged, r: RecallRec): void {
  s.c.recallCount += r.count;
  for (const q of r.queries) s.queries.add(q);
  for (const d of r.days) s.dayset.add(d);
  if (!s.last || r.last > s.last) s.last = r.last;
}

// ---- REM --------------------------------------------------------------------------------------

/** Words a theme can be: content words, and Chinese words (2+ characters) where the text has them. */
function themeWords(text: string, stop: Set<string>): string[] {
  const words = contentWords(text, stop);
  return /[\u3400-\u9fff]/.test(text) ? [...new Set([...words.filter((w) => !/[\u3400-\u9fff]/.test(w)), ...keywordsOf(text)])] : words;
}

export function rem(staged: Staged[], stop: Set<string>): { theme: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const s of staged) {
    const topics = new Set([...s.entries.flatMap((e) => e.tags).filter((t) => t !== 'friction').map((t) => `#${t}`), ...themeWords(s.c.text, stop)]);
    for (const t of topics) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  const themes = [...counts].filter(([t, n]) => n >= (t.startsWith('#') ? 2 : 3))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 8).map(([theme, count]) => ({ theme, count }));
  const names = themes.map((t) => t.theme);
  for (const s of staged) {
    const mine = new Set([...s.entries.flatMap((e) => e.tags).map((t) => `#${t}`), ...themeWords(s.c.text, stop)]);
    s.c.themes = names.filter((n) => mine.has(n));
  }
  return themes;
}

// ---- deep -------------------------------------------------------------------------------------

const TYPE_PRIOR: Partial<Record<EntryType, number>> = { DECISION: 1, PREF: 1, LESSON: 1, PEOPLE: 0.8, TECH: 0.8, PROJ: 0.8, EVENT: 0.3, TEMP: 0 };

export function signals(s: Staged, today: string, tz: string, cfg: typeof DREAM_DEFAULTS, stop: Set<string>): Record<Signal, number> {
  const lastDay = s.last ? localDate(new Date(s.last), tz) : s.c.day;
  const since = lastDay ? Math.max(0, daysBetween(lastDay, today)) : 0;
  const tags = new Set(s.entries.flatMap((e) => e.tags).filter((t) => t !== 'friction')).size;
  const r = (x: number): number => Math.round(Math.min(1, Math.max(0, x)) * 1000) / 1000;
  return {
    relevance: r((s.c.type ? TYPE_PRIOR[s.c.type] ?? 0.5 : 0.5) + (s.c.themes.length ? 0.1 : 0)),
    frequency: r(Math.log(1 + s.c.recallCount) / Math.log(11)),
    diversity: r(s.c.uniqueQueries / 5),
    recency: r(Math.pow(0.5, since / cfg.recencyHalfLifeDays)),
    consolidation: r((s.c.days - 1) / 3),
    conceptual: r((new Set(contentWords(s.c.text, stop)).size + 2 * tags) / 8),
  };
}

export function scoreOf(sig: Record<Signal, number>): number {
  let t = 0;
  for (const k of Object.keys(WEIGHTS) as Signal[]) t += WEIGHTS[k] * sig[k];
  return Math.round(t * 1000) / 1000;
}

/** Is the fact already in MEMORY.md (its ^id)? (Filed in its linked home is decided at promotion time.) */
function alreadyPromoted(c: Candidate, memory: string): boolean {
  return !!c.id && memory.includes(`^${c.id}`);
}

// ---- plan -------------------------------------------------------------------------------------

interface Inputs { cfg: typeof DREAM_DEFAULTS; phase: Phase; apply: boolean; dryRun: boolean; stop: Set<string> }

export function planDream(ctx: Ctx, inp: Inputs): { ops: Op[]; result: DreamResult } {
  const { cfg, phase, stop } = inp;
  const tz = ctx.clock.tz;
  const now = ctx.clock.now();
  const today = localDate(now, tz);
  const history = readRecallHistory(ctx.root);
  const { staged, merged } = light(stagingPool(ctx, history, today, cfg.maxAgeDays), history);
  const res: DreamResult = {
    ok: true, phase, apply: inp.apply, dryRun: inp.dryRun, changed: false, config: cfg, staged: staged.length, merged,
    themes: [], candidates: staged.map((s) => s.c), promoted: [], overflow: [], skipped: [], applied: false, notes: [], files: [], retries: 0, message: '',
  };
  if (phase === 'light') return { ops: [], result: finish(res) };
  res.themes = rem(staged, stop);
  if (phase === 'rem') return { ops: [], result: finish(res) };

  const memory = read(ctx, MEMORY_INDEX);
  const homeText = new Map<string, string | undefined>();
  const homeOf = (t?: EntryType): string | undefined => (t && CANONICAL_HOME[t].endsWith('.md') && t !== 'TEMP' ? CANONICAL_HOME[t] : undefined);
  for (const t of Object.keys(CANONICAL_HOME) as EntryType[]) { const h = homeOf(t); if (h) homeText.set(h, read(ctx, h)); }
  const homeIds = new Map([...homeText].map(([k, v]) => [k, idSet(v)]));
  for (const s of staged) {
    const c = s.c;
    c.signals = signals(s, today, tz, cfg, stop);
    c.score = scoreOf(c.signals);
    const seen = s.last ? localDate(new Date(s.last), tz) : c.day;
    if (seen) c.lastSeen = seen;
    if (c.day) c.ageDays = daysBetween(c.day, today);
    if (c.ageDays !== undefined && c.ageDays > cfg.maxAgeDays) fail(c, 'age', `${c.ageDays} days > ${cfg.maxAgeDays}`);
    if (c.recallCount < cfg.minRecallCount) fail(c, 'recalls', `${c.recallCount} < ${cfg.minRecallCount}`);
    if (c.uniqueQueries < cfg.minUniqueQueries) fail(c, 'queries', `${c.uniqueQueries} < ${cfg.minUniqueQueries}`);
    if (c.score < cfg.minScore) fail(c, 'score', `${c.score.toFixed(3)} < ${cfg.minScore}`);
    if (!c.id) fail(c, 'id', 'no ^id');
    if (memory !== undefined && alreadyPromoted(c, memory)) fail(c, 'promoted', 'already promoted');
  }
  const ranked = [...staged].sort((a, b) => b.c.score! - a.c.score! || (a.c.key < b.c.key ? -1 : 1));
  const passing = ranked.filter((s) => s.c.failed.length === 0);
  res.candidates = ranked.map((s) => s.c);

  // promotion: re-read each source as it is now; a changed or deleted source is not promoted
  const ops: Op[] = [];
  if (memory === undefined) { if (passing.length) res.notes.push('no MEMORY.md: nothing promoted (run "memtier init")'); return { ops, result: finish(res) }; }
  const budget = memoryBudget(ctx);
  const reserve = { lines: budget.lines - 1, bytes: budget.bytes - 200 };
  let next = memory;
  const homeAdds = new Map<string, { lines: string[]; tags: string[] }>();
  const checks: { path: string; id: string; key: string }[] = [];
  for (const s of passing) {
    const c = s.c;
    if (res.promoted.length >= cfg.limit) { fail(c, 'limit', `only the best ${cfg.limit} per run`); continue; }
    const live = liveEntry(ctx, c.path, c.id!);
    if (!live || live.superseded || factKey(live.text) !== factKey(c.text)) { fail(c, 'source', 'changed or deleted since it was recalled'); res.skipped.push({ source: c.source, why: GATE_WHY.source }); continue; }
    checks.push({ path: c.path, id: c.id!, key: factKey(c.text) });
    const home = homeOf(c.type);
    const inHome = !!home && (homeIds.get(home)!.has(c.id!) || !!homeAdds.get(home)?.lines.some((l) => l.endsWith(`^${c.id}`)));
    const fileInHome = (): void => {
      if (!home || inHome) return;
      const add = homeAdds.get(home) ?? { lines: [], tags: [] };
      add.lines.push(homeLine(s.entries.find((e) => e.path === c.path)!, c.type));
      add.tags.push(...s.entries.flatMap((e) => e.tags));
      homeAdds.set(home, add);
    };
    // the MEMORY.md line links the fact in its canonical home (filed there now if needed): a log
    // path would break when the day is archived
    const r = addToSection(next, indexSection(c.type), [indexLine(c.text, home ?? c.path, c.id!)], reserve);
    if (r.added.length) {
      next = r.text;
      fileInHome();
      c.to = MEMORY_INDEX;
      c.promoted = home && !inHome ? `${MEMORY_INDEX} (filed in ${home})` : MEMORY_INDEX;
      res.promoted.push(c);
      continue;
    }
    if (!home) { fail(c, 'budget', 'MEMORY.md is full'); res.skipped.push({ source: c.source, why: GATE_WHY.budget }); continue; }
    if (inHome && next.includes(`](${home}`)) { fail(c, 'promoted', `filed in ${home}, which MEMORY.md links; no room for a line of its own`); continue; }
    fileInHome();
    c.to = home;
    let via: string;
    if (!next.includes(`](${home}`)) {
      const ix = addToSection(next, '## Key facts', [`- [${titleOf(home)}](${home}) — promoted facts, see the file`], budget);
      if (ix.added.length) { next = ix.text; via = `index line for ${home} added to MEMORY.md`; } else {
        if (inHome) { fail(c, 'budget', `MEMORY.md is full and ${home} already holds it`); res.skipped.push({ source: c.source, why: GATE_WHY.budget }); delete c.to; continue; }
        via = 'no room for an index line';
        res.notes.push(`MEMORY.md is at its budget: add a link to ${home} by hand`);
      }
    } else via = `MEMORY.md already links ${home}`;
    c.promoted = `${home} (${via})`;
    res.overflow.push(`${plainText(c.text)} → ${home} (${via})`);
    res.promoted.push(c);
  }
  if (res.promoted.length === 0 && !inp.apply) return { ops, result: finish(res) };
  if (!inp.apply) return { ops: [], result: finish(res) };

  if (checks.length) {
    ops.push({
      kind: 'fn', label: 'sources unchanged', files: [],
      run: (tx) => {
        for (const k of checks) {
          const e = parseEntries(tx.read(k.path) ?? '').find((x) => x.id === k.id);
          if (!e || e.superseded || factKey(e.text) !== k.key) throw new MemtierError('source changed while dreaming; nothing was written', { code: 'conflict', file: k.path, hint: 'run the command again' });
        }
      },
    });
  }
  for (const [home, add] of homeAdds) {
    const cur = homeText.get(home);
    ops.push({ kind: 'write', rel: home, content: appendLines(cur, home, add.lines, add.tags, today), expected: cur ?? null });
  }
  if (next !== memory) ops.push({ kind: 'write', rel: MEMORY_INDEX, content: next, expected: memory });
  const diary = diaryEntry(res, `${today} ${localTime(now, tz)}`);
  const dreams = read(ctx, DREAMS_FILE);
  if (res.promoted.length > 0 || lastStagedMark(dreams) !== diary.mark) {
    const base = dreams ?? '# Dream diary\n\nWritten by `memtier dream --apply`: what each run staged, the themes it found, what it promoted and why. Narrative prompt: templates/dream-diary.md.\n';
    ops.push({ kind: 'write', rel: DREAMS_FILE, content: `${base.replace(/\n*$/, '\n')}\n${diary.text}`, expected: dreams ?? null });
  }
  if (ops.length === 1 && ops[0]!.kind === 'fn') ops.length = 0;
  res.files = ops.flatMap((o) => (o.kind === 'write' ? [o.rel] : []));
  res.changed = res.files.length > 0;
  return { ops, result: finish(res) };
}

function fail(c: Candidate, gate: Gate, detail: string): void {
  c.failed.push(gate);
  c.failedDetail.push(`${gate}: ${detail}`);
}

function liveEntry(ctx: Ctx, path: string, id: string): ReturnType<typeof parseEntries>[number] | undefined {
  let text: string | undefined;
  try { text = read(ctx, path); } catch { return undefined; }
  return parseEntries(text ?? '').find((e) => e.id === id);
}

function stagedHash(r: DreamResult): string {
  const h = createHash('sha1');
  for (const c of r.candidates) h.update(`${c.key}:${c.recallCount}:${c.uniqueQueries}\n`);
  return h.digest('hex').slice(0, 10);
}

function lastStagedMark(text: string | undefined): string | undefined {
  const all = [...(text ?? '').matchAll(/<!-- dream:staged ([0-9a-f]+) -->/g)];
  return all.length ? all[all.length - 1]![1] : undefined;
}

/** Why, in words: the evidence behind a promotion. */
export function because(c: Candidate): string {
  return `recalled ${plural(c.recallCount, 'time')} for ${plural(c.uniqueQueries, 'different question')} over ${plural(c.days, 'day')}`;
}

export function diaryEntry(r: DreamResult, stamp: string): { text: string; mark: string } {
  const mark = stagedHash(r);
  const out = [`## ${stamp}`, ''];
  out.push(`Staged ${plural(r.staged, 'candidate')} from the last ${r.config.maxAgeDays} days and the recall history${r.merged ? ` (${plural(r.merged, 'near-duplicate')} merged)` : ''}.`);
  out.push(`Themes: ${r.themes.length ? r.themes.map((t) => `${t.theme} (${t.count})`).join(', ') : 'none recurring yet'}.`);
  out.push('', r.promoted.length ? 'Promoted:' : 'Promoted: nothing passed every gate.');
  for (const c of r.promoted) out.push(`- ${plainText(c.text)} → ${c.promoted}: ${because(c)}; from ${c.source}`);
  const fails = new Map<string, number>();
  for (const c of r.candidates) if (!c.promoted && c.failed.length) { const g = c.failed[0]!; fails.set(g, (fails.get(g) ?? 0) + 1); }
  if (fails.size) out.push('', `Held back: ${[...fails].map(([g, n]) => `${n} on ${g}`).join(', ')}.`);
  out.push(`<!-- dream:staged ${mark} -->`);
  return { text: out.join('\n') + '\n', mark };
}

function finish(r: DreamResult): DreamResult {
  const w = r.applied ? '' : 'would ';
  const parts = [`dream (${r.phase}): staged ${plural(r.staged, 'candidate')}${r.merged ? ` (${r.merged} merged)` : ''}`];
  if (r.phase !== 'light') parts.push(`${plural(r.themes.length, 'theme')}${r.themes.length ? ` (${r.themes.slice(0, 4).map((t) => t.theme).join(', ')})` : ''}`);
  if (r.phase === 'deep') {
    parts.push(r.promoted.length ? `${w}promote ${r.promoted.length}` : 'nothing passes every gate');
    if (!r.apply && r.promoted.length) parts.push('run with --apply to write');
    if (r.apply && !r.dryRun && !r.applied) parts.push('nothing changed');
  }
  r.message = parts.join('; ');
  return r;
}

export function runDream(ctx: Ctx, opts: DreamOptions = {}): DreamResult {
  const phase = opts.phase ?? 'deep';
  if (opts.apply && phase !== 'deep') throw new UsageError('--apply needs the deep phase', 'drop --phase, or use --phase deep');
  const cfg = dreamConfig(ctx, opts);
  const inp: Inputs = { cfg, phase, apply: !!opts.apply, dryRun: !!opts.dryRun, stop: EN_STOP };
  const dry = !opts.apply || !!opts.dryRun;
  const r = applyPlanned(ctx, () => planDream(ctx, inp), { dryRun: dry, ...(opts.beforeApply ? { beforeApply: opts.beforeApply } : {}) });
  r.result.retries = r.retries;
  if (dry) { r.result.changed = false; r.result.files = []; }
  r.result.applied = r.applied;
  finish(r.result);
  return r.result;
}
