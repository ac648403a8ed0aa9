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
import { addDays, localDate } from '../core/clock.js';

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
const PRECHECK = new RegExp(`\\b(today|yesterday|ago|last|this|past|${MON_RE}|${DAY_RE}|\\d{4})\\b|[今昨前去本这上]|周|星期|月|年`, 'i');

const pad = (n: number) => String(n).padStart(2, '0');
const monthIndex = (m: string) => MONTHS.findIndex((x) => x.startsWith(m.toLowerCase().slice(0, 3)));
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
const monthRange = (y: number, m: number) => ({ from: `${y}-${pad(m + 1)}-01`, to: `${y}-${pad(m + 1)}-${pad(lastDay(y, m))}` });
const weekday = (date: string) => (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday = 0

function validDay(y: number, m: number, d: number): string | undefined {
  if (m < 0 || m > 11 || d < 1 || d > lastDay(y, m)) return undefined;
  return `${y}-${pad(m + 1)}-${pad(d)}`;
}

/** Resolve the first time expression in `query` (undefined when none). */
export function parseTimeRange(query: string, now: Date, tz: string): TimeRange | undefined {
  if (!PRECHECK.test(query)) return undefined;
  const q = query.toLowerCase();
  const today = localDate(now, tz);
  const [ty, tm] = [Number(today.slice(0, 4)), Number(today.slice(5, 7)) - 1];
  const weekStart = addDays(today, -weekday(today));
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
  if ((m = hit(/\bthe day before yesterday\b|前天/))) { const d = addDays(today, -2); return r(d, d, m[0]); }
  if ((m = hit(/\byesterday\b|昨天|昨日/))) { const d = addDays(today, -1); return r(d, d, m[0]); }
  if ((m = hit(/\btoday\b|今天|今日/))) return r(today, today, m[0]);
  if ((m = hit(/\b(\d+|a|one|two|three|four|five|six|seven)\s+(day|week)s?\s+ago\b/))) {
    const words: Record<string, number> = { a: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7 };
    const n = words[m[1]!] ?? Number(m[1]);
    const days = m[2] === 'week' ? n * 7 : n;
    const d = addDays(today, -days);
    return m[2] === 'week' ? r(addDays(d, -3), addDays(d, 3), m[0]) : r(d, d, m[0]);
  }
  if ((m = hit(/(上|这|本)\s*(?:周|星期|礼拜)\s*([一二三四五六日天1-7])?/))) {
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
    let back = (weekday(today) - target + 7) % 7;
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
