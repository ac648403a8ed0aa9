/**
 * Recall (seed 001 Active Memory, seed 003 recall pipeline): the block an agent host prepends
 * to the prompt before a reply.
 *
 * 1. Query: `--query`, or built from `--messages` by query mode — `message` (the last user
 *    message), `recent` (default: the last 2 user turns and the last assistant turn, 220 and
 *    180 characters each, oldest first), `full` (every message, each cut to 220 characters).
 * 2. Served from `.memtier/recall-cache.json` when the same query and options were answered
 *    less than 15 s ago (same turn, several hooks) from the same memory: the key holds the
 *    index view's state, so a write, a hand edit or a moved file since then is never answered
 *    from the cache.
 * 3. Budget: entries allowed by `--context-used` (lib/search/budget.ts), characters by
 *    `--max-chars`.
 * 4. Hot tier first: up to 3 entries recalled HOT_RECALL_COUNT (5) times or more, most recalled
 *    first; they are kept out of the ranked part.
 * 5. Ranked entries from `search`, leaving out entries below RECALL_THRESHOLD (0.15) activation
 *    unless `includeFaded`. A question that names a time (去年国庆去哪玩了, "what did we do last
 *    May") asks after what was written then: those entries are never left out as faded, and come
 *    first; entries of other times only fill the room they leave.
 * 6. What answered a question (its first results: history.ts creditedKeys) is recorded in the
 *    recall history; the rest of the block, and a block without a question, is not.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ctx } from '../core/context.js';
import { stateDirProblem } from '../store/state-dir.js';
import { HOT_RECALL_COUNT, RECALL_THRESHOLD } from './activation.js';
import { recallBudget, type Budget } from './budget.js';
import { ID_TERM_PREFIX, STRIDE, type Doc, type IndexView } from './corpus.js';
import { creditedKeys, readRecallHistory, recordRecalls, type RecallRecord } from './history.js';
import { CACHE_FILE } from './recall-cache.js';
import { rank, unitKey, withIndex, type SearchResult } from './search.js';
import { parseTimeRange } from './timeexpr.js';
import { TITLE_PROPERTY } from './units.js';

export { CACHE_FILE };

export type QueryMode = 'message' | 'recent' | 'full';
export interface Message { role: string; content: unknown }

export const RECALL_DEFAULTS = { queryMode: 'recent' as QueryMode, userTurns: 2, assistantTurns: 1, userChars: 220, assistantChars: 180, maxChars: 2000, hotMax: 3, cacheTtlMs: 15_000 };

function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === 'string' ? p : p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join(' ');
  return '';
}

function cut(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t.length <= n) return t;
  // never half of a surrogate pair (an emoji cut in two is invalid JSON text downstream)
  const c = t.slice(0, n);
  return /[\uD800-\uDBFF]$/.test(c) ? c.slice(0, -1) : c;
}

/** Build the recall query from a conversation. */
export function queryFromMessages(messages: Message[], mode: QueryMode = 'recent', o: Partial<typeof RECALL_DEFAULTS> = {}): string {
  const opt = { ...RECALL_DEFAULTS, ...o };
  const msgs = messages.filter((m) => m && (m.role === 'user' || m.role === 'assistant'));
  if (mode === 'message') {
    const last = [...msgs].reverse().find((m) => m.role === 'user');
    return last ? cut(contentText(last.content), opt.userChars) : '';
  }
  if (mode === 'full') return msgs.map((m) => cut(contentText(m.content), m.role === 'user' ? opt.userChars : opt.assistantChars)).filter(Boolean).join('\n');
  const picked: Message[] = [];
  let u = 0;
  let a = 0;
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]!;
    if (m.role === 'user' && u < opt.userTurns) { picked.unshift(m); u++; }
    else if (m.role === 'assistant' && a < opt.assistantTurns) { picked.unshift(m); a++; }
    if (u >= opt.userTurns && a >= opt.assistantTurns) break;
  }
  return picked.map((m) => cut(contentText(m.content), m.role === 'user' ? opt.userChars : opt.assistantChars)).filter(Boolean).join('\n');
}

export interface RecallOptions {
  contextUsed?: number;
  maxChars?: number;
  includeFaded?: boolean;
  /** Do not record history (dry run). */
  noRecord?: boolean;
  /** Bypass the 15 s cache. */
  noCache?: boolean;
  /** Other words for what the query asks (search.ts SearchOptions.alternates). */
  alternates?: string;
  index?: IndexView;
}

