/**
 * One inter-process lock per memory root: `.memtier/lock`, created with O_EXCL and holding
 * `pid host token time tTHREAD` on its first line.
 *
 * Why our own and not proper-lockfile: proper-lockfile decides staleness only by the lock's
 * age (its mtime, refreshed by a timer in the holder), so a holder killed with SIGKILL blocks
 * every other writer until the stale timeout passes (10 s by default), and a compromised lock
 * is only reported later, asynchronously, from that timer (by default by throwing from it),
 * while the write it was protecting goes ahead. It is also async-only, and memtier's write
 * path is synchronous. Here:
 *  - a holder on this host is checked by pid (and, on Linux, by the process start time, so a
 *    recycled pid is not mistaken for the holder): a dead holder's lock is broken at once;
 *    locks from other hosts go stale after STALE_MS without change;
 *  - `verify()` re-reads the lock file synchronously right before every commit point (each
 *    rename and each append), so a write under a compromised lock is aborted, not performed;
 *  - before each append the holder records what it is about to append (an "intent" line in
 *    its own lock file); whoever breaks the lock of a holder that died mid-append can then
 *    cut the torn bytes off exactly (see Store.recover).
 */
import { closeSync, fstatSync, ftruncateSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, constants } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomChars } from '../core/random.js';
import { MemtierError } from '../core/errors.js';
import { crashPoint } from './crash.js';

export const LOCK_FILE = '.memtier/lock';
/** A lock whose holder we cannot check (other host) is stale after this long without change. */
export const STALE_MS = 30_000;
/** Default time a writer waits for the lock (MEMTIER_LOCK_TIMEOUT_MS overrides). */
export const LOCK_TIMEOUT_MS = 15_000;

export interface LockInfo { pid: number; host: string; token: string; time: string }

/** What a holder was appending when it wrote its intent line (see LockHandle.intent). */
export interface AppendIntent { rel: string; offset: number; data: string }

export interface LockHandle {
  readonly token: string;
  /** Throws a MemtierError with code `lock-compromised` unless the lock file still holds our token. */
  verify(): void;
  /** Record (or clear, with undefined) the append about to happen, for crash recovery. */
  intent(i: AppendIntent | undefined): void;
  release(): void;
}

/** What acquireLock found when it broke a dead holder's lock. */
export interface Recovery {
  /** At least one stale lock was broken (its holder died): sweep temp files. Its append intent is in the lock set aside (`lock.stale-*`, Store.recover). */
  brokeStale: boolean;
}

export interface Acquired { handle: LockHandle; recovery: Recovery }

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Tokens of the locks this process holds (a lock with our pid but another token is a dead predecessor's). */
const heldTokens = new Set<string>();

/** Parse a lock file's text: the holder (first line) and its append intent (second line), if any. */
export function parseLock(text: string): { info?: LockInfo; intent?: AppendIntent } {
  const nl = text.indexOf('\n');
  const [pid, host, token, time] = (nl < 0 ? text : text.slice(0, nl)).trim().split(' ');
  const out: { info?: LockInfo; intent?: AppendIntent } = {};
  if (pid && host && token && /^\d+$/.test(pid)) {
    out.info = { pid: Number(pid), host, token, time: time ?? '' };
  }
  if (nl >= 0) {
    const rest = text.slice(nl + 1);
    const end = rest.indexOf('\n');
    if (end > 0) {
      try {
        const j = JSON.parse(rest.slice(0, end)) as Partial<AppendIntent>;
        if (typeof j.rel === 'string' && typeof j.offset === 'number' && typeof j.data === 'string') out.intent = { rel: j.rel, offset: j.offset, data: j.data };
      } catch { /* half-written intent: ignore */ }
    }
  }
  return out;
}

export function readLockInfo(path: string): LockInfo | undefined {
  try {
    return parseLock(readFileSync(path, 'utf8')).info;
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

/**
 * Linux: state and start time (ms since the epoch) of `pid` from /proc (USER_HZ is 100 on
 * every Linux ABI); undefined elsewhere or when unreadable.
 */
function procInfo(pid: number): { state: string; startMs: number } | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    if (!Number.isFinite(ticks) || !Number.isFinite(btime)) return undefined;
    return { state: fields[0] ?? '', startMs: (btime + ticks / 100) * 1000 };
  } catch {
    return undefined;
  }
}

/**
 * Is the file open on descriptor `fd` also open on another descriptor of this process? A holder
 * keeps its lock file open until it has removed it (unlink, then close), so a lock carrying our
 * pid that no other descriptor of ours refers to, and that is still linked, was left by a dead
 * predecessor that had our pid; one that is open belongs to another thread of this process (its
 * tokens are not ours to see). Without /proc (not Linux) we cannot tell: the lock's age decides.
 */
function openElsewhereInProcess(fd: number, st: { ino: number; dev: number; mtimeMs: number }): boolean {
  let fds: string[];
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    return Date.now() - st.mtimeMs <= STALE_MS;
  }
  for (const n of fds) {
    if (Number(n) === fd) continue;
    try {
      const o = statSync(`/proc/self/fd/${n}`);
      if (o.ino === st.ino && o.dev === st.dev) return true;
    } catch { /* closed meanwhile */ }
  }
  return false;
}

