import { daysBetween } from '../../core/clock.js';
import type { Check, CheckEnv, Finding } from '../types.js';
import type { MemFile } from '../../memory/snapshot.js';
import { frontmatterBlock, headLines } from '../markdown.js';
import { isNum, isStr, summaryOf } from '../summary.js';

const FIELD = /^\s*#?\s*last[_-]verified\s*:\s*["']?([^"'\s]*)/i;
const WARM = new Set(['semantic', 'procedural', 'knowledge']);

/** A note's `last_verified` line as [line, value], [] without one, null when unreadable. */
type Verified = [number, string] | [] | null;

function verified(f: MemFile): Verified {
  if (f.text === undefined) return null;
  const lines = headLines(f.text, 10);
  const fm = frontmatterBlock(lines);
  const scan = fm ? fm.body : lines.slice(0, 10).map((text, i) => ({ line: i + 1, text }));
  for (const l of scan) {
    const m = FIELD.exec(l.text);
    if (m) return [l.line, m[1]!];
  }
  return [];
}

const revive = (x: unknown): Verified | undefined =>
  x === null ? null : Array.isArray(x) && (x.length === 0 || (x.length === 2 && isNum(x[0]) && isStr(x[1]))) ? (x as Verified) : undefined;

/** verified(f), kept per file. */
const keptVerified = (f: MemFile, env: CheckEnv): Verified => summaryOf(env, 'last-verified', f, () => verified(f), revive);

/** Seed 004 invariant 3: `last_verified` younger than 30 days on every WARM note. */
export const check: Check = {
  id: 'last-verified',
  description: 'every WARM note has a `last_verified` date younger than 30 days',
  severity: 'warn',
  fixable: false,
  source: 'seed 004 #3',
  doc: {
    trigger: 'a semantic, procedural or knowledge note whose `last_verified:` (frontmatter, or a line in its first 10 lines) is 30 or more days old; a missing date warns',
    failing: '---\ntags: [infrastructure]\nlast_verified: 2026-03-01\n---',
    fixed: '---\ntags: [infrastructure]\nlast_verified: 2026-05-14\n---\n(after re-reading the note and correcting what changed)',
    why: 'facts drift: an IP, a price, a preference. The date says when a person or the weekly review last confirmed the note, so an agent knows how far to trust it',
  },
  run(snap, env) {
    const out: Finding[] = [];
    const max = env.limits.verifiedDays;
    for (const f of snap.files) {
      if (!WARM.has(f.kind)) continue;
      const kept = keptVerified(f, env);
      if (kept === null) continue;
      const hit = kept.length === 2 ? { line: kept[0], v: kept[1] } : undefined;
      if (!hit) {
        out.push({ check: 'last-verified', severity: 'warn', file: f.rel, message: 'no last_verified date', fix: `add \`last_verified: ${env.today}\` to the frontmatter after checking the note` });
        continue;
      }
      const v = hit.v;
      if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`))) {
        out.push({ check: 'last-verified', severity: 'warn', file: f.rel, line: hit.line, message: `last_verified "${v}" is not a date (expected YYYY-MM-DD)`, fix: `write it as last_verified: ${env.today}` });
        continue;
      }
      const age = daysBetween(v, env.today);
      if (age >= max) {
        out.push({ check: 'last-verified', severity: 'warn', file: f.rel, line: hit.line, message: `last verified ${v}, ${age} days ago (limit ${max})`, fix: `re-check the note, then set last_verified: ${env.today} (the weekly review lists stale notes)` });
      }
    }
    return out;
  },
  summarize: (_snap, env) => (f) => { if (WARM.has(f.kind)) keptVerified(f, env); },
};
