import { existsSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { PATHS } from '../../format/layout.js';
import type { Check, Finding } from '../types.js';
import { findSection } from '../markdown.js';

interface MdNode { type: string; url?: string; children?: MdNode[]; position?: { start: { line: number } } }

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

/** Seed 004 invariant 7: every link in MEMORY.md's active-decisions index resolves. */
export const check: Check = {
  id: 'decision-links',
  description: 'every link in MEMORY.md\'s "Active decisions" index (the whole file when it has no such section) resolves to a file and ^id',
  severity: 'fail',
  fixable: false,
  source: 'seed 004 #7',
  doc: {
    trigger: 'a relative link in MEMORY.md (under "Active decisions" when that heading exists) whose file does not exist, or whose `#^id` is not in that file',
    failing: '## Active decisions\n- [Cache](memory/semantic/decision.md#^k2j3mx0a) — SQLite, not Redis',
    fixed: '## Active decisions\n- [Cache](memory/semantic/decisions.md#^k2j3mx0a) — SQLite, not Redis',
    why: 'MEMORY.md is an index: a dead link sends the agent to nothing and it answers from the stale one-line hook instead of the decision and its reasons',
  },
  async run(snap) {
    const f = snap.byRel.get(PATHS.memoryIndex);
    if (!f || f.text === undefined) return [];
    const lines = snap.lines(f);
    const sec = findSection(lines, /active decisions?/i);
    const first = sec ? sec.start : 0;
    const scope = sec ? lines.slice(sec.start, sec.end).join('\n') : f.text;
    if (!/\]\(|\]:/.test(scope)) return { findings: [], figures: { links: 0, scope: sec ? 'active-decisions' : 'file' } };
    const out: Finding[] = [];
    const found = await links(scope);
    for (const l of found) {
      const line = l.line + first;
      if (/^[a-z][a-z0-9+.-]*:/i.test(l.url) || l.url.startsWith('#') || l.url === '') continue;
      let target = l.url;
      let frag = '';
      const hash = target.indexOf('#');
      if (hash >= 0) { frag = target.slice(hash + 1); target = target.slice(0, hash); }
      try { target = decodeURIComponent(target); } catch { /* keep raw */ }
      const rel = posix.normalize(target.replace(/^\.\//, '').replace(/^\/+/, ''));
      const bad = (why: string, fix: string): void => { out.push({ check: 'decision-links', severity: 'fail', file: f.rel, line, message: `link "${l.url}" ${why}`, fix }); };
      if (rel.startsWith('..')) { bad('points outside the memory root', 'link to a file inside the memory'); continue; }
      const abs = join(snap.root, rel);
      if (!existsSync(abs)) { bad('does not resolve: no such file', 'fix the path or remove the index line (the decision may have been archived or renamed)'); continue; }
      if (frag.startsWith('^') && !statSync(abs).isDirectory()) {
        const text = snap.byRel.get(rel)?.text;
        if (text !== undefined && !new RegExp(`\\s\\^${frag.slice(1).replace(/[^A-Za-z0-9-]/g, '')}\\s*$`, 'm').test(text)) {
          bad(`does not resolve: ${rel} has no entry ${frag}`, `find the entry with "grep -rn '${frag}' memory/" and fix the link`);
        }
      }
    }
    return { findings: out, figures: { links: found.length, scope: sec ? 'active-decisions' : 'file' } };
  },
};
