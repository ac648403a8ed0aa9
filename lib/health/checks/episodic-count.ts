import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { daysBetween } from '../../core/clock.js';
import { PATHS } from '../../format/layout.js';
import { openStore } from '../../store/store.js';
import type { Check, CheckEnv, Finding } from '../types.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';
import { readable } from '../summary.js';

/** Where an overdue day goes: memory/archive/YYYY/MM/<same file name>. */
export function archiveTarget(f: MemFile): string {
  const name = f.rel.slice(f.rel.lastIndexOf('/') + 1);
  return `${PATHS.archive}/${f.date!.slice(0, 4)}/${f.date!.slice(5, 7)}/${name}`;
}

/** Seed 004 invariant 8: the episodic folder holds no more days than its TTL allows (archive due). */
export const check: Check = {
  id: 'episodic-count',
  description: 'no episodic day is past its TTL (30 days; days due are one info line, upkeep\'s routine) and memory/episodic/ stays under its file limit (WARN); --fix archives overdue days',
  severity: 'info',
  fixable: true,
  source: 'seed 004 #8',
  doc: {
    trigger: 'a memory/episodic/YYYY-MM-DD.md more than 30 days old, or more files in memory/episodic/ than the limit (37)',
    failing: 'memory/episodic/2026-03-02.md on 2026-05-15 (74 days old)',
    fixed: 'memory/archive/2026/03/2026-03-02.md (moved, not changed)',
    why: 'agents list and grep the episodic folder on queries; old days belong to the COLD archive where they stay searchable without crowding recent ones',
  },
  run(snap, env) {
    const ttl = env.limits.episodicTtlDays;
    const out: Finding[] = [];
    const due = overdue(snap, env);
    // archiving is the upkeep jobs' routine (the nightly consolidate, the weekly review): days past
    // the TTL are one line with the command, not a warning per day (after adopt, a person's whole
    // history is past it at once: 13 WARNs for nothing wrong)
    const movable = due.filter((d) => !d.clash);
    if (movable.length) {
      const oldest = movable[0]!;
      const n = movable.length;
      out.push({
        check: 'episodic-count',
        severity: 'info',
        file: oldest.f.rel,
        message: n === 1
          ? `${oldest.age} days old, past the ${ttl}-day TTL: archive due`
          : `${n} episodic days past the ${ttl}-day TTL (${oldest.f.date} … ${movable[n - 1]!.f.date}, the oldest ${oldest.age} days old): archive due`,
        fix: 'run "memtier archive" (or "memtier health --fix"); the nightly job does it when it runs (memtier cron)',
        fixable: true,
      });
    }
    for (const d of due.filter((x) => x.clash)) {
      out.push({
        check: 'episodic-count',
        severity: 'warn',
        file: d.f.rel,
        message: `${d.age} days old, past the ${ttl}-day TTL: archive due (but ${d.to} already exists)`,
        fix: `merge it with ${d.to} by hand`,
        fixable: false,
      });
    }
    const all = snap.files.filter((f) => f.kind === 'episodic').length;
    const max = env.limits.episodicMaxFiles;
    if (all - movable.length > max) {
      out.push({ check: 'episodic-count', severity: 'warn', file: PATHS.episodic, message: `${all} files in ${PATHS.episodic}/, the limit is ${max}`, fix: 'move old or undated files to memory/archive/ or lower the TTL' });
    }
    return { findings: out, figures: { files: all, overdue: movable.length } };
  },
  summarize: (_snap, env) => (f) => { if (f.kind === 'episodic' && f.date !== undefined && daysBetween(f.date, env.today) > env.limits.episodicTtlDays) readable(env, f); },
  fix(findings, snap, env) {
    if (!findings.some((x) => x.fixable)) return [];
    const moves = overdue(snap, env).filter((d) => !d.clash);
    if (moves.length === 0) return [];
    return openStore(env.ctx).mutate((tx) => moves.map(({ f, to }) => {
      tx.move(f.rel, to);
      return `archived ${f.rel} → ${to}`;
    }));
  },
};

/** The readable episodic days past the TTL, oldest first, with where each goes and whether that is taken. */
function overdue(snap: Snapshot, env: CheckEnv): { f: MemFile; age: number; to: string; clash: boolean }[] {
  const out: { f: MemFile; age: number; to: string; clash: boolean }[] = [];
  for (const f of snap.files) {
    if (f.kind !== 'episodic' || f.date === undefined) continue;
    const age = daysBetween(f.date, env.today);
    // a day that cannot be read is the syntax check's (kept per file: no need to read it to know)
    if (age <= env.limits.episodicTtlDays || !readable(env, f)) continue;
    const to = archiveTarget(f);
    out.push({ f, age, to, clash: existsSync(join(snap.root, to)) });
  }
  return out.sort((a, b) => (a.f.date! < b.f.date! ? -1 : a.f.date! > b.f.date! ? 1 : a.f.rel < b.f.rel ? -1 : 1));
}
