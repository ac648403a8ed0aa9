/**
 * A cheap near-duplicate check for the literal writers (`add`, `wal`): no index, no tokenizer, only
 * the entries of today's log and the working buffer, so a write stays a cold call. Words are those
 * facts are compared by (lib/format/compare.ts: 三点 is 3 点, a CJK run counts by its character
 * pairs); two texts are near-duplicates when their Dice overlap is at least 0.85 and they hold the
 * same numbers.
 */
import { compareWords, foldForCompare } from '../format/compare.js';
import { parseEntries } from '../format/entry.js';

export const NEAR_DUPLICATE = 0.85;

/** The words compared: the fold facts are compared with (lib/format/compare.ts), CJK runs as pairs. */
function words(text: string): Set<string> {
  const plain = text.toLowerCase().replace(/\^[a-z0-9-]+/g, ' ').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  return new Set(compareWords(foldForCompare(plain)));
}

export function nearSimilarity(a: string, b: string): number {
  const A = words(a);
  const B = words(b);
  if (!A.size || !B.size) return 0;
  let both = 0;
  for (const t of A) if (B.has(t)) both++;
  return (2 * both) / (A.size + B.size);
}

const numbers = (s: string): string => (foldForCompare(s).match(/\d+(?:\.\d+)*/g) ?? []).join(',');

/** Live entries of `files` (path → text) that say what `text` says, `except` the entry just written. */
export function nearDuplicates(text: string, files: { path: string; text: string | undefined }[], except?: string): { cite: string; id?: string; text: string }[] {
  const out: { cite: string; id?: string; text: string }[] = [];
  for (const f of files) {
    if (!f.text) continue;
    for (const e of parseEntries(f.text)) {
      if (e.superseded || (except && e.id === except)) continue;
      if (numbers(e.text) !== numbers(text)) continue;
      if (nearSimilarity(e.text, text) >= NEAR_DUPLICATE) out.push({ cite: e.id ? `${f.path}#^${e.id}` : `${f.path}#L${e.line}`, ...(e.id ? { id: e.id } : {}), text: e.text });
    }
  }
  return out;
}
