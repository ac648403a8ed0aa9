/**
 * Relative dates in conversation text made absolute against the clock (or the day a note was
 * written, for notes of past days), for captured entries: "by Friday" → "by Friday (2026-05-22)",
 * "下周五之前" → "下周五 (2026-05-29)之前", "上周一到周三" → "上周一到周三 (2026-05-04/2026-05-06)".
 *
 * The phrases are read by lib/format/time (the one reading of time) leaning as a note does: a
 * weekday alone is its next occurrence (a deadline says when something is due), a day of the year
 * without its year the nearest one ("3 January" in a note of 28 December is next year's). What is
 * written is a phrase that names one day (a coming week named as a deadline: its Monday), or a
 * span written as one (ISO 8601's FROM/TO); a week, a month or a window around a day ("two weeks
 * ago") is left as it is.
 */
import { localDate } from '../core/clock.js';
import { readTimes } from '../format/time/read.js';

/**
 * `text` with each relative date followed by its day, " (YYYY-MM-DD)"; the days found (a span's
 * first day; whole dates written in the text last). A bare weekday ("on Friday", "周五") is a date
 * only where the text is about an event or a deadline (`bareWeekdays`): "never deploy on Friday
 * afternoons" names a habit, not a day.
 */
export function absoluteDates(text: string, now: Date, tz: string, opts: { bareWeekdays?: boolean; /** The day the text was written (YYYY-MM-DD), when not the clock's: a note of another day. */ today?: string; /** Run every rule, whether the text holds its words or not: the definition the gated run is tested against. */ allRules?: boolean } = {}): { text: string; dates: string[] } {
  const today = opts.today && /^\d{4}-\d{2}-\d{2}$/.test(opts.today) ? opts.today : localDate(now, tz);
  const found = readTimes(text, today, { lean: 'note', ...(opts.bareWeekdays === false ? { bareWeekdays: false } : {}), ...(opts.allRules ? { allRules: true } : {}) });
  const explicit = [...text.matchAll(/\b\d{4}-\d{2}-\d{2}\b/g)].map((m) => m[0]);
  const spans: { end: number; note: string; date: string }[] = [];
  for (const p of found) {
    if (p.absolute) continue;
    const note = p.unit === 'about' ? undefined : p.day ?? (p.unit === 'span' && p.joined ? `${p.from}/${p.to}` : undefined);
    if (!note) continue;
    // already followed by a date: nothing to add
    if (/^\s*\(?\d{4}-\d{2}-\d{2}/.test(text.slice(p.end))) continue;
    spans.push({ end: p.end, note, date: p.day ?? p.from });
  }
  let out = text;
  for (const s of [...spans].reverse()) out = `${out.slice(0, s.end)} (${s.note})${out.slice(s.end)}`;
  return { text: out, dates: [...new Set([...spans.map((s) => s.date), ...explicit])] };
}
