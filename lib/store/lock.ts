/**
 * One inter-process lock per memory root: `.memtier/lock`, created with O_EXCL and holding
 * `pid host token time`. Why our own and not proper-lockfile: a holder killed with SIGKILL
 * must not block others for long (we check the holder's pid on this host, so a dead holder's
 * lock is broken at once; locks from other hosts go stale after STALE_MS), and a compromised
 * lock must abort the write: `verify()` re-reads the token synchronously right before every
 * commit point (rename, append), where proper-lockfile only reports compromise later from a timer.
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, constants } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MemtierError } from '../core/errors.js';
import { crashPoint } from './crash.js';

export const LOCK_FILE = '.memtier/lock';
/** A lock whose holder we cannot check (other host) is stale after this long without change. */
export const STALE_MS = 30_000;

export interface LockInfo { pid: number; host: string; token: string; time: string }

export interface LockHandle {
  readonly token: string;
  /** Throws LockCompromised unless the lock file still holds our token. */
  verify(): void;
  release(): void;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export function readLockInfo(path: string): LockInfo | undefined {
  try {
    const [pid, host, token, time] = readFileSync(path, 'utf8').trim().split(' ');
    if (!pid || !host || !token) return undefined;
    return { pid: Number(pid), host, token, time: time ?? '' };
  } catch {
    return undefined;
  }
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Is the lock at `path` stale (holder dead on this host, or unchanged for STALE_MS)? */
export function lockIsStale(path: string, now = Date.now()): boolean {
  const info = readLockInfo(path);
  let mtime = now;
  try { mtime = statSync(path).mtimeMs; } catch { return false; }
  if (info && info.host === hostname()) return !pidAlive(info.pid);
  // unreadable (half-written by a killed holder) or foreign host: go by age
  if (!info && now - mtime > 1_000) return true;
  return now - mtime > STALE_MS;
}

export function acquireLock(root: string, env: NodeJS.ProcessEnv, timeoutMs = Number(env.MEMTIER_LOCK_TIMEOUT_MS ?? 15_000)): LockHandle {
  const dir = join(root, '.memtier');
  const path = join(root, LOCK_FILE);
  mkdirSync(dir, { recursive: true });
  const token = randomBytes(8).toString('hex');
  const body = `${process.pid} ${hostname()} ${token} ${new Date().toISOString()}\n`;
  const deadline = Date.now() + timeoutMs;
  let wait = 1;
  for (;;) {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      try { writeSync(fd, body); } finally { closeSync(fd); }
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new MemtierError(`cannot create the lock file: ${(e as NodeJS.ErrnoException).code}`, { code: 'lock', file: LOCK_FILE, cause: e, hint: 'check that the memory root is writable' });
      }
    }
    if (lockIsStale(path)) {
      breakStaleLock(path);
      continue;
    }
    if (Date.now() > deadline) {
      const info = readLockInfo(path);
      throw new MemtierError(`memory is locked${info ? ` by pid ${info.pid} on ${info.host} since ${info.time}` : ''}`, {
        code: 'lock-timeout',
        file: LOCK_FILE,
        hint: 'another memtier command is writing; try again. If no memtier process is running, "memtier health --fix" removes a stale lock',
      });
    }
    sleepMs(wait);
    wait = Math.min(50, wait * 2);
  }
  crashPoint(env, 'lock.acquired');
  let released = false;
  return {
    token,
    verify() {
      const info = readLockInfo(path);
      if (released || !info || info.token !== token) {
        throw new MemtierError('the memory lock was taken over by another process; this write was aborted and nothing was changed', {
          code: 'lock-compromised',
          file: LOCK_FILE,
          hint: 'run the command again',
        });
      }
    },
    release() {
      if (released) return;
      released = true;
      const info = readLockInfo(path);
      if (info && info.token === token) {
        try { unlinkSync(path); } catch { /* already gone */ }
      }
    },
  };
}

/**
 * Break a stale lock: rename it aside (only one breaker wins the rename), check that what we
 * renamed is still stale (not a fresh lock another breaker just made), then remove it.
 */
function breakStaleLock(path: string): void {
  const aside = `${path}.stale-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else broke it first
  }
  const info = readLockInfo(aside);
  const stillStale = !info || info.host !== hostname() || !pidAlive(info.pid);
  if (!stillStale) {
    // We moved a live lock: put it back unless a new one exists (then its holder will see
    // LockCompromised at its next verify() and abort, never write unprotected).
    try { linkSync(aside, path); } catch { /* a new lock exists: leave it */ }
    try { unlinkSync(aside); } catch { /* ignore */ }
    return;
  }
  try { unlinkSync(aside); } catch { /* ignore */ }
}
