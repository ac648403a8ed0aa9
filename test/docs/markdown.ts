/**
 * What the documentation tests read in a markdown file: its shell blocks (and which are marked
 * `<!-- not run: reason -->`), its links, and the anchors GitHub gives its headings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers.js';

/** The documentation the link test covers: README, docs/, and the pages kept at their own places. */
export const DOC_FILES = ['README.md', 'ARCHITECTURE.md', 'SECURITY.md', 'memory-skeleton/FORMAT.md'];

export const read = (rel: string): string => readFileSync(join(REPO, rel), 'utf8');

export interface ShBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** The reason of a `<!-- not run: reason -->` right above the fence, if any. */
  notRun?: string;
}

/** Every ```sh block, in order, with the not-run marker of the line above it. */
export function shBlocks(md: string): ShBlock[] {
  const lines = md.split('\n');
  const out: ShBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith(fence)) j++;
    if (open[2] === 'sh') {
      const marker = /^<!-- not run: (.+?) -->$/.exec(lines[i - 1] ?? '');
      out.push({ line: i + 1, code: lines.slice(i + 1, j).join('\n') + '\n', ...(marker ? { notRun: marker[1]! } : {}) });
    }
    i = j;
  }
  return out;
}

/** The text outside fenced code blocks, inline code spans and HTML comments (where links are read). */
export function prose(md: string): string {
  return md
    .replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/(`+)[\s\S]*?\1/g, '');
}

/** `[text](target)` links: their targets, as written. */
export function links(md: string): string[] {
  const out: string[] = [];
  for (const m of prose(md).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]!);
  return out;
}

/** GitHub's anchor for a heading's text (github-slugger: lower case, punctuation out, spaces to -). */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link: its text
    .replace(/`/g, '')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__|\*)/g, '')
    .trim();
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor a file's headings give, duplicates numbered as GitHub does (`x`, `x-1`, …). */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const body = md.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of body.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}
