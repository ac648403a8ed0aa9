import type { Check, CheckEnv, Finding } from '../types.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';
import { headLines, TAGS_LINE } from '../markdown.js';
import { isNum, summaryOf } from '../summary.js';

const WARM = new Set(['semantic', 'procedural', 'knowledge']);
/** The summary of a note with its tags on line 2, or unreadable (syntax reports it). */
const NONE = -2;

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
  run(snap, env) {
    const out: Finding[] = [];
    for (const f of snap.files) {
      if (!WARM.has(f.kind)) continue;
      const at = tagsAt(snap, f, env);
      if (at === NONE) continue;
      out.push({
        check: 'warm-tags-line',
        severity: 'warn',
        file: f.rel,
        line: 2,
        message: at >= 0 ? `tags are on line ${at + 1}, not on line 2` : 'no tags line (line 2 should be `tags: [a, b]` in frontmatter or `#tags: a, b`)',
        fix: at >= 0 ? `move line ${at + 1} to line 2` : 'add a tags line on line 2 with tags from TAGS.md',
      });
    }
    return out;
  },
  summarize: (snap, env) => (f) => { if (WARM.has(f.kind)) tagsAt(snap, f, env); },
};

/** The index of a WARM note's tags line when it is not line 2 (-1: none; NONE: on line 2 or unreadable), kept per file. */
function tagsAt(snap: Snapshot, f: MemFile, env: CheckEnv): number {
  return summaryOf(env, 'warm-tags-line', f, () => {
    if (f.text === undefined || TAGS_LINE.test(headLines(f.text, 2)[1] ?? '')) return NONE;
    return snap.lines(f).findIndex((l) => TAGS_LINE.test(l));
  }, (x) => (isNum(x) ? x : undefined));
}
