import { lstatSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { TEMP_MARK } from '../../store/fsync.js';
import { LOCK_FILE, lockIsStale, readLockInfo } from '../../store/lock.js';
import { openStore } from '../../store/store.js';
import type { Check, Finding } from '../types.js';
import type { PlainFile } from '../../memory/snapshot.js';

/** No leftover temp files of atomic writes, stale locks or `.git/index.lock`. */
export const check: Check = {
  id: 'leftovers',
  description: 'no orphan temp files (.NAME.memtier-tmp-*), stale memtier lock or stale .git/index.lock, nor other tools\' leftovers (.NAME.swp, NAME~, *.tmp, NAME.<digits> next to NAME); --fix removes memtier\'s temp files and moves the rest to the trash',
  severity: 'warn',
  fixable: true,
  source: 'seed 000 self-healing',
  doc: {
    trigger: 'a `.NAME.memtier-tmp-*` file or a `.git/index.lock` older than 10 minutes, a `.memtier/lock` whose holder is dead, a `.memtier/lock.stale-*` leftover, or, older than 10 minutes in the memory folders (at the root: beside its own files), an editor swap, backup or autosave file (`.NAME.swp`, `NAME~`, `#NAME#`), a temp file (`NAME.tmp`, `.NAME.tmp`) or an atomic writer\'s temp file `NAME.<digits>` next to `NAME`',
    failing: 'memory/semantic/.people.md.memtier-tmp-3f9a1c0b2d4e (a write killed before its rename)',
    fixed: '(removed: a temp file never holds acknowledged data; its rename is the acknowledgement)',
    why: 'a stale lock blocks every write until it is broken and a stale git lock stops `memtier sync`; temp files are never memory, only clutter that grows after each crash',
  },
  run(snap, env) {
    const now = env.ctx.clock.now().getTime();
    const staleMs = env.limits.staleMinutes * 60_000;
    const out: Finding[] = [];
    const old = (p: PlainFile): boolean => now - p.mtimeMs > staleMs;
    for (const t of snap.tempFiles) {
      out.push(old(t)
        ? { check: 'leftovers', severity: 'warn', file: t.rel, message: 'orphan temp file of an interrupted write', fix: 'run "memtier health --fix" (removes it)', fixable: true }
        : { check: 'leftovers', severity: 'info', file: t.rel, message: 'temp file of a write in progress (younger than the stale limit)' });
    }
    for (const t of snap.strays) {
      out.push(old(t)
        ? { check: 'leftovers', severity: 'warn', file: t.rel, message: `${t.what}, left by another tool (not memory)`, fix: 'if no editor or tool still has it open, run "memtier health --fix" (moves it to the trash)', fixable: true }
        : { check: 'leftovers', severity: 'info', file: t.rel, message: `${t.what} (younger than the stale limit: a tool may still be using it)` });
    }
    for (const l of snap.locks) {
      if (l.rel === LOCK_FILE) {
        if (lockIsStale(join(snap.root, l.rel))) out.push({ check: 'leftovers', severity: 'warn', file: l.rel, message: 'stale memtier lock: its holder is gone', fix: 'run "memtier health --fix" (the next write also breaks it)', fixable: true });
        else {
          const info = readLockInfo(join(snap.root, l.rel));
          out.push({ check: 'leftovers', severity: 'info', file: l.rel, message: `memory is locked${info ? ` by pid ${info.pid} on ${info.host}` : ''} (a write in progress)` });
        }
      } else if (l.rel.startsWith(`${LOCK_FILE}.stale-`)) {
        out.push({ check: 'leftovers', severity: 'warn', file: l.rel, message: 'leftover of a broken lock', fix: 'run "memtier health --fix"', fixable: true });
      } else if (old(l)) {
        out.push({ check: 'leftovers', severity: 'warn', file: l.rel, message: `stale git lock, ${Math.round((now - l.mtimeMs) / 60_000)} minutes old: git commands in the memory fail`, fix: 'if no git command is running, run "memtier health --fix"', fixable: true });
      } else {
        out.push({ check: 'leftovers', severity: 'info', file: l.rel, message: 'git lock present (a git command may be running)' });
      }
    }
    return out;
  },
  fix(findings, _snap, env) {
    const targets = findings.filter((x) => x.fixable && x.file);
    if (targets.length === 0) return [];
    // Acquiring the store lock breaks a stale .memtier/lock by itself, and the store then sweeps
    // the temp files of the dead holder (lib/store): what is gone by then was handled there.
    return openStore(env.ctx).mutate((tx) => targets.map((x) => {
      if (x.file === LOCK_FILE) return `broke the stale lock ${LOCK_FILE}`;
      if (!tx.exists(x.file!)) return `${x.file} was removed by the store when it broke the stale lock`;
      if (x.file!.includes(TEMP_MARK)) {
        // The store reserves temp names (nothing may be moved onto one, the trash included) and
        // removes orphans itself; under the lock we hold no write is in flight, so this one is an
        // orphan: a temp file never holds acknowledged data (its rename is the acknowledgement).
        const abs = join(env.ctx.root, x.file!);
        if (!lstatSync(abs).isFile()) return `left ${x.file}: not a regular file`;
        unlinkSync(abs);
        return `removed the orphan temp file ${x.file}`;
      }
      return `moved ${x.file} to ${tx.trash(x.file!)}`;
    }));
  },
};