export interface RecallItem extends SearchResult { hot: boolean; cite: string; line_text: string }

export interface RecallBlock {
  query: string;
  budget: Budget & { maxChars: number };
  hot: RecallItem[];
  results: RecallItem[];
  text: string;
  cached: boolean;
}

export function cite(r: SearchResult): string {
  return r.endLine > r.line ? `${r.path}#L${r.line}-L${r.endLine}` : `${r.path}#L${r.line}`;
}

/** Kinds whose heading names what an entry is about (a note's title, "Priya Shah", "Website Redesign › Tasks"), unlike a log's day or section. */
const TITLED_KINDS = new Set(['note', 'semantic', 'procedural', 'knowledge', 'graph', 'profile']);

const LIST_ITEM = /^(?:[-*+]|\d{1,3}[.)])\s+/;

/**
 * A unit's text on one line. A note's section keeps its list items apart with "; " ("Priya — Head
 * of marketing; Prefers async updates; Allergic to shellfish"), not the run of " - " that joining
 * its lines gives (also between a list and the paragraph after it); other lines are joined with a
 * space.
 */
/** An inline field: `key:: value` (Dataview, Logseq). */
const FIELD = /^[\p{L}_][\p{L}\p{N}_ -]{0,30}::\s/u;

export function oneLineText(text: string): string {
  if (!text.includes('\n')) return text.replace(/\s+/g, ' ').trim();
  let out = '';
  let prevItem = false;
  for (const raw of text.split('\n')) {
    const l = raw.trim();
    if (!l) continue;
    const item = LIST_ITEM.exec(l);
    const body = item ? l.slice(item[0].length) : l;
    // an inline field ("role:: CMS vendor contact", Dataview and Logseq) or a property line
    // ("Owner: Priya Shah", a Notion page's) is an item of its own too
    const field = !item && (FIELD.test(l) || TITLE_PROPERTY.test(l));
    out += out ? ((item || field || prevItem) && !/[.;:!?。；：！？]$/.test(out) ? '; ' : ' ') + body : body;
    prevItem = item !== null || field;
  }
  return out.replace(/\s+/g, ' ').trim();
}

function lineFor(r: SearchResult, hot: boolean): string {
  const text = oneLineText(r.text);
  // "Role: content lead." says nothing without the note's title ("Priya Shah — Role: content lead.")
  const heading = r.heading && r.kind && TITLED_KINDS.has(r.kind) && !text.includes(r.heading) && !(r.date && r.heading.includes(r.date)) ? `${r.heading.replace(/\s+/g, ' ').trim()} — ` : '';
  return `- ${hot ? '★ ' : ''}${r.type ? `[${r.type}] ` : ''}${r.date && r.kind !== 'memory-index' ? `${r.date} ` : ''}${heading}${text} (${cite(r)})`;
}

function cacheKey(query: string, o: RecallOptions, state: string): string {
  return createHash('sha1').update(JSON.stringify([query, o.contextUsed ?? 0, o.maxChars ?? RECALL_DEFAULTS.maxChars, !!o.includeFaded, ...(o.alternates ? [o.alternates] : [])])).update('\0').update(state).digest('hex').slice(0, 16);
}

/**
 * The cache on disk: answers keyed by a hash of the query and options, without the query text
 * (a conversation may hold anything, credentials included; the block is served back with the
 * asking query filled in). A null-prototype map: keys are hashes, never "__proto__".
 */
interface CacheFile { entries: Record<string, { at: number; block: Omit<RecallBlock, 'cached' | 'query'> }> }

function readCache(root: string): CacheFile {
  if (stateDirProblem(root)) return { entries: {} };
  try {
    const j = JSON.parse(readFileSync(join(root, CACHE_FILE), 'utf8')) as CacheFile;
    if (j && j.entries && typeof j.entries === 'object') return { entries: Object.assign(Object.create(null) as CacheFile['entries'], j.entries) };
  } catch { /* none or damaged */ }
  return { entries: Object.create(null) as CacheFile['entries'] };
}

