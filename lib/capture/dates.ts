/**
 * Relative dates in conversation text made absolute against the clock (or the day a note was
 * written, for notes of past days), for captured entries:
 * "by Friday" → "by Friday (2026-05-22)", "下周五之前" → "下周五 (2026-05-29) 之前". Forward-looking
 * (a deadline says when something is due): a bare weekday is its next occurrence, "next Friday"
 * the Friday of next week. Past phrases (yesterday, last Monday, 昨天, 上周二) resolve too.
 */
import { addDays, localDate, weekdayOf } from '../core/clock.js';
import { nativeFirst } from '../core/regexp.js';
import { cnNumber } from '../format/compare.js';
import { toSimplified } from '../format/han.js';
import { caseless, withCase } from './rules.js';

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const ZH_DAY: Record<string, number> = { 一: 0, 二: 1, 三: 2, 四: 3, 五: 4, 六: 5, 日: 6, 天: 6 };
const lastOfMonth = (date: string): string => {
  const [y, m] = [Number(date.slice(0, 4)), Number(date.slice(5, 7))];
  return `${y}-${String(m).padStart(2, '0')}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
};

/**
 * A rule, and the words it cannot match without (`needs`, any of them, in lower case): a rule
 * whose words are not in the text is not run, so a cold process compiles only the few rules a
 * sentence could use.
 */
interface Rule {
  re: RegExp;
  needs: string[];
  at(m: RegExpExecArray, today: string): string | undefined;
  bare?: boolean;
  /** Case-insensitive: `re` (lower case, no `i` flag) runs over the text lower-cased (caseless(): V8 compiles an `i` pattern at about twice the cost). */
  caseless?: boolean;
}

const weekStart = (today: string): string => addDays(today, -weekdayOf(today));

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
// a month as people write it in English: capitalized, full or short ("May" only in full, a word anyway)
const MONTH = '(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\\.?';

/**
 * A named day of the year ("17 December", "December 17th", "12月17日"): in the year that puts it
 * nearest the day the text was written (a note of 28 December naming "3 January" means next year's;
 * one of 5 January naming "28 December", last year's); an impossible day (31 April) is none.
 */
function namedDay(month: number, day: number, today: string, year?: number): string | undefined {
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31)) return undefined;
  const ty = Number(today.slice(0, 4));
  const at = (y: number): string | undefined => {
    const d = new Date(Date.UTC(y, month - 1, day));
    return d.getUTCMonth() === month - 1 ? `${y}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}` : undefined;
  };
  if (year) return at(year);
  const gap = (d: string): number => Math.abs(Date.parse(d) - Date.parse(today));
  const options = [ty - 1, ty, ty + 1].map(at).filter((d): d is string => d !== undefined);
  return options.sort((a, b) => gap(a) - gap(b))[0];
}
const monthNumber = (name: string): number => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;

const RULES: Rule[] = [
  { caseless: true, needs: ['tomorrow'], re: /\bday after tomorrow\b/g, at: (_m, t) => addDays(t, 2) },
  { caseless: true, needs: ['tomorrow'], re: /\btomorrow\b/g, at: (_m, t) => addDays(t, 1) },
  { caseless: true, needs: ['today', 'tonight'], re: /\btoday\b|\btonight\b/g, at: (_m, t) => t },
  { caseless: true, needs: ['yesterday'], re: /\byesterday\b/g, at: (_m, t) => addDays(t, -1) },
  { caseless: true, needs: ['next week'], re: /\bnext week\b/g, at: (_m, t) => addDays(weekStart(t), 7) },
  { caseless: true, needs: ['month'], re: /\b(?:the )?end of (?:the |this )?month\b/g, at: (_m, t) => lastOfMonth(t) },
  { caseless: true, needs: ['week'], re: /\b(?:the )?end of (?:the |this )?week\b/g, at: (_m, t) => addDays(weekStart(t), 4) },
  { caseless: true, needs: ['day'], re: /\bin (\d{1,2}) days?\b/g, at: (m, t) => addDays(t, Number(m[1])) },
  { caseless: true, needs: ['week'], re: /\bin (\d{1,2}) weeks?\b/g, at: (m, t) => addDays(t, 7 * Number(m[1])) },
  { caseless: true, needs: ['next'], re: new RegExp(`\\bnext (${DAYS.join('|')})\\b`, 'g'), at: (m, t) => addDays(weekStart(t), 7 + DAYS.indexOf(m[1]!.toLowerCase())) },
  { caseless: true, needs: ['last'], re: new RegExp(`\\blast (${DAYS.join('|')})\\b`, 'g'), at: (m, t) => { const d = DAYS.indexOf(m[1]!.toLowerCase()); const back = (weekdayOf(t) - d + 7) % 7 || 7; return addDays(t, -back); } },
  { caseless: true, bare: true, needs: ['day'], re: new RegExp(`\\b(?:this |on |by |before |until )?(${DAYS.join('|')})\\b`, 'g'), at: (m, t) => { const d = DAYS.indexOf(m[1]!.toLowerCase()); const ahead = (d - weekdayOf(t) + 7) % 7 || 7; return addDays(t, ahead); } },
  { needs: MONTHS, re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?(?: of)? ${MONTH}(?:,? (\\d{4}))?\\b`, 'g'), at: (m, t) => namedDay(monthNumber(m[2]!), Number(m[1]), t, m[3] ? Number(m[3]) : undefined) },
  { needs: MONTHS, re: new RegExp(`\\b${MONTH} (\\d{1,2})(?:st|nd|rd|th)?\\b(?![:.]\\d)(?:,? (\\d{4})\\b)?`, 'g'), at: (m, t) => namedDay(monthNumber(m[1]!), Number(m[2]), t, m[3] ? Number(m[3]) : undefined) },
  { needs: ['月'], re: /(?:(\d{4})年)?(\d{1,2})月(\d{1,2})[日号號]/g, at: (m, t) => namedDay(Number(m[2]), Number(m[3]), t, m[1] ? Number(m[1]) : undefined) },
  { needs: ['大后天'], re: /大后天/g, at: (_m, t) => addDays(t, 3) },
  { needs: ['后天'], re: /后天/g, at: (_m, t) => addDays(t, 2) },
  { needs: ['明天', '明日'], re: /明天|明日/g, at: (_m, t) => addDays(t, 1) },
  { needs: ['今天', '今晚', '今日'], re: /今天|今晚|今日/g, at: (_m, t) => t },
  { needs: ['昨天'], re: /昨天/g, at: (_m, t) => addDays(t, -1) },
  { needs: ['下'], re: /下(?:个)?(?:周|星期|礼拜)([一二三四五六日天])/g, at: (m, t) => addDays(weekStart(t), 7 + ZH_DAY[m[1]!]!) },
  { needs: ['上'], re: /上(?:个)?(?:周|星期|礼拜)([一二三四五六日天])/g, at: (m, t) => addDays(weekStart(t), -7 + ZH_DAY[m[1]!]!) },
  { needs: ['本', '这'], re: /(?:本|这)(?:个)?(?:周|星期|礼拜)([一二三四五六日天])/g, at: (m, t) => addDays(weekStart(t), ZH_DAY[m[1]!]!) },
  { bare: true, needs: ['周', '星期', '礼拜'], re: /(?<![上下本这])(?:周|星期|礼拜)([一二三四五六日天])/g, at: (m, t) => { const d = ZH_DAY[m[1]!]!; const ahead = (d - weekdayOf(t) + 7) % 7 || 7; return addDays(t, ahead); } },
  { needs: ['下'], re: /下(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天])/g, at: (_m, t) => addDays(weekStart(t), 7) },
  { needs: ['月底'], re: /月底/g, at: (_m, t) => lastOfMonth(t) },
  { needs: ['天后', '天後', '天之后', '天之後'], re: /(\d{1,2}|[一两二三四五六七八九十廿]{1,3})\s*天(?:之)?[后後]/g, at: (m, t) => { const n = cnNumber(m[1]!); return Number.isNaN(n) ? undefined : addDays(t, n); } },
];

