/**
 * One reading of time for all of memtier: search and recall (a question's time), extraction and
 * capture (a deadline made absolute), verify (a relative date in a durable note), close-day (the
 * day to close). `readTimes` finds every time phrase of a text (rules.ts), resolved against the
 * day it was said, then joins the phrases that name one time together:
 *
 * - a year and a day or holiday of it: 去年五一, 2025年国庆, 去年10月1日, Christmas last year;
 * - a week and a weekday: 上周的周三;
 * - a span: 上周一到周三, 周三到周五, 5月1日到3日, 5月1日至5月3日, from May 1 to May 3, May 1-3,
 *   between Monday and Wednesday: from the first day to the last.
 *
 * A phrase read in part would name a wrong time (去年五一 as this year's 五一, 上上上周 as 上上周), so
 * the rules read the longest phrase and the joins take the whole of it, or nothing.
 *
 * Where the words do not say which year or week (a month alone, 5月3日, 周五, 中秋), the lean
 * decides: `ask` (a question, or a note read by search) takes the most recent one, unless the
 * phrase is in a plan (要, 打算, 计划, will, going to, or a trip right after it: 七月回成都), which
 * takes the next one (with a month's grace: a plan for 5月3日 asked on 5月15日 is this year's);
 * `note` (capture) takes the nearest day of a year and the next such weekday.
 *
 * Hand-written and cheap to load: a rule's pattern is compiled the first time a text holds its
 * words, so a text without any costs a few substring tests.
 */
import { cnNumber } from '../compare.js';
import { toSimplified } from '../han.js';
import { addDays, mondayOf, weekdayOf } from './calendar.js';
import { RULES, type At, type Gate, type Res, type Unit } from './rules.js';

export type { Unit };

/** How to place a phrase whose words do not say which year or week: see the module comment. */
export type Lean = 'ask' | 'note';

export interface TimePhrase {
  /** Where it is in the text (UTF-16 offsets) and its words as written. */
  start: number;
  end: number;
  text: string;
  /** The days it names, inclusive (local YYYY-MM-DD). */
  from: string;
  to: string;
  unit: Unit;
  /** The one day it names, when it names one (a coming week named as a deadline: its Monday). */
  day?: string;
  /** Read against the day it was said (yesterday, 上周, 去年五一, 3 days ago). */
  deictic: boolean;
  /** Placed by the lean, not by its words (a month alone, 周五, 中秋). */
  guessed: boolean;
  /** A weekday or weekend alone (周五, "on Friday", "by Friday", 周末). */
  bare: boolean;
  /** Written as a whole date (2026-05-15). */
  absolute: boolean;
  /** The holiday names inside it (五一, Christmas): words to search for as well as a time. */
  keep: string[];
  /** Two phrases read as one (去年五一, 上周一到周三, 5月1日到3日). */
  joined: boolean;
}

export interface ReadOptions {
  lean?: Lean;
  /**
   * Weekdays and weekends alone: false leaves them out (a habit: "never deploy on Fridays"), true
   * keeps them all; by default a note keeps them all and a question keeps 周五 and "on Friday"
   * but not a bare "Friday" outside a span.
   */
  bareWeekdays?: boolean;
  /** Run every rule, whether the text holds its words or not (what the gated run is tested against). */
  allRules?: boolean;
  /**
   * Only a text holding a relative phrase is read whole (verify): the rules that can read one run
   * first, and a text they find none in returns nothing.
   */
  relativeOnly?: boolean;
}

// ---------- folding ----------
/** Letters whose lower case an `i` pattern would not match as ASCII (İ → i̇, the Kelvin sign → k): kept as they are. */
const ODD_CASE = /[\u0130\u212a]/;

/**
 * The text as the rules read it, with every character in its place: lower case, full-width forms
 * half-width (５月３号 → 5月3号), traditional characters simplified (上週二 → 上周二).
 */
export function foldTime(text: string): string {
  let t = /[\uff01-\uff5e\u3000]/.test(text) ? text.replace(/[\uff01-\uff5e\u3000]/g, (ch) => (ch === '\u3000' ? ' ' : String.fromCharCode(ch.charCodeAt(0) - 0xfee0))) : text;
  const low = t.toLowerCase();
  if (low.length === t.length && !ODD_CASE.test(t)) t = low;
  else {
    let out = '';
    for (const ch of t) { const l = ch.toLowerCase(); out += l.length === ch.length && !ODD_CASE.test(ch) ? l : ch; }
    t = out;
  }
  return toSimplified(t);
}

