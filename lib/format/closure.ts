/**
 * The closure block that ends an episodic day (seed 004 mechanism 5), part of the file format:
 * how it is read (the health check), built and appended (`memtier close-day`, `health --fix`).
 *
 *   ## Closure
 *   Updated: 2026-05-14
 *   Decisions: use SQLite for the cache (^k2j3mx0a)
 *   Signal: pnpm needs --shamefully-hoist for expo (^k2j3q1b2)
 *   Open: none
 *
 * The block follows the day's last entry. It is read leniently: `- **Updated:** …` counts too.
 */
import { parseEntries, type LocatedEntry } from './entry.js';

export const CLOSURE_KEYS = ['Updated', 'Decisions', 'Signal', 'Open'] as const;

export const CLOSURE_HEADING = '## Closure';
/** One item in a closure line is cut to this many characters. */
export const ITEM_MAX = 80;
/** A whole closure line stays under this many characters (the rest is counted, not listed). */
export const LINE_MAX = 400;

const KEY_LINE = /^\s*(?:[-*]\s+)?(?:\*\*)?(updated|decisions|signal|open)(?:\*\*)?\s*:/i;

/** Which closure keys the given lines contain (canonical spelling). */
export function closureKeys(lines: string[]): Set<string> {
  const out = new Set<string>();
  for (const l of lines) {
    const m = KEY_LINE.exec(l);
    if (m) out.add(CLOSURE_KEYS.find((k) => k.toLowerCase() === m[1]!.toLowerCase())!);
  }
  return out;
}

/** Is this line a closure line (also when written as a bullet, which is then not an entry)? */
export function isClosureLine(line: string): boolean {
  return KEY_LINE.test(line);
}

/** Entries of a day, without the closure lines written as bullets (`- **Updated:** …`). */
export function dayEntries(text: string): LocatedEntry[] {
  return parseEntries(text).filter((e) => !KEY_LINE.test(e.raw));
}

export interface ClosureStatus {
  /** Keys present after the last entry. */
  have: Set<string>;
  /** Keys still to write after the last entry. */
  missing: string[];
  /** 1-based line of an earlier closure key that entries follow (the day went on after it was closed). */
  earlierBlockLine?: number;
}

/** `known`: the text's lines and dayEntries, when the caller has them. */
export function closureStatus(text: string, known?: { lines: string[]; entries: LocatedEntry[] }): ClosureStatus {
  const lines = known?.lines ?? text.split('\n');
  const entries = known?.entries ?? dayEntries(text);
  const last = entries.length ? entries[entries.length - 1]!.line : 0;
  const have = closureKeys(lines.slice(last));
  const missing = CLOSURE_KEYS.filter((k) => !have.has(k));
  const st: ClosureStatus = { have, missing };
  for (let i = 0; i < last - 1; i++) {
    if (KEY_LINE.test(lines[i]!) && !/^[-*] \d{2}:\d{2}/.test(lines[i]!)) { st.earlierBlockLine = i + 1; break; }
  }
  return st;
}

/** Text of an entry for a closure line: tags and the id removed, one short phrase, `(^id)` kept as a reference. */
export function shortItem(e: LocatedEntry, strip?: RegExp): string {
  let t = e.text.replace(/(?:^|\s)#[\p{L}][\p{L}\p{N}_/-]*/gu, '').trim();
  if (strip) t = t.replace(strip, '').trim();
  t = t.replace(/[;]+/g, ',');
  if ([...t].length > ITEM_MAX) t = [...t].slice(0, ITEM_MAX - 1).join('').trimEnd() + '…';
  return e.id ? `${t} (^${e.id})` : t;
}

/** Join items into one line value within LINE_MAX, "none" when empty. */
export function joinItems(items: string[]): string {
  if (items.length === 0) return 'none';
  let out = '';
  for (let i = 0; i < items.length; i++) {
    const next = out ? `${out}; ${items[i]}` : items[i]!;
    if ([...next].length > LINE_MAX && out) return `${out}; +${items.length - i} more`;
    out = next;
  }
  return out;
}

const norm = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();
const PENDING = /^(pending|blocker)\s*:\s*/i;
const DONE = /^done\s*:\s*/i;

export interface ClosureValues {
  Updated: string;
  Decisions: string;
  Signal: string;
  Open: string;
}

/**
 * The four values from a day's entries: Decisions from `[DECISION]` entries, Signal from
 * `[LESSON]` entries, Open from `pending:` / `blocker:` entries that no later `done:` entry of the
 * day closes (the WAL's matching: same text, or the done text contained in it).
 */
export function closureValues(date: string, entries: LocatedEntry[]): ClosureValues {
  const live = entries.filter((e) => !e.superseded);
  const decisions = live.filter((e) => e.type === 'DECISION').map((e) => shortItem(e));
  const signal = live.filter((e) => e.type === 'LESSON').map((e) => shortItem(e));
  const open: LocatedEntry[] = [];
  for (const e of live) {
    const text = e.text.replace(/(?:^|\s)#[\p{L}][\p{L}\p{N}_/-]*/gu, '').trim();
    if (PENDING.test(text)) { open.push(e); continue; }
    if (DONE.test(text)) {
      const k = norm(text.replace(DONE, ''));
      const i = open.findIndex((p) => {
        const pk = norm(p.text.replace(/(?:^|\s)#[\p{L}][\p{L}\p{N}_/-]*/gu, '').trim().replace(PENDING, ''));
        return pk === k || (k.length >= 4 && pk.includes(k));
      });
      if (i >= 0) open.splice(i, 1);
    }
  }
  return {
    Updated: date,
    Decisions: joinItems(decisions),
    Signal: joinItems(signal),
    Open: joinItems(open.map((e) => shortItem(e))),
  };
}

/**
 * What to append to a day's text so it ends with a complete closure block: the whole block
 * (heading and four lines) when none follows the last entry, only the missing keys when part
 * of one does, nothing (`undefined`) when it is complete.
 */
export function closureAppend(date: string, text: string): { append?: string; values: ClosureValues; status: ClosureStatus } {
  const status = closureStatus(text);
  const values = closureValues(date, dayEntries(text));
  if (status.missing.length === 0) return { values, status };
  // store.append adds the newline a last line lacks; one more makes the blank separator line —
  // but only before a new block: the missing lines of a partial block continue it directly
  const sep = status.have.size > 0 || text.length === 0 || text.endsWith('\n\n') ? '' : '\n';
  const keys = status.missing as (keyof ClosureValues)[];
  const head = status.have.size === 0 ? [CLOSURE_HEADING] : [];
  const body = [...head, ...keys.map((k) => `${k}: ${values[k]}`)].join('\n') + '\n';
  return { append: sep + body, values, status };
}
