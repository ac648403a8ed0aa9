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

/** Parse an ISO-8601 instant or a plain date (taken as local midnight in `tz` … approximated as UTC midnight + offset). */
export function parseInstant(value: string, source: string): Date {
  const v = value.trim();
  // A plain date means the start of that day; use noon UTC to stay inside the day in any zone within ±11h.
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(v);
  const d = new Date(dateOnly ? `${v}T12:00:00Z` : v);
  if (Number.isNaN(d.getTime())) {
    throw new UsageError(
      `${source} is not a valid date/time: "${value}"`,
      'use ISO-8601, e.g. 2026-05-15T14:30:00Z or 2026-05-15',
    );
  }
  return d;
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
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
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
