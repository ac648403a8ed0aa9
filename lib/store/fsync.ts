/**
 * Low-level durable file operations. Every byte written is checked; every file and
 * directory that changed is fsynced before success is reported.
 */
import { closeSync, fsyncSync, fstatSync, ftruncateSync, lstatSync, openSync, readdirSync, renameSync, unlinkSync, writeSync, constants } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomChars } from '../core/random.js';
import { MemtierError } from '../core/errors.js';
import { crash, crashArmed, crashPoint } from './crash.js';

/** Write all of `buf` to `fd`, looping over short writes; throws on any error (ENOSPC, EFBIG, EIO). */
export function writeAll(fd: number, buf: Buffer, position: number | null = null): void {
  let off = 0;
  while (off < buf.length) {
    const n = writeSync(fd, buf, off, buf.length - off, position === null ? null : position + off);
    if (n <= 0) throw Object.assign(new Error(`write returned ${n}`), { code: 'EIO' });
    off += n;
  }
}

export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch (e) {
    // Some filesystems refuse fsync on directories (EINVAL/EISDIR); the rename is still atomic.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM') throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export const TEMP_MARK = '.memtier-tmp-';

/** Temp file name next to `target`: `.NAME.memtier-tmp-RANDOM`. Health removes leftovers. */
export function tempPathFor(target: string): string {
  // Keep the name under NAME_MAX (255 bytes) however long the target's name is.
  let base = basename(target);
  while (Buffer.byteLength(base) > 200) base = base.slice(0, -1);
  return join(dirname(target), `.${base}${TEMP_MARK}${randomChars(12)}`);
}

/** A temp file name as tempPathFor makes it. */
export const TEMP_RE = /^\..*\.memtier-tmp-[0-9a-z]{12}$/s;

/** Folders never searched for temp files (not ours, or huge). */
const SWEEP_SKIP = new Set(['.git', 'node_modules']);

/**
 * Temp files left by a process that died mid-replace (`.NAME.memtier-tmp-*`), as root-relative
 * paths, sorted. Walks the whole root except .git and node_modules; never follows links. In a
 * `.trash` folder only `torn/` is searched (the one place memtier writes into the trash;
 * anything else there was put there on purpose and stays).
 */
export function findOrphanTemps(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string, inTrash: boolean): void => {
    let ents;
    try { ents = readdirSync(rel ? join(root, rel) : root, { withFileTypes: true }); } catch { return; }
    for (const d of ents) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        if (inTrash) {
          if (d.name === 'torn' && rel.endsWith('.trash')) walk(r, true);
        } else if (d.name === '.trash') walk(r, true);
        else if (!SWEEP_SKIP.has(d.name)) walk(r, false);
      } else if (d.isFile() && TEMP_RE.test(d.name) && (!inTrash || rel.endsWith('/torn') || rel === 'torn')) out.push(r);
    }
  };
  walk('', false);
  return out.sort();
}

/**
 * Remove orphan temp files. Only safe under the root's lock (a temp file belongs to the lock
 * holder while it exists), which is why the store calls it right after breaking a dead
 * holder's lock. A temp file never holds acknowledged data: the rename that publishes it is
 * the acknowledgement. Returns the removed paths.
 */
export function sweepOrphanTemps(root: string): string[] {
  const removed: string[] = [];
  for (const rel of findOrphanTemps(root)) {
    try {
      const abs = join(root, rel);
      if (!lstatSync(abs).isFile()) continue;
      unlinkSync(abs);
      removed.push(rel);
    } catch { /* gone already */ }
  }
  return removed;
}

/** Errors raised after the change was made (the rename or append done, its directory sync failed). */
const afterChange = new WeakSet<object>();

/** Was `e` thrown after the file was changed (the new content is in place, its durability unsure)? */
export function changedBeforeError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && afterChange.has(e);
}

function ioError(e: unknown, file: string, what: string, changed = false): MemtierError {
  const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
  const state = changed ? 'the new content was written but may not survive a power loss' : 'nothing was changed';
  const hint = code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT'
    ? `the disk is full (or a file size limit was hit): free space and run the command again; ${state}`
    : `check permissions and the filesystem; ${state}`;
  const why = code === 'ENOSPC' || code === 'EDQUOT' ? ' (no space left on the disk)' : code === 'EFBIG' ? ' (file size limit reached: disk full or ulimit -f)' : '';
  const err = new MemtierError(`${what} failed: ${code}${why}`, { code: 'io', file, hint, cause: e });
  if (changed) afterChange.add(err);
  return err;
}