// ---------- the rules, gated ----------
const compiled: (RegExp | undefined)[] = [];
const regexOf = (i: number): RegExp => (compiled[i] ??= new RegExp(RULES[i]!.src, 'g'));
/**
 * Cues every phrase read against the day it was said holds (yesterday, 上周, 三天前, last May, 去年五一
 * …), matched on the text as written (any case, simplified or traditional): a text without one
 * holds no relative date. Verify's quick test of a note; a test keeps it true of every rule.
 */
const DEICTIC_CUE = /昨|[今明][天日晚儿兒早夜年]|[前后後]天|前晚|[上下这這本]\s*[个個]?(?:[周週]|星期|[礼禮]拜|月)|大[上下前后後]|[前去后後]年|[两兩几幾些]天|近|[过過]去|[天周週拜期月年]\s*(?:之|以)?[前后後]|月[底初]|\b(?:yesterday|today|tonight|tomorrow|ago|week|weekend|month|year|days|weeks|months|years|morning|afternoon|evening|night)\b|\b(?:last|this|next|coming|past|previous)\s+(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|morning|afternoon|evening|night|\d|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|couple)|\bin\s+\w+\s+(?:day|week|month)/i;

/** Words one of the cues holds, as plain substrings: a far cheaper first test of a long text. */
const TIME_WORDS = /day|week|month|year|tomorrow|tonight|morning|afternoon|evening|night|ago|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|[天日周週星礼禮拜期月年晚早夜儿兒昨近去]/i;

/** Might `text` hold a time word at all (a whole note: verify's first test)? False only when no relative date is in it. */
export const holdsTimeWords = (text: string): boolean => TIME_WORDS.test(text);

/** Might `text` (a line) hold a relative date? False only when it holds none. */
export const mayBeRelative = (text: string): boolean => TIME_WORDS.test(text) && DEICTIC_CUE.test(text);

// ---------- leaning ----------
/** Words of a plan in the phrase's clause: 要 (not 需要, 重要, 不要, 要是…), 打算, 计划, will, going to … */
const PLAN = /(?<![重需主只不必想])要(?![是求点素闻])|打算|计划|准备|预计|预定|安排|将要|将会|\bwill\b|'ll\b|\bgoing\s+to\b|\bgonna\b|\bplan(?:s|ned|ning)?\s+(?:to|on)\b|\bupcoming\b|\bscheduled\b/;
/** A trip right after the phrase (七月回成都, 十月去日本; not 到, which also joins a span), not one already made (回成都了, 去过). */
const TRIP = /^\s*(?:回|去|来|飞|出发|搬)/;
const CLAUSE_END = /[，。？！,.?!;；\n]/;

function clauseOf(text: string, start: number, end: number): [string, string] {
  let a = start;
  while (a > 0 && !CLAUSE_END.test(text[a - 1]!)) a--;
  let b = end;
  while (b < text.length && !CLAUSE_END.test(text[b]!)) b++;
  return [text.slice(a, start), text.slice(end, b)];
}

type Lean3 = 'past' | 'plan' | 'near';

function leanAt(text: string, start: number, end: number, lean: Lean): Lean3 {
  if (lean === 'note') return 'near';
  const [before, after] = clauseOf(text, start, end);
  if (PLAN.test(before) || PLAN.test(after)) return 'plan';
  // 七月回成都了吗 is a trip made; 七月回成都的机票订了吗 one still ahead (the 了 is the tickets')
  return TRIP.test(after) && !/[了过]/.test(after.split('的')[0]!) ? 'plan' : 'past';
}

/** The occurrence of a yearless day or period: the latest begun (past), the next not a month over (plan), the nearest (near). */
function placeYear(inYear: (y: number) => [string, string] | undefined, today: string, y: number, how: Lean3): [string, string] | undefined {
  if (how === 'near') {
    const gap = (r: [string, string]): number => (today < r[0] ? Date.parse(r[0]) - Date.parse(today) : today > r[1] ? Date.parse(today) - Date.parse(r[1]) : 0);
    let best: [string, string] | undefined;
    for (const yy of [y - 1, y, y + 1]) { const r = inYear(yy); if (r && (!best || gap(r) < gap(best))) best = r; }
    return best;
  }
  if (how === 'plan') {
    const grace = addDays(today, -30);
    for (const yy of [y, y + 1]) { const r = inYear(yy); if (r && r[1] >= grace) return r; }
    return undefined;
  }
  // the past: this year's if it has begun, else the year before (a 29 February: the last one)
  for (let yy = y; yy >= y - 8; yy--) { const r = inYear(yy); if (r && r[0] <= today) return r; }
  return undefined;
}

