/**
 * The time phrases memtier reads, in Chinese and English, as one ordered table: each rule a
 * pattern over folded text (lower case, simplified characters, half-width digits; read.ts folds)
 * and what it names, resolved against the day the text was said (`At`). An earlier rule wins
 * where two overlap, so the longer phrase is listed first (上上周二 before 周二, 大前天 before 前天).
 *
 * A rule names the substrings its pattern cannot match without (`needs`, any of them): a text
 * holding none of a rule's words never runs (or compiles) it, and one test checks that running
 * only those rules finds what running all of them finds.
 *
 * Where a phrase does not say which year or week it means (a month alone, 5月3日, 周五, 中秋),
 * `At` places it (read.ts: the past for a question, the future when the question plans, the
 * nearest for a note); everything else is fixed by its words.
 */
import { cnNumber } from '../compare.js';
import { addDays, addMonths, lastDay, monthRange, validDay, weekdayOf } from './calendar.js';
import { HOLIDAYS } from './holidays.js';

/** What a phrase names: one day, about a day (a window around it), a week, a month, a year, or a span of days. */
export type Unit = 'day' | 'about' | 'week' | 'month' | 'year' | 'span';

/** The context a rule resolves in: the day the text was said, and how to place a phrase that does not say. */
export interface At {
  today: string;
  /** Today's year and month (0-based). */
  y: number;
  m: number;
  /** The Monday of today's week. */
  week: string;
  /** The text as written and as folded, and where the match is in them. */
  orig: string;
  text: string;
  start: number;
  /** The occurrence of a yearless day or period (`inYear(y)`), placed by the reading's lean. */
  year(inYear: (y: number) => [string, string] | undefined): [string, string] | undefined;
  /** The date of a weekday the phrase does not place in a week. */
  weekday(wd: number): string;
  /** The Saturday of a weekend the phrase does not place. */
  weekend(): string;
}

export interface Res {
  from: string;
  to: string;
  unit: Unit;
  /** The one day the phrase names, when it names one (a coming week named as a deadline: its Monday). */
  day?: string;
  /** Read against the day it was said (yesterday, 上周, 去年, 3 days ago), not a day of the calendar. */
  deictic?: boolean;
  /** Placed by the reading's lean, not by its words (a month alone, 周五, 中秋). */
  guessed?: boolean;
  /** A weekday or weekend alone: 1 read by a question too ("on Friday", 周五), 2 only in a span or a note ("Friday", "by Friday"). */
  bare?: 1 | 2;
  /** A holiday's name: a word to search for as well as a time. */
  keep?: boolean;
  /** Written as a whole date (2026-05-15): nothing to add to it. */
  absolute?: boolean;
  /** For composing phrases (read.ts): the days in another year; the year a year phrase names; a week's Monday; a weekday. */
  inYear?: (y: number) => [string, string] | undefined;
  year?: number;
  week?: string;
  wd?: number;
}

/** A quick test of the folded and the written text, shared by several rules (run once a text). */
export type Gate = (folded: string, orig: string) => boolean;

export interface Rule {
  /** Substrings of the folded text, or gates: any of them. */
  needs: (string | Gate)[];
  src: string;
  /** It can read a phrase relative to the day it was said (its results may be `deictic`). */
  relative?: true;
  at(m: RegExpExecArray, c: At): Res | undefined;
}

