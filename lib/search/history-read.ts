/**
 * Reading the recall history, without the store (kept out of the search hot path's imports).
 * The format and the writer are in history.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RecallRecord {
  count: number;
  /** Distinct short query hashes. */
  queries: string[];
  /** Days (YYYY-MM-DD, local) the entry was recalled on. */
  days: string[];
  /** Last recall, ISO instant. */
  last: string;
}

export const HISTORY_FILE = '.memtier/recall-history.json';

/**
 * The history's entries as a null-prototype map: keys are entry ids a person may have written
 * (`^constructor` is a valid id), never looked up on Object.prototype. Malformed records are dropped.
 */
export function parseHistory(text: string | undefined): Record<string, RecallRecord> {
  const out = Object.create(null) as Record<string, RecallRecord>;
  if (!text) return out;
  try {
    const j = JSON.parse(text) as { version?: number; entries?: Record<string, RecallRecord> };
    if (j && j.version === 1 && j.entries && typeof j.entries === 'object') {
      for (const [k, r] of Object.entries(j.entries)) {
        if (r && typeof r === 'object' && typeof r.count === 'number' && Array.isArray(r.queries) && Array.isArray(r.days) && typeof r.last === 'string') out[k] = r;
      }
    }
  } catch { /* a damaged history is derived data: start again */ }
  return out;
}

/** The whole history (empty when missing or unreadable). */
export function readRecallHistory(root: string): Map<string, RecallRecord> {
  let text: string | undefined;
  try { text = readFileSync(join(root, HISTORY_FILE), 'utf8'); } catch { text = undefined; }
  return new Map(Object.entries(parseHistory(text)));
}