function weekdayAt(wd: number, today: string, week: string, how: Lean3): string {
  if (how === 'near') return addDays(today, ((wd - weekdayOf(today) + 7) % 7) || 7);
  const d = addDays(week, wd);
  if (how === 'plan') return d < today ? addDays(d, 7) : d;
  return d > today ? addDays(d, -7) : d;
}

// ---------- a hit ----------
interface Hit extends Res {
  start: number;
  end: number;
  bareN: 0 | 1 | 2;
  keepSpans: [number, number][];
  joined?: boolean;
}

function toHit(r: Res, start: number, end: number): Hit {
  return { ...r, start, end, bareN: r.bare ?? 0, keepSpans: r.keep ? [[start, end]] : [] };
}

// ---------- joining ----------
/** Between a year and a day of it: nothing, 的, 's; between a day and its year: of, in. */
const YEAR_THEN = /^\s*(?:的|'s)?\s*$/;
const THEN_YEAR = /^\s*,?\s*(?:of|in)?\s*$/;
/** Between the two ends of a span. */
const SPAN_JOIN = /^\s*(?:到|至|~|～|-|–|—|to|until|till|through|thru)\s*$/;
const SPAN_AND = /^\s*and\s*$/;
/** A day of the first end's month after a span's join: 5月1日到3日, May 1-3. */
const DAY_AFTER_ZH = /^\s*(?:到|至|~|～|-|–|—)\s*(\d{1,2}|[一二三四五六七八九十廿]{1,3})\s*[日号]/;
const DAY_AFTER_EN = /^\s*(?:-|–|—|to|until|till|through|thru)\s*(\d{1,2})(?:st|nd|rd|th)?\b(?![:.]?\d|\s*(?:am|pm|o'clock)\b)/;

function joinYear(year: Hit, d: Hit): Hit | undefined {
  const r = d.inYear!(year.year!);
  if (!r) return undefined;
  const [start, end] = [Math.min(year.start, d.start), Math.max(year.end, d.end)];
  return { ...d, from: r[0], to: r[1], start, end, deictic: year.deictic ?? false, guessed: false, ...(d.unit === 'day' ? { day: r[0] } : {}), inYear: undefined, keepSpans: d.keepSpans, joined: true };
}

function joinSpan(a: Hit, b: Hit, end: number): Hit | undefined {
  let [from, to] = [b.from, b.to];
  if (b.guessed && b.wd !== undefined) {
    // a weekday after the first end: the first such day from it on (上周一到周三)
    from = to = addDays(a.from, (b.wd - weekdayOf(a.from) + 7) % 7);
  } else if (b.guessed && b.inYear) {
    // a day of a year after the first end: the first one from it on (12月28日到1月3日)
    const y = Number(a.from.slice(0, 4));
    const r = [y, y + 1].map((yy) => b.inYear!(yy)).find((x) => x && x[0] >= a.from);
    if (!r) return undefined;
    [from, to] = r;
  }
  if (to < a.from) return undefined;
  return {
    from: a.from, to, unit: 'span', start: a.start, end, deictic: !!(a.deictic || b.deictic), guessed: !!(a.guessed && b.guessed),
    bareN: 0, keepSpans: [...a.keepSpans, ...b.keepSpans], joined: true, ...(a.absolute && b.absolute ? { absolute: true } : {}),
  };
}

/** Join neighbouring phrases that name one time (see the module comment). Hits are in text order. */
function join(hits: Hit[], text: string): Hit[] {
  // a year and a day of it; a week and its weekday
  for (let i = 0; i + 1 < hits.length; i++) {
    const [a, b] = [hits[i]!, hits[i + 1]!];
    const gap = text.slice(a.end, b.start);
    let j: Hit | undefined;
    let part: Hit | undefined;
    if (a.year !== undefined && b.inYear && YEAR_THEN.test(gap)) { j = joinYear(a, b); part = b; }
    else if (a.inYear && b.year !== undefined && THEN_YEAR.test(gap)) { j = joinYear(b, a); part = a; }
    else if (a.unit === 'week' && a.week && b.wd !== undefined && b.guessed && /^\s*的?\s*$/.test(gap)) {
      const d = addDays(a.week, b.wd);
      j = { ...a, from: d, to: d, unit: 'day', day: d, start: a.start, end: b.end, week: undefined, joined: true };
    }
    if (j) { hits.splice(i, 2, j); i--; }
    // a holiday of a year the table does not hold (2080年春节): the year alone, never another year's holiday
    else if (part) { hits.splice(hits.indexOf(part), 1); i--; }
  }
  // spans
  for (let i = 0; i < hits.length; i++) {
    const a = hits[i]!;
    const b = hits[i + 1];
    const gap = b ? text.slice(a.end, b.start) : '';
    if (b && (SPAN_JOIN.test(gap) || (SPAN_AND.test(gap) && /\bbetween\s+$/.test(text.slice(0, a.start))))) {
      const j = joinSpan(a, b, b.end);
      if (j) { hits.splice(i, 2, j); continue; }
    }
    // the end is a day of the first end's month: 5月1日到3日, May 1-3
    if (a.unit === 'day') {
      const rest = text.slice(a.end);
      const t = text.slice(a.start, a.end);
      const m = (t.includes('月') ? DAY_AFTER_ZH.exec(rest) : null) ?? (/jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec/.test(t) ? DAY_AFTER_EN.exec(rest) : null);
      if (m && (!b || a.end + m[0].length <= b.start)) {
        const n = cnNumber(m[1]!);
        const [y, mo] = [Number(a.from.slice(0, 4)), Number(a.from.slice(5, 7))];
        const d = n > 0 && n <= 31 ? `${y}-${String(mo).padStart(2, '0')}-${String(n).padStart(2, '0')}` : undefined;
        if (d && !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d) && d >= a.from) {
          hits[i] = { ...a, to: d, unit: 'span', day: undefined, end: a.end + m[0].length, bareN: 0, joined: true };
        }
      }
    }
  }
  return hits;
}

// ---------- reading ----------
/** Every time phrase of `text`, in text order, resolved against `today` (the day it was said, YYYY-MM-DD). */
export function readTimes(text: string, today: string, o: ReadOptions = {}): TimePhrase[] {
  const folded = foldTime(text);
  const lean = o.lean ?? 'ask';
  const y = Number(today.slice(0, 4));
  const week = mondayOf(today);
  const found: Hit[] = [];
  // a gate several rules share is tested once
  const tested = new Map<Gate, boolean>();
  const holds = (w: string | Gate): boolean => {
    if (typeof w === 'string') return folded.includes(w);
    let v = tested.get(w);
    if (v === undefined) tested.set(w, (v = w(folded, text)));
    return v;
  };
  const scan = (only: boolean): void => {
  for (let i = 0; i < RULES.length; i++) {
    const rule = RULES[i]!;
    if (only && !rule.relative) continue;
    if (!o.allRules && !rule.needs.some(holds)) continue;
    const re = regexOf(i);
    re.lastIndex = 0;
    for (let m = re.exec(folded); m; m = re.exec(folded)) {
      if (m[0].length === 0) { re.lastIndex++; continue; }
      const start = m.index;
      const end = start + m[0].length;
      if (found.some((h) => start < h.end && end > h.start)) continue;
      let how: Lean3 | undefined;
      const lean3 = (): Lean3 => (how ??= leanAt(folded, start, end, lean));
      const c: At = {
        today, y, m: Number(today.slice(5, 7)) - 1, week, orig: text, text: folded, start,
        year: (inYear) => placeYear(inYear, today, y, lean3()),
        weekday: (wd) => weekdayAt(wd, today, week, lean3()),
        weekend: () => { const sat = addDays(week, 5); return lean3() === 'past' ? (sat > today ? addDays(sat, -7) : sat) : sat; },
      };
      const r = rule.at(m, c);
      if (r) found.push(toHit(r, start, end));
    }
  }
  };
  if (o.relativeOnly) {
    // a relative phrase is found by its own rule, whatever else the text holds: when those rules
    // find nothing on their own, all of them together find nothing either (others only take matches away)
    scan(true);
    if (!found.length) return [];
    found.length = 0;
  }
  scan(false);
  found.sort((a, b) => a.start - b.start);
  const joined = join(found, folded);
  const keepBare = (h: Hit): boolean => h.bareN === 0 || (o.bareWeekdays ?? (lean === 'note' || h.bareN === 1));
  return joined.filter(keepBare).map((h) => ({
    start: h.start, end: h.end, text: text.slice(h.start, h.end), from: h.from, to: h.to, unit: h.unit,
    ...(h.day ? { day: h.day } : {}),
    deictic: !!h.deictic, guessed: !!h.guessed, bare: h.bareN > 0, absolute: !!h.absolute,
    keep: h.keepSpans.map(([s, e]) => text.slice(s, e)), joined: !!h.joined,
  }));
}
