import { openStore } from '../../store/store.js';
import type { Check, Finding } from '../types.js';
import { filesOf, type MemFile, type Snapshot } from '../snapshot.js';
import { closureKeys, closureSkeleton, CLOSURE_KEYS } from '../closure.js';

/** Seed 004 invariant 6: every past episodic day ends with its closure block. */
export const check: Check = {
  id: 'closure-block',
  description: 'every past episodic day ends with a closure block (Updated / Decisions / Signal / Open); --fix appends a skeleton',
  severity: 'fail',
  fixable: true,
  source: 'seed 004 #6',
  doc: {
    trigger: 'a file memory/episodic/YYYY-MM-DD.md dated before today that lacks one of the four closure lines after its last entry',
    failing: '# 2026-05-14\n- 09:10 [DECISION] use SQLite for the cache ^k2j3mx0a',
    fixed: '# 2026-05-14\n- 09:10 [DECISION] use SQLite for the cache ^k2j3mx0a\n\nUpdated: 2026-05-14\nDecisions: use SQLite for the cache\nSignal: none\nOpen: none',
    why: 'the closure block is the day\'s summary an agent reads instead of the whole log, and the weekly review extracts decisions and signals from it; a missing block means the day was never closed',
  },
  run(snap, env) {
    const out: Finding[] = [];
    for (const f of pastDays(snap, env.today)) {
      const missing = missingKeys(snap, f);
      if (missing.length === 0) continue;
      out.push({
        check: 'closure-block',
        severity: 'fail',
        file: f.rel,
        message: missing.length === CLOSURE_KEYS.length ? 'past day without a closure block' : `closure block lacks ${missing.join(', ')}`,
        fix: `run "memtier close-day ${f.date}" (or "memtier health --fix" for a skeleton to fill in)`,
        fixable: true,
      });
    }
    return out;
  },
  fix(findings, snap, env) {
    const done: string[] = [];
    const targets = findings.map((x) => snap.byRel.get(x.file ?? '')).filter((f): f is MemFile => f !== undefined && f.text !== undefined);
    if (targets.length === 0) return done;
    openStore(env.ctx).mutate((tx) => {
      for (const f of targets) {
        const cur = tx.read(f.rel);
        if (cur !== f.text) { done.push(`skipped ${f.rel}: changed since it was read`); continue; }
        tx.append(f.rel, closureSkeleton(f.date!, missingKeys(snap, f), cur ?? ''));
        done.push(`appended a closure block skeleton to ${f.rel}`);
      }
    });
    return done;
  },
};

function pastDays(snap: Snapshot, today: string): MemFile[] {
  return filesOf(snap, 'episodic').filter((f) => f.date !== undefined && f.date < today);
}

function missingKeys(snap: Snapshot, f: MemFile): string[] {
  const lines = snap.lines(f);
  let lastEntry = -1;
  for (const e of snap.entries(f)) lastEntry = Math.max(lastEntry, e.line - 1);
  const have = closureKeys(lines.slice(lastEntry + 1));
  return CLOSURE_KEYS.filter((k) => !have.has(k));
}
