/**
 * Recall history: per entry, how often `recall` (or `search --record`) answered with it (the
 * first results, creditedKeys), for which distinct queries, on which days, and when last. Activation, the hot tier and `dream`'s
 * promotion gates read it.
 *
 * Storage: `.memtier/recall-history.json` (derived bookkeeping, gitignored, not versioned in git;
 * losing it resets activation boosts and the hot tier, never memory). Format:
 *
 *   { "version": 1, "entries": { "<key>": { "count": 3, "queries": ["a1b2c3d4"], "days": ["2026-05-15"], "last": "2026-05-15T14:30:00.000Z" } } }
 *
 * Keys are an entry's `^id` when it has one, else `path#Lline`. Queries are 8-hex-digit SHA-1
 * prefixes of the normalized query (never the query text). Bounded: at most MAX_KEYS keys (the
 * least recently recalled are dropped first), MAX_QUERIES query hashes and MAX_DAYS days per key.
 *
 * Concurrency: every update is a read-modify-write inside `openStore(ctx).mutate` (the root's
 * lock) with an atomic replace, so concurrent writers never lose each other's updates and
 * readers (no lock) always see a whole file.
 */
import { createHash } from 'node:crypto';
import { localDate } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { openStore } from '../store/store.js';
import { HISTORY_FILE, parseHistory as parse, readRecallHistory, type RecallRecord } from './history-read.js';

export { HISTORY_FILE, readRecallHistory, type RecallRecord };

export const MAX_KEYS = 5000;
export const MAX_QUERIES = 32;
export const MAX_DAYS = 60;

interface HistoryFile { version: 1; entries: Record<string, RecallRecord> }

/** Short stable hash of a query (case, space and punctuation insensitive). */
export function queryHash(query: string): string {
  const norm = query.normalize('NFKC').toLowerCase().replace(/[\s\p{P}]+/gu, ' ').trim();
  return createHash('sha1').update(norm).digest('hex').slice(0, 8);
}

/**
 * What a recall block (or a recorded search) credits in the history: what answered, not all it
 * showed. The first result, and of the next ones (up to CREDIT.max in all) those scoring at least
 * CREDIT.share of the best shown; what comes below them only filled the room left, and crediting
 * it made long paragraphs that were never the answer hot (★) after a hundred recalls, above the
 * answers.
 */
export const CREDIT = { max: 3, share: 0.5 };

export function creditedKeys(shown: readonly { key: string; score: number }[]): string[] {
  const best = Math.max(0, ...shown.slice(0, CREDIT.max).map((r) => r.score));
  return shown.slice(0, CREDIT.max).filter((r, i) => i === 0 || r.score >= CREDIT.share * best).map((r) => r.key);
}

/** Record one recall of `keys` for `query` at ctx.clock.now(), under the root lock. */
export function recordRecalls(ctx: Ctx, keys: string[], query: string): void {
  const uniq = [...new Set(keys)].filter(Boolean);
  if (uniq.length === 0) return;
  const now = ctx.clock.now();
  const iso = now.toISOString();
  const day = localDate(now, ctx.clock.tz);
  const qh = queryHash(query);
  openStore(ctx).mutate((tx) => {
    const entries = parse(tx.read(HISTORY_FILE));
    for (const k of uniq) {
      const r = entries[k] ?? { count: 0, queries: [], days: [], last: iso };
      r.count += 1;
      if (!r.queries.includes(qh)) r.queries.push(qh);
      if (r.queries.length > MAX_QUERIES) r.queries = r.queries.slice(-MAX_QUERIES);
      if (!r.days.includes(day)) r.days.push(day);
      if (r.days.length > MAX_DAYS) r.days = r.days.slice(-MAX_DAYS);
      if (iso > r.last || r.count === 1) r.last = iso;
      entries[k] = r;
    }
    let keysOut = Object.keys(entries);
    if (keysOut.length > MAX_KEYS) {
      keysOut = keysOut.sort((a, b) => (entries[b]!.last < entries[a]!.last ? -1 : entries[b]!.last > entries[a]!.last ? 1 : a < b ? -1 : 1)).slice(0, MAX_KEYS);
    }
    const out: HistoryFile = { version: 1, entries: Object.create(null) as HistoryFile['entries'] };
    for (const k of keysOut.sort()) out.entries[k] = entries[k]!;
    tx.write(HISTORY_FILE, JSON.stringify(out) + '\n');
  });
}
