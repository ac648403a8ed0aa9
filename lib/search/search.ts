/**
 * search(ctx, query, opts): the one ranking used by `memtier search`, `memtier recall`,
 * `bench locomo` and in-process callers (dream, consolidate).
 *
 *   score = speaker × (bm25 + context) × file × tag × type × tier × activation × recency × time
 *           × superseded × derived × intent × open
 *
 * - bm25: Okapi BM25 over units with field weights (tags ×3, headings ×2, body ×1), k1 = 0.9,
 *   b = 0.4 (tuned on the LoCoMo dev split: entries are short and similar in length, so length
 *   normalization matters less than in the 1.2/0.75 textbook setting).
 *   The query's terms: its own words, their equivalents (equivalents.ts, half weight), the other
 *   names the memory declares for a name (aliases.ts) and the members of a kind it names ("what
 *   sports" → surfing, basketball; kinds.ts, kindWeight 0.5 of the kind word's idf, never above
 *   the member's own);
 *   then secondary terms (secondary.ts), words the question does not contain: the caller's
 *   alternates (--also, alsoWeight 0.9 of their idf) and the dictionary bridge's (bridge.ts,
 *   bridgeWeight 0.4), added to the BM25, never to file coverage (a dictionary word excepted, as
 *   an equivalent) nor as a tag hit.
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
 *   dated inside its range × timeBoost (2) and adds that range's other entries at the end; a
 *   query made only of a time expression lists the range in date order.
 * - superseded entries are left out unless includeSuperseded (then × 0.5).
 * - speaker: a line said by the person the question names ("Melanie: …" for "what does Melanie
 *   do to relax") × speakerWeight (1.2, the factor of an answer of the asked kind), not for a
 *   date question (the day a thing was said answers that whoever said it).
 * - derived (a closure block × 0.6), intent (quantity, outcome and date questions × 1.2 for an
 *   entry that answers that kind) and open (a pending item, task or open question × 0.8 when the
 *   query is a question not about open items): see the constants below.
 * Then orderings between related entries: on an outcome question the decision or change written
 * after the report it borrows words from ranks just above that report (aboveReport); on a
 * question after a fix, a decision or change written up to fixDays (14) after a report it shares
 * a tag with, in another day's file, ranks just above that report (fixAfter); on a cause question
 * the first statement (not a guess) written after the open item it borrows words from (a task, a
 * question) ranks just above that item (findingAbove); and a note whose best-matching line
 * restates a log entry ranks just below that entry (restates).
 * Near-duplicates are then collapsed (MMR-style): a result whose terms overlap an earlier
 * result's by dupJaccard (0.8) or more is folded into it (listed under `duplicates`).
 * Ranking runs in two phases: phase A scores every matching entry from postings alone (bm25,
 * context, file, tag, tier, time); phase B takes the entries of the best PARAMS.rerankFiles files
 * (view.fileDocs: the cache's stored entries of stat-checked files, or the re-read changed files)
 * and applies every factor exactly. Tried and left out: pseudo-relevance feedback (RM3-style,
 * −0.02 R@10 on dev) and same-file diversity (−0.03).
 */
import { addDays, daysBetween, localDate } from '../core/clock.js';
import type { Unit } from './units.js';
import type { Ctx } from '../core/context.js';
import { contentKey, keyAnchor, type EntryType } from '../format/entry.js';
import { activationOn, type ActivationInput } from './activation.js';
import { loadCorpusFresh, STRIDE, unitAliases, type Doc, type FileArrays, type IndexView } from './corpus.js';
import { classify, type FileInfo } from '../format/layout.js';
import { readRecallHistory, type RecallRecord } from './history-read.js';
import { parseTimeRange, type TimeRange } from './timeexpr.js';
import { EQUIVALENT_WEIGHT, equivalentsOf, heldGroups, translatedQuery } from './equivalents.js';
import { fold, queryTokens, tokenize } from './tokenize.js';
import { aliasExpansions } from './aliases.js';
import { KIND_WEIGHT, kindTerms } from './kinds.js';
import { ALSO_WEIGHT, BRIDGE_WEIGHT, phrasePostings, secondaryTerms, type SecondaryTerm } from './secondary.js';
import { lazyImport } from '../core/lazy.js';

/** Ranking parameters (documented defaults; tuned on the LoCoMo dev split). Mutable only for tuning experiments. */
export const PARAMS = {
  k1: 0.9,
  b: 0.4,
  contextWeight: 0.5,
  tagBonus: 0.3,
  activationWeight: 0.15,
  recencyWeight: 0.05,
  timeBoost: 2,
  dupJaccard: 0.8,
  /** How far the exact second phase reaches: entries of at most this many files, this many entries. */
  rerankFiles: 20,
  rerankDocs: 100,
  contextSpan: 2,
  contextDecay: 0.7,
  fileWeight: 1,
  /** A day's closure block repeats the day's words: it ranks below the entries it summarizes (unless the query names a time). */
  derivedWeight: 0.6,
  /** The factor of an entry that answers the kind of question asked (NUMBER_INTENT, OUTCOME_INTENT). */
  intentWeight: 1.2,
  /** An entry that owes more of its score to a neighbour's words (context > its own bm25) than to its own ranks just below that neighbour. */
  contextBelowSource: true,
  /** An open item (a pending entry or task, an open question) restates a question rather than answering it: its factor when the query is a question not about open items. */
  openWeight: 0.8,
  /** A query's time range also takes entries dated up to this many days after it whose text names a day inside it (0: off). */
  mentionDays: 7,
  /** On an outcome question, the decision or change written after the report it borrows words from ranks just above that report. */
  fixAboveReport: true,
  /** On a cause question, the first statement (not a guess) written after the open item it borrows words from (a task, a question) ranks just above that item. */
  findingAboveReport: true,
  /** On a question after a fix, a decision or change written up to this many days after a report it shares a tag with ranks just above that report (0: off). */
  fixDays: 14,
  /** A note's line that restates a log entry ranks just below that entry. */
  restatedBelowEntry: true,
  /** The factor of a line said by the person the question names ("Melanie: …" for "what does Melanie do"), not for a date question. */
  speakerWeight: 1.2,
  /** A name the memory declares for another ("Hayate Express（东京合作方）", aliases: frontmatter) also searches the other. */
  aliases: true,
  /** A declared alias's words together weigh at least what the query's name for it weighs (one entity, one weight). */
  aliasEntityWeight: true,
  /** An equivalent of a query word that occurs nowhere in the memory takes the word's full weight (equivalents.ts equivalentsOf). */
  standInFull: true,
  /** A kind the question names ("what sports") also searches its members (kinds.ts), each at this share of the kind word's weight (0: off). */
  kindWeight: KIND_WEIGHT,
  /** The dictionary bridge (bridge.ts): a Chinese word the memory rarely writes also searches its English glosses, an English word the Chinese words it glosses (secondary terms). */
  dictionary: true,
  /** Secondary terms' (secondary.ts) shares of their idf: the caller's alternates, the dictionary's words. */
  alsoWeight: ALSO_WEIGHT,
  bridgeWeight: BRIDGE_WEIGHT,
};

/**
 * Question intent, in English and Chinese: a question after a quantity favours entries that hold a
 * number; a question after a day ("when", 哪天, 几号) entries whose text names one (4 月 9 日, May 5,
 * 周三; not the entry's own time stamp); a question after the outcome ("what did we decide", "how was it fixed", 最后, 怎么解决)
 * favours decisions and lessons and entries that say what was changed, over the report of the problem.
 */
