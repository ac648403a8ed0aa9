import type { Check, Finding } from '../types.js';
import { filesOf } from '../../memory/snapshot.js';
import { headLines, TAGS_LINE } from '../markdown.js';

/** Seed 004 invariant 1: every WARM note carries its tags on line 2 (`head -2 | grep tags`). */
export const check: Check = {
  id: 'warm-tags-line',
  description: 'every WARM note (semantic, procedural, knowledge) has its tags on line 2',
  severity: 'warn',
  fixable: false,
  source: 'seed 004 #1',
  doc: {
    trigger: 'a file under memory/semantic/, memory/procedural/ or knowledge/ whose line 2 is not a `tags:` (frontmatter) or `#tags:` line',
    failing: '# Infrastructure\nThe NAS answers on 10.0.0.5.',
    fixed: '---\ntags: [infrastructure, samba]\nlast_verified: 2026-05-10\n---\n# Infrastructure\nThe NAS answers on 10.0.0.5.',
    why: 'agents discover WARM notes with `head -2 memory/**/*.md | grep tags`; a note without its tags on line 2 is invisible to that search and to tag scoring',
  },
  run(snap) {
    const out: Finding[] = [];
    for (const f of filesOf(snap, 'semantic', 'procedural', 'knowledge')) {
      if (TAGS_LINE.test(headLines(f.text!, 2)[1] ?? '')) continue;
      const lines = snap.lines(f);
      const at = lines.findIndex((l) => TAGS_LINE.test(l));
      out.push({
        check: 'warm-tags-line',
        severity: 'warn',
        file: f.rel,
        line: 2,
        message: at >= 0 ? `tags are on line ${at + 1}, not on line 2` : 'no tags line (line 2 should be `tags: [a, b]` in frontmatter or `#tags: a, b`)',
        fix: at >= 0 ? `move line ${at + 1} to line 2` : 'add a tags line on line 2 with tags from memory/TAGS.md',
      });
    }
    return out;
  },
};
