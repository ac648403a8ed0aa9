/**
 * The time a query names → a local date range, resolved against the clock: search's view of
 * lib/format/time (the one reading of time; every phrase it understands is listed there).
 *
 * Of several phrases, a date written whole (8 May 2023, 2025年10月1日) wins over a relative one
 * ("the weekend before April 10, 2023": the relative phrase is most likely relative to it), and a
 * relative one over a phrase placed by guess (a month alone, 周五); among equals, the first.
 */
import { localDate } from '../core/clock.js';
import { readTimes, type TimePhrase } from '../format/time/read.js';

export interface TimeRange {
  from: string;
  to: string;
  /** The phrase that produced the range, as the query writes it (lower case). */
  phrases: string[];
  /**
   * Its words taken out of the query's text terms: those of a date written whole (5月3日, 8 May
   * 2023). A relative phrase's words and a holiday's name stay words too, for a memory tells of a
   * time in them ("I volunteered at a career fair last weekend", 五一去了青岛).
   */
  strip: string[];
}

const rankOf = (p: TimePhrase): number => (p.guessed ? 2 : p.deictic ? 1 : 0);

/** Resolve the time `query` names (undefined when none). */
export function parseTimeRange(query: string, now: Date, tz: string): TimeRange | undefined {
  const found = readTimes(query, localDate(now, tz), { lean: 'ask' });
  if (!found.length) return undefined;
  const best = found.reduce((a, b) => (rankOf(b) < rankOf(a) ? b : a));
  const lower = query.toLowerCase();
  const said = (s: number, e: number): string => (lower.length === query.length ? lower.slice(s, e) : query.slice(s, e).toLowerCase());
  // the phrase less its holiday names, piece by piece
  const strip: string[] = [];
  let at = best.start;
  for (const k of best.keep) {
    const i = query.indexOf(k, at);
    if (i < 0) continue;
    if (i > at) strip.push(said(at, i));
    at = i + k.length;
  }
  if (at < best.end) strip.push(said(at, best.end));
  return { from: best.from, to: best.to, phrases: [said(best.start, best.end)], strip: best.deictic ? [] : strip.map((s) => s.trim()).filter(Boolean) };
}