const NUMBER_INTENT = /\b(?:how (?:much|many|long|big|often|large|fast)|what (?:port|version|number|size|percentage|price)|which (?:port|version)|how much)\b|多少|几个|几次|几天|几点|多久|多大|多长|端口|版本号?|哪个端口|数量|\b(?:what|what's|whats)\b(?:(?!\b(?:when|who|why|where)\b).)*\b(?:timeouts?|ttl|interval|limit|threshold|retention|quota|capacity|latency|budget|cost|price|fee)\b|(?:超时|间隔|阈值|上限|限额|配额|保留|延迟|预算|费用|价格)(?:是|设|改|为|调)/i;
/**
 * A version (v2.8, 3.5.1) names a release, not the quantity a question asks for ("what's the bank
 * callback timeout" is answered by "改为 30 秒", not by the deploy note of v2.8); a question naming a
 * quantity (timeout, interval, limit, 超时是…) asks for a number as "how long" does (NUMBER_INTENT).
 */
const VERSION = /\bv\d+(?:\.\d+)*\b|\b\d+\.\d+\.\d+\b/gi;
const OUTCOME_INTENT = /\b(?:decide[ds]?|decision|in the end|finally|ended up|eventually|fix(?:ed)?|solve[ds]?|resolve[ds]?|solution|settle[ds]?)\b|最后|最终|结果|后来|怎么解决|怎么改|怎么处理|改成了?什么|定了|决定/i;
const HAS_NUMBER = /\d/;
/** A question after the fix of a problem (narrower than OUTCOME_INTENT: 结果 and "decide" ask after results and decisions, not fixes). */
const FIX_INTENT = /\b(?:fix(?:ed)?|solved?|resolved?|solution|workaround)\b|怎么解决|怎么改|怎么处理|怎么修|改成了?什么|后来怎么/i;
/** A question after a cause ("why", "what caused", 为什么, 原因): answered by what was found after the task or question about it (findingAboveReport). */
const CAUSE_INTENT = /\b(?:why|what caused|cause[ds]?|reasons?|root cause|how come)\b|为什么|为啥|为何|原因|怎么回事|根因|什么导致|导致.{0,6}的/i;
/** A guess, not a finding: a line that only suspects a cause. */
const HEDGED = /\b(?:suspect(?:ed|s)?|maybe|might|perhaps|probably|possibly|not sure|guess(?:ed)?)\b|怀疑|可能|也许|大概|估计|猜|不确定|待确认/i;
const SPEAKER = /^(\p{Lu}[\p{L}'-]*):\s/u;
/** A question after a day ("when", "which date", "how early", 哪天, 什么时候, 几号, 多早) is answered by a line that names one (a day, or a month of a year: 2026 年 1 月, May 2026). */
const DATE_INTENT = /\b(?:when|what (?:date|day)|which (?:date|day)|since when|how (?:early|late|far back))\b|哪天|哪一天|什么时候|几号|几月几|哪个月|什么日子|何时|多早|多晚|从哪天|从几号/i;
const MONTHS_RE = 'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const HAS_DATE = new RegExp(`\\d{1,2}\\s*月\\s*\\d{1,2}\\s*[日号號]|[一二三四五六七八九十]{1,3}月[一二三四五六七八九十]{1,3}[日号號]|(?:下|上|这|本)?(?:周|星期|礼拜)[一二三四五六日天]|\\b(?:${MONTHS_RE})\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?\\b|\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?(?:${MONTHS_RE})\\b|\\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\\b|\\b\\d{4}-\\d{2}-\\d{2}\\b(?!T)|\\d{4}\\s*年\\s*\\d{1,2}\\s*月|\\b(?:${MONTHS_RE})\\.?\\s+\\d{4}\\b`, 'i');
/** An entry's own time stamp (the buffer's ISO instant) is not a date the text names. */
const STAMP = /\b\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?/g;
const CHANGE_WORDS = /\b(?:raised|lowered|increased|decreased|changed|switched|moved|replaced|fixed|upgraded|set to|now)\b|改成|改为|改用|换成|调到|调成|加到|提高到|降到|升级到|修复|解决/i;

/**
 * Open items: a pending item or task (`wal pending` / `wal task`'s `pending:` / `task:`, or a
 * `[PENDING]` / `[TASK]` label), a line under a Pending / Open questions / Current
 * task / 待办 heading, or a line that is itself a question. A question asked of the memory is
 * answered by a statement; the same question left open only repeats its words. Unless the query
 * asks after open items ("what is pending", 还没, 待办).
 */
const OPEN_LABEL = /\[(?:pending|task|todo)\]|(?:^|\]\s*)(?:pending|task|todo)\s*:/i;
const OPEN_HEADING = /\b(?:pending|open (?:questions?|items?|issues?)|current tasks?|todos?|to-dos?|next steps?)\s*$|(?:待办|待定|待确认|未决|悬而未决|待解决)[^›]*$/i;
const OPEN_TEXT = /[?？]\s*(?:[#＃][^\s#＃]+\s*)*(?:\^[\w-]+\s*)?$/;
const QUESTION = /[?？]|^\s*(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|do|does|did|can|could|should|has|have|had)\b|什么|多少|几|怎么|怎样|如何|哪|谁|为什么|为何|吗|是否/i;
const ASKS_OPEN = /\b(?:pending|open|todos?|to-dos?|waiting|wait(?:ing)? (?:for|on)|blocked|blockers?|unresolved|undecided|not yet|still (?:need|have)|tasks?|working on|next steps?)\b|待办|待定|待确认|还没|没定|未解决|要不要|在做|在忙|任务|下一步/i;

/** A closure block (Updated / Decisions / Signal / Open) as a search unit. */
const CLOSURE_UNIT = /^(?:#+\s*closure\s*)?updated:\s*\d{4}-\d{2}-\d{2}[\s\S]*\bdecisions:/i;
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
  index?: IndexView;
  /** Include entries struck through as superseded (left out by default; ranked ×0.5 when included). */
  includeSuperseded?: boolean;
  /** Other words for what the question asks (the caller's: other language, abbreviations, likely wordings): searched below the question's own words, never a filter (secondary.ts). */
  alternates?: string;
}

/** A ranked unit: the unit's own fields (lib/search/units.ts) plus what the ranking adds. */
export interface SearchResult extends Pick<Unit, 'path' | 'line' | 'endLine' | 'id' | 'type' | 'tags' | 'date' | 'heading' | 'text'> {
  /** History key: the entry id, else `path#Lline`. */
  key: string;
  tier: string;
  kind: string;
  score: number;
  activation: number;
  /** Every factor of the score (--explain). */
  explain?: Record<string, number | string>;
  /** Why it is here: query terms, only its neighbours' terms (context), only the time range, or the hot tier (recall). */
  via: 'terms' | 'context' | 'time' | 'hot';
  /** Near-duplicates folded into this result (`path#Lx`). */
  duplicates?: string[];
}

export interface SearchResponse {
  query: string;
  terms: string[];
  range?: TimeRange;
  /** Matching entries before the cut to k. */
  total: number;
  /** Other names of names in the query, declared by the memory (searched too, at EQUIVALENT_WEIGHT). */
  aliases?: string[];
  /** Secondary terms searched (the caller's alternates, the dictionary's words), with their source and weight. */
  secondary?: { word: string; source: 'also' | 'cedict'; via?: string; weight: number }[];
  results: SearchResult[];
  /** Memory files not searched because they are over the file size limit (MAX_FILE_BYTES). */
  tooLarge?: string[];
}

/** Base score of an in-range entry that matches no query term. */
const RANGE_FLOOR = 0.01;
/** The weight of a declared alias's words: the same entity as the name the query says. */
const ALIAS_WEIGHT = 1;

const LOG_KINDS = new Set(['buffer', 'episodic', 'archive', 'legacy-daily', 'session-state']);

/**
 * The recall-history key of an entry: its `^id`, else its words and day (format/entry.ts
 * contentKey), so a move to the archive or a line inserted above keeps its history.
 */
export function unitKey(d: Doc): string {
  return d.u.id ?? contentKey(d.u.text, keyAnchor(d.u.path, classify(d.u.path).date, d.u.date));
}

function tierWeight(d: Doc, range: TimeRange | undefined): number {
  if (d.u.kind === 'archive') return range ? 1 : ARCHIVE_WEIGHT;
  return TIER_WEIGHT[d.u.tier] ?? 1;
}

function tierOf(d: Doc): 'hot' | 'warm' | 'cold' | string {
  return d.u.tier === 'buffer' ? 'hot' : d.u.tier;
}


/** FileArrays.info & CLASS_MASK: the file's class (kind and tier); info >>> 5 is its day. */
const CLASS_MASK = 31;
/** Kinds whose files may carry a day (layout.classify): any other file with day 0 is undated. */
const DATED_KINDS = new Set(['episodic', 'archive', 'legacy-daily']);
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

// Phase A's loops. A cold query runs each once over 100k+ postings or slots at 50k notes, mostly
// before V8 has optimized it, so each is a small function of its own over typed arrays: V8
// compiles a small function on stack in a few ms, where it recompiled all of rank() at every
// loop (~10 ms each, then deoptimized at the loop's end for lack of feedback). For the same
// reason a loop function ends in a plain `return` (no object written after the loop).

/**
 * Phase A's scores, one row per touched entry in first-touch order (rows [0, n)). Dense rather
 * than per slot: a new typed array costs a page fault per 4 KiB page on first write, and 100k
 * touched entries spread over 390k slots wrote nearly every page of five per-slot arrays
 * (~2,400 faults, several ms); only slotRow is per slot. Sized for every slot, but a page never
 * written is never faulted in.
 */
interface Rows {
  /** slot → its row + 1 (0: not touched yet). */
  slotRow: Int32Array;
  slot: Int32Array;
  file: Int32Array;
  bm: Float64Array;
  cx: Float64Array;
  /** The slot + 1 of the neighbour whose words gave cx (0: none). */
  cxSrc: Int32Array;
  tagHits: Uint8Array;
}

function newRows(slots: number): Rows {
  return { slotRow: new Int32Array(slots), slot: new Int32Array(slots), file: new Int32Array(slots), bm: new Float64Array(slots), cx: new Float64Array(slots), cxSrc: new Int32Array(slots), tagHits: new Uint8Array(slots) };
}

/**
 * BM25 of one chunk of a term's postings (`w`: the term's idf) into the rows, their tag hits and
 * the file-coverage mass; a slot seen the first time gets row n. Slots ascend within a chunk, so
 * a posting's file is found by walking the file starts along. Returns the new row count.
 */
function phaseAPostings(pairs: Int32Array, w: number, avg: number, fa: FileArrays, rows: Rows, n: number, fileMass: Float64Array): number {
  const { start, live, entryLen } = fa;
  const { slotRow, bm, tagHits } = rows;
  const rowSlot = rows.slot;
  const rowFile = rows.file;
  const k1 = PARAMS.k1;
  const b = PARAMS.b;
  let file = 0;
  let lastFile = -1;
  for (let i = 0; i < pairs.length; i += 2) {
    const slot = pairs[i]!;
    if (slot < start[file]!) file = 0; // not ascending after all: walk again from the start
    while (start[file + 1]! <= slot) file++;
    if (!live[file]) continue;
    const v = pairs[i + 1]!;
    const tf = v >> 1;
    let r = slotRow[slot]! - 1;
    if (r < 0) { r = n++; slotRow[slot] = n; rowSlot[r] = slot; rowFile[r] = file; }
    bm[r]! += (w * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * entryLen[slot]!) / avg));
    if (v & 1) tagHits[r]!++;
    if (file !== lastFile) { fileMass[file]! += w; lastFile = file; }
  }
  return n;
}

/**
 * Context: each of the first n rows that matched a term, in a log, gives its neighbours up to
 * span away in the same file decay[distance] × its bm25; a neighbour keeps the largest.
 * Returns the new row count.
 */
function phaseAContext(rows: Rows, n: number, start: Int32Array, info: Int32Array, isLogClass: Uint8Array, span: number, decay: Float64Array): number {
  const { slotRow, bm, cx, cxSrc } = rows;
  const rowSlot = rows.slot;
  const rowFile = rows.file;
  const n0 = n;
  for (let j = 0; j < n0; j++) {
    const own = bm[j]!;
    if (own <= RANGE_FLOOR) continue;
    const file = rowFile[j]!;
    if (!isLogClass[info[file]! & CLASS_MASK]) continue;
    const slot = rowSlot[j]!;
    const lo = Math.max(start[file]!, slot - span);
    const hi = Math.min(start[file + 1]! - 1, slot + span); // the file's last slot
    for (let nb = lo; nb <= hi; nb++) {
      if (nb === slot) continue;
      const add = own * decay[nb > slot ? nb - slot : slot - nb]!;
      let r = slotRow[nb]! - 1;
      if (r < 0) { r = n++; slotRow[nb] = n; rowSlot[r] = nb; rowFile[r] = file; }
      if (add > cx[r]!) { cx[r] = add; cxSrc[r] = slot + 1; }
    }
  }
  return n;
}

/**
 * The phase-A score of each of the n rows into pre (−1 when its file is filtered out), the
 * file's part from perFile (0 until fileWeight computes it: a computed weight is > 0 or −1).
 * Returns the count not filtered out.
 */
function phaseAPre(rows: Rows, n: number, pre: Float64Array, perFile: Float64Array, fileWeight: (file: number) => number): number {
  const { bm, cx, tagHits } = rows;
  const rowFile = rows.file;
  const tagBonus = PARAMS.tagBonus;
  let total = 0;
  for (let j = 0; j < n; j++) {
    const f = rowFile[j]!;
    const fw = perFile[f] || fileWeight(f);
    if (fw < 0) { pre[j] = -1; continue; }
    pre[j] = (bm[j]! + cx[j]!) * fw * (1 + tagBonus * tagHits[j]!);
    total++;
  }
  return total;
}

/**
 * Is file f (day = FileArrays.info >>> 5, YYYYMMDD) dated inside `range`? The same answer as
 * comparing view.info(f).date with the range's `YYYY-MM-DD` strings, without a FileInfo per
 * file: an 8-digit day and ISO bounds compare as numbers; anything else (a year before 1000, a
 * dated kind without a day) asks view.info.
 */
function dayInRange(view: IndexView, range: TimeRange): (f: number, day: number, kind: string) => boolean {
  const numeric = ISO_DAY.test(range.from) && ISO_DAY.test(range.to);
  const from = numeric ? Number(range.from.replace(/-/g, '')) : 0;
  const to = numeric ? Number(range.to.replace(/-/g, '')) : 0;
  return (f, day, kind) => {
    if (numeric && day >= 10_000_000) return day >= from && day <= to;
    if (day === 0 && !DATED_KINDS.has(kind)) return false;
    const date = view.info(f).date;
    return date !== undefined && date >= range.from && date <= range.to;
  };
}

/** --since / --until leave out a dated file (not the buffer) outside them. */
function outsideSinceUntil(info: FileInfo, opts: SearchOptions): boolean {
  return !!(info.date && info.kind !== 'buffer' && ((opts.since && info.date < opts.since) || (opts.until && info.date > opts.until)));
}

/**
 * The m-th largest value of `a` (1 ≤ m ≤ a.length; duplicates count), i.e. `a` sorted ascending
 * at index a.length − m: the cut-off of the best candidates without sorting them all (a cold
 * query has 100k+ at 50k notes). A min-heap of the m largest so far: one comparison for most
 * values and no copy of `a` (a quickselect needs a copy it reorders).
 */
export function mthLargest(a: Float64Array, m: number): number {
  const h = a.slice(0, m);
  // heapify (min at h[0])
  for (let i = (m >> 1) - 1; i >= 0; i--) siftDown(h, i, h[i]!);
  let min = h[0]!;
  for (let i = m; i < a.length; i++) {
    const v = a[i]!;
    if (v > min) { siftDown(h, 0, v); min = h[0]!; }
  }
  return min;
}

/** Put v at i of the min-heap h and sift it down to its place. */
function siftDown(h: Float64Array, i: number, v: number): void {
  const m = h.length;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= m) break;
    if (c + 1 < m && h[c + 1]! < h[c]!) c++;
    if (h[c]! >= v) break;
    h[i] = h[c]!;
    i = c;
  }
  h[i] = v;
}