function writeCache(root: string, c: CacheFile): void {
  const abs = join(root, CACHE_FILE);
  if (stateDirProblem(root)) return; // never write through a linked .memtier/ (health reports it)
  try {
    mkdirSync(join(root, '.memtier'), { recursive: true, mode: 0o700 });
    const tmp = `${abs}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, JSON.stringify(c));
    renameSync(tmp, abs);
  } catch { /* the cache is an optimization */ }
}

/** Resolve hot-tier keys (entry id, content key `~hash@day|path`, or an older history's path#Lline) to current entries. */
function hotDocs(view: IndexView, history: Map<string, RecallRecord>, max: number): { d: Doc; rec: RecallRecord }[] {
  const hot = [...history].filter(([, r]) => r.count >= HOT_RECALL_COUNT).sort((a, b) => b[1].count - a[1].count || (a[1].last < b[1].last ? 1 : a[1].last > b[1].last ? -1 : a[0] < b[0] ? -1 : 1));
  if (!hot.length) return [];
  const out: { d: Doc; rec: RecallRecord }[] = [];
  const want = new Map(hot.map(([k, r]) => [k, r]));
  const pathOf = new Map<string, number>(view.paths.map((p, i) => [p, i]));
  // path#Lline keys name their file; id keys are found through their `^id` term
  const byFile = new Map<number, string[]>();
  const idKeys: string[] = [];
  for (const [k] of hot) {
    // a content key names its day (every file of that day) or its file
    const c = /^~[0-9a-z]+@(.+)$/.exec(k);
    if (c) {
      const files = /^\d{4}-\d{2}-\d{2}$/.test(c[1]!) ? view.paths.flatMap((p, i) => (view.live(i) && view.info(i).date === c[1] ? [i] : [])) : [pathOf.get(c[1]!)].filter((i): i is number => i !== undefined);
      for (const f of files) byFile.set(f, [...(byFile.get(f) ?? []), k]);
      continue;
    }
    const m = /^(.*)#L(\d+)$/.exec(k);
    const f = m ? pathOf.get(m[1]!) : undefined;
    if (m && f !== undefined) byFile.set(f, [...(byFile.get(f) ?? []), k]);
    else if (!m) idKeys.push(k);
  }
  const found = new Map<string, Doc>();
  for (const [f] of byFile) {
    for (const d of view.fileDocs(f)) {
      const key = unitKey(d);
      if (want.has(key)) found.set(key, d);
      const legacy = `${d.u.path}#L${d.u.line}`; // a history recorded before content keys
      if (!d.u.id && want.has(legacy)) found.set(legacy, d);
    }
  }
  for (const id of idKeys) {
    for (const c of view.postingChunks(ID_TERM_PREFIX + id.toLowerCase())) {
      for (let i = 0; i < c.length; i += STRIDE) {
        if (!view.live(c[i]!)) continue;
        const d = view.fileDocs(c[i]!)[c[i + 1]!];
        if (d && d.u.id === id) { found.set(id, d); break; }
      }
    }
  }
  for (const [k, rec] of hot) {
    const d = found.get(k);
    if (d && !d.u.superseded) out.push({ d, rec });
    if (out.length >= max) break;
  }
  return out;
}

