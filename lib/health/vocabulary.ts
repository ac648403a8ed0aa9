/**
 * The frozen tag vocabulary: TAGS.md at the memory root (memory/TAGS.md in a memory made before it
 * moved, until `memtier health --fix` moves it: layout.tagsFile). Read leniently: every tag named
 * on a bullet, after a `category:` label, as a `#tag` or as a heading counts (category names are
 * tags too).
 */
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { parseEntryLine } from '../format/entry.js';
import { tagsFile } from '../format/layout.js';
import { readMemoryFile } from '../store/store.js';
import { hasInvisible, showInvisible } from '../store/guards/text.js';
import { frontmatterBlock, heading } from './markdown.js';

/** Tags memtier itself writes, allowed whatever TAGS.md says (seed 004's friction log). */
export const BUILTIN_TAGS = ['friction'] as const;

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
/**
 * A tag: a letter, then letters, digits, "_", "/" or "-". ASCII text is read without \p{L} and
 * \p{N} (the same characters there), whose Unicode tables a cold process would build on every call.
 */
export const isTag = (t: string): boolean => (ASCII.test(t) ? /^[a-z][a-z0-9_/-]*$/.test(t) : /^[\p{L}][\p{L}\p{N}_/-]*$/u.test(t));
export const hashTags = (line: string): IterableIterator<RegExpMatchArray> | [] =>
  !line.includes('#') ? [] : ASCII.test(line) ? line.matchAll(/(?:^|[\s(,])#([A-Za-z][A-Za-z0-9_/-]*)/g) : line.matchAll(/(?:^|[\s(,])#([\p{L}][\p{L}\p{N}_/-]*)/gu);

export function parseVocabulary(text: string): Set<string> {
  const out = new Set<string>(BUILTIN_TAGS);
  const lines = text.split('\n');
  const fm = frontmatterBlock(lines);
  const start = fm?.end ?? 0;
  const add = (raw: string): void => {
    const t = raw.replace(/^[#`*_]+|[`*_.;]+$/g, '').trim().toLowerCase();
    if (isTag(t)) out.add(t);
  };
  let fence = false;
  let comment = false;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) { fence = !fence; continue; }
    if (fence) continue;
    if (comment || /^\s*<!--/.test(line)) { comment = !line.includes('-->'); continue; }
    const h = heading(line);
    if (h) { if (h.text.split(/\s+/).length === 1) add(h.text); continue; }
    for (const m of hashTags(line)) add(m[1]!);
    const bullet = /^\s*(?:[-*+]|\d+\.)\s+(.*)$/.exec(line);
    const body = bullet ? bullet[1]! : line;
    const colon = /^([^:]{1,40}):\s*(.*)$/.exec(body);
    if (colon) {
      add(colon[1]!);
      for (const t of colon[2]!.split(/[,\s]+/)) add(t);
    } else if (bullet) {
      add(body.split(/[\s—–]+/)[0] ?? '');
    }
  }
  return out;
}

/**
 * Tags of an entry that TAGS.md does not hold (lower-cased). Empty when the memory has no
 * TAGS.md (nothing to check against). What `add` and `wal` refuse before they write.
 */
export function unknownTags(tagsText: string | undefined, tags: string[]): { unknown: string[]; vocabulary: string[] } {
  if (tagsText === undefined) return { unknown: [], vocabulary: [] };
  const vocab = parseVocabulary(tagsText);
  const unknown = [...new Set(tags.map((t) => t.toLowerCase()))].filter((t) => !vocab.has(t));
  return { unknown, vocabulary: [...vocab].sort() };
}

/** The memory's vocabulary file (root-relative, as tagsFile gives it) and its text, undefined when it has none. */
export function readVocabulary(root: string): { file: string; text: string | undefined } {
  const file = tagsFile(root);
  return { file, text: readMemoryFile(root, file) };
}

/**
 * The refusal's hint: the closest tags (or the whole vocabulary when short) and how to add one;
 * `file` is the vocabulary's path (TAGS.md, or memory/TAGS.md in a memory not yet moved).
 */
export function unknownTagHint(unknown: string[], vocabulary: string[], file: string): string {
  const near = (t: string): string[] => vocabulary.filter((v) => v.startsWith(t.slice(0, 3)) || t.startsWith(v.slice(0, 3)) || v.includes(t) || t.includes(v));
  const close = [...new Set(unknown.flatMap(near))];
  const list = vocabulary.length <= 40
    ? `use one of: ${vocabulary.join(', ')}`
    : close.length ? `closest in ${file}: ${close.slice(0, 12).join(', ')} (${vocabulary.length} tags in all)` : `see ${file} (${vocabulary.length} tags)`;
  const hidden = unknown.filter(hasInvisible);
  const plain = unknown.filter((t) => !hasInvisible(t));
  // a tag holding an invisible character is a look-alike: never to be added on purpose
  const fixHidden = hidden.length ? `remove the invisible character${hidden.length > 1 ? 's' : ''} from ${hidden.map(quoteTag).join(', ')}` : '';
  const addPlain = plain.length ? `add ${plain.map(quoteTag).join(', ')} on purpose to a group line of ${file} (e.g. "- tech: …, ${plain[0]}")` : '';
  return `${list} — or ${[fixHidden, addPlain].filter(Boolean).join(', or ')} and run the command again`;
}

/** A tag quoted in a message: its invisible characters as escapes ("infra\u200bstructure"). */
function quoteTag(t: string): string {
  return `"${showInvisible(t)}"`;
}

/** Throw a usage error (exit 2, nothing written) when `tags` or the #tags inside `text` are not in TAGS.md. */
export function assertKnownTags(ctx: Ctx, text: string, tags: string[] = []): void {
  const inline = parseEntryLine(`- ${text.replace(/\s+/g, ' ').trim()}`)?.tags ?? [];
  const all = [...tags, ...inline];
  if (all.length === 0) return;
  const vocab = readVocabulary(ctx.root);
  const { unknown, vocabulary } = unknownTags(vocab.text, all);
  if (unknown.length === 0) return;
  const look = unknown.filter(hasInvisible);
  const hidden = look.length === 0 ? '' : unknown.length === 1 ? '; it holds an invisible character (shown escaped)' : `; ${look.map(quoteTag).join(', ')} ${look.length > 1 ? 'hold' : 'holds'} an invisible character (shown escaped)`;
  throw new UsageError(`${unknown.length > 1 ? 'tags' : 'tag'} ${unknown.map(quoteTag).join(', ')} not in ${vocab.file} (the frozen vocabulary)${hidden}; nothing was written`, unknownTagHint(unknown, vocabulary, vocab.file));
}