/** Indexes j of pre with pre[j] ≥ thr (and not filtered out, −1). */
function candidates(pre: Float64Array, thr: number): number[] {
  const out: number[] = [];
  for (let j = 0; j < pre.length; j++) { const p = pre[j]!; if (p >= thr && p >= 0) out.push(j); }
  return out;
}

/** The other names of names in the query (or in the query read in the other language: equivalents.ts translatedQuery). */
function queryAliases(view: IndexView, textQuery: string, asked: string[], named: Set<string>, sources?: Map<string, string[][]>): string[] {
  const lookup = (t: string): [string, string][] | undefined => declarationsOf(view, t);
  const names = aliasExpansions(asked, lookup, queryTokens, named, sources);
  const other = translatedQuery(textQuery);
  if (other !== undefined) for (const n of aliasExpansions(queryTokens(other), lookup, queryTokens, named, sources)) if (!names.includes(n)) names.push(n);
  return names;
}

/** The alias pairs declared by the live entries holding alias term `t` (undefined when none). */
function declarationsOf(view: IndexView, t: string): [string, string][] | undefined {
  if (view.df(t) === 0) return undefined;
  const out: [string, string][] = [];
  for (const c of view.postingChunks(t)) {
    for (let i = 0; i < c.length; i += STRIDE) {
      if (!view.live(c[i]!)) continue;
      const d = view.fileDocs(c[i]!)[c[i + 1]!];
      if (d) out.push(...unitAliases(d.u));
    }
  }
  return out;
}

