/**
 * The frozen tag vocabulary: memory/TAGS.md. Read leniently: every tag named on a bullet, after
 * a `category:` label, as a `#tag` or as a heading counts (category names are tags too).
 */
import { frontmatterBlock, heading } from './markdown.js';

/** Tags memtier itself writes, allowed whatever TAGS.md says (seed 004's friction log). */
export const BUILTIN_TAGS = ['friction'] as const;

export function parseVocabulary(text: string): Set<string> {
  const out = new Set<string>(BUILTIN_TAGS);
  const lines = text.split('\n');
  const fm = frontmatterBlock(lines);
  const start = fm?.end ?? 0;
  const add = (raw: string): void => {
    const t = raw.replace(/^[#`*_]+|[`*_.;]+$/g, '').trim().toLowerCase();
    if (/^[\p{L}][\p{L}\p{N}_/-]*$/u.test(t)) out.add(t);
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
    for (const m of line.matchAll(/(?:^|[\s(,])#([\p{L}][\p{L}\p{N}_/-]*)/gu)) add(m[1]!);
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
