/**
 * The injectable clock. Every date memtier writes or compares comes from `Clock`.
 * `MEMTIER_NOW` / `--now` fix the instant; `MEMTIER_TZ` fixes the zone that
 * decides which local day (episodic file) an instant belongs to.
 */
import { UsageError } from './errors.js';

export interface Clock {
  /** The current instant. Fixed when set by MEMTIER_NOW / --now. */
  now(): Date;
  /** IANA time zone used for local days and times, or LOCAL_TZ ("local") for the machine's zone. */
  readonly tz: string;
  /** True when the instant was set (MEMTIER_NOW / --now) rather than read from the system. */
  readonly fixed?: boolean;
}

/**
 * The zone name meaning "this machine's zone": local days come from Date's own getters, so a cold
 * call never pays for ICU (building an Intl.DateTimeFormat costs ~30 ms at start-up).
 */
export const LOCAL_TZ = 'local';

export function systemTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function validateTimeZone(tz: string): string {
  if (tz === LOCAL_TZ || tz === 'UTC') return tz;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch {
    throw new UsageError(`unknown time zone "${tz}"`, 'use an IANA zone name such as "Europe/Berlin" or "UTC" (MEMTIER_TZ)');
  }
}

/** Years `--now` / `MEMTIER_NOW` may name: file names and entry heads hold four-digit years after the epoch. */
export const NOW_YEARS = { min: 1970, max: 9999 } as const;

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parse an ISO-8601 instant (`2026-05-15T14:30:00Z`, offsets, seconds and fractions optional) or a
 * plain date (`2026-05-15`), strictly: a real calendar date (no 2026-02-30, which Date would roll
 * over into March), a real time of day, a year from 1970 to 9999. Anything else is a UsageError.
 */
export function parseInstant(value: string, source: string): Date {
  const v = value.trim();
  const shown = value.replace(/[^\x20-\x7e]/g, '?').slice(0, 60);
  const bad = (why: string): never => {
    throw new UsageError(`${source} is not a valid date/time: "${shown}" (${why})`, `use ISO-8601 with a real date from ${NOW_YEARS.min} to ${NOW_YEARS.max}, e.g. 2026-05-15T14:30:00Z or 2026-05-15`);
  };
  const m = ISO_INSTANT.exec(v);
  if (!m) bad('expected YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]');
  const [, ys, mos, ds, hs, mis, ss, zone] = m!;
  const y = Number(ys), mo = Number(mos), d = Number(ds);
  if (y < NOW_YEARS.min || y > NOW_YEARS.max) bad(`year ${ys} is outside ${NOW_YEARS.min}-${NOW_YEARS.max}`);
  if (mo < 1 || mo > 12) bad(`there is no month ${mos}`);
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d < 1 || d > days) bad(`${ys}-${mos} has ${days} days`);
  if (hs !== undefined && (Number(hs) > 23 || Number(mis) > 59 || (ss !== undefined && Number(ss) > 59))) bad('the time of day is out of range');
  if (zone && !/^z$/i.test(zone)) {
    const z = /^[+-](\d{2}):?(\d{2})$/.exec(zone)!;
    if (Number(z[1]) > 14 || Number(z[2]) > 59) bad(`the offset ${zone} is out of range`);
  }
  // A plain date means that day; noon UTC stays inside the day in any zone within ±11h.
  const d0 = new Date(hs === undefined ? `${ys}-${mos}-${ds}T12:00:00Z` : v.replace(' ', 'T'));
  if (Number.isNaN(d0.getTime())) bad('not a date');
  return d0;
}

export function makeClock(opts: { now?: string | undefined; tz?: string | undefined; source?: string }): Clock {
  const tz = opts.tz ? validateTimeZone(opts.tz) : LOCAL_TZ;
  if (opts.now) {
    const fixed = parseInstant(opts.now, opts.source ?? 'MEMTIER_NOW');
    return { tz, fixed: true, now: () => new Date(fixed.getTime()) };
  }
  return { tz, now: () => new Date() };
}

const partsCache = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = partsCache.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit',
      hourCycle: 'h23',
    });
    partsCache.set(tz, f);
  }
  return f;
}

export interface LocalParts { year: number; month: number; day: number; hour: number; minute: number; second: number }

export function localParts(d: Date, tz: string): LocalParts {
  if (tz === LOCAL_TZ) return { year: d.getFullYear(), month: d.getMonth() + 1, day: d.getDate(), hour: d.getHours(), minute: d.getMinutes(), second: d.getSeconds() };
  if (tz === 'UTC' || tz === 'Etc/UTC') return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds() };
  const out: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(d)) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return { year: out.year!, month: out.month!, day: out.day!, hour: out.hour! % 24, minute: out.minute!, second: out.second! };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `YYYY-MM-DD` of `d` in zone `tz`. */
export function localDate(d: Date, tz: string): string {
  const p = localParts(d, tz);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** `HH:MM` of `d` in zone `tz`. */
export function localTime(d: Date, tz: string): string {
  const p = localParts(d, tz);
  return `${pad(p.hour)}:${pad(p.minute)}`;
}

/** `YYYY-MM-DDTHH:MM:SS` local, for file names and reports. */
export function localStamp(d: Date, tz: string): string {
  const p = localParts(d, tz);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}

/** Add whole days to a `YYYY-MM-DD` date string (calendar arithmetic, zone-free). */
export function addDays(date: string, days: number): string {
  const t = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/** Whole days from `a` to `b` (both `YYYY-MM-DD`). */
export function daysBetween(a: string, b: string): number {
  return Math.round((dayMs(b) - dayMs(a)) / 86_400_000);
}

/** Each day's parse, kept: activation asks for the same few thousand days once per entry (half a million in years of logs). */
const DAY_MS = new Map<string, number>();
function dayMs(d: string): number {
  let v = DAY_MS.get(d);
  if (v === undefined) {
    if (DAY_MS.size >= 65_536) DAY_MS.clear(); // a long-running server: bounded
    v = Date.parse(`${d}T00:00:00Z`);
    DAY_MS.set(d, v);
  }
  return v;
}

/** Day of the week of a `YYYY-MM-DD` date, Monday = 0 … Sunday = 6. */
export function weekdayOf(date: string): number {
  return (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
}

/** ISO week `YYYY-Www` of a `YYYY-MM-DD` date. */
export function isoWeek(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  const day = (d.getUTCDay() + 6) % 7; // Monday = 0
  d.setUTCDate(d.getUTCDate() - day + 3); // Thursday of this week
  const year = d.getUTCFullYear();
  const jan4 = new Date(Date.UTC(year, 0, 4));
  const week = 1 + Math.round(((d.getTime() - jan4.getTime()) / 86_400_000 - 3 + ((jan4.getUTCDay() + 6) % 7)) / 7);
  return `${year}-W${pad(week)}`;
}

/** Why `YYYY-MM-DD` is not a day of the calendar (2026-13-45, 2026-02-30, 0000-00-00), or undefined when it is one. */
export function notACalendarDay(v: string): string | undefined {
  const [y, m, d] = v.split('-').map(Number) as [number, number, number];
  if (y < 1) return `there is no year ${v.slice(0, 4)}`;
  if (m < 1 || m > 12) return `there is no month ${v.slice(5, 7)}`;
  const days = new Date(Date.UTC(2000, m, 0)).getUTCDate() - (m === 2 && !(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)) ? 1 : 0);
  if (d < 1 || d > days) return `${v.slice(0, 7)} has ${days} days`;
  return undefined;
}