/**
 * The secondary terms of a query (secondary.ts) with their weights: PARAMS.alsoWeight of its idf
 * for an alternate, PARAMS.bridgeWeight for a dictionary word (the idf of the entries holding all
 * its pieces).
 */
function secondaryOf(view: IndexView, textQuery: string, asked: string[], terms: string[], alternates: string | undefined, idfOf: (df: number) => number): SecondaryTerm[] {
  if (!alternates?.trim() && !PARAMS.dictionary) return [];
  // the words the equivalents table already bridged for this query (the dictionary leaves them to it)
  const covered = new Set<string>();
  if (PARAMS.dictionary) for (const g of heldGroups(textQuery)) for (const f of g) { covered.add(f); if (!/\p{Script=Han}/u.test(f)) for (const t of queryTokens(f)) covered.add(t); }
  const sec = secondaryTerms(view, fold(textQuery), asked, alternates, new Set(terms), covered, queryTokens, PARAMS.dictionary);
  for (const s of sec) {
    const df = s.tokens.length === 1 ? view.df(s.tokens[0]!) : phrasePostings(view, s.tokens).reduce((n, c) => n + (c.length >> 1), 0);
    s.weight = idfOf(Math.max(1, df)) * (s.source === 'also' ? PARAMS.alsoWeight : PARAMS.bridgeWeight);
  }
  return sec;
}