/** Is the holder of a lock written at `lockMtimeMs` by `info` (another process on this host) still running? */
function holderAlive(info: LockInfo, lockMtimeMs: number): boolean {
  if (!pidAlive(info.pid)) return false;
  const p = procInfo(info.pid);
  if (!p) return true;
  // A zombie (killed, not yet reaped by its parent) holds nothing.
  if (p.state === 'Z' || p.state === 'X') return false;
  // A process that started after the lock was written cannot be its holder: the pid was recycled.
  return p.startMs <= lockMtimeMs + 1_000;
}

/**
 * Is the lock at `path` stale (holder dead on this host, or unchanged for STALE_MS)? The lock is
 * read through one descriptor, so its holder, times and inode all belong to the same file.
 */
export function lockIsStale(path: string, now = Date.now()): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return false; // gone: not stale, just retry
  }
  try {
    const st = fstatSync(fd);
    const info = parseLock(readFileSync(fd, 'utf8')).info;
    if (info && info.host === hostname()) {
      if (info.pid !== process.pid) return !holderAlive(info, st.mtimeMs);
      if (heldTokens.has(info.token) || openElsewhereInProcess(fd, st)) return false;
      // no descriptor of ours: a dead predecessor's lock, unless a sibling thread just removed it
      return fstatSync(fd).nlink > 0;
    }
    // unreadable (half-written by a killed holder) or foreign host: go by age
    if (!info && now - st.mtimeMs > 1_000) return true;
    return now - st.mtimeMs > STALE_MS;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

function stateDir(root: string): string {
  const dir = join(root, '.memtier');
  try {
    if (lstatSync(dir).isSymbolicLink()) {
      throw new MemtierError('.memtier is a symbolic link; memtier keeps its lock inside the memory root only', { code: 'path', rule: 'no-symlink', file: '.memtier', hint: 'replace the link with a real folder (or delete it; it is rebuilt)' });
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    try { mkdirSync(dir, { recursive: true, mode: 0o700 }); } catch (e2) { throw notWritable(e2, '.memtier'); }
  }
  return dir;
}

/**
 * Why a writer cannot start: the lock cannot be created. A read-only memory (EROFS: a read-only
 * mount; EACCES/EPERM: no write permission, an immutable folder) gets one message saying so;
 * every writing command stops there, before it changed anything, and reading commands still work.
 */
export function notWritable(e: unknown, file: string): MemtierError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EROFS') {
    return new MemtierError('the memory is on a read-only filesystem (EROFS): nothing was written', { code: 'read-only', file, cause: e, hint: 'remount it read-write (or copy the memory somewhere writable); reading commands (search, get, boot, health) still work' });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new MemtierError(`no permission to write in the memory (${code}): nothing was written`, { code: 'read-only', file, cause: e, hint: 'check the owner and mode of the memory root and .memtier/ (ls -ld; chattr -i if immutable); reading commands still work' });
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new MemtierError(`cannot create the lock file: ${code} (no space left on the disk): nothing was written`, { code: 'io', file, cause: e, hint: 'free space and run the command again' });
  }
  return new MemtierError(`cannot create the lock file: ${code ?? (e as Error).message}`, { code: 'lock', file, cause: e, hint: 'check that the memory root is writable' });
}

export function acquireLock(root: string, env: NodeJS.ProcessEnv, timeoutMs?: number): LockHandle {
  return acquireLockWithRecovery(root, env, timeoutMs).handle;
}

