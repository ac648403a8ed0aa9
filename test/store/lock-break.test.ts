/**
 * Breaking a dead holder's lock, one breaker at a time (lib/store/lock.ts breakStaleLock): a
 * breaker that judged the dead lock stale before another broke it and a third writer took the
 * lock must leave that live lock in place. Moving it aside, even for an instant, made its holder's
 * verify() find no lock and abort, and let a fourth writer in beside it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fs, { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { syncBuiltinESMExports } from 'node:module';
import { acquireLock, breakHooks, breakStaleLock, LOCK_FILE } from '../../lib/store/lock.js';
import { rmTree, tmpTree } from '../helpers.js';

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmTree(r); });

/** A lock left by a process that has exited. */
function deadLock(root: string): string {
  const pid = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  mkdirSync(join(root, '.memtier'), { recursive: true });
  const path = join(root, LOCK_FILE);
  writeFileSync(path, `${pid} ${hostname()} deadtoken000000 2026-05-15T14:30:00.000Z\n`);
  return path;
}

describe('breaking a stale lock', () => {
  it('moves only the lock judged stale: a live lock that took its place is left where it is', () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n' });
    roots.push(root);
    const path = deadLock(root);
    // another breaker breaks the dead lock, and a third writer takes the lock meanwhile
    expect(breakStaleLock(path)).toBe(true);
    const live = acquireLock(root, {});
    const ino = fs.statSync(path).ino;
    // this breaker had judged the dead lock stale before all that: it tries now
    const renamed: string[] = [];
    const rename = fs.renameSync;
    fs.renameSync = ((from: fs.PathLike, to: fs.PathLike) => { renamed.push(String(from)); return rename(from, to); }) as typeof fs.renameSync;
    syncBuiltinESMExports();
    try {
      expect(breakStaleLock(path)).toBe(false);
    } finally {
      fs.renameSync = rename;
      syncBuiltinESMExports();
    }
    expect(renamed).toEqual([]);
    expect(fs.statSync(path).ino).toBe(ino);
    live.verify();
    live.release();
    expect(existsSync(path)).toBe(false);
  });

  it('one breaker at a time: while one holds lock.break another does not break; a lock.break left by a dead breaker is removed once old', () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n' });
    roots.push(root);
    const path = deadLock(root);
    let inner: boolean | undefined;
    breakHooks.beforeRename = () => { inner = breakStaleLock(path); };
    try {
      expect(breakStaleLock(path)).toBe(true);
    } finally {
      delete breakHooks.beforeRename;
    }
    expect(inner).toBe(false);
    expect(readdirSync(join(root, '.memtier')).filter((n) => n.startsWith('lock.stale-'))).toHaveLength(1);
    // a breaker killed holding lock.break: younger than 5 s it is respected, older it is removed
    deadLock(root);
    writeFileSync(`${path}.break`, '');
    expect(breakStaleLock(path)).toBe(false);
    const old = new Date(Date.now() - 10_000);
    fs.utimesSync(`${path}.break`, old, old);
    expect(breakStaleLock(path)).toBe(false); // removes the old one
    expect(breakStaleLock(path)).toBe(true);
    expect(readFileSync(join(root, 'MEMORY.md'), 'utf8')).toBe('# Memory\n');
  });
});
