import { existsSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { PATHS } from '../../format/layout.js';
import type { Check, Finding } from '../types.js';
import { findSection } from '../markdown.js';
import type { Snapshot } from '../../memory/snapshot.js';

/** Why a link target does not resolve, or undefined when it does (external links always do). */
function problem(snap: Snapshot, url: string): { why: string; fix: string } | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('#') || url === '') return undefined;
  let target = url;
  let frag = '';
  const hash = target.indexOf('#');
  if (hash >= 0) { frag = target.slice(hash + 1); target = target.slice(0, hash); }
  try { target = decodeURIComponent(target); } catch { /* keep raw */ }
  const rel = posix.normalize(target.replace(/^\.\//, '').replace(/^\/+/, ''));
  if (rel.startsWith('..')) return { why: 'points outside the memory root', fix: 'link to a file inside the memory' };
  const abs = join(snap.root, rel);
  if (!existsSync(abs)) return { why: 'does not resolve: no such file', fix: 'fix the path or remove the index line (the decision may have been archived or renamed)' };
  if (frag.startsWith('^') && !statSync(abs).isDirectory()) {
    const text = snap.byRel.get(rel)?.text;
    const id = frag.slice(1).replace(/[^A-Za-z0-9-]/g, '');
    if (text !== undefined && !new RegExp(`\\s\\^${id}\\s*$`, 'm').test(text)) {
      return { why: `does not resolve: ${rel} has no entry ${frag}`, fix: `find the entry with "grep -rn '${frag}' memory/" and fix the link` };
    }
  }
  return undefined;
}

interface MdNode { type: string; url?: string; children?: MdNode[]; position?: { start: { line: number } } }

/**
 * Link targets a cheap scan finds: inline `](target)` and definitions `[ref]: target`. Used as
 * a fast path: when every one of them resolves, remark (~200 ms to load) is not needed; when
 * one does not, remark parses the text to confirm (it knows code spans, escapes and <targets>).
 */
export function scanLinks(text: string): { url: string; line: number }[] {
  const out: { url: string; line: number }[] = [];
  text.split('\n').forEach((l, i) => {
    for (const m of l.matchAll(/\]\(\s*<?([^)\s>]*)/g)) out.push({ url: m[1]!, line: i + 1 });
    const d = /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)/.exec(l);
    if (d) out.push({ url: d[1]!, line: i + 1 });
  });
  return out;
}

/** Links (and link definitions) in a markdown text, with their lines. remark loads only here. */
async function links(text: string): Promise<{ url: string; line: number }[]> {
  const [{ unified }, { default: remarkParse }] = await Promise.all([import('unified'), import('remark-parse')]);
  const tree = unified().use(remarkParse).parse(text) as MdNode;
  const out: { url: string; line: number }[] = [];
  const walk = (n: MdNode): void => {
    if ((n.type === 'link' || n.type === 'definition') && n.url !== undefined) out.push({ url: n.url, line: n.position?.start.line ?? 1 });
    for (const c of n.children ?? []) walk(c);
  };
  walk(tree);
  return out;
}

const isLinkList = (x: unknown): x is [string, number][] =>
  Array.isArray(x) && x.every((l) => Array.isArray(l) && l.length === 2 && typeof l[0] === 'string' && typeof l[1] === 'number');

/**
 * Seed 004 invariant 7: every link in MEMORY.md's active-decisions index resolves (FAIL); every
 * other link of MEMORY.md too (WARN: a dead index line sends the agent to nothing as well).
 */
export const check: Check = {
  id: 'decision-links',
  description: 'every link in MEMORY.md resolves to a file and ^id: FAIL inside "Active decisions" (the whole file when it has no such section), WARN elsewhere',
  severity: 'fail',
  fixable: false,
  source: 'seed 004 #7',
  doc: {
    trigger: 'a relative link in MEMORY.md whose file does not exist, or whose `#^id` is not in that file: a FAIL under "Active decisions" (anywhere when that heading is missing), a WARN in the other sections',
    failing: '## Active decisions\n- [Cache](memory/semantic/decision.md#^k2j3mx0a) — SQLite, not Redis',
    fixed: '## Active decisions\n- [Cache](memory/semantic/decisions.md#^k2j3mx0a) — SQLite, not Redis',
    why: 'MEMORY.md is an index: a dead link sends the agent to nothing and it answers from the stale one-line hook instead of the decision and its reasons',
  },
  async run(snap, env) {
    const f = snap.byRel.get(PATHS.memoryIndex);
    if (!f || f.text === undefined) return [];
    const lines = snap.lines(f);
    const sec = findSection(lines, /active decisions?/i);
    const scope = sec ? 'active-decisions' : 'file';
    if (!/\]\(|\]:/.test(f.text)) return { findings: [], figures: { links: 0, scope } };
    const quick = scanLinks(f.text);
    if (quick.every((l) => problem(snap, l.url) === undefined)) return { findings: [], figures: { links: quick.length, scope } };
    const out: Finding[] = [];
    // remark's reading of an unchanged MEMORY.md, kept by the last full run (reuse.ts)
    const kept = env.kept?.('decision-links', f);
    const found = isLinkList(kept) ? kept.map(([url, line]) => ({ url, line })) : await links(f.text);
    // inside the section (or anywhere without one) a dead link is a FAIL; elsewhere a WARN
    const inIndex = (line: number): boolean => !sec || (line - 1 >= sec.start && line - 1 < sec.end);
    for (const l of found) {
      const p = problem(snap, l.url);
      if (!p) continue;
      const fail = inIndex(l.line);
      out.push({ check: 'decision-links', severity: fail ? 'fail' : 'warn', file: f.rel, line: l.line, message: `link "${l.url}" ${p.why}${fail ? '' : ' (outside "Active decisions")'}`, fix: p.fix });
    }
    return { findings: out, figures: { links: found.length, scope }, keep: { file: f.rel, data: found.map((l) => [l.url, l.line]) } };
  },
};
