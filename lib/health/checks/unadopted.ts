import type { Check, Finding } from '../types.js';

/** OpenClaw daily files and loose notes are read in place; `adopt` moves them into the model. */
export const check: Check = {
  id: 'unadopted',
  description: 'OpenClaw daily files (memory/YYYY-MM-DD.md) and loose notes are read in place; suggests `memtier adopt` (info only)',
  severity: 'info',
  fixable: false,
  source: 'OpenClaw',
  doc: {
    trigger: 'files such as memory/2026-05-14.md or memory/ideas.md outside the tier folders',
    failing: 'memory/2026-05-14.md written by OpenClaw\'s memory flush',
    fixed: 'memory/episodic/2026-05-14.md after `memtier adopt` (the original kept in the trash)',
    why: 'nothing is wrong: memtier reads these files as they are; adopting them gives them closure blocks, archiving and tier-aware recall',
  },
  run(snap) {
    const daily = snap.files.filter((f) => f.kind === 'legacy-daily');
    const notes = snap.files.filter((f) => f.kind === 'note');
    const out: Finding[] = [];
    if (daily.length) out.push({ check: 'unadopted', severity: 'info', file: daily[0]!.rel, message: `${daily.length} OpenClaw daily ${daily.length === 1 ? 'file' : 'files'} outside memory/episodic/`, fix: 'run "memtier adopt" when you want them in the tier model' });
    if (notes.length) out.push({ check: 'unadopted', severity: 'info', file: notes[0]!.rel, message: `${notes.length} loose ${notes.length === 1 ? 'note' : 'notes'} outside the tier folders`, fix: 'nothing to fix: they are read in place and never rewritten; a dated one (Daily/2026-05-14.md) is read by review as its day; give a note a frontmatter block with "tags:" on line 2 to make it a tagged WARM note' });
    return { findings: out, figures: { legacyDaily: daily.length, looseNotes: notes.length } };
  },
};