/** A MEMORY.md index line: `- [Title](path) — hook`. */
const INDEX_LINE = /^(?:[-*] )?\[[^\]]*\]\(([^)\s#]+)(?:#[^)]*)?\)/;

/**
 * Whether a result is a MEMORY.md index line whose file holds no entry yet (the skeleton's "Where
 * things live" before anything was filed): it answers no question, and recall would spend the
 * agent's budget on it above the entry that does (found in a trial on a new memory: "[References]
 * — tools, docs, links" came first for "which analytics tool did we decide on"). Search still
 * lists it: there it is a way to find where things live.
 */
function pointsNowhere(view: IndexView): (r: SearchResult) => boolean {
  let at: Map<string, number> | undefined;
  return (r) => {
    if (r.kind !== 'memory-index') return false;
    const m = INDEX_LINE.exec(r.text.trim());
    if (!m) return false;
    at ??= new Map(view.paths.map((p, i) => [p, i]));
    const f = at.get(m[1]!);
    return f !== undefined && view.live(f) && view.fileDocs(f).length === 0;
  };
}

/** Build the recall block for `query`. */
export async function recall(ctx: Ctx, query: string, o: RecallOptions = {}): Promise<RecallBlock> {
  const nowMs = ctx.clock.now().getTime();
  let key = '';
  let cached: RecallBlock | undefined;
  const maxChars = o.maxChars ?? RECALL_DEFAULTS.maxChars;
  const budget = { ...recallBudget(o.contextUsed ?? 0), maxChars };
  const history = readRecallHistory(ctx.root);
  const hot: RecallItem[] = [];
  const results: RecallItem[] = [];
  // the time a question names, if any: its entries come first
  let asked: { from: string; to: string } | undefined;
  const inTime = (r: SearchResult): boolean => !!asked && !!r.date && r.date >= asked.from && r.date <= asked.to;
  const build = (view: IndexView): void => {
    // the cache answers only for the memory it was filled from: the key holds the view's state,
    // which changes with any file the index's freshness check sees changed, added, moved or gone
    key = cacheKey(query, o, view.state());
    cached = undefined;
    if (!o.noCache) {
      const c = readCache(ctx.root).entries[key];
      if (c && c.block && nowMs - c.at >= 0 && nowMs - c.at < RECALL_DEFAULTS.cacheTtlMs) { const { query: _old, ...b } = c.block as RecallBlock; cached = { ...b, query, cached: true }; return; }
    }
    hot.length = 0;
    results.length = 0;
    let used = 0;
    const take = (r: SearchResult, isHot: boolean): boolean => {
      const line = lineFor(r, isHot);
      if (used + line.length + 1 > maxChars) return false;
      used += line.length + 1;
      (isHot ? hot : results).push({ ...r, hot: isHot, cite: cite(r), line_text: line });
      return true;
    };
    const hotList = hotDocs(view, history, Math.min(RECALL_DEFAULTS.hotMax, budget.limit));
    if (query.trim()) {
      // with a question, a hot entry is shown only when it matches, marked ★, in its place by
      // score: the best match always comes first, and nothing pushes it out of the budget
      const hotKeys = new Set(hotList.map((h) => unitKey(h.d)));
      // a question naming a time: more results, to find that time's entries below the others
      const named = parseTimeRange(query, ctx.clock.now(), ctx.clock.tz) !== undefined;
      const opts: Parameters<typeof rank>[3] = { k: named ? budget.limit * 3 : budget.limit, history };
      if (!o.includeFaded) opts.minActivation = RECALL_THRESHOLD;
      if (o.alternates) opts.alternates = o.alternates;
      const resp = rank(ctx, view, query, opts);
      asked = resp.range;
      const ordered = asked ? [...resp.results.filter(inTime), ...resp.results.filter((r) => !inTime(r))] : resp.results;
      const nowhere = pointsNowhere(view);
      let n = 0;
      for (const r of ordered) {
        if (n >= budget.limit) break;
        if (nowhere(r)) continue;
        if (!take(r, hotKeys.has(r.key))) break;
        n++;
      }
      return;
    }
    // no question (a session's start): the most recalled entries
    for (const { d } of hotList) {
      const r: SearchResult = { key: unitKey(d), path: d.u.path, line: d.u.line, endLine: d.u.endLine, tags: d.u.tags, tier: d.u.tier === 'buffer' ? 'hot' : d.u.tier, kind: d.u.kind, heading: d.u.heading, text: d.u.text, score: 0, activation: 1, via: 'hot' };
      if (d.u.id) r.id = d.u.id;
      if (d.u.type) r.type = d.u.type;
      if (d.u.date) r.date = d.u.date;
      take(r, true);
    }
  };
  if (o.index) build(o.index);
  else await withIndex(ctx, build);
  if (cached) return cached;
  // in the order they were taken: for a question the entries of the time it names, then by score; the hot list without one
  const shown = hot.length && results.length ? [...hot, ...results].sort((a, b) => Number(inTime(b)) - Number(inTime(a)) || b.score - a.score) : [...hot, ...results];
  const lines = shown.map((r) => r.line_text);
  const text = lines.length ? `Relevant memory (memtier recall; cite path#Lline when you use it):\n${lines.join('\n')}` : '';
  const block = { query, budget, hot, results, text };
  if (!o.noRecord && lines.length && query.trim()) recordRecalls(ctx, creditedKeys(shown), query);
  if (!o.noCache) {
    const c = readCache(ctx.root);
    for (const [k, v] of Object.entries(c.entries)) if (nowMs - v.at >= RECALL_DEFAULTS.cacheTtlMs || nowMs < v.at) delete c.entries[k];
    c.entries[key] = { at: nowMs, block: { budget, hot, results, text } };
    writeCache(ctx.root, c);
  }
  return { ...block, cached: false };
}
