/**
 * `--also WORDS` (search, recall): the caller's alternates, words the question does not contain
 * (lib/search/secondary.ts). Repeatable; the values are joined.
 */
import type { Args, FlagSpec } from './spec.js';
import { flagStrings } from './spec.js';
import { UsageError } from '../core/errors.js';

/** The most characters of alternates (--also, the tools' `alternates`): a few words per idea, not a document. */
export const MAX_ALTERNATES_CHARS = 1000;

/** The --also values (repeatable; each one or more words) as one string of alternates, or undefined. */
export function alternatesFlag(args: Args): string | undefined {
  const vals = flagStrings(args, 'also');
  if (!vals?.length) return undefined;
  const text = vals.join('\n').trim();
  if (text.length > MAX_ALTERNATES_CHARS) throw new UsageError(`--also takes at most ${MAX_ALTERNATES_CHARS} characters of words in all, got ${text.length}`, 'give a few other words for what the question asks (synonyms, the other language, abbreviations), not a document');
  return text || undefined;
}

/** The --also flag of search and recall (one table row, so both say the same). */
export const ALSO_FLAG: FlagSpec = { name: 'also', type: 'string', value: 'WORDS', multiple: true, description: 'other words for what the question asks (the other language, abbreviations, likely wordings): searched below the question\'s own words, never a filter; repeatable (--also "tracing 链路追踪" --also on-call) or one string' };
