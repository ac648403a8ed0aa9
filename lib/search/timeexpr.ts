/**
 * Time expressions in a query → a local date range, resolved against the clock.
 *
 * Hand-parsed (no 290 ms chrono-node load on the hot path): today, yesterday, the day before
 * yesterday, N days/weeks ago, last/this week|month|year, last Monday…Sunday / on Monday,
 * [in] May [2023], 8 May 2023, May 8[, 2023], 2023-05-08, in 2023, and Chinese 今天 昨天 前天
 * 上周[二] 本周/这周 周二/星期二 上个月 本月/这个月 去年 今年 2023年5月[8日] 5月8日; October 14 / 14 October /
 * Oct 14th without a year: the most recent such day.
 * Weeks start on Monday. "last Tuesday" is the latest Tuesday before today; 上周二 is the
 * Tuesday of the previous week.
 */
import { toSimplified } from '../format/han.js';
import { addDays, localDate, weekdayOf } from '../core/clock.js';
import { cnNumber } from '../format/compare.js';

export interface TimeRange {
  from: string;
  to: string;
  /** The phrases that produced the range (removed from the query's text terms). */
  phrases: string[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MON_RE = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const DAY_RE = '(monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const ZH_DAY: Record<string, number> = { 一: 0, 二: 1, 三: 2, 四: 3, 五: 4, 六: 5, 日: 6, 天: 6, '1': 0, '2': 1, '3': 2, '4': 3, '5': 4, '6': 5, '7': 6 };

/** Cheap precheck: does the text look like it holds a time expression at all? */
const PRECHECK = new RegExp(`\\b(today|tonight|yesterday|ago|last|this|past|${MON_RE}|${DAY_RE}|\\d{4})\\b|[今昨前去本这這上下大后後明]|周|週|星期|禮拜|礼拜|月|年|五一|\\d\\/\\d`, 'i');

/**
 * Full-width and traditional forms, one character for one (so a phrase found in the folded text is
 * the same span of the original): ５月３号 reads as 5月3号, 上週二 as 上周二 (lib/format/han.ts).
 */
function foldTime(q: string): string {
  let out = '';
  for (const ch of q) {
    const c = ch.codePointAt(0)!;
    out += c >= 0xff01 && c <= 0xff5e ? String.fromCodePoint(c - 0xfee0) : c === 0x3000 ? ' ' : ch;
  }
  return toSimplified(out);
}

const CN_NUM = '(\\d{1,2}|[一二两三四五六七八九十廿]{1,3})';

const pad = (n: number) => String(n).padStart(2, '0');
const monthIndex = (m: string) => MONTHS.findIndex((x) => x.startsWith(m.toLowerCase().slice(0, 3)));
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
const monthRange = (y: number, m: number) => ({ from: `${y}-${pad(m + 1)}-01`, to: `${y}-${pad(m + 1)}-${pad(lastDay(y, m))}` });

function validDay(y: number, m: number, d: number): string | undefined {
  if (m < 0 || m > 11 || d < 1 || d > lastDay(y, m)) return undefined;
  return `${y}-${pad(m + 1)}-${pad(d)}`;
}

/** Resolve the first time expression in `query` (undefined when none). */
export function parseTimeRange(query: string, now: Date, tz: string): TimeRange | undefined {
  if (!PRECHECK.test(query) && !/[\uff10-\uff19]/.test(query)) return undefined;
  const orig = query.toLowerCase();
  const q = foldTime(orig);
  const res = parseFolded(q, now, tz);
  // the phrases as they stand in the query (the fold keeps every character's place)
  if (res) res.phrases = res.phrases.map((p) => { const i = q.indexOf(p); return i >= 0 ? orig.slice(i, i + p.length) : p; });
  return res;
}

function parseFolded(q: string, now: Date, tz: string): TimeRange | undefined {
  const today = localDate(now, tz);
  const [ty, tm] = [Number(today.slice(0, 4)), Number(today.slice(5, 7)) - 1];
  const weekStart = addDays(today, -weekdayOf(today));
  const hit = (re: RegExp): RegExpExecArray | null => re.exec(q);
  const r = (from: string, to: string, phrase: string): TimeRange => ({ from, to, phrases: [phrase] });
  let m: RegExpExecArray | null;

  if ((m = hit(/\b(\d{4})-(\d{2})-(\d{2})\b/))) { const d = validDay(+m[1]!, +m[2]! - 1, +m[3]!); if (d) return r(d, d, m[0]); }
  if ((m = hit(/(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]/))) {
    const d = validDay(m[1] ? +m[1] : ty, +m[2]! - 1, +m[3]!); if (d) return r(d, d, m[0]);
  }
  if ((m = hit(/(\d{4})\s*年\s*(\d{1,2})\s*月/))) { const { from, to } = monthRange(+m[1]!, +m[2]! - 1); return r(from, to, m[0]); }
  if ((m = hit(new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MON_RE},?\\s+(\\d{4})\\b`)))) {
    const d = validDay(+m[3]!, monthIndex(m[2]!), +m[1]!); if (d) return r(d, d, m[0]);
  }
  if ((m = hit(new RegExp(`\\b${MON_RE}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`)))) {
    const d = validDay(+m[3]!, monthIndex(m[1]!), +m[2]!); if (d) return r(d, d, m[0]);
  }
  // a month and day without a year ("October 14", "Oct 14th", "14 October"): the most recent such day
  if ((m = hit(new RegExp(`\\b${MON_RE}\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?![:.\\d])`))) || (m = hit(new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MON_RE}\\b`)))) {
    const [mon, day] = /^\d/.test(m[1]!) ? [m[2]!, +m[1]!] : [m[1]!, +m[2]!];
    const mi = monthIndex(mon);
    const d = validDay(ty, mi, day);
    if (d) { const y = d > today ? ty - 1 : ty; const dd = validDay(y, mi, day); if (dd) return r(dd, dd, m[0]); }
  }
  if ((m = hit(new RegExp(`\\b(?:in\\s+|during\\s+)?${MON_RE},?\\s+(\\d{4})\\b`)))) {
    const { from, to } = monthRange(+m[2]!, monthIndex(m[1]!)); return r(from, to, m[0]);
  }
  if ((m = hit(/\b(?:in|during)\s+(\d{4})\b/)) || (m = hit(/(\d{4})\s*年/))) { const y = +m[1]!; if (y > 1900 && y < 2200) return r(`${y}-01-01`, `${y}-12-31`, m[0]); }
  // Chinese numerals and a month without its year: the most recent such day or month
  if ((m = hit(new RegExp(`${CN_NUM}\\s*月\\s*${CN_NUM}\\s*[日号]`)))) {
    const mo = cnNumber(m[1]!) - 1;
    const dd = cnNumber(m[2]!);
    const d = validDay(ty, mo, dd);
    if (d) { const dd2 = d > today ? validDay(ty - 1, mo, dd) : d; if (dd2) return r(dd2, dd2, m[0]); }
  }
  if ((m = hit(/五一(?:假期|长假|节|劳动节)?/))) { const y = today >= `${ty}-05-01` ? ty : ty - 1; return r(`${y}-05-01`, `${y}-05-05`, m[0]); }
  if ((m = hit(new RegExp(`(?<![\\d年个])${CN_NUM}\\s*月份?(?![\\d一二两三四五六七八九十]|\\s*[日号])`)))) {
    const mo = cnNumber(m[1]!) - 1;
    if (mo >= 0 && mo <= 11) { const y = mo > tm ? ty - 1 : ty; const { from, to } = monthRange(y, mo); return r(from, to, m[0]); }
  }
  // month/day as Chinese notes write it (5/3 is May 3), only in a query with Chinese in it
  if (/[\u3400-\u9fff]/.test(q) && (m = hit(/(?<![\d/.])(\d{1,2})\/(\d{1,2})(?![\d/.])/))) {
    const d = validDay(ty, +m[1]! - 1, +m[2]!);
    if (d) { const dd = d > today ? validDay(ty - 1, +m[1]! - 1, +m[2]!) : d; if (dd) return r(dd, dd, m[0]); }
  }
  if ((m = hit(/大前天/))) { const d = addDays(today, -3); return r(d, d, m[0]); }
  if ((m = hit(/大后天/))) { const d = addDays(today, 3); return r(d, d, m[0]); }
  if ((m = hit(/后天/))) { const d = addDays(today, 2); return r(d, d, m[0]); }
  if ((m = hit(/明天|明日/))) { const d = addDays(today, 1); return r(d, d, m[0]); }
  if ((m = hit(new RegExp(`${CN_NUM}\\s*(天|周|个星期|个礼拜|星期|礼拜)(?:之|以)?前`)))) {
    const n = cnNumber(m[1]!);
    if (n > 0) {
      if (m[2] === '天') { const d = addDays(today, -n); return r(d, d, m[0]); }
      const d = addDays(today, -7 * n);
      return r(addDays(d, -3), addDays(d, 3), m[0]);
    }
  }
  if ((m = hit(/(上上|上|这|本|下)?\s*(?:个)?(?:周|星期|礼拜)末/))) {
    const shift = m[1] === '上上' ? -14 : m[1] === '上' ? -7 : m[1] === '下' ? 7 : m[1] ? 0 : weekdayOf(today) >= 5 ? 0 : -7;
    const sat = addDays(weekStart, shift + 5);
    return r(sat, addDays(sat, 1), m[0]);
  }
  if ((m = hit(/(上上|下)\s*(?:个)?(?:周|星期|礼拜)\s*([一二三四五六日天1-7])?/))) {
    const start = addDays(weekStart, m[1] === '上上' ? -14 : 7);
    if (m[2]) { const d = addDays(start, ZH_DAY[m[2]]!); return r(d, d, m[0]); }
    return r(start, addDays(start, 6), m[0]);
  }
  if ((m = hit(/\bthe day before yesterday\b|前天/))) { const d = addDays(today, -2); return r(d, d, m[0]); }
  if ((m = hit(/\byesterday\b|\blast night\b|昨天|昨日|昨晚/))) { const d = addDays(today, -1); return r(d, d, m[0]); }
  if ((m = hit(/\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening)\b|今天|今日|今晚|今早/))) return r(today, today, m[0]);
  if ((m = hit(/\b(\d+|a|one|two|three|four|five|six|seven)\s+(day|week)s?\s+ago\b/))) {
    const words: Record<string, number> = { a: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7 };
    const n = words[m[1]!] ?? Number(m[1]);
    const days = m[2] === 'week' ? n * 7 : n;
    const d = addDays(today, -days);
    return m[2] === 'week' ? r(addDays(d, -3), addDays(d, 3), m[0]) : r(d, d, m[0]);
  }
  if ((m = hit(/(上|这|本)\s*(?:个)?(?:周|星期|礼拜)\s*([一二三四五六日天1-7])?/))) {
    const start = m[1] === '上' ? addDays(weekStart, -7) : weekStart;
    if (m[2]) { const d = addDays(start, ZH_DAY[m[2]]!); return r(d, d, m[0]); }
    return r(start, addDays(start, 6), m[0]);
  }
  if ((m = hit(/(?:周|星期|礼拜)([一二三四五六日天])/))) {
    let d = addDays(weekStart, ZH_DAY[m[1]!]!);
    if (d > today) d = addDays(d, -7);
    return r(d, d, m[0]);
  }
  if ((m = hit(/上个?月/))) { const y = tm === 0 ? ty - 1 : ty; const mm = (tm + 11) % 12; const { from, to } = monthRange(y, mm); return r(from, to, m[0]); }
  if ((m = hit(/(?:这个|本)月/))) return r(`${today.slice(0, 8)}01`, today, m[0]);
  if ((m = hit(/去年/))) return r(`${ty - 1}-01-01`, `${ty - 1}-12-31`, m[0]);
  if ((m = hit(/今年/))) return r(`${ty}-01-01`, today, m[0]);
  if ((m = hit(new RegExp(`\\b(?:last|past|previous)\\s+${DAY_RE}\\b`))) || (m = hit(new RegExp(`\\bon\\s+${DAY_RE}\\b`)))) {
    const target = DAYS.indexOf(m[1]!);
    let back = (weekdayOf(today) - target + 7) % 7;
    if (back === 0) back = 7;
    const d = addDays(today, -back);
    return r(d, d, m[0]);
  }
  if ((m = hit(/\b(last|past|previous|this)\s+(week|month|year)\b/))) {
    const last = m[1] !== 'this';
    if (m[2] === 'week') { const s = last ? addDays(weekStart, -7) : weekStart; return r(s, last ? addDays(s, 6) : today, m[0]); }
    if (m[2] === 'month') {
      if (!last) return r(`${today.slice(0, 8)}01`, today, m[0]);
      const { from, to } = monthRange(tm === 0 ? ty - 1 : ty, (tm + 11) % 12); return r(from, to, m[0]);
    }
    return last ? r(`${ty - 1}-01-01`, `${ty - 1}-12-31`, m[0]) : r(`${ty}-01-01`, today, m[0]);
  }
  if ((m = hit(new RegExp(`\\b(?:in|during)\\s+${MON_RE}\\b`)))) {
    const mi = monthIndex(m[1]!);
    const y = mi > tm ? ty - 1 : ty;
    const { from, to } = monthRange(y, mi); return r(from, to, m[0]);
  }
  return undefined;
}
