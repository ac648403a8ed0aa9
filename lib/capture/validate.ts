/**
 * What an agent extracted with a model (templates/extract.md), checked before anything is
 * written: each item `{type, text, tags?, source?}` must have a known type and one line of text
 * (at most 400 characters), tags only from TAGS.md, and pass extraction's own filters (no
 * credential, no do-not-remember marker, no question, no speculation). Relative dates are made
 * absolute. A refusal names the item and the rule; a credential is never echoed.
 */
import { ENTRY_TYPES, CANONICAL_HOME, isEntryType } from '../format/entry.js';
import { scanSecrets } from '../store/guards/secrets.js';
import { absoluteDates } from './dates.js';
import type { Proposal } from './extract.js';
import { anyMatches, PRIVATE_MARKERS, QUESTION, SPECULATION } from './rules.js';

export const MAX_TEXT = 400;

export interface ItemError { item: number; rule: string; message: string }

export function validateItems(raw: unknown, o: { now: Date; tz: string; vocabulary?: Set<string> | undefined; /** The vocabulary's file, named in the error (TAGS.md; memory/TAGS.md in a memory not yet moved). */ vocabularyFile?: string }): { proposals: Proposal[]; errors: ItemError[] } {
  const proposals: Proposal[] = [];
  const errors: ItemError[] = [];
  if (!Array.isArray(raw)) return { proposals, errors: [{ item: 0, rule: 'shape', message: 'the file must hold a JSON list of {type, text, tags?, source?} items' }] };
  raw.forEach((it, i) => {
    const n = i + 1;
    const bad = (rule: string, message: string): void => { errors.push({ item: n, rule, message }); };
    if (!it || typeof it !== 'object' || Array.isArray(it)) return bad('shape', 'an item is an object {type, text, tags?, source?}');
    const x = it as { type?: unknown; text?: unknown; tags?: unknown; source?: unknown };
    const type = typeof x.type === 'string' ? x.type.toUpperCase() : '';
    if (!isEntryType(type)) return bad('type', `type must be one of ${ENTRY_TYPES.join(', ')}`);
    if (typeof x.text !== 'string' || !x.text.trim()) return bad('text', 'text must be a non-empty string');
    const text = x.text.trim();
    if (/[\r\n]/.test(text)) return bad('one-line', 'text must be one line');
    if (text.length > MAX_TEXT) return bad('length', `text is ${text.length} characters; at most ${MAX_TEXT}`);
    const secret = scanSecrets(text)[0];
    if (secret) return bad('secret', `holds a credential (${secret.rule}): never stored`);
    if (anyMatches(PRIVATE_MARKERS, text)) return bad('private', 'says it is not to be kept');
    if (anyMatches(QUESTION, text)) return bad('question', 'a question is not a fact');
    if (anyMatches(SPECULATION, text)) return bad('speculation', 'speculation is not a fact yet');
    const tags = x.tags === undefined ? [] : Array.isArray(x.tags) && x.tags.every((t) => typeof t === 'string') ? (x.tags as string[]).map((t) => t.replace(/^#/, '').toLowerCase()) : undefined;
    if (!tags) return bad('tags', 'tags must be a list of strings');
    const unknown = o.vocabulary ? tags.filter((t) => !o.vocabulary!.has(t)) : [];
    if (unknown.length) return bad('tag-vocabulary', `tag${unknown.length === 1 ? '' : 's'} not in ${o.vocabularyFile ?? 'TAGS.md'}: ${unknown.join(', ')}`);
    if (x.source !== undefined && typeof x.source !== 'string') return bad('source', 'source must be a string');
    const abs = absoluteDates(text, o.now, o.tz, { bareWeekdays: type === 'EVENT' });
    proposals.push({ message: i, sentence: 0, type, text: abs.text, tags, home: CANONICAL_HOME[type], rule: 'validated', dates: abs.dates, importance: 1 });
  });
  return { proposals, errors };
}
