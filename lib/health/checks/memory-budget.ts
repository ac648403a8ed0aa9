import { PATHS } from '../../format/layout.js';
import type { Check, Finding } from '../types.js';
import { lineCount } from '../../format/lines.js';

/** An index line `- [Title](path) — hook` stays under this many characters (FORMAT.md). */
export const INDEX_LINE_MAX = 150;

/** MEMORY.md is loaded every session: it must fit its line and byte budget and the host's per-file cap. */
export const check: Check = {
  id: 'memory-budget',
  description: 'MEMORY.md stays within its line (60) and byte (6 KiB) budget, and no agent host would cut it',
  severity: 'warn',
  fixable: false,
  source: 'seed 004, seed 001',
  doc: {
    trigger: 'MEMORY.md over 60 lines or 6,144 bytes, an index line over 150 characters (warning), or over the 20,000 characters an OpenClaw-style host injects from one bootstrap file (the rest is cut)',
    failing: 'MEMORY.md of 85 lines with facts pasted in full',
    fixed: 'MEMORY.md of 48 lines: one `- [Title](memory/semantic/x.md) — hook` line per fact, the facts in their canonical homes',
    why: 'the HOT tier costs tokens in every session; past the host\'s cap the tail is silently dropped, and facts at the end of the index are never seen',
  },
  run(snap, env) {
    const f = snap.byRel.get(PATHS.memoryIndex);
    if (!f) {
      return [{ check: 'memory-budget', severity: 'warn', file: PATHS.memoryIndex, message: 'no MEMORY.md: nothing is loaded every session', fix: 'run "memtier init" to create it from the skeleton' }];
    }
    if (f.text === undefined) return [];
    const { memoryLines, memoryBytes, hostMaxChars } = env.limits;
    const lines = lineCount(f.text);
    const bytes = Buffer.byteLength(f.text);
    const chars = [...f.text].length;
    const cut = Math.max(0, chars - hostMaxChars);
    const out: Finding[] = [];
    const trim = 'move detail to its canonical home and keep one index line per fact';
    if (lines > memoryLines) out.push({ check: 'memory-budget', severity: 'warn', file: f.rel, line: memoryLines + 1, message: `${lines} lines, over the ${memoryLines}-line budget`, fix: trim });
    if (bytes > memoryBytes) out.push({ check: 'memory-budget', severity: 'warn', file: f.rel, message: `${bytes} bytes, over the ${memoryBytes}-byte budget`, fix: trim });
    snap.lines(f).forEach((l, i) => {
      const n = [...l].length;
      if (/^[-*] \[[^\]]+\]\(/.test(l) && n > INDEX_LINE_MAX) out.push({ check: 'memory-budget', severity: 'warn', file: f.rel, line: i + 1, message: `index line of ${n} characters, over ${INDEX_LINE_MAX}`, fix: 'shorten the hook after the link; the detail belongs in the linked file' });
    });
    if (cut > 0) out.push({ check: 'memory-budget', severity: 'warn', file: f.rel, message: `an agent host injecting at most ${hostMaxChars} characters per file would cut ${cut} characters (${Math.round((100 * cut) / chars)}%)`, fix: trim });
    return { findings: out, figures: { lines, bytes, chars, lineBudget: memoryLines, byteBudget: memoryBytes, hostMaxChars, hostCutChars: cut } };
  },
};
