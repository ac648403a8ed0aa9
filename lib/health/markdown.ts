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

/**
 * The first lines of a text, enough for frontmatterBlock and a look at the top: at least `min`
 * lines, and when the text starts with `---` every line through the frontmatter's closing fence
 * (all of them when it never closes). frontmatterBlock of these equals frontmatterBlock of all the
 * lines, without splitting a whole note to read its head.
 */
export function headLines(text: string, min: number): string[] {
  const out: string[] = [];
  let open = text.startsWith('---') || text.startsWith('\uFEFF---');
  let at = 0;
  for (;;) {
    const nl = text.indexOf('\n', at);
    const line = nl < 0 ? text.slice(at) : text.slice(at, nl);
    out.push(line);
    if (open && out.length > 1) { const t = line.trimEnd(); if (t === '---' || t === '...') open = false; }
    if (nl < 0 || (out.length >= min && !open)) break;
    at = nl + 1;
  }
  return out;
}

/** A tags line: `#tags: a, b` (seed 004), `tags: [a, b]` / `tags: a, b` (frontmatter) or `tags:: a, b` (a Logseq property). */
export const TAGS_LINE = /^\s*#?tags\s*::?\s*(.*)$/i;

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
  let t = text.toLowerCase();
  if (t.includes('](')) t = t.replace(/\]\([^)]*\)/g, ']');
  // ASCII fast path (most entries): the same reduction without Unicode property classes
  if (/^[\x00-\x7f]*$/.test(t)) return asciiFactWords(t);
  return foldForCompare(t
    .replace(/(^|\s)[#＃][\p{L}][\p{L}\p{N}_/-]*/gu, ' ')
    .replace(/\^[a-z0-9-]{3,64}/g, ' ')
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim());
}

/**
 * The memo of normalizeFact per entry: canonical-home and near-duplicates reduce the same fact
 * entries of one snapshot (whose parsed entries are kept for its lifetime).
 */
const factKeys = new WeakMap<object, string>();
export function factKey(e: { text: string }): string {
  let k = factKeys.get(e);
  if (k === undefined) { k = normalizeFact(e.text); factKeys.set(e, k); }
  return k;
}

const isAsciiSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);
const isAlnum = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
const isTagChar = (c: number): boolean => isAlnum(c) || c === 95 || c === 47 || c === 45;
const isIdChar = (c: number): boolean => isAlnum(c) || c === 45;

/**
 * normalizeFact of lower-cased ASCII text in one pass, exactly what these replacements give:
 * `(^|\s)#[a-z][a-z0-9_/-]*` (a tag) and `\^[a-z0-9-]{3,64}` (an id) by a space, then every run
 * of other characters than [a-z0-9] by one space, trimmed. So: the [a-z0-9] runs outside tags and
 * ids, joined by spaces (the test holds the regular expressions as the reference).
 */
export function asciiFactWords(t: string): string {
  const n = t.length;
  const words: string[] = [];
  let start = -1;
  const end = (i: number): void => { if (start >= 0) { words.push(t.slice(start, i)); start = -1; } };
  let i = 0;
  while (i < n) {
    const c = t.charCodeAt(i);
    // a tag: "#" at the start or after a space, then a letter
    const hashAt = c === 35 && i === 0 ? 0 : isAsciiSpace(c) && t.charCodeAt(i + 1) === 35 ? i + 1 : -1;
    if (hashAt >= 0) {
      const l = t.charCodeAt(hashAt + 1);
      if (l >= 97 && l <= 122) {
        end(i);
        let j = hashAt + 2;
        while (j < n && isTagChar(t.charCodeAt(j))) j++;
        i = j;
        continue;
      }
    }
    if (c === 94) {
      // an id: "^" and 3 to 64 of [a-z0-9-] (a longer run keeps its rest)
      end(i);
      let j = i + 1;
      while (j < n && j - i - 1 < 64 && isIdChar(t.charCodeAt(j))) j++;
      i = j - i - 1 >= 3 ? j : i + 1;
      continue;
    }
    if (isAlnum(c)) { if (start < 0) start = i; } else end(i);
    i++;
  }
  end(n);
  return words.join(' ');
}
