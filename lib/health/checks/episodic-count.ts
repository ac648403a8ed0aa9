import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { daysBetween } from '../../core/clock.js';
import { PATHS } from '../../format/layout.js';
import { openStore } from '../../store/store.js';
import type { Check, Finding } from '../types.js';
import type { MemFile } from '../../memory/snapshot.js';
import { readable } from '../summary.js';

/** Where an overdue day goes: memory/archive/YYYY/MM/<same file name>. */
export function archiveTarget(f: MemFile): string {
  const name = f.rel.slice(f.rel.lastIndexOf('/') + 1);
  return `${PATHS.archive}/${f.date!.slice(0, 4)}/${f.date!.slice(5, 7)}/${name}`;
}

/** Seed 004 invariant 8: the episodic folder holds no more days than its TTL allows (archive due). */
export const check: Check = {
  id: 'episodic-count',
  description: 'no episodic day is past its TTL (30 days) and memory/episodic/ stays under its file limit; --fix archives overdue days',
  severity: 'warn',
  fixable: true,
  source: 'seed 004 #8',
  doc: {
    trigger: 'a memory/episodic/YYYY-MM-DD.md more than 30 days old, or more files in memory/episodic/ than the limit (37)',
    failing: 'memory/episodic/2026-03-02.md on 2026-05-15 (74 days old)',
    fixed: 'memory/archive/2026/03/2026-03-02.md (moved, not changed)',
    why: 'agents list and grep the episodic folder on queries; old days belong to the COLD archive where they stay searchable without crowding recent ones',
  },
  run(snap, env) {
    const days = snap.files.filter((f) => f.kind === 'episodic' && f.date !== undefined);
    const ttl = env.limits.episodicTtlDays;
    const out: Finding[] = [];
    for (const f of days) {
      const age = daysBetween(f.date!, env.today);
      // a day that cannot be read is the syntax check's (kept per file: no need to read it to know)
      if (age <= ttl || !readable(env, f)) continue;
      const to = archiveTarget(f);
      const clash = existsSync(join(snap.root, to));
      out.push({
        check: 'episodic-count',
        severity: 'warn',
        file: f.rel,
        message: `${age} days old, past the ${ttl}-day TTL: archive due${clash ? ` (but ${to} already exists)` : ''}`,
        fix: clash ? `merge it with ${to} by hand` : 'run "memtier archive" (or "memtier health --fix")',
        fixable: !clash,
      });
    }
    const all = snap.files.filter((f) => f.kind === 'episodic').length;
    const max = env.limits.episodicMaxFiles;
    if (all - out.filter((x) => x.fixable).length > max) {
      out.push({ check: 'episodic-count', severity: 'warn', file: PATHS.episodic, message: `${all} files in ${PATHS.episodic}/, the limit is ${max}`, fix: 'move old or undated files to memory/archive/ or lower the TTL' });
    }
    return { findings: out, figures: { files: all, overdue: out.filter((x) => x.fixable).length } };
  },
  summarize: (_snap, env) => (f) => { if (f.kind === 'episodic' && f.date !== undefined && daysBetween(f.date, env.today) > env.limits.episodicTtlDays) readable(env, f); },
  fix(findings, snap, env) {
    const moves = findings.filter((x) => x.fixable).map((x) => snap.byRel.get(x.file ?? '')).filter((f): f is MemFile => f !== undefined);
    if (moves.length === 0) return [];
    return openStore(env.ctx).mutate((tx) => moves.map((f) => {
      const to = archiveTarget(f);
      tx.move(f.rel, to);
      return `archived ${f.rel} → ${to}`;
    }));
  },
};
