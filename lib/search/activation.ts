/**
 * Activation and decay (seed 000, per-type half-lives from seed 003).
 *
 * Activation is a number in [0, 1] computed — never stored — from an entry's date, its type and
 * its recall history, at the injected clock:
 *
 *   base     = 0.5 ^ (age / halfLife)                       age = days since the entry's date
 *   recalled = min(1, 0.5 ^ (ageAtLastRecall / halfLife) + RECALL_BOOST × recallCount)
 *              × 0.5 ^ (daysSinceLastRecall / halfLife)
 *   activation = max(base, recalled)
 *
 * i.e. each recall adds 0.3 (capped at 1.0) and decay restarts from the last recall. An entry
 * without a date (a note section without `created`/`last_verified`) has no age: activation 1.
 * Days are whole local days in the clock's zone, so the value is deterministic.
 */
import { daysBetween, localDate } from '../core/clock.js';
import type { EntryType } from '../format/entry.js';

/** `recall`'s automatic block leaves out entries below this (unless asked for). */
export const RECALL_THRESHOLD = 0.15;
/** Below this an entry is eligible for pruning (archived, still searchable). */
export const PRUNE_THRESHOLD = 0.05;
/** Added to activation on each recall, capped at 1.0. */
export const RECALL_BOOST = 0.3;
/** Entries recalled this many times or more form the hot tier. */
export const HOT_RECALL_COUNT = 5;
/** Default half-life in days. */
export const DEFAULT_HALF_LIFE = 30;

/**
 * Half-life in days per entry type: lessons never decay; preferences and knowledge
 * (decisions, people, notes under knowledge/) 90 days; tools 30; events 14; TEMP 7; default 30.
 * `kind` (a FileKind from lib/format/layout) lets untyped knowledge/ sections use 90 days.
 */
export function halfLifeDays(type?: EntryType, kind?: string): number {
  switch (type) {
    case 'LESSON': return Infinity;
    case 'PREF': case 'DECISION': case 'PEOPLE': return 90;
    case 'TECH': case 'PROJ': return 30;
    case 'EVENT': return 14;
    case 'TEMP': return 7;
    default: return kind === 'knowledge' ? 90 : DEFAULT_HALF_LIFE;
  }
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}/;

function decay(days: number, halfLife: number): number {
  if (!Number.isFinite(halfLife)) return 1;
  return Math.pow(0.5, Math.max(0, days) / halfLife);
}

export interface ActivationInput {
  type?: EntryType;
  /** The entry's date `YYYY-MM-DD` (or an ISO instant). */
  date?: string;
  /** Last recall, ISO instant or `YYYY-MM-DD`. */
  lastRecall?: string;
  recallCount?: number;
  /** Optional file kind (see halfLifeDays). */
  kind?: string;
}

/** Activation in [0, 1] at `now` (see the module comment for the formula). */
export function activation(input: ActivationInput, now: Date, tz: string): number {
  return activationOn(input, localDate(now, tz), tz);
}

/** The same, with today's local date already computed (the ranking calls it per entry). */
export function activationOn(input: ActivationInput, today: string, tz: string): number {
  const hl = halfLifeDays(input.type, input.kind);
  const day = (s: string | undefined): string | undefined => {
    if (!s) return undefined;
    if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return s;
    const t = Date.parse(s);
    if (!Number.isNaN(t)) return localDate(new Date(t), tz);
    return DATE_RE.test(s) ? s.slice(0, 10) : undefined;
  };
  const date = day(input.date);
  const base = date ? decay(daysBetween(date, today), hl) : 1;
  const count = input.recallCount ?? 0;
  const last = day(input.lastRecall);
  if (count <= 0 || !last) return clamp(base);
  const atRecall = date ? decay(daysBetween(date, last), hl) : 1;
  const recalled = Math.min(1, atRecall + RECALL_BOOST * count) * decay(daysBetween(last, today), hl);
  return clamp(Math.max(base, recalled));
}

function clamp(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