/** Rank the index `view` for `query`. Pure: same index, history and clock → same results. */
export function rank(ctx: Ctx, view: IndexView, query: string, opts: SearchOptions = {}): SearchResponse {
  const k = opts.k ?? 10;
  const now = ctx.clock.now();
  const tz = ctx.clock.tz;
  const today = localDate(now, tz);
  const range = parseTimeRange(query, now, tz);
  let textQuery = query;
  if (range) for (const p of range.strip) textQuery = textQuery.toLowerCase().replace(p, ' ');
  const asked = queryTokens(textQuery);
  // abbreviations and the other language's words (equivalents.ts), at a lower weight
  const { terms: extra, full: standIns } = equivalentsOf(textQuery, asked, queryTokens, (t) => view.df(t) > 0);
  // the other names of a name the query holds, as the memory declares them (aliases.ts)
  const named = new Set<string>();
  const aliasSources = new Map<string, string[][]>();
  const aliasNames = PARAMS.aliases ? queryAliases(view, textQuery, asked, named, aliasSources) : [];
  const aliased: string[] = [];
  if (aliasNames.length) {
    const have = new Set([...asked, ...extra]);
    for (const name of aliasNames) for (const t of queryTokens(name)) if (!have.has(t)) { have.add(t); aliased.push(t); }
  }
  // the members of a kind the question names ("what sports" → surfing, basketball; kinds.ts)
  const kinds = PARAMS.kindWeight > 0 ? kindTerms(textQuery, [...asked, ...extra, ...aliased], queryTokens, (t) => view.df(t) > 0) : new Map<string, { kind: string; name: string[] }>();
  const kindOf = [...kinds.keys()];
  const terms = [...asked, ...extra, ...aliased, ...kindOf];
  const history = opts.history ?? new Map<string, RecallRecord>();
  const N = Math.max(1, view.N);
  const avg = view.totalLen / N || 1;
  const wantTags = (opts.tags ?? []).map((t) => t.toLowerCase().replace(/^#/, ''));
  const filtered = !!(opts.type || wantTags.length);

  // Phase A — postings only: BM25, neighbour context, file coverage, tag hits. Per touched entry
  // (a row; its slot is fileStart(file) + pos) in typed arrays: no object per posting, none per
  // file (a file's class and day come from view.arrays()); the loops are the phaseA* functions.
  const fa = view.arrays();
  // BM25's idf of a term found in df of the N entries
  const idfOf = (df: number): number => Math.log(1 + (N - df + 0.5) / (df + 0.5));
  const idf = new Map<string, number>();
  for (const t of terms) {
    const df = view.df(t);
    idf.set(t, df ? idfOf(df) : 0);
  }
  // an equivalent weighs less than the literal word, unless it stands in for a word the memory never writes
  for (const t of extra) if (!(PARAMS.standInFull && standIns.has(t))) idf.set(t, idf.get(t)! * EQUIVALENT_WEIGHT);
  for (const t of aliased) idf.set(t, idf.get(t)! * ALIAS_WEIGHT);
  // one entity, one weight: the other name's words together weigh what the name the question
  // says weighs (a name written only in its declaration is rare; the entity is not), each word at
  // most the rarest word of that name; a lone Han character (a piece of a word the segmenter
  // split, found in any word holding it) keeps its own weight
  if (PARAMS.aliasEntityWeight && aliased.length) {
    const aliasedSet = new Set(aliased);
    const idfIn = (t: string): number => (view.df(t) ? idfOf(view.df(t)) : 0);
    const mass = (toks: string[]): number => toks.reduce((m, t) => m + idfIn(t), 0);
    const raised = new Map<string, number>();
    for (const name of aliasNames) {
      const toks = queryTokens(name);
      const own = mass(toks);
      for (const run of aliasSources.get(name) ?? []) {
        const said = mass(run);
        if (!own || said <= own) continue;
        const cap = Math.max(...run.map(idfIn));
        for (const t of toks) {
          if (!aliasedSet.has(t) || /^\p{Script=Han}$/u.test(t)) continue;
          const w = Math.min(cap, idf.get(t)! * (said / own));
          if (w > (raised.get(t) ?? idf.get(t)!)) raised.set(t, w);
        }
      }
    }
    for (const [t, w] of raised) idf.set(t, w);
  }
  // a member weighs KIND_WEIGHT of the kind's name (its rarest token; an unwritten name as if once), never more than itself
  for (const [t, { name }] of kinds) {
    const nameIdf = Math.max(0, ...name.map((n) => idfOf(Math.max(1, view.df(n)))));
    idf.set(t, PARAMS.kindWeight * Math.min(idf.get(t)!, nameIdf));
  }
  // secondary terms: the caller's alternates and the dictionary's words (secondary.ts), below the question's own
  const secondary = secondaryOf(view, textQuery, asked, terms, opts.alternates, idfOf);
  const rows = newRows(view.slots);
  let nRows = 0;
  const nFiles = view.paths.length;
  const fileMass = new Float64Array(nFiles);
  let totalMass = 0;
  for (const t of terms) {
    const w = idf.get(t)!;
    totalMass += w;
    if (w === 0) continue;
    for (const pairs of view.slotPostings(t)) nRows = phaseAPostings(pairs, w, avg, fa, rows, nRows, fileMass);
  }
  // the secondary terms' BM25 (secondary.ts), kept apart for --explain and added, never a tag hit;
  // a dictionary word counts toward file coverage as an equivalent does (the question's word in the
  // other language), an alternate never (the caller's words are not the question's)
  let secBm: Float64Array | undefined;
  if (secondary.length) {
    secBm = new Float64Array(view.slots);
    const into: Rows = { ...rows, bm: secBm, tagHits: new Uint8Array(view.slots) };
    const scratch = new Float64Array(nFiles);
    for (const s of secondary) {
      const covers = s.source === 'cedict';
      if (covers) totalMass += s.weight;
      for (const pairs of phrasePostings(view, s.tokens)) nRows = phaseAPostings(pairs, s.weight, avg, fa, into, nRows, covers ? fileMass : scratch);
    }
    for (let r = 0; r < nRows; r++) rows.bm[r]! += secBm[r]!;
  }
  // per class (kind and tier of a file, fa.info & CLASS_MASK): what the loops below ask of a file
  const classes = fa.classes;
  const isLogClass = Uint8Array.from(classes, ([kind]) => (LOG_KINDS.has(kind) ? 1 : 0));
  // A query that is only a time expression (or whose other words occur nowhere) lists the
  // entries of that range in date order; otherwise entries of the range that match no term
  // still come (last), so "what happened last Tuesday" lists that day even when "happened" is
  // not written anywhere.
  // (the words of the time phrase itself, kept as words when relative or a holiday's name, count as the time)
  const timeWords = new Set(range ? queryTokens(range.phrases.join(' ')) : []);
  const listRange = range !== undefined && asked.every((t) => timeWords.has(t) || view.df(t) === 0) && !secondary.length;
  const rangeFiles = new Uint8Array(nFiles);
  // entries written just after the range whose own words name a day inside it ("last night",
  // "yesterday", 上周二, read against the entry's date): in the range too
  const mentions = new Set<number>();
  if (range) {
    const inRange = dayInRange(view, range);
    const mentionUntil = PARAMS.mentionDays > 0 && ISO_DAY.test(range.to) ? addDays(range.to, PARAMS.mentionDays) : undefined;
    for (let f = 0; f < nFiles; f++) {
      if (!fa.live[f]) continue;
      const v = fa.info[f]!;
      const kind = classes[v & CLASS_MASK]![0];
      const fileDate = mentionUntil && kind !== 'buffer' ? view.info(f).date : undefined;
      if (fileDate && fileDate > range.to && fileDate <= mentionUntil!) {
        for (const d of view.fileDocs(f)) {
          if (!d.u.date || d.u.date <= range.to) continue;
          const said = parseTimeRange(d.u.text, new Date(`${d.u.date}T12:00:00Z`), 'UTC');
          if (!said || said.to < range.from || said.from > range.to || said.from < addDays(d.u.date, -PARAMS.mentionDays)) continue;
          const slot = fa.start[f]! + d.pos;
          mentions.add(slot);
          rangeFiles[f] = 1;
          let r = rows.slotRow[slot]! - 1;
          if (r < 0) { r = nRows++; rows.slotRow[slot] = nRows; rows.slot[r] = slot; rows.file[r] = f; }
          if (rows.bm[r] === 0) rows.bm[r] = listRange ? 1 : RANGE_FLOOR;
        }
      }
      if (inRange(f, v >>> 5, kind) || kind === 'buffer') {
        rangeFiles[f] = 1;
        for (const d of view.fileDocs(f)) {
          if (d.u.date && d.u.date >= range.from && d.u.date <= range.to) {
            const slot = fa.start[f]! + d.pos;
            let r = rows.slotRow[slot]! - 1;
            if (r < 0) { r = nRows++; rows.slotRow[slot] = nRows; rows.slot[r] = slot; rows.file[r] = f; }
            if (rows.bm[r] === 0) rows.bm[r] = listRange ? 1 : RANGE_FLOOR;
          }
        }
      }
    }
  }
  if (PARAMS.contextWeight > 0 && !listRange) {
    const span = PARAMS.contextSpan;
    // contextWeight × contextDecay^(distance − 1), by distance
    const decay = Float64Array.from({ length: span + 1 }, (_, d) => PARAMS.contextWeight * Math.pow(PARAMS.contextDecay, d - 1));
    nRows = phaseAContext(rows, nRows, fa.start, fa.info, isLogClass, span, decay);
  }
  const fileFactor = (f: number): number => 1 + PARAMS.fileWeight * (totalMass ? fileMass[f]! / totalMass : 0);
  // per-file part of the phase-A score (file coverage × tier × time range), −1 when filtered
  // out, 0 until computed (no fill: a weight is positive)
  const classOut = Uint8Array.from(classes, ([, tier]) => (opts.tier && (tier === 'buffer' ? 'hot' : tier) !== opts.tier ? 1 : 0));
  const classTierW = Float64Array.from(classes, ([kind, tier]) => (kind === 'archive' && !range ? ARCHIVE_WEIGHT : TIER_WEIGHT[tier] ?? 1));
  const perFile = new Float64Array(nFiles);
  const fileWeight = (file: number): number => {
    const cls = fa.info[file]! & CLASS_MASK;
    let w: number;
    if (classOut[cls]) w = -1;
    else if ((opts.since || opts.until) && outsideSinceUntil(view.info(file), opts)) w = -1;
    else {
      const inRange = range && rangeFiles[file] ? PARAMS.timeBoost : 1;
      w = fileFactor(file) * classTierW[cls]! * inRange;
    }
    perFile[file] = w;
    return w;
  };
  const pre = new Float64Array(nRows);
  const total = phaseAPre(rows, nRows, pre, perFile, fileWeight);

  // Phase B — the entries of the best files, exactly.
  const maxFiles = filtered ? PARAMS.rerankFiles * 4 : PARAMS.rerankFiles;
  const maxDocs = Math.max(filtered ? PARAMS.rerankDocs * 4 : PARAMS.rerankDocs, k * 4);
  let thr = 0;
  if (total > maxDocs * 2) {
    thr = mthLargest(pre, maxDocs * 2);
  }
  const order = candidates(pre, thr);
  order.sort((x, y) => pre[y]! - pre[x]! || rows.slot[x]! - rows.slot[y]!);
  const files = new Set<number>();
  const chosenC: { file: number; pos: number; bm: number; ctx: number; src: number; tagHits: number; sec: number }[] = [];
  for (const j of order) {
    const slot = rows.slot[j]!;
    const file = rows.file[j]!;
    if (!files.has(file)) {
      if (files.size >= maxFiles) continue;
      files.add(file);
    }
    chosenC.push({ file, pos: slot - view.fileStart(file), bm: rows.bm[j]!, ctx: rows.cx[j]!, src: rows.cxSrc[j]! - 1, tagHits: rows.tagHits[j]!, sec: secBm ? secBm[j]! : 0 });
    if (chosenC.length >= maxDocs) break;
  }
  const pass = (d: Doc): boolean => {
    const u = d.u;
    if (u.superseded && !opts.includeSuperseded) return false;
    if (opts.type && u.type !== opts.type) return false;
    if (wantTags.length && !wantTags.every((t) => u.tags.includes(t))) return false;
    if (opts.since && (!u.date || u.date < opts.since)) return false;
    if (opts.until && (!u.date || u.date > opts.until)) return false;
    return true;
  };
  const scored: { d: Doc; score: number; act: number; via: SearchResult['via']; slot: number; bm: number; src: number; nb: number; intent: number; outcome: boolean; isOpen: boolean; stated: boolean; explain?: Record<string, number | string> }[] = [];
  // the speaker of a line ("Melanie: …") is the person the question is about (their name is a query word)
  const askedSet = new Set(asked);
  const speakers = new Map<string, boolean>();
  const speakerAsked = (name: string): boolean => {
    let v = speakers.get(name);
    if (v === undefined) speakers.set(name, (v = queryTokens(name).some((t) => askedSet.has(t))));
    return v;
  };
  const wantsNumber = NUMBER_INTENT.test(query);
  const wantsOutcome = OUTCOME_INTENT.test(query);
  const wantsDate = DATE_INTENT.test(query);
  const wantsCause = PARAMS.findingAboveReport && CAUSE_INTENT.test(query);
  // a question after a day is answered by when a line was written, whatever its form: an open
  // question written that day dates the event as well as a statement
  const wantsAnswer = PARAMS.openWeight !== 1 && !wantsDate && !range && QUESTION.test(query) && !ASKS_OPEN.test(query);
  let passed = 0;
  for (const c of chosenC) {
    const d = view.fileDocs(c.file)[c.pos];
    if (!d || !pass(d)) continue;
    const key = unitKey(d);
    if (opts.exclude?.has(key)) continue;
    passed++;
    const u = d.u;
    const rec = history.get(key);
    const actInput: ActivationInput = { kind: u.kind };
    if (u.type) actInput.type = u.type;
    if (u.date) actInput.date = u.date;
    if (rec) { actInput.lastRecall = rec.last; actInput.recallCount = rec.count; }
    const act = activationOn(actInput, today, tz);
    // a question that names a time asks after what happened then, however long ago: an entry of
    // that time is never left out as faded (recall's 去年国庆去哪玩了)
    if (opts.minActivation !== undefined && act < opts.minActivation && !(range && ((u.date && u.date >= range.from && u.date <= range.to) || mentions.has(view.fileStart(c.file) + c.pos)))) continue;
    const file = fileFactor(c.file);
    const tag = 1 + PARAMS.tagBonus * c.tagHits;
    const type = (u.type && TYPE_WEIGHT[u.type]) || 1;
    const tier = tierWeight(d, range);
    const actF = 1 - PARAMS.activationWeight * (1 - act);
    const recency = u.date ? 1 + PARAMS.recencyWeight * Math.pow(0.5, Math.max(0, daysBetween(u.date, today)) / 30) : 1;
    const time = range && !listRange && ((u.date && u.date >= range.from && u.date <= range.to) || mentions.has(view.fileStart(c.file) + c.pos)) ? PARAMS.timeBoost : 1;
    const sup = u.superseded ? 0.5 : 1;
    const derived = !range && CLOSURE_UNIT.test(u.text) ? PARAMS.derivedWeight : 1;
    // an open item (a task, a question): weighed down for a question not about open items; on a
    // cause question, what a finding follows (not read otherwise)
    const openItem = (wantsAnswer || wantsCause) && isOpenItem(u);
    const open = wantsAnswer && openItem ? PARAMS.openWeight : 1;
    let intent = 1;
    const outcome = wantsOutcome && (u.type === 'DECISION' || u.type === 'LESSON' || CHANGE_WORDS.test(u.text));
    if (wantsNumber && HAS_NUMBER.test(u.text.replace(/\d{4}-\d{2}-\d{2}|\b\d{1,2}:\d{2}\b/g, '').replace(VERSION, ''))) intent *= PARAMS.intentWeight;
    if (wantsDate && HAS_DATE.test(u.text.replace(STAMP, ''))) intent *= PARAMS.intentWeight;
    if (outcome) intent *= PARAMS.intentWeight;
    // a name and its declared alias count once: an entry that holds the name the query says
    // (the declaration itself, "Hayate Express（东京合作方）") scores no more for also holding the alias
    let bm = c.bm;
    let aliasOnce = 0;
    if (aliased.length && [...named].some((t) => d.tf.has(t))) {
      for (const t of aliased) { const tf = d.tf.get(t); if (tf) aliasOnce += (idf.get(t)! * tf * (PARAMS.k1 + 1)) / (tf + PARAMS.k1 * (1 - PARAMS.b + (PARAMS.b * d.len) / avg)); }
      bm = Math.max(RANGE_FLOOR, bm - aliasOnce);
    }
    const speaker = PARAMS.speakerWeight !== 1 && !wantsDate ? SPEAKER.exec(u.text) : null;
    const said = speaker && speakerAsked(speaker[1]!) ? PARAMS.speakerWeight : 1;
    const score = said * (bm + c.ctx) * file * tag * type * tier * actF * recency * time * sup * derived * intent * open;
    const item: (typeof scored)[number] = { d, score, act, via: c.bm > RANGE_FLOOR ? 'terms' : c.ctx > 0 ? 'context' : 'time', slot: view.fileStart(c.file) + c.pos, bm, src: c.ctx > bm ? c.src : -1, nb: c.ctx > 0 ? c.src : -1, intent, outcome, isOpen: openItem, stated: wantsCause && !openItem && !HEDGED.test(u.text) };
    if (opts.explain) {
      item.explain = { bm25: round(bm), context: round(c.ctx), file: round(file), tag, type, tier, activation: round(act), activationFactor: round(actF), recency: round(recency), time, superseded: sup, derived, intent, open, score: round(score) };
      item.explain.matched = terms.filter((t) => d.tf.has(t)).map((t) => `${t}(idf ${round(idf.get(t) ?? 0)})`).join(' ');
      if (aliasOnce) item.explain.aliasOnce = round(-aliasOnce);
      if (said !== 1) item.explain.speaker = said;
      const stoodIn = PARAMS.standInFull ? extra.filter((t) => standIns.has(t) && d.tf.has(t)) : [];
      if (stoodIn.length) item.explain.standIn = stoodIn.join(' ');
      const members = kindOf.filter((t) => d.tf.has(t));
      if (members.length) item.explain.kind = members.map((t) => `${kinds.get(t)!.kind}:${t}`).join(' ');
      // the secondary terms it holds: which, from where, at what weight (their BM25 in `secondary`)
      const held = secondary.filter((s) => s.tokens.every((t) => d.tf.has(t)));
      if (held.length) {
        item.explain.secondary = round(c.sec);
        item.explain.also = held.map((s) => `${s.word}(${s.source === 'also' ? 'alternate' : `cedict ${s.via}`}, w ${round(s.weight)})`).join(' ');
      }
    }
    scored.push(item);
  }
  // Borrowed words do not outrank their source: an entry that owes more of its score to a
  // neighbour's words (context) than to its own ranks below that neighbour, unless it answers the
  // kind of question asked (intent) and the neighbour does not: the fix written after the report.
  if (PARAMS.contextBelowSource && scored.length > 1) {
    const bySlot = new Map<number, (typeof scored)[number]>();
    for (const s of scored) bySlot.set(s.slot, s);
    for (let pass = 0; pass < 2; pass++) {
      for (const s of scored) {
        const src = s.src >= 0 ? bySlot.get(s.src) : undefined;
        // unless it answers the kind of question asked and its source does not (the fix after the report)
        if (!src || s.bm >= src.bm || s.score <= src.score || s.intent > src.intent) continue;
        const capped = src.score - Math.min(0.001, src.score / 2); // below it, visibly in --explain's 3 decimals
        if (s.explain) { s.explain.belowSource = round(capped / s.score); s.explain.score = round(capped); }
        s.score = capped;
      }
    }
  }
  // The fix after the report: on an outcome question ("what did we end up doing", 最后怎么改), an
  // entry that says what was decided or changed, written after the neighbour it borrows words from
  // (the report of the problem, in the question's words) and which does not, ranks just above it.
  if (PARAMS.fixAboveReport && wantsOutcome && scored.length > 1) {
    const bySlot = new Map<number, (typeof scored)[number]>();
    for (const s of scored) bySlot.set(s.slot, s);
    for (const s of scored) {
      const src = s.nb >= 0 ? bySlot.get(s.nb) : undefined;
      if (!src || !s.outcome || src.outcome || s.slot < src.slot || s.score > src.score || !sameThread(s.d, src.d)) continue;
      const raised = src.score + Math.min(0.001, src.score / 2);
      if (s.explain) { s.explain.aboveReport = round(raised / s.score); s.explain.score = round(raised); }
      s.score = raised;
    }
  }
  // The fix written days later: on a question after a fix ("how was it fixed", 怎么解决, 最后怎么改),
  // a decision or change written on a later day, within fixDays of a report it shares a tag with
  // (the thread), ranks just above the best such report: the fix is often a day's work of its own,
  // in another file, out of reach of the neighbours' context.
  if (PARAMS.fixDays > 0 && FIX_INTENT.test(query) && scored.length > 1) {
    const reports = scored.filter((r) => !r.outcome && r.bm > RANGE_FLOOR && r.d.u.date && r.d.u.tags.length && LOG_KINDS.has(r.d.u.kind)).sort((a, b) => b.score - a.score);
    for (const s of scored) {
      if (!s.outcome || !s.d.u.date || !s.d.u.tags.length) continue;
      const r = reports.find((r) => r.d.u.path !== s.d.u.path && r.d.u.date! < s.d.u.date! && daysBetween(r.d.u.date!, s.d.u.date!) <= PARAMS.fixDays && r.d.u.tags.some((t) => s.d.u.tags.includes(t)));
      if (!r || s.score > r.score) continue;
      const raised = r.score + Math.min(0.001, r.score / 2);
      if (s.explain) { s.explain.fixAfter = round(raised / s.score); s.explain.score = round(raised); }
      s.score = raised;
    }
  }
  // The finding after the open item: on a cause question ("why", 原因查到了吗), the first statement
  // written after the open item it borrows words from (a task to look into the symptom, a question
  // left open, in the question's words), in the same thread, holding fewer of the question's words
  // than it, ranks just above it: a cause found is rarely called one ("maxOpenConns 只有 20" after
  // "[TASK] 看早高峰 P99"). Not a guess (怀疑, maybe), another open item or a question; one
  // finding per open item.
  if (wantsCause && scored.length > 1) {
    const bySlot = new Map<number, (typeof scored)[number]>();
    for (const s of scored) bySlot.set(s.slot, s);
    const first = new Map<number, (typeof scored)[number]>();
    for (const s of scored) {
      const src = s.nb >= 0 ? bySlot.get(s.nb) : undefined;
      if (!src || !src.isOpen || !s.stated || s.slot < src.slot || s.bm >= src.bm || !sameThread(s.d, src.d)) continue;
      // after it in time: in the same section (a state file's sections are no timeline: its
      // "Key Context" line did not follow its "Current Task")
      if (s.d.u.path === src.d.u.path && s.d.u.heading !== src.d.u.heading) continue;
      const had = first.get(src.slot);
      if (!had || s.slot < had.slot) first.set(src.slot, s);
    }
    // a task or pending item (not a question) that shares the open item's thread asks the same
    // thing (the session's current task and the buffer's task to look into it): the finding
    // answers it too, and ranks above the best of them
    const tasks = scored.filter((o) => o.isOpen && isTask(o.d.u));
    const raisedSet = new Set<number>();
    for (const src of [...scored].sort((a, b) => b.score - a.score)) {
      const s = first.get(src.slot);
      if (!s || raisedSet.has(src.slot)) continue;
      let top = src.score;
      if (isTask(src.d.u)) for (const o of tasks) if (o.score > top && o.slot !== s.slot && sameThread(o.d, src.d)) top = o.score;
      if (s.score > top) continue;
      const raised = top + Math.min(0.001, top / 2);
      if (s.explain) { s.explain.findingAbove = round(raised / s.score); s.explain.score = round(raised); }
      s.score = raised;
      raisedSet.add(s.slot);
    }
  }
  // A note's line that restates a log entry (a fact consolidated from a day, a people note's line
  // for a [PEOPLE] entry) is a copy: the entry, the original with its date and neighbours, ranks
  // first, the note right below it.
  if (PARAMS.restatedBelowEntry && scored.length > 1) restatedBelowEntry(scored, k, idf);
  scored.sort((a, b) => b.score - a.score || (a.d.u.path < b.d.u.path ? -1 : a.d.u.path > b.d.u.path ? 1 : a.d.u.line - b.d.u.line));
  if (listRange) scored.sort((a, b) => (a.d.u.date! < b.d.u.date! ? -1 : a.d.u.date! > b.d.u.date! ? 1 : 0) || (a.d.u.path < b.d.u.path ? -1 : a.d.u.path > b.d.u.path ? 1 : a.d.u.line - b.d.u.line));

  // Near-duplicate collapse.
  const results: SearchResult[] = [];
  const chosen: { d: Doc; r: SearchResult }[] = [];
  for (const s of scored) {
    if (results.length >= k) break;
    const dup = chosen.find((c) => jaccard(c.d, s.d) >= PARAMS.dupJaccard);
    if (dup) { (dup.r.duplicates ??= []).push(`${s.d.u.path}#L${s.d.u.line}`); continue; }
    const r = toResult(s.d, s.score, s.act, s.via);
    if (s.explain) r.explain = s.explain;
    results.push(r);
    chosen.push({ d: s.d, r });
  }
  // a unit filter (--type, --tags, --since/--until) is applied to the candidates, not to every
  // match: the total is then what passed it, not the matches it removed ("N more matches" was a lie)
  const unitFiltered = filtered || !!opts.since || !!opts.until;
  const resp: SearchResponse = { query, terms, total: unitFiltered ? Math.max(passed, results.length) : total, results };
  if (aliasNames.length) resp.aliases = aliasNames;
  if (secondary.length) resp.secondary = secondary.map((s) => ({ word: s.word, source: s.source, ...(s.via ? { via: s.via } : {}), weight: round(s.weight) }));
  if (range) resp.range = range;
  if (view.tooLarge?.length) resp.tooLarge = view.tooLarge;
  return resp;
}

/** Kinds whose units are notes (curated knowledge), as opposed to logs and the index. */
const NOTE_KINDS = new Set(['semantic', 'procedural', 'knowledge', 'note', 'profile', 'graph']);
/** A note line restates an entry when this share of its shingles (and at least RESTATE_MIN) are the entry's. */
const RESTATE_SHARE = 0.5;
const RESTATE_MIN = 4;

/**
 * restatedBelowEntry: each note unit among the first `k` results by score that ranks above a log
 * entry matching the query's own terms, whose line that matches the query best (by the idf of the
 * query terms it holds) restates that entry (RESTATE_SHARE of the line's shingles are the
 * entry's), is set just below the best such entry. A section whose best line is another keeps
 * its place: what it answers is not a copy.
 */
function restatedBelowEntry(scored: { d: Doc; score: number; bm: number; explain?: Record<string, number | string> }[], k: number, idf: Map<string, number>): void {
  const order = [...scored].sort((a, b) => b.score - a.score);
  const logs = order.filter((s) => LOG_KINDS.has(s.d.u.kind) && s.bm > RANGE_FLOOR);
  if (!logs.length) return;
  for (const s of order.slice(0, k)) {
    if (!NOTE_KINDS.has(s.d.u.kind)) continue;
    let lines: Set<string>[] | undefined;
    for (const e of logs) {
      if (e.score >= s.score) continue;
      lines ??= bestLines(s.d.u.text, idf).map(textShingles).filter((l) => l.size >= RESTATE_MIN);
      const b = shingles(e.d);
      if (!lines.some((a) => restates(a, b))) continue;
      const capped = e.score - Math.min(0.001, e.score / 2);
      if (s.explain) { s.explain.restates = `${e.d.u.path}#L${e.d.u.line}`; s.explain.score = round(capped); }
      s.score = capped;
      break; // logs are in score order: the best entry it restates
    }
  }
}

/** The lines of a unit's text that hold the most idf mass of the query's terms (none when no line holds any). */
function bestLines(text: string, idf: Map<string, number>): string[] {
  const lines = text.split('\n');
  if (lines.length === 1) return lines;
  let best = 0;
  let out: string[] = [];
  for (const l of lines) {
    let mass = 0;
    for (const t of new Set(tokenize(l))) mass += idf.get(t) ?? 0;
    if (mass > best) { best = mass; out = [l]; } else if (mass === best && mass > 0) out.push(l);
  }
  return out;
}

/** A task or pending item: an open item by its label or its section (not a question). */
function isTask(u: Unit): boolean {
  return OPEN_LABEL.test(u.text) || OPEN_HEADING.test(u.heading);
}

/** An open item: a pending item or task, a line under an open-items heading, a question (OPEN_LABEL, OPEN_HEADING, OPEN_TEXT). */
function isOpenItem(u: Unit): boolean {
  return isTask(u) || OPEN_TEXT.test(u.text);
}

/** Do two neighbouring entries share a thread: a tag, or a word (not a number, not one character)? */
function sameThread(a: Doc, b: Doc): boolean {
  if (a.u.tags.some((t) => b.u.tags.includes(t))) return true;
  const sb = shingles(b);
  for (const t of shingles(a)) if (t.length > 1 && !/^\d+$/.test(t) && sb.has(t)) return true;
  return false;
}

function restates(line: Set<string>, entry: Set<string>): boolean {
  let inter = 0;
  for (const t of line) if (entry.has(t)) inter++;
  return inter >= RESTATE_MIN && inter >= RESTATE_SHARE * line.size;
}

/**
 * Word-set overlap of two entries for near-duplicate collapse. Deliberately shallow (lower-cased
 * letter/digit runs; CJK as character bigrams; no stemming, no dictionary segmentation): cheap,
 * and two copies of a fact share their surface words anyway.
 */
const shingleCache = new WeakMap<Doc, Set<string>>();
function shingles(d: Doc): Set<string> {
  let s = shingleCache.get(d);
  if (!s) shingleCache.set(d, (s = textShingles(d.u.text)));
  return s;
}

function textShingles(text: string): Set<string> {
  const s = new Set<string>();
  for (const run of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(run)) {
      const ch = [...run];
      for (let i = 0; i + 1 < ch.length; i++) s.add(ch[i]! + ch[i + 1]!);
      if (ch.length === 1) s.add(run);
    } else s.add(run);
  }
  return s;
}

function jaccard(a: Doc, b: Doc): number {
  const sa = shingles(a);
  const sb = shingles(b);
  if (sa.size < 3 || sb.size < 3) return 0;
  let inter = 0;
  for (const t of sa) if (sb.has(t)) inter++;
  return inter / (sa.size + sb.size - inter);
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function toResult(d: Doc, score: number, act: number, via: SearchResult['via']): SearchResult {
  const u = d.u;
  const r: SearchResult = { key: unitKey(d), path: u.path, line: u.line, endLine: u.endLine, tags: u.tags, tier: tierOf(d), kind: u.kind, heading: u.heading, text: u.text, score: round(score), activation: round(act), via };
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
  const history = opts.history ?? readRecallHistory(ctx.root);
  if (opts.index) return rank(ctx, opts.index, query, { ...opts, history });
  return withIndex(ctx, (index) => rank(ctx, index, query, { ...opts, history }));
}

/** The index for ctx.root: the on-disk cache plus every file changed since (see cache.ts). */
export async function loadIndex(ctx: Ctx): Promise<IndexView> {
  const { openIndex } = await lazyImport('search/cache.js', () => import('./cache.js'));
  return openIndex(ctx);
}

/**
 * Run `fn` on the index. A file changed between the freshness check and the read of its entries:
 * once more on a fresh view (which re-reads that file). Another process replaced the cache
 * mid-read (or the file changed again): on the files, the cache written again. A file that keeps
 * changing under the query even then (a writer appending to SESSION-STATE.md as fast as the query
 * reads it; seen in the chaos test): on one read of the files held in memory, which cannot go
 * stale while the query runs (what changes after it is seen by the next query).
 */
export async function withIndex<T>(ctx: Ctx, fn: (index: IndexView) => T): Promise<T> {
  const { openIndex, rebuildIndex, StaleBuildError, ChangedFileError } = await lazyImport('search/cache.js', () => import('./cache.js'));
  try {
    return fn(openIndex(ctx));
  } catch (e) {
    if (!(e instanceof StaleBuildError)) throw e;
    if (e instanceof ChangedFileError) {
      try {
        return fn(openIndex(ctx));
      } catch (e2) {
        if (!(e2 instanceof StaleBuildError)) throw e2;
      }
    }
    try {
      return fn(rebuildIndex(ctx)); // built from the files, and the cache written again
    } catch (e3) {
      if (!(e3 instanceof StaleBuildError)) throw e3;
      return fn(loadCorpusFresh(ctx.root));
    }
  }
}
