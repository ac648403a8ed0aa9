/**
 * Small line-level markdown helpers shared by checks (no parser: these run on every call).
 */
import { foldForCompare } from '../format/compare.js';

/** The frontmatter block of a text: 1-based line numbers of its fences and its body lines. */
export interface FrontmatterBlock {
  /** Line of the closing fence, or undefined when the block is never closed. */
  end?: number;
  /** Lines between the fences (1-based line number, text). */
  body: { line: number; text: string }[];
}

/** Frontmatter at the top of `lines` (`---` on line 1), or undefined. */
export function frontmatterBlock(lines: string[]): FrontmatterBlock | undefined {
  if (lines[0]?.trimEnd() !== '---') return undefined;
  const body: FrontmatterBlock['body'] = [];
  for (let i = 1; i < lines.length; i++) {
    const t = lines[i]!;
    if (t.trimEnd() === '---' || t.trimEnd() === '...') return { end: i + 1, body };
    body.push({ line: i + 1, text: t });
  }
  return { body };
}

/** A tags line: `#tags: a, b` (seed 004) or `tags: [a, b]` / `tags: a, b` (frontmatter). */
export const TAGS_LINE = /^\s*#?tags\s*:\s*(.*)$/i;

/** Tags listed on a tags line's value: `[a, "b"]`, `a, b`, `#a #b`. Lower-cased. */
export function parseTagList(value: string): string[] {
  return value
    .replace(/[[\]"'`]/g, ' ')
    .split(/[,\s]+/)
    .map((t) => t.replace(/^#/, '').trim().toLowerCase())
    .filter((t) => t.length > 0);
}

/** A markdown heading: level and text. */
export function heading(line: string): { level: number; text: string } | undefined {
  const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
  return m ? { level: m[1]!.length, text: m[2]! } : undefined;
}

/**
 * The section under the first heading whose text matches `re`: 0-based start (the heading) and
 * end (exclusive: the next heading of the same or a higher level, or the end of the file).
 */
export function findSection(lines: string[], re: RegExp): { start: number; end: number; level: number } | undefined {
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*(```|~~~)/.test(lines[i]!)) fence = !fence;
    if (fence) continue;
    const h = heading(lines[i]!);
    if (!h || !re.test(h.text)) continue;
    let end = lines.length;
    let f2 = false;
    for (let j = i + 1; j < lines.length; j++) {
      if (/^\s*(```|~~~)/.test(lines[j]!)) f2 = !f2;
      if (f2) continue;
      const h2 = heading(lines[j]!);
      if (h2 && h2.level <= h.level) { end = j; break; }
    }
    return { start: i, end, level: h.level };
  }
  return undefined;
}


/** Fact text reduced for comparison: lower-case words, no tags, ids, links targets or punctuation. */
export function normalizeFact(text: string): string {
  const t = text.toLowerCase().replace(/\]\([^)]*\)/g, ']');
  // ASCII fast path (most entries): the same reduction without Unicode property classes
  if (/^[\x00-\x7f]*$/.test(t)) {
    return t
      .replace(/(^|\s)#[a-z][a-z0-9_/-]*/g, ' ')
      .replace(/\^[a-z0-9-]{3,64}/g, ' ')
      .replace(/[^a-z0-9\s]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  }
  return foldForCompare(t
    .replace(/(^|\s)[#＃][\p{L}][\p{L}\p{N}_/-]*/gu, ' ')
    .replace(/\^[a-z0-9-]{3,64}/g, ' ')
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim());
}
