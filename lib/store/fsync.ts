/**
 * Low-level durable file operations. Every byte written is checked; every file and
 * directory that changed is fsynced before success is reported.
 */
import { closeSync, fsyncSync, fstatSync, ftruncateSync, openSync, renameSync, unlinkSync, writeSync, constants } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MemtierError } from '../core/errors.js';
import { crashPoint } from './crash.js';

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
  return join(dirname(target), `.${basename(target)}${TEMP_MARK}${randomBytes(6).toString('hex')}`);
}

function ioError(e: unknown, file: string, what: string): MemtierError {
  const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
  const hint = code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT'
    ? 'free disk space (or raise the file size limit) and run the command again; nothing was changed'
    : 'check permissions and the filesystem; nothing was changed';
  return new MemtierError(`${what} failed: ${code}`, { code: 'io', file, hint, cause: e });
}

/**
 * Atomic replace: temp file in the same directory (O_EXCL, never follows a link), every
 * byte written and checked, size verified, fsync, rename over the target, fsync the directory.
 * On any failure the temp file is removed and the target is untouched.
 */
export function atomicReplace(abs: string, content: string | Buffer, env: NodeJS.ProcessEnv, relForErrors: string, mode = 0o644): void {
  const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const tmp = tempPathFor(abs);
  let fd: number | undefined;
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
    renameSync(tmp, abs);
  } catch (e) {
    if (fd !== undefined) try { closeSync(fd); } catch { /* already failing */ }
    try { unlinkSync(tmp); } catch { /* not created */ }
    throw ioError(e, relForErrors, 'atomic write');
  }
  crashPoint(env, 'replace.after-rename');
  fsyncDir(dirname(abs));
}

/**
 * Durable append: one write of the whole entry at the end, checked and fsynced.
 * On a short or failed write the file is truncated back to its previous size.
 */
export function durableAppend(abs: string, data: string, env: NodeJS.ProcessEnv, relForErrors: string): void {
  const buf = Buffer.from(data, 'utf8');
  let fd: number | undefined;
  let before = 0;
  let created = false;
  try {
    try {
      fd = openSync(abs, constants.O_WRONLY | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      fd = openSync(abs, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
      created = true;
    }
    before = fstatSync(fd).size;
    crashPoint(env, 'append.before-write');
    if (env.MEMTIER_CRASH_AT === 'append.partial-write') {
      writeSync(fd, buf, 0, Math.max(1, Math.floor(buf.length / 2)));
      crashPoint(env, 'append.partial-write');
    }
    const n = writeSync(fd, buf, 0, buf.length);
    if (n !== buf.length) throw Object.assign(new Error(`short append: ${n} of ${buf.length} bytes`), { code: 'ENOSPC' });
    fsyncSync(fd);
    crashPoint(env, 'append.after-write');
  } catch (e) {
    if (fd !== undefined) {
      try { ftruncateSync(fd, before); fsyncSync(fd); } catch { /* best effort */ }
      try { closeSync(fd); } catch { /* ignore */ }
      fd = undefined;
    }
    throw ioError(e, relForErrors, 'append');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (created) fsyncDir(dirname(abs));
}
