/**
 * `memtier stats`: counts, sizes, token estimates, activation and growth, all from the shared
 * snapshot (one read of the memory) and the injected clock.
 */
import { isoWeek, localDate } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { contentKey, keyAnchor, parseEntryLine, type Entry, type EntryType } from '../format/entry.js';
import { loadSnapshot, type Snapshot } from '../memory/snapshot.js';
import { estimateTokens } from '../memory/tokens.js';

export interface Stats {
  time: string;
  files: { total: number; byTier: Record<string, number>; byKind: Record<string, number> };
  bytes: { total: number; byTier: Record<string, number>; trash: number; state: number; largest: { file: string; bytes: number }[] };
  tokens: { hot: number; hotFiles: Record<string, number>; total: number; byTier: Record<string, number>; estimator: string };
  entries: {
    total: number;
    byType: Record<string, number>;
    byTag: Record<string, number>;
    byMonth: Record<string, number>;
    /** Log entries (buffer, episodic, archive, OpenClaw daily files) with neither a [TYPE] nor a #tag (seed 002 orphans). */
    orphans: number;
    superseded: number;
  };
  activation: { source: string; buckets: { label: string; min: number; max: number; count: number }[]; mean: number | null };
  growth: { bytesByWeek: Record<string, number>; entriesByWeek: Record<string, number>; bytesByMonth: Record<string, number>; entriesByMonth: Record<string, number> };
}

/** Logs, where an entry without a type or tag is an orphan (seed 002); index lines and notes are not. */
const LOG_KINDS = new Set<string>(['buffer', 'episodic', 'archive', 'legacy-daily']);

const inc = (m: Record<string, number>, k: string, by = 1): void => { m[k] = (m[k] ?? 0) + by; };
/** Counters of the per-entry tallies (tens of thousands of increments: a Map, not an object's properties). */
const count = (m: Map<string, number>, k: string): void => { m.set(k, (m.get(k) ?? 0) + 1); };
const record = (m: Map<string, number>): Record<string, number> => Object.fromEntries(m);
const sortKeys = (m: Record<string, number>): Record<string, number> => Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
const topN = (m: Record<string, number>, n: number): Record<string, number> => Object.fromEntries(Object.entries(m).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)).slice(0, n));
const lastN = (m: Record<string, number>, n: number): Record<string, number> => Object.fromEntries(Object.entries(sortKeys(m)).slice(-n));

type ActivationInput = { type?: EntryType; date?: string; lastRecall?: string; recallCount?: number; kind?: string };
type ActivationFn = (input: ActivationInput, now: Date, tz: string) => number;
/** activation with today's local date already computed (the same value, without a date per entry). */
type ActivationOnFn = (input: ActivationInput, today: string, tz: string) => number;
interface ActivationModule { activation: ActivationFn; activationOn?: ActivationOnFn; RECALL_THRESHOLD?: number; PRUNE_THRESHOLD?: number }
interface RecallRecord { count: number; last: string }

/** The search module's activation (lib/search/activation.ts), loaded lazily. */
async function loadActivation(): Promise<ActivationModule | undefined> {
  return (await import('../search/activation.js')) as ActivationModule;
}

/** Recall counts and last recall per entry key (lib/search/history-read.ts: no store import). */
async function loadHistory(root: string): Promise<Map<string, RecallRecord>> {
  const { readRecallHistory } = await import('../search/history-read.js');
  return readRecallHistory(root) as Map<string, RecallRecord>;
}

/**
 * Each entry of a text, as parseEntries has it (the same lines through the same parser), handed
 * over one at a time and kept by no one: stats looks at each entry once, and 50,000 entries kept
 * for the whole run cost more in garbage collection than the parse itself.
 */
function forEachEntry(text: string, fn: (e: Entry) => void): void {
  for (let start = 0; start < text.length;) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const c = text.charCodeAt(start);
    // a bullet entry starts with "- " or "* " (parseEntryLine checks the rest)
    if ((c === 45 || c === 42) && text.charCodeAt(start + 1) === 32) {
      const e = parseEntryLine(text.slice(start, end));
      if (e) fn(e);
    }
    start = end + 1;
  }
}

