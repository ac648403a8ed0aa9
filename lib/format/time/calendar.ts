/**
 * Calendar arithmetic on local days (`YYYY-MM-DD`, zone-free), for reading time phrases.
 * Months are 0-based (0 = January) as in Date.
 */
import { addDays, weekdayOf } from '../../core/clock.js';

export { addDays, weekdayOf };

export const pad = (n: number): string => String(n).padStart(2, '0');
export const lastDay = (y: number, m: number): number => new Date(Date.UTC(y, m + 1, 0)).getUTCDate();

/** The day `d` of month `m` of year `y`, or undefined when there is none (31 April). */
export function validDay(y: number, m: number, d: number): string | undefined {
  if (!(m >= 0 && m <= 11 && d >= 1 && d <= lastDay(y, m))) return undefined;
  return `${y}-${pad(m + 1)}-${pad(d)}`;
}

/** The first and last day of a month; a month index out of 0–11 rolls into the year before or after. */
export function monthRange(y: number, m: number): [string, string] {
  const yy = y + Math.floor(m / 12);
  const mm = ((m % 12) + 12) % 12;
  return [`${yy}-${pad(mm + 1)}-01`, `${yy}-${pad(mm + 1)}-${pad(lastDay(yy, mm))}`];
}

/** `date` moved by whole months, its day kept where the month has it (31 March − 1 month → 28/29 February). */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = [Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))];
  const first = monthRange(y, m + months)[0];
  const yy = Number(first.slice(0, 4));
  const mm = Number(first.slice(5, 7)) - 1;
  return validDay(yy, mm, Math.min(d, lastDay(yy, mm)))!;
}

/** The Monday of the week `date` is in. */
export const mondayOf = (date: string): string => addDays(date, -weekdayOf(date));

/** The n-th (1-based) weekday `wd` (Monday = 0) of a month. */
export function nthWeekday(y: number, m: number, wd: number, n: number): string {
  const first = `${y}-${pad(m + 1)}-01`;
  return addDays(first, ((wd - weekdayOf(first) + 7) % 7) + 7 * (n - 1));
}