export interface CommitOptions {
  /** Called right before the commit point (the rename, the append write): LockHandle.verify. */
  beforeCommit?: () => void;
  /** Mode of a new file (default 0o644; a replaced file keeps its own mode). */
  mode?: number;
}

/**
 * Atomic replace: temp file in the same directory (O_EXCL|O_NOFOLLOW, never follows a link),
 * every byte written and checked, size verified, fsync, rename over the target (a rename
 * replaces a link itself, never what it points to), fsync the directory. On any failure the
 * temp file is removed and the target is untouched.
 */
export function atomicReplace(abs: string, content: string | Buffer, env: NodeJS.ProcessEnv, relForErrors: string, opts: CommitOptions = {}): void {
  const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  let mode = opts.mode ?? 0o644;
  try {
    const st = lstatSync(abs);
    if (st.isFile()) mode = st.mode & 0o777;
  } catch { /* new file */ }
  const tmp = tempPathFor(abs);
  let fd: number | undefined;
  let renamed = false;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode);
    writeAll(fd, buf);
    crashPoint(env, 'replace.temp-written');
    fsyncSync(fd);
    const size = fstatSync(fd).size;
    if (size !== buf.length) throw Object.assign(new Error(`wrote ${size} of ${buf.length} bytes`), { code: 'EIO' });
    closeSync(fd);
    fd = undefined;
    crashPoint(env, 'replace.before-rename');
    opts.beforeCommit?.();
    renameSync(tmp, abs);
    renamed = true;
  } catch (e) {
    if (fd !== undefined) try { closeSync(fd); } catch { /* already failing */ }
    if (!renamed) try { unlinkSync(tmp); } catch { /* not created */ }
    if (e instanceof MemtierError) throw e;
    throw ioError(e, relForErrors, 'atomic write');
  }
  crashPoint(env, 'replace.after-rename');
  try {
    fsyncDir(dirname(abs));
  } catch (e) {
    throw ioError(e, relForErrors, 'directory sync after the write', true);
  }
}

/**
 * Durable append: one write of the whole entry at the end, checked and fsynced.
 * On a short or failed write the file is truncated back to its previous size
 * (a file this call created is removed again).
 */
export function durableAppend(abs: string, data: string | Buffer, env: NodeJS.ProcessEnv, relForErrors: string, opts: CommitOptions = {}): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let fd: number | undefined;
  let before = 0;
  let created = false;
  let writing = false;
  try {
    try {
      fd = openSync(abs, constants.O_WRONLY | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      fd = openSync(abs, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), opts.mode ?? 0o644);
      created = true;
    }
    const st = fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EINVAL' });
    if (st.nlink > 1) {
      throw new MemtierError('has other hard links (the same file is reachable from elsewhere); memtier does not append to it', {
        code: 'path', rule: 'no-hardlink', file: relForErrors,
        hint: 'replace it with a copy: cp FILE FILE.tmp && mv FILE.tmp FILE',
      });
    }
    before = st.size;
    opts.beforeCommit?.();
    crashPoint(env, 'append.before-write');
    writing = true;
    if (crashArmed(env, 'append.partial-write')) {
      writeSync(fd, buf, 0, Math.max(1, Math.floor(buf.length / 2)));
      crash();
    }
    const n = writeSync(fd, buf, 0, buf.length);
    if (n !== buf.length) throw Object.assign(new Error(`short append: ${n} of ${buf.length} bytes`), { code: 'ENOSPC' });
    fsyncSync(fd);
    crashPoint(env, 'append.after-write');
  } catch (e) {
    if (fd !== undefined) {
      // Only undo what this call wrote: never touch a file it refused before writing.
      if (writing) try { ftruncateSync(fd, before); fsyncSync(fd); } catch { /* best effort */ }
      try { closeSync(fd); } catch { /* ignore */ }
      fd = undefined;
      if (created) try { unlinkSync(abs); } catch { /* ignore */ }
    }
    if (e instanceof MemtierError) throw e;
    throw ioError(e, relForErrors, 'append');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (created) {
    try {
      fsyncDir(dirname(abs));
    } catch (e) {
      throw ioError(e, relForErrors, 'directory sync after the append', true);
    }
  }
}

/** Cut a file back to `size` bytes (durably). Used to remove a torn tail. */
export function truncateFile(abs: string, size: number, env: NodeJS.ProcessEnv, relForErrors: string, opts: CommitOptions = {}): void {
  let fd: number | undefined;
  try {
    fd = openSync(abs, constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0));
    opts.beforeCommit?.();
    ftruncateSync(fd, size);
    fsyncSync(fd);
  } catch (e) {
    if (e instanceof MemtierError) throw e;
    throw ioError(e, relForErrors, 'truncate');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
