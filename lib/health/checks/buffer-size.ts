import { PATHS } from '../../format/layout.js';
import type { Check } from '../types.js';
import { lineCount } from '../../format/lines.js';
import { rotateBuffer, walFixes } from '../wal.js';

/** Seed 004 invariant 4: the working buffer stays under 80 lines (rotation moves it into today's episodic file). */
export const check: Check = {
  id: 'buffer-size',
  description: 'the working buffer is under its line limit (80); --fix rotates it into today\'s episodic file',
  severity: 'warn',
  fixable: true,
  source: 'seed 004 #4',
  doc: {
    trigger: 'memory/working-buffer.md has 80 lines or more',
    failing: 'memory/working-buffer.md with 93 entry lines',
    fixed: 'memory/working-buffer.md empty (its header only); the 93 entries appended to memory/episodic/2026-05-15.md with their ^ids',
    why: 'the buffer is read after every compaction; past 80 lines it costs more context than it saves, and a long buffer means rotation stopped running',
  },
  async run(snap, env) {
    const f = snap.byRel.get(PATHS.buffer);
    if (!f || f.text === undefined) return [];
    const n = lineCount(f.text);
    const max = env.limits.bufferLines;
    if (n < max) return { findings: [], figures: { lines: n } };
    const fixable = (await walFixes()).rotate;
    return {
      findings: [{ check: 'buffer-size', severity: 'warn', file: f.rel, message: `${n} lines, the limit is under ${max}`, fix: fixable ? 'run "memtier rotate" (or "memtier health --fix")' : 'run "memtier rotate"', fixable }],
      figures: { lines: n },
    };
  },
  async fix(_findings, _snap, env) {
    return rotateBuffer(env.ctx);
  },
};