/** Any rule's words (the union of `needs`): a sentence without one holds no relative date, and one test says so. */
const ANY_NEEDED = new RegExp([...new Set(RULES.flatMap((r) => r.needs))].map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));

/**
 * `text` with each relative date followed by its day, " (YYYY-MM-DD)"; the days found. A bare
 * weekday ("on Friday", "周五") is a date only where the text is about an event or a deadline
 * (`bareWeekdays`): "never deploy on Friday afternoons" names a habit, not a day.
 */
export function absoluteDates(text: string, now: Date, tz: string, opts: { bareWeekdays?: boolean; /** The day the text was written (YYYY-MM-DD), when not the clock's: a note of another day. */ today?: string; /** Run every rule, `needs` or not, a caseless one with the `i` flag over the text: the definition the gated, folded run is tested against. */ allRules?: boolean } = {}): { text: string; dates: string[] } {
  const explicit = [...text.matchAll(/\b\d{4}-\d{2}-\d{2}\b/g)].map((m) => m[0]);
  // most sentences name no day: a rule runs (and is compiled) only when its words are there
  const lower = toSimplified(text.toLowerCase());
  if (!opts.allRules && !ANY_NEEDED.test(lower)) return { text, dates: [...new Set(explicit)] };
  let today: string | undefined;
  let low: string | null | undefined;
  let simp: string | undefined;
  const spans: { start: number; end: number; date: string }[] = [];
  for (const r of RULES) {
    if (r.bare && opts.bareWeekdays === false) continue;
    if (!opts.allRules && !r.needs.some((w) => lower.includes(w))) continue;
    // a caseless rule over the lower-cased text (the same length, so a match is where it is in the text)
    const folded = r.caseless && !opts.allRules ? (low ??= caseless(text) ?? null) : null;
    const re = nativeFirst(r.caseless && folded === null ? withCase(r.re) : r.re);
    // a Chinese rule reads traditional characters as simplified (下週五 is 下周五; same length)
    const subject = folded ?? (r.caseless ? text : (simp ??= toSimplified(text)));
    re.lastIndex = 0;
    for (let m = re.exec(subject); m; m = re.exec(subject)) {
      const start = m.index;
      const end = start + m[0].length;
      if (spans.some((s) => start < s.end && end > s.start)) continue;
      // already followed by a date: nothing to add
      if (/^\s*\(?\d{4}-\d{2}-\d{2}/.test(text.slice(end))) continue;
      const date = r.at(m, (today ??= opts.today && /^\d{4}-\d{2}-\d{2}$/.test(opts.today) ? opts.today : localDate(now, tz)));
      if (date) spans.push({ start, end, date });
    }
  }
  spans.sort((a, b) => b.start - a.start);
  let out = text;
  for (const s of spans) out = `${out.slice(0, s.end)} (${s.date})${out.slice(s.end)}`;
  return { text: out, dates: [...new Set([...spans.map((s) => s.date).reverse(), ...explicit])] };
}