export function acquireLockWithRecovery(root: string, env: NodeJS.ProcessEnv, timeoutMs = Number(env.MEMTIER_LOCK_TIMEOUT_MS ?? LOCK_TIMEOUT_MS)): Acquired {
  stateDir(root);
  const path = join(root, LOCK_FILE);
  const token = randomChars(16);
  const header = `${process.pid} ${hostname()} ${token} ${new Date().toISOString()}\n`;
  const headerLen = Buffer.byteLength(header);
  const deadline = Date.now() + (Number.isFinite(timeoutMs) ? timeoutMs : LOCK_TIMEOUT_MS);
  const recovery: Recovery = { brokeStale: false };
  let fd: number | undefined;
  let attempt = 0;
  for (;;) {
    try {
      fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
      try {
        writeSync(fd, header);
      } catch (e) {
        closeSync(fd);
        try { unlinkSync(path); } catch { /* ignore */ }
        throw e;
      }
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw notWritable(e, LOCK_FILE);
      const kind = lockKind(path);
      if (kind) {
        throw new MemtierError(`${LOCK_FILE} is ${kind}, not memtier's lock file, so no write can take the lock; nothing was changed`, { code: 'lock', rule: 'lock-file', file: LOCK_FILE, hint: '"memtier health --fix" moves it aside into memory/.trash/ (or remove it by hand)' });
      }
    }
    // the dead holder's lock stays aside, intent and all, until this writer's recovery has
    // applied it (Store.recover): a writer killed in between leaves it to the next one
    if (lockIsStale(path) && breakStaleLock(path)) {
      recovery.brokeStale = true;
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
    // Short randomized back-off: mutations hold the lock for milliseconds.
    attempt++;
    sleepMs(1 + Math.floor(Math.random() * Math.min(20, 2 ** Math.min(attempt, 5))));
  }
  heldTokens.add(token);
  crashPoint(env, 'lock.acquired');
  let released = false;
  const handle: LockHandle = {
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
    intent(i) {
      if (released || fd === undefined) return;
      ftruncateSync(fd, headerLen);
      if (i) writeSync(fd, JSON.stringify(i) + '\n', headerLen);
    },
    release() {
      if (released) return;
      released = true;
      heldTokens.delete(token);
      if (fd !== undefined) {
        const ourInode = fstatSync(fd).ino;
        try {
          // Remove the lock only if it is still ours (same file, same token), and before closing
          // it: a sibling thread judges a lock with our pid by whether it is open in this process.
          const st = lstatSync(path);
          if (st.ino === ourInode && readLockInfo(path)?.token === token) unlinkSync(path);
        } catch { /* already gone */ }
        try { closeSync(fd); } catch { /* ignore */ }
        fd = undefined;
      }
    },
  };
  return { handle, recovery };
}

/** Where a breaker holds the right to break (breakStaleLock): `.memtier/lock.break`. */
const BREAK_SUFFIX = '.break';
/** A breaker holds it for microseconds: one older than this was left by a breaker that died holding it. */
const BREAK_STALE_MS = 5_000;

/**
 * Break a stale lock, one breaker at a time. Under the breaker lock (`lock.break`, O_EXCL) the
 * lock is judged again and, when stale, renamed aside: no other breaker can move the lock in
 * between, and no new lock can appear while the stale one is at the path, so the rename moves
 * exactly the lock judged stale. (Without it, a breaker that had judged a dead holder's lock
 * stale could rename the live lock another writer had just made in its place: that writer's
 * verify() then found no lock and aborted, and a fourth writer could take the lock meanwhile,
 * two writers inside it.) The aside file, with the dead holder's append intent, is left for the
 * new holder's recovery (Store.recover), which cuts a torn append by it and then removes it: a
 * breaker killed before that leaves it to the next writer. Returns whether we broke it; false
 * also when another breaker is at work (the caller waits and tries again).
 */
export function breakStaleLock(path: string): boolean {
  const breaker = `${path}${BREAK_SUFFIX}`;
  let fd: number;
  try {
    fd = openSync(breaker, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    // a breaker that died holding it: removed once old
    try { if (Date.now() - lstatSync(breaker).mtimeMs > BREAK_STALE_MS) unlinkSync(breaker); } catch { /* gone */ }
    return false;
  }
  try {
    if (!lockIsStale(path)) return false;
    breakHooks.beforeRename?.();
    const aside = `${path}.stale-${randomChars(8)}`;
    try {
      renameSync(path, aside);
    } catch {
      return false; // gone meanwhile (its holder released it)
    }
    if (!lockIsStale(aside)) {
      // A live lock after all (a writer slow to write its lock's first line looked dead): put it back
      try { linkSync(aside, path); } catch { /* a new lock exists: leave it */ }
      try { unlinkSync(aside); } catch { /* ignore */ }
      return false;
    }
    return true;
  } finally {
    closeSync(fd);
    try { unlinkSync(breaker); } catch { /* removed as stale by another breaker */ }
  }
}

/** Tests: a hook run under the breaker lock, after the lock was judged stale and before it is renamed. */
export const breakHooks: { beforeRename?: () => void } = {};

/** What stands at the lock's path when it is not a regular file ("a folder", "a symbolic link", …), else undefined. */
export function lockKind(path: string): string | undefined {
  let st;
  try { st = lstatSync(path); } catch { return undefined; }
  if (st.isFile()) return undefined;
  return st.isDirectory() ? 'a folder' : st.isSymbolicLink() ? 'a symbolic link' : st.isFIFO() ? 'a FIFO' : 'not a regular file';
}

/** Leftover `.memtier/lock.stale-*` files (a breaker killed mid-break). */
export const STALE_ASIDE_RE = /^lock\.stale-[0-9a-z]{8}$/;
