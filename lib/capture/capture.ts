/**
 * Selective capture (seed 003): the one path for automatic writes. Given proposals (extraction),
 * each is checked against the memory before it is written:
 *
 *   contradiction  a live entry of the same type says the same of the same thing with another
 *               value ("port 8080" → "port 8081", "端口 8080" → "端口 8081") or the opposite
 *               ("deploys on Fridays" → "never deploy on Fridays"): the new entry is added and the
 *               caller supersedes the old one with it (the `supersede` format), reported
 *   change      the proposal says a fact changed to a new value ("钢琴课又改了，改到周日下午",
 *               "backup retention bumped to 30 days"; change.ts): the live typed entry of any type
 *               that names what changed (most of its words) and holds a value of the same kind (a
 *               time, a number outside a time) is superseded like a contradiction, and the new
 *               entry takes its type ("钢琴课每周六上午 10 点" [EVENT] → [EVENT])
 *   duplicate   a live entry of the same type says the same (token overlap ≥ 0.85, Dice over
 *               the search tokenizer's terms, the same numbers and no negation flipped): not
 *               added; that entry's activation is refreshed (a recall-history bump, as a search
 *               hit gets)
 *
 * and the rest are written in one store transaction as typed entries of today's log (the way
 * `memtier add` writes them), their tags from TAGS.md. `add` and `wal` stay literal.
 */
import type { Ctx } from '../core/context.js';
import { recordRecalls } from '../search/history.js';
import { CANONICAL_HOME } from '../format/entry.js';
import { search, type SearchResult } from '../search/search.js';
import { tokenize } from '../search/tokenize.js';
import { openStore } from '../store/store.js';
import { addEntriesTx, type AddedEntry } from '../wal/episodic.js';
import { finishRotationTx } from '../wal/rotate.js';
import { changeOf, holdsKind } from './change.js';
import type { Proposal } from './extract.js';

export const DUPLICATE_SIMILARITY = 0.85;

export const CONTRADICTION_SIMILARITY = 0.6;
/** A flipped negation needs more words in common than a changed value: "not X" is often about another X. */
export const NEGATION_SIMILARITY = 0.75;

/** The share of the words of what changed that the entry it changes must hold (all of them for a change to a word, not a time or a number). */
export const CHANGE_SUBJECT_COVERAGE = 0.6;

export interface Captured extends Proposal {
  added?: AddedEntry;
  duplicateOf?: string;
  /** The live entry this one contradicts (path#Lline and its ^id when it has one), and why. */
  contradicts?: { cite: string; path: string; line: number; id?: string; reason: string };
}

const NEGATION = /\b(?:never|not|no longer|don'?t|doesn'?t|won'?t|isn'?t|aren'?t|can'?t|stop(?:ped)?|avoid)\b|不|别|没|禁止|停止|不再|不要/i;
const NUMBER = /\d+(?:\.\d+)*/g;

const terms = (s: string): Set<string> => new Set(tokenize(s.replace(NUMBER, ' ')));

function dice(A: Set<string>, B: Set<string>): number {
  if (!A.size || !B.size) return 0;
  let both = 0;
  for (const t of A) if (B.has(t)) both++;
  return (2 * both) / (A.size + B.size);
}

/** Dice similarity of two texts' term sets. */
export function similarity(a: string, b: string): number {
  return dice(new Set(tokenize(a)), new Set(tokenize(b)));
}

/** The numbers of a text with the word before each (its attribute): "port 8080" → port=8080. */
function valued(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/([\p{L}][\p{L}_-]*)\s*[:=：]?\s*(\d+(?:\.\d+)*)/gu)) out.set(m[1]!.toLowerCase().slice(-4), m[2]!);
  return out;
}

/**
 * Why `next` contradicts `old` (same subject and attribute, another value, or the opposite), or
 * undefined: the words around the numbers and negations must mostly agree first.
 */
export function contradiction(old: string, next: string): string | undefined {
  if (dice(terms(old), terms(next)) < CONTRADICTION_SIMILARITY) return undefined;
  const a = valued(old);
  const b = valued(next);
  for (const [attr, v] of b) {
    const was = a.get(attr);
    if (was !== undefined && was !== v) return `another value (${was} → ${v})`;
  }
  if (NEGATION.test(old) !== NEGATION.test(next) && dice(terms(old), terms(next)) >= NEGATION_SIMILARITY) return NEGATION.test(next) ? 'says the opposite (now negated)' : 'says the opposite (no longer negated)';
  return undefined;
}

/** Where a fact a change supersedes lives: logs and notes (not MEMORY.md's index, session state, generated views or the archive). */
const CHANGEABLE = new Set(['episodic', 'buffer', 'legacy-daily', 'semantic', 'procedural', 'knowledge', 'note']);

/** The words of a text without its numbers and dates (what a change's subject is matched by). */
const words = (s: string): string[] => [...new Set(tokenize(s))].filter((t) => !/^\d/.test(t));

/** The live typed entry a change proposal changes (change.ts), or undefined. */
async function changedEntry(ctx: Ctx, p: Proposal): Promise<{ h: SearchResult; why: string } | undefined> {
  const change = changeOf(p.text);
  if (!change) return undefined;
  const subject = words(change.subject);
  if (!subject.length) return undefined;
  const need = change.kind === 'other' ? 1 : CHANGE_SUBJECT_COVERAGE;
  for (const h of await search(ctx, change.subject, { k: 8 })) {
    if (!h.type || !CHANGEABLE.has(h.kind)) continue;
    const has = new Set(tokenize(h.text));
    if (subject.filter((t) => has.has(t)).length / subject.length < need || !holdsKind(h.text, change.kind)) continue;
    return { h, why: `changed to ${change.to}` };
  }
  return undefined;
}

/** Write the proposals that are not duplicates; report each with what happened. */
export async function capture(ctx: Ctx, proposals: Proposal[]): Promise<Captured[]> {
  const out: Captured[] = [];
  const fresh: Captured[] = [];
  const bumps: string[] = [];
  for (const p of proposals) {
    const hits = await search(ctx, p.text, { k: 5, type: p.type });
    const against = hits.map((h) => ({ h, why: contradiction(h.text, p.text) })).find((x) => x.why);
    const dup = against ? undefined : hits.find((h) => similarity(h.text, p.text) >= DUPLICATE_SIMILARITY && (h.text.match(NUMBER) ?? []).join() === (p.text.match(NUMBER) ?? []).join());
    const changed = against || dup ? undefined : await changedEntry(ctx, p);
    if (against ?? changed) {
      const { h, why } = (against ?? changed)!;
      // a change takes the type of the entry it changes: one home per fact
      const type = changed?.h.type ?? p.type;
      const c: Captured = { ...p, type, home: CANONICAL_HOME[type], contradicts: { cite: `${h.path}#L${h.line}`, path: h.path, line: h.line, ...(h.id ? { id: h.id } : {}), reason: why! } };
      fresh.push(c);
      out.push(c);
    } else if (dup) {
      bumps.push(dup.key);
      out.push({ ...p, duplicateOf: `${dup.path}#L${dup.line}` });
    } else {
      const c: Captured = { ...p };
      fresh.push(c);
      out.push(c);
    }
  }
  if (fresh.length) {
    const added = openStore(ctx).mutate((tx) => {
      finishRotationTx(tx, ctx);
      return addEntriesTx(tx, ctx, fresh.map((p) => ({ text: p.text, type: p.type, tags: p.tags })));
    });
    fresh.forEach((p, i) => { p.added = added[i]; });
  }
  if (bumps.length) recordRecalls(ctx, bumps, 'capture: seen again');
  return out;
}