// ---------- words ----------
const MON = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
/** A month's name as a word (not "decided", "market"), "may" only as mayOk reads it: the month rules' gate. */
const MONTH_WORD = new RegExp(`\\b${MON}\\b`, 'g');
const MONTH_NEEDS: Gate[] = [(folded, orig) => {
  MONTH_WORD.lastIndex = 0;
  for (let m = MONTH_WORD.exec(folded); m; m = MONTH_WORD.exec(folded)) {
    if (m[1] !== 'may' || orig[m.index] === 'M' || orig === orig.toLowerCase() || /(?:in|during|last|early|mid|late)[\s-]+$/.test(folded.slice(Math.max(0, m.index - 8), m.index))) return true;
  }
  return false;
}];
/** Gates by pattern. */
const gate = (re: RegExp): Gate => (folded) => re.test(folded);
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const monthOf = (name: string): number => MONTHS.indexOf(name.slice(0, 3));
const WD = '(monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const WDS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const EN_NUM: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12 };
const EN_COUNT = '(\\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)';
const enCount = (s: string): number => EN_NUM[s] ?? Number(s);
/** 周 / 星期 / 礼拜 (week). */
const WEEK = '(?:周|星期|礼拜)';
/** A weekday after 周: 一…六, 日/天 (not 天气, 日报…), 1–7 (not a count: 周3天, 周5号). */
const ZH_WDC = '([一二三四五六]|[日天](?![气数津空然堂才下报志程常期子])|[1-7](?![\\d个天号日次周月年点:.]))';
const ZH_WD: Record<string, number> = { 一: 0, 二: 1, 三: 2, 四: 3, 五: 4, 六: 5, 日: 6, 天: 6, 1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6 };
/** A count in digits or Chinese numerals (两, 十二, 廿). */
const CNN = '(\\d{1,3}|[一二两三四五六七八九十廿]{1,3})';
/** A month's number (1–12, 一…十二) and a day of the month. */
const MCN = '(\\d{1,2}|十[一二]?|[一二三四五六七八九])';
const DCN = '(\\d{1,2}|[一二三四五六七八九十廿]{1,3})';
/** 上 / 上上 / 上上上 / 大上 (weeks or months back), 下… (ahead), 这 / 本 (this). */
const SHIFT = '(?<![上下大])(大上|大下|上+|下+|这个|这|本)';
const shiftOf = (s: string | undefined): number => (!s ? 0 : s === '大上' ? -2 : s === '大下' ? 2 : s[0] === '上' ? -s.length : s[0] === '下' ? s.length : 0);

// ---------- results ----------
const day = (d: string, deictic = true): Res => ({ from: d, to: d, unit: 'day', day: d, deictic });
const span = (from: string, to: string, deictic = true): Res => ({ from, to, unit: 'span', deictic });
const about = (center: string, radius: number): Res => ({ from: addDays(center, -radius), to: addDays(center, radius), unit: 'about', day: center, deictic: true });
const month = ([from, to]: [string, string], deictic = true): Res => ({ from, to, unit: 'month', deictic });
const yearRes = (y: number, deictic: boolean, today?: string): Res => ({ from: `${y}-01-01`, to: today ?? `${y}-12-31`, unit: 'year', year: y, deictic });
/** A yearless day or period, placed by the lean; `unit` the unit of one occurrence. */
function placed(c: At, inYear: (y: number) => [string, string] | undefined, keep = false): Res | undefined {
  const r = c.year(inYear);
  if (!r) return undefined;
  return { from: r[0], to: r[1], unit: r[0] === r[1] ? 'day' : 'span', ...(r[0] === r[1] ? { day: r[0] } : {}), guessed: true, inYear, ...(keep ? { keep } : {}) };
}
const oneDay = (m: number, d: number) => (y: number): [string, string] | undefined => { const v = validDay(y, m, d); return v ? [v, v] : undefined; };
/** Part of a month: 初/上旬/early 1–10, 中旬/mid 11–20, 底/下旬/末/late 21–end. */
function monthPart(part: string | undefined, m: number) {
  return (y: number): [string, string] | undefined => {
    const [first, last] = monthRange(y, m);
    if (!part) return [first, last];
    if (/^(?:初|上旬|early)$/.test(part)) return [first, validDay(y, m, 10)!];
    if (/^(?:中旬|mid)$/.test(part)) return [validDay(y, m, 11)!, validDay(y, m, 20)!];
    return [validDay(y, m, 21)!, last];
  };
}
/**
 * "May" names the month only as a name: capitalized, or in a text written all in lower case ("we
 * may 2x it", "3 may be" are the verb). `at` is where the name starts in the match.
 */
function mayOk(c: At, name: string, at = 0): boolean {
  if (name !== 'may') return true;
  const i = c.start + at;
  return c.orig[i] === 'M' || c.orig === c.orig.toLowerCase();
}