/** Stats of the memory at ctx.root, or of `snap` (its entries as snap.entries parsed them). */
export async function collectStats(ctx: Ctx, snap?: Snapshot): Promise<Stats> {
  const shared = snap !== undefined;
  // alone: each file read when its turn comes and let go after (years of logs are tens of megabytes)
  snap ??= loadSnapshot(ctx.root, { lazy: true });
  const now = ctx.clock.now();
  const tz = ctx.clock.tz;
  const today = localDate(now, tz);
  const files = { total: snap.files.length, byTier: {} as Record<string, number>, byKind: {} as Record<string, number> };
  const bytes = { total: 0, byTier: {} as Record<string, number>, trash: snap.trashBytes, state: snap.stateBytes, largest: [] as { file: string; bytes: number }[] };
  const tokens = { hot: 0, hotFiles: {} as Record<string, number>, total: 0, byTier: {} as Record<string, number>, estimator: 'ceil(non-CJK characters / 4) + 1 per CJK character (Han, kana, Hangul)' };
  const entries = { total: 0, orphans: 0, superseded: 0 };
  const byType = new Map<string, number>();
  const byTag = new Map<string, number>();
  const byMonth = new Map<string, number>();
  const entriesByWeek = new Map<string, number>();
  const growth = { bytesByWeek: {} as Record<string, number>, bytesByMonth: {} as Record<string, number> };
  // ISO weeks of the days seen (a memory has thousands of entries per distinct day at most)
  const weeks = new Map<string, string>();
  const weekOf = (day: string): string => {
    let w = weeks.get(day);
    if (w === undefined) weeks.set(day, (w = isoWeek(day)));
    return w;
  };

  const mod = await loadActivation();
  const activationOn: ActivationOnFn | undefined = mod && (mod.activationOn ?? ((input, _today, zone) => mod.activation(input, now, zone)));
  const history = mod ? await loadHistory(ctx.root) : new Map<string, RecallRecord>();
  const recallT = mod?.RECALL_THRESHOLD ?? 0.15;
  const pruneT = mod?.PRUNE_THRESHOLD ?? 0.05;
  const buckets = [
    { label: `prune (< ${pruneT})`, min: 0, max: pruneT, count: 0 },
    { label: `faded (< ${recallT})`, min: pruneT, max: recallT, count: 0 },
    { label: 'cool (< 0.5)', min: recallT, max: 0.5, count: 0 },
    { label: 'warm (< 0.8)', min: 0.5, max: 0.8, count: 0 },
    { label: 'hot (≥ 0.8)', min: 0.8, max: 1.000001, count: 0 },
  ];
  let actSum = 0;
  let actN = 0;

  for (const f of snap.files) {
    inc(files.byTier, f.tier);
    inc(files.byKind, f.kind);
    bytes.total += f.size;
    inc(bytes.byTier, f.tier, f.size);
    // dated files count on their day; others on their last change (never after the clock's today)
    const changed = localDate(new Date(f.mtimeMs), tz);
    const day = f.date ?? (changed > today ? today : changed);
    inc(growth.bytesByWeek, weekOf(day), f.size);
    inc(growth.bytesByMonth, day.slice(0, 7), f.size);
    if (f.text === undefined) continue;
    const t = estimateTokens(f.text);
    tokens.total += t;
    inc(tokens.byTier, f.tier, t);
    if (f.tier === 'hot') { tokens.hot += t; tokens.hotFiles[f.rel] = t; }
    // memtier's own views and docs (palace, reviews, DREAMS.md; FORMAT.md, TAGS.md) repeat the
    // memory's entries or hold examples: counting them would count a tag or a fact several times
    if (f.tier === 'meta' || f.tier === 'generated') continue;
    const isLog = LOG_KINDS.has(f.kind);
    const each = (e: Entry): void => {
      entries.total++;
      if (e.superseded) entries.superseded++;
      count(byType, e.type ?? 'untyped');
      for (const tag of e.tags) count(byTag, tag);
      if (!e.type && e.tags.length === 0 && isLog) entries.orphans++;
      const d = e.date ?? f.date;
      if (d) {
        count(byMonth, d.slice(0, 7));
        count(entriesByWeek, weekOf(d));
      }
      if (activationOn && !e.superseded) {
        // no recall history (the usual case before any search): no entry's key need be worked out
        const rec = history.size ? history.get(e.id ?? contentKey(e.text, keyAnchor(f.rel, f.date, e.date))) : undefined;
        const input: ActivationInput = { kind: f.kind };
        if (e.type) input.type = e.type;
        if (d) input.date = d;
        if (rec) { input.lastRecall = rec.last; input.recallCount = rec.count; }
        const a = activationOn(input, today, tz);
        actSum += a;
        actN++;
        buckets.find((b) => a >= b.min && a < b.max)!.count++;
      }
    };
    if (shared) for (const e of snap.entries(f)) each(e); else { forEachEntry(f.text, each); snap.release(f); }
  }
  bytes.largest = [...snap.files.filter((f) => f.tier !== 'meta' && f.tier !== 'generated'), ...snap.otherFiles].sort((a, b) => b.size - a.size || (a.rel < b.rel ? -1 : 1)).slice(0, 5).map((f) => ({ file: f.rel, bytes: f.size }));
  return {
    time: now.toISOString(),
    files: { total: files.total, byTier: sortKeys(files.byTier), byKind: sortKeys(files.byKind) },
    bytes: { ...bytes, byTier: sortKeys(bytes.byTier) },
    tokens: { ...tokens, byTier: sortKeys(tokens.byTier) },
    entries: { total: entries.total, byType: topN(record(byType), 20), byTag: topN(record(byTag), 20), byMonth: lastN(record(byMonth), 12), orphans: entries.orphans, superseded: entries.superseded },
    activation: { source: mod ? 'lib/search/activation.ts' : 'unavailable in this build', buckets: mod ? buckets : [], mean: actN ? Math.round((actSum / actN) * 1000) / 1000 : null },
    // entries by month are the same tally as entries.byMonth (an entry counts on its own date, else its file's)
    growth: { bytesByWeek: lastN(growth.bytesByWeek, 8), entriesByWeek: lastN(record(entriesByWeek), 8), bytesByMonth: lastN(growth.bytesByMonth, 12), entriesByMonth: lastN(record(byMonth), 12) },
  };
}
