import { OPEN_SECTION_RE, PATHS } from '../../format/layout.js';
import type { Check } from '../types.js';
import { findSection } from '../markdown.js';

const OPEN_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+(?!\[[xX]\])(?!~~)\S/;

/** Seed 004 invariant 5: at most 5 open questions in MEMORY.md. */
export const check: Check = {
  id: 'open-questions',
  description: 'MEMORY.md lists at most 5 open questions',
  severity: 'warn',
  fixable: false,
  source: 'seed 004 #5',
  doc: {
    trigger: 'more than 5 open items (bullets not checked `[x]` or struck through) under the MEMORY.md heading "Open questions" (or "Open threads", "Open items", "Unresolved", "待办", "未决"…)',
    failing: '## Open questions\n- a\n- b\n- c\n- d\n- e\n- f',
    fixed: '## Open questions\n- a\n- b\n- c\n- d\n- e\n(f answered and moved to its home, or parked in todos.md)',
    why: 'MEMORY.md is loaded every session; a growing list of questions crowds out facts and means the weekly review is not closing them',
  },
  run(snap, env) {
    const f = snap.byRel.get(PATHS.memoryIndex);
    if (!f || f.text === undefined) return [];
    const lines = snap.lines(f);
    const sec = findSection(lines, OPEN_SECTION_RE);
    if (!sec) return { findings: [], figures: { open: 0 } };
    const open = lines.slice(sec.start + 1, sec.end).filter((l) => OPEN_ITEM.test(l)).length;
    const max = env.limits.openQuestions;
    if (open <= max) return { findings: [], figures: { open } };
    return {
      findings: [{ check: 'open-questions', severity: 'warn', file: f.rel, line: sec.start + 1, message: `${open} open questions, at most ${max} allowed`, fix: 'answer or park the oldest ones (move them to todos.md), then check them off' }],
      figures: { open },
    };
  },
};
