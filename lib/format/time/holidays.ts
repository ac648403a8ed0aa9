/**
 * Holidays by name, in Chinese and English: each a pattern (over folded text: lower case,
 * simplified) and the days it names in a given year. A holiday's name is also a word a memory
 * writes ("五一去了青岛", "we watch Home Alone at Thanksgiving"), so search keeps it as a word too.
 *
 * The lunar festivals (Spring Festival, Lantern, Qingming, Dragon Boat, Mid-Autumn) come from the
 * checked-in table lunar-days.ts (1970–2069; outside it they name no days). The days named are the
 * holiday as people take it off: Spring Festival 除夕 to 初六 (the public holiday's usual 7 days),
 * Qingming, Dragon Boat and Mid-Autumn the day ±2 (any 3-day public holiday holding it), 五一 1–5
 * May, 国庆 1–7 October, 元旦 1–3 January, Christmas 24–26 December, Thanksgiving (US) Thursday to
 * Sunday; the others one day.
 */
import { addDays, nthWeekday } from './calendar.js';
import { FIRST_YEAR, LAST_YEAR, LUNAR_DAYS } from './lunar-days.js';

export interface Holiday {
  /** Pattern source (folded text), without flags. */
  re: string;
  /** Substrings the folded text must hold for `re` to match (see rules.ts). */
  needs: string[];
  days(y: number): [string, string] | undefined;
}

let lunar: Map<number, string[]> | undefined;

/** The year's lunar festival days (春节, 清明, 端午, 中秋 as YYYY-MM-DD), or undefined outside the table. */
export function lunarDays(y: number): string[] | undefined {
  if (y < FIRST_YEAR || y > LAST_YEAR) return undefined;
  if (!lunar) {
    lunar = new Map();
    for (const line of LUNAR_DAYS.trim().split('\n')) {
      const [year, ...days] = line.split(' ');
      lunar.set(Number(year), days.map((d) => `${year}-${d}`));
    }
  }
  return lunar.get(y);
}

const fixed = (from: string, to = from) => (y: number): [string, string] => [`${y}-${from}`, `${y}-${to}`];
const around = (i: number, before: number, after: number) => (y: number): [string, string] | undefined => {
  const d = lunarDays(y)?.[i];
  return d ? [addDays(d, -before), addDays(d, after)] : undefined;
};

// Numerals around 五一 and 十一 ("二十五一", "十一个") are numbers, not holidays.
const NOT_NUM = '(?<![\\d一二三四五六七八九十百千万第])';
const NO_NUM_AFTER = '(?![\\d一二三四五六七八九十个])';

export const HOLIDAYS: Holiday[] = [
  // Chinese New Year's Eve: the day before 正月初一
  { re: '除夕(?:夜)?|大年三十|年三十', needs: ['除夕', '年三十'], days: (y) => { const d = lunarDays(y)?.[0]; return d ? [addDays(d, -1), addDays(d, -1)] : undefined; } },
  { re: '元宵节|lantern festival', needs: ['元宵节', 'lantern'], days: (y) => { const d = lunarDays(y)?.[0]; return d ? [addDays(d, 14), addDays(d, 14)] : undefined; } },
  { re: '春节(?:假期|长假)?|过年(?:期间|的时候)?|(?:chinese|lunar) new year|spring festival', needs: ['春节', '过年', 'new year', 'spring festival'], days: (y) => { const d = lunarDays(y)?.[0]; return d ? [addDays(d, -1), addDays(d, 5)] : undefined; } },
  { re: '清明(?:节|假期|小长假)?|qingming(?: festival)?|tomb[- ]sweeping day', needs: ['清明', 'qingming', 'tomb'], days: around(1, 2, 2) },
  { re: '端午(?:节|假期|小长假)?|dragon boat festival', needs: ['端午', 'dragon boat'], days: around(2, 2, 2) },
  { re: '中秋(?:节|假期|小长假)?|mid[- ]?autumn(?: festival)?|moon festival', needs: ['中秋', 'autumn', 'moon festival'], days: around(3, 2, 2) },
  { re: `${NOT_NUM}五一(?:劳动节|假期|长假|小长假|黄金周|节)?${NO_NUM_AFTER}|劳动节`, needs: ['五一', '劳动节'], days: fixed('05-01', '05-05') },
  { re: `国庆(?:节|假期|长假|黄金周)?|${NOT_NUM}十一(?:假期|长假|小长假|黄金周)`, needs: ['国庆', '十一'], days: fixed('10-01', '10-07') },
  { re: '元旦(?:节|假期)?|new year\'?s day', needs: ['元旦', 'new year'], days: fixed('01-01', '01-03') },
  { re: 'new year\'?s eve', needs: ['new year'], days: fixed('12-31') },
  { re: '平安夜|christmas eve', needs: ['平安夜', 'christmas'], days: fixed('12-24') },
  { re: '圣诞(?:节|假期)?|\\bchristmas\\b|\\bxmas\\b', needs: ['圣诞', 'christmas', 'xmas'], days: fixed('12-24', '12-26') },
  { re: '(?<!白色)情人节|\\bvalentine\'?s(?: day)?', needs: ['情人节', 'valentine'], days: fixed('02-14') },
  { re: '\\bhalloween\\b', needs: ['halloween'], days: fixed('10-31') },
  // US Thanksgiving: the fourth Thursday of November, and the long weekend after it
  { re: '\\bthanksgiving\\b', needs: ['thanksgiving'], days: (y) => { const d = nthWeekday(y, 10, 3, 4); return [d, addDays(d, 3)]; } },
];