// ---------- the table, most specific first ----------
export const RULES: Rule[] = [
  // whole dates: 2026-05-15, 2026/5/15, 2026.5.15
  { needs: [gate(/\d{4}[-/.]\d/)], src: '(?<![\\w./-])(\\d{4})([-/.])(\\d{1,2})\\2(\\d{1,2})(?![\\w/-]|\\.\\d)', at: (m) => { const d = validDay(+m[1]!, +m[3]! - 1, +m[4]!); return d ? { ...day(d, false), absolute: true } : undefined; } },
  // 2026年5月15日, 5月15号, 五月三号, 十二月二十五日 (without a year: placed)
  { needs: ['月'], src: `(?:(\\d{4})\\s*年\\s*)?(?<![\\d一二两三四五六七八九十])${MCN}\\s*月\\s*${DCN}\\s*[日号]`, at: (m, c) => {
    const mo = cnNumber(m[2]!) - 1;
    const d = cnNumber(m[3]!);
    if (m[1]) { const v = validDay(+m[1], mo, d); return v ? day(v, false) : undefined; }
    return placed(c, oneDay(mo, d));
  } },
  // 8 May 2023, the 8th of May, 2023; May 8, 2023
  { needs: MONTH_NEEDS, src: `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MON}\\.?,?\\s+(\\d{4})\\b`, at: (m) => { const v = validDay(+m[3]!, monthOf(m[2]!), +m[1]!); return v ? day(v, false) : undefined; } },
  { needs: MONTH_NEEDS, src: `\\b${MON}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, at: (m, c) => { if (!mayOk(c, m[1]!)) return undefined; const v = validDay(+m[3]!, monthOf(m[1]!), +m[2]!); return v ? day(v, false) : undefined; } },
  // 2023年5月, 2023年5月底
  { needs: ['年'], src: `(\\d{4})\\s*年\\s*${MCN}\\s*月(?:份)?(初|上旬|中旬|下旬|底|末)?`, at: (m) => { const r = monthPart(m[3], cnNumber(m[2]!) - 1)(+m[1]!); return r ? { ...month(r, false), unit: m[3] ? 'span' : 'month' } : undefined; } },
  // in May 2023, May 2023
  { needs: MONTH_NEEDS, src: `\\b(?:in\\s+|during\\s+)?${MON}\\.?,?\\s+(\\d{4})\\b`, at: (m, c) => (mayOk(c, m[1]!, m[0].indexOf(m[1]!)) || /^(?:in|during)/.test(m[0]) ? month(monthRange(+m[2]!, monthOf(m[1]!)), false) : undefined) },
  // May 8, Oct 14th, 14 October, the 8th of May (placed)
  { needs: MONTH_NEEDS, src: `\\b${MON}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?![:.]?\\d)`, at: (m, c) => (mayOk(c, m[1]!) ? placed(c, oneDay(monthOf(m[1]!), +m[2]!)) : undefined) },
  { needs: MONTH_NEEDS, src: `\\b(?:the\\s+)?(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MON}\\b`, at: (m, c) => (mayOk(c, m[2]!, m[0].lastIndexOf(m[2]!)) ? placed(c, oneDay(monthOf(m[2]!), +m[1]!)) : undefined) },
  // holidays: 五一, 国庆, 春节, 中秋, Christmas … (holidays.ts)
  ...HOLIDAYS.map((h): Rule => ({ needs: h.needs, src: h.re, at: (_m, c) => placed(c, h.days, true) })),
  // in 2023, 2023年
  { needs: ['年', gate(/\b(?:in|during)\s+\d{4}/)], src: '\\b(?:in|during)\\s+(\\d{4})\\b|(?<!\\d)(\\d{4})\\s*年', at: (m) => { const y = +(m[1] ?? m[2])!; return y > 1900 && y < 2200 ? yearRes(y, false) : undefined; } },
  // 5/3 as Chinese notes write it (May 3), only in text with Chinese in it
  { needs: ['/'], src: '(?<![\\d/.])(\\d{1,2})\\/(\\d{1,2})(?![\\d/.])', at: (m, c) => (/[\u3400-\u9fff]/.test(c.text) ? placed(c, oneDay(+m[1]! - 1, +m[2]!)) : undefined) },
  // a month alone: 4月, 七月, 十二月份, 5月底 (placed; not 3个月, 上个月, 五月三号)
  { needs: ['月'], src: `(?<![\\d年个上下本这一二两三四五六七八九十第每])${MCN}\\s*月(?:份)?(初|上旬|中旬|下旬|底|末)?(?![\\d一二两三四五六七八九十]|\\s*[日号])`, at: (m, c) => {
    const mo = cnNumber(m[1]!) - 1;
    if (!(mo >= 0 && mo <= 11)) return undefined;
    const r = placed(c, monthPart(m[2], mo));
    return r && { ...r, unit: m[2] ? 'span' : 'month' };
  } },
  // in May, during June, last May, next March, early July (a bare "may" is a verb)
  { relative: true, needs: MONTH_NEEDS, src: `\\b(?:(in|during|last|this|next)\\s+)?(?:(early|mid|late)[\\s-]+)?${MON}\\b(?![\\s,.]*\\d)`, at: (m, c) => {
    const [, pre, part, name] = m as unknown as [string, string | undefined, string | undefined, string];
    if (!pre && !part) return undefined;
    if (name === 'may' && !part && pre !== 'in' && pre !== 'during' && pre !== 'last') return undefined;
    const mo = monthOf(name);
    const inYear = monthPart(part, mo);
    const unit = part ? 'span' : 'month';
    if (pre === 'last' || pre === 'this' || pre === 'next') {
      const y = pre === 'this' ? c.y : pre === 'last' ? (mo < c.m ? c.y : c.y - 1) : mo > c.m ? c.y : c.y + 1;
      const r = inYear(y)!;
      return { ...month(r), unit };
    }
    const r = placed(c, inYear);
    return r && { ...r, unit };
  } },
  // 这两天, 这几天, 最近几天, 近两天 (up to today); 前两天, 前几天, 前些天 (a few days back)
  { relative: true, needs: ['两天', '几天', '些天'], src: '(这|最近|近)(两|几)天|(?<![提之以事从预])前(两|几|些)天', at: (m, c) => (m[2] ? span(addDays(c.today, m[2] === '两' ? -2 : -6), c.today) : m[3] === '两' ? span(addDays(c.today, -3), addDays(c.today, -1)) : span(addDays(c.today, -7), addDays(c.today, -2))) },
  // 最近三天, 近一周, 过去一个月, 最近半年 (up to today; not 接近三天)
  { relative: true, needs: ['近', '过去'], src: `(?:最近|(?<![接附将靠亲])近|过去(?:的)?)\\s*(${CNN.slice(1, -1)}|半)\\s*(天|日|周|个星期|星期|个礼拜|礼拜|个月|年)(?:内|里|来|以来)?`, at: (m, c) => {
    const n = m[1] === '半' ? 0.5 : cnNumber(m[1]!);
    if (!(n > 0)) return undefined;
    const u = m[2]!;
    if (u === '个月') return span(n === 0.5 ? addDays(c.today, -14) : addDays(addMonths(c.today, -n), 1), c.today);
    if (u === '年') return span(addDays(addMonths(c.today, -Math.round(12 * n)), 1), c.today);
    if (n % 1) return undefined;
    return span(addDays(c.today, u === '天' || u === '日' ? -(n - 1) : -(7 * n - 1)), c.today);
  } },
  // the last 3 days, the past two weeks, over the last few days (up to today)
  { relative: true, needs: ['days', 'weeks', 'months', 'years'], src: `\\b(?:(?:in|over|during|for|within)\\s+)?the\\s+(?:last|past)\\s+(\\d{1,3}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|couple(?:\\s+of)?)\\s+(day|week|month|year)s\\b`, at: (m, c) => {
    const n = m[1] === 'few' ? (m[2] === 'day' ? 6 : 3) : m[1]!.startsWith('couple') ? (m[2] === 'day' ? 3 : 2) : enCount(m[1]!);
    if (!(n > 0)) return undefined;
    const from = m[2] === 'day' ? addDays(c.today, -(n - 1)) : m[2] === 'week' ? addDays(c.today, -7 * n + 1) : addDays(addMonths(c.today, -(m[2] === 'year' ? 12 : 1) * n), 1);
    return span(from, c.today);
  } },
  // 三天前, 两周前, 一个月前, 半个月前, 两年前; 三天后, 一周后, 两个月后 (a deadline: the day)
  { relative: true, needs: ['前', '后'], src: `(?<![\\d一二两三四五六七八九十几半])(${CNN.slice(1, -1)}|几|半)\\s*(天|周|个星期|个礼拜|星期|礼拜|个月|年)\\s*(?:之|以)?(前|后)`, at: (m, c) => {
    const back = m[3] === '前';
    const u = m[2] === '天' ? 'day' : m[2] === '个月' ? 'month' : m[2] === '年' ? 'year' : 'week';
    if (m[1] === '几') return u === 'day' && back ? span(addDays(c.today, -7), addDays(c.today, -2)) : undefined;
    if (m[1] === '半') {
      if (u === 'month') return back ? about(addDays(c.today, -15), 3) : day(addDays(c.today, 15));
      if (u === 'year') return back ? about(addMonths(c.today, -6), 15) : day(addMonths(c.today, 6));
      return undefined;
    }
    const n = cnNumber(m[1]!);
    if (!(n > 0)) return undefined;
    const s = back ? -n : n;
    if (u === 'day') return day(addDays(c.today, s));
    if (u === 'week') return back ? about(addDays(c.today, 7 * s), 3) : day(addDays(c.today, 7 * s));
    if (u === 'month') return back ? about(addMonths(c.today, s), 7) : day(addMonths(c.today, s));
    return yearRes(c.y + s, true);
  } },
  // 3 days ago, two weeks ago, a month ago, a few days ago, a couple of weeks ago, 2 years ago
  { relative: true, needs: ['ago'], src: `\\b(${EN_COUNT.slice(1, -1)}|a\\s+few|a\\s+couple(?:\\s+of)?|couple\\s+of|several|few)\\s+(day|week|month|year)s?\\s+ago\\b`, at: (m, c) => {
    const w = m[1]!.replace(/\s+/g, ' ');
    const u = m[2]!;
    if (/few|several|couple/.test(w)) {
      const couple = w.includes('couple');
      if (u === 'day') return couple ? span(addDays(c.today, -3), addDays(c.today, -1)) : span(addDays(c.today, -7), addDays(c.today, -2));
      if (u === 'week') return couple ? about(addDays(c.today, -14), 4) : about(addDays(c.today, -21), 7);
      return undefined;
    }
    const n = enCount(w);
    if (!(n > 0)) return undefined;
    if (u === 'day') return day(addDays(c.today, -n));
    if (u === 'week') return about(addDays(c.today, -7 * n), 3);
    if (u === 'month') return about(addMonths(c.today, -n), 7);
    return yearRes(c.y - n, true);
  } },
  // in 3 days, in two weeks, in a month (a deadline: the day)
  { relative: true, needs: [gate(/\bin\s+\w+\s+(?:day|week|month)/)], src: `\\bin\\s+${EN_COUNT}\\s+(day|week|month)s?\\b`, at: (m, c) => {
    const n = enCount(m[1]!);
    if (!(n > 0)) return undefined;
    return day(m[2] === 'day' ? addDays(c.today, n) : m[2] === 'week' ? addDays(c.today, 7 * n) : addMonths(c.today, n));
  } },
  // 大前天, 大大前天, 大后天
  { relative: true, needs: ['大'], src: '(大+)(前|后)天', at: (m, c) => day(addDays(c.today, (m[2] === '前' ? -1 : 1) * (2 + m[1]!.length))) },
  { relative: true, needs: ['前天', '前晚'], src: '(?<![之提以事从目预])前(?:天|晚)', at: (_m, c) => day(addDays(c.today, -2)) },
  { relative: true, needs: ['后天'], src: '(?<![之然以今最过往落随稍])后天', at: (_m, c) => day(addDays(c.today, 2)) },
  { relative: true, needs: ['昨'], src: '昨(?:天|日|晚|儿|早|夜)', at: (_m, c) => day(addDays(c.today, -1)) },
  { relative: true, needs: ['明'], src: '明(?:天|日|晚|儿|早)', at: (_m, c) => day(addDays(c.today, 1)) },
  { relative: true, needs: ['今'], src: '今(?:天|日|晚|儿|早)', at: (_m, c) => day(c.today) },
  // the day before yesterday, (the) day after tomorrow, yesterday, last night, today, tonight, tomorrow
  { relative: true, needs: ['yesterday', 'tomorrow'], src: '\\b(?:the\\s+)?day\\s+(before\\s+yesterday|after\\s+tomorrow)\\b', at: (m, c) => day(addDays(c.today, m[1]!.startsWith('before') ? -2 : 2)) },
  { relative: true, needs: ['yesterday', 'last night'], src: '\\byesterday\\b|\\blast\\s+night\\b', at: (_m, c) => day(addDays(c.today, -1)) },
  { relative: true, needs: ['today', 'tonight', 'morning', 'afternoon', 'evening'], src: '\\btoday\\b|\\btonight\\b|\\bthis\\s+(?:morning|afternoon|evening)\\b', at: (_m, c) => day(c.today) },
  { relative: true, needs: ['tomorrow'], src: '\\btomorrow\\b', at: (_m, c) => day(addDays(c.today, 1)) },
  // 上周末, 这周末, 下下周末, 周末 (placed)
  { relative: true, needs: ['末'], src: `${SHIFT}?\\s*个?${WEEK}末`, at: (m, c) => {
    if (!m[1]) { const sat = c.weekend(); return { ...span(sat, addDays(sat, 1), false), guessed: true, bare: 1 }; }
    const sat = addDays(c.week, 7 * shiftOf(m[1]) + 5);
    return span(sat, addDays(sat, 1));
  } },
  // last weekend, this weekend, next weekend, (over) the weekend (placed)
  { relative: true, needs: ['weekend'], src: '\\b(?:(last|this|next|coming)\\s+)?weekend\\b', at: (m, c) => {
    if (!m[1]) { const sat = c.weekend(); return { ...span(sat, addDays(sat, 1), false), guessed: true, bare: 1 }; }
    const shift = m[1] === 'last' ? -1 : m[1] === 'next' ? 1 : m[1] === 'coming' && weekdayOf(c.today) === 6 ? 1 : 0;
    const sat = addDays(c.week, 7 * shift + 5);
    return span(sat, addDays(sat, 1));
  } },
  // 上周二, 上上周, 大上周, 这周三, 下下周一, 上个星期 (not 上周期)
  { relative: true, needs: ['周', '星期', '礼拜'], src: `${SHIFT}\\s*个?${WEEK}(?:${ZH_WDC}|(?!末|期|年|岁|刊|报|边|围))`, at: (m, c) => {
    const shift = shiftOf(m[1]);
    const ws = addDays(c.week, 7 * shift);
    if (m[2]) return day(addDays(ws, ZH_WD[m[2]]!));
    return { from: ws, to: addDays(ws, 6), unit: 'week', week: ws, deictic: true, ...(shift > 0 ? { day: ws } : {}) };
  } },
  // the week before last, the week after next; last / this / next week; the end of the week (its Friday)
  { relative: true, needs: ['week'], src: '\\bthe\\s+week\\s+(before\\s+last|after\\s+next)\\b', at: (m, c) => { const ws = addDays(c.week, m[1]!.startsWith('before') ? -14 : 14); return { from: ws, to: addDays(ws, 6), unit: 'week', week: ws, deictic: true }; } },
  { relative: true, needs: ['week'], src: '\\b(last|past|previous|this|next|coming)\\s+week\\b', at: (m, c) => {
    if (m[1] === 'this') return { from: c.week, to: c.today, unit: 'week', week: c.week, deictic: true };
    const ws = addDays(c.week, m[1] === 'next' || m[1] === 'coming' ? 7 : -7);
    return { from: ws, to: addDays(ws, 6), unit: 'week', week: ws, deictic: true, ...(ws > c.today ? { day: ws } : {}) };
  } },
  { relative: true, needs: ['week'], src: '\\b(?:the\\s+)?end\\s+of\\s+(?:the\\s+|this\\s+)?week\\b', at: (_m, c) => day(addDays(c.week, 4)) },
  // 周二, 星期天 alone (placed; not 每周一, 一周一次)
  { needs: ['周', '星期', '礼拜'], src: `(?<![上下本这个大每\\d一二两三四五六七八九十几第])${WEEK}${ZH_WDC}`, at: (m, c) => { const wd = ZH_WD[m[1]!]!; return { ...day(c.weekday(wd), false), guessed: true, bare: 1, wd }; } },
  // last Tuesday (the latest before today), next Friday (next week's), this Monday, coming Friday; on / by Friday (placed)
  { relative: true, needs: WDS, src: `\\b(?:(last|past|previous|this|next|coming|on|by|before|until)\\s+)?${WD}\\b`, at: (m, c) => {
    const wd = WDS.indexOf(m[2]!);
    const pre = m[1];
    if (pre === 'last' || pre === 'past' || pre === 'previous') return day(addDays(c.today, -(((weekdayOf(c.today) - wd + 7) % 7) || 7)));
    if (pre === 'next') return day(addDays(c.week, 7 + wd));
    if (pre === 'coming') return day(addDays(c.today, ((wd - weekdayOf(c.today) + 7) % 7) || 7));
    if (pre === 'this') return day(addDays(c.week, wd));
    return { ...day(c.weekday(wd), false), guessed: true, bare: pre === 'on' ? 1 : 2, wd };
  } },
  // 上个月, 上上个月, 大上个月, 下下个月, 这个月, 本月; 上个月3号, 下个月底, 下个月初
  { relative: true, needs: ['月'], src: `${SHIFT}\\s*个?月(?!饼|亮|光|球|台|嫂|季)(?:份)?(底|初)?(?:\\s*${DCN}\\s*[日号])?`, at: (m, c) => {
    const shift = shiftOf(m[1]);
    const [first, last] = monthRange(c.y, c.m + shift);
    const [y, mo] = [Number(first.slice(0, 4)), Number(first.slice(5, 7)) - 1];
    if (m[3]) { const v = validDay(y, mo, cnNumber(m[3])); return v ? day(v) : undefined; }
    if (m[2] === '底') return day(last);
    if (m[2] === '初') return span(first, validDay(y, mo, 10)!);
    return month(shift === 0 ? [first, c.today] : [first, last]);
  } },
  // 月底 (this month's last day), 月初
  { relative: true, needs: ['月底', '月初'], src: '(?<![\\d一二三四五六七八九十个上下本这])月(底|初)', at: (m, c) => (m[1] === '底' ? day(validDay(c.y, c.m, lastDay(c.y, c.m))!) : span(validDay(c.y, c.m, 1)!, validDay(c.y, c.m, 10)!)) },
  // the month before last; last / this / next month; the end of the month
  { relative: true, needs: ['month'], src: '\\bthe\\s+month\\s+before\\s+last\\b', at: (_m, c) => month(monthRange(c.y, c.m - 2)) },
  { relative: true, needs: ['month'], src: '\\b(last|past|previous|this|next)\\s+month\\b', at: (m, c) => (m[1] === 'this' ? month([monthRange(c.y, c.m)[0], c.today]) : month(monthRange(c.y, c.m + (m[1] === 'next' ? 1 : -1)))) },
  { relative: true, needs: ['month'], src: '\\b(?:the\\s+)?end\\s+of\\s+(?:the\\s+|this\\s+)?month\\b', at: (_m, c) => day(validDay(c.y, c.m, lastDay(c.y, c.m))!) },
  // 去年, 前年, 大前年, 今年 (to today), 明年, 后年
  { relative: true, needs: ['年'], src: '(?<![之以提从目大])前年|大前年|(?<!过)去年|今年|明年|(?<![之以然最过往落大])后年|大后年', at: (m, c) => {
    const n = { 大前年: -3, 前年: -2, 去年: -1, 今年: 0, 明年: 1, 后年: 2, 大后年: 3 }[m[0]]!;
    return yearRes(c.y + n, true, n === 0 ? c.today : undefined);
  } },
  // the year before last; last / this (to today) / next year
  { relative: true, needs: ['year'], src: '\\bthe\\s+year\\s+before\\s+last\\b', at: (_m, c) => yearRes(c.y - 2, true) },
  { relative: true, needs: ['year'], src: '\\b(last|past|previous|this|next)\\s+year\\b', at: (m, c) => (m[1] === 'this' ? yearRes(c.y, true, c.today) : yearRes(c.y + (m[1] === 'next' ? 1 : -1), true)) },
];
