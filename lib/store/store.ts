/**
 * The store: the only code that writes memory files.
 *
 *   const store = openStore(ctx);
 *   store.mutate((tx) => { tx.append('memory/working-buffer.md', line + '\n'); });
 *
 * Every mutation runs under the root's lock; every write passes the guards (path containment,
 * no symlinks, reserved names, control characters, secrets, size, strict frontmatter); replaces
 * are atomic, appends durable, removals go to memory/.trash/. A mutation that finds the lock of
 * a holder that died first repairs what the crash left: the torn tail of an interrupted append
 * is cut off exactly (and kept in memory/.trash/torn/), and orphan temp files are removed.
 */
import { appendFileSync, closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { MemtierError } from '../core/errors.js';
import { localStamp } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { PATHS } from '../format/layout.js';
import { parseFrontmatter, startsWithFrontmatter } from '../format/frontmatter.js';
import { atomicReplace, changedBeforeError, durableAppend, fsyncDir, sweepOrphanTemps, truncateFile } from './fsync.js';
import { acquireLockWithRecovery, lockIsStale, parseLock, STALE_ASIDE_RE, type AppendIntent, type LockHandle, type Recovery } from './lock.js';
import { assertNotReserved, resolveInside } from './guards/paths.js';
import { assertNoSecrets } from './guards/secrets.js';
import { decodeStrict, MAX_ENTRY_BYTES, MAX_FILE_BYTES, sanitizeText } from './guards/text.js';
import { ID_RE } from '../format/entry.js';
import { conflictMarkerLine, gitWriteBlocker } from '../core/git-state.js';
import { randomChars } from '../core/random.js';

export { findOrphanTemps } from './fsync.js';

export interface StoreCtx {
  root: string;
  env: NodeJS.ProcessEnv;
  clock: Clock;
}

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

function notRegular(rel: string): MemtierError {
  return new MemtierError('is not a regular file', { code: 'path', rule: 'regular-file', file: rel, hint: 'memtier reads and writes plain files only' });
}

function symlinkError(rel: string): MemtierError {
  return new MemtierError('is a symbolic link; memtier does not follow links', { code: 'path', rule: 'no-symlink', file: rel, hint: 'replace the link with a real file' });
}

function oversized(rel: string, size: number): MemtierError {
  return new MemtierError(`file is ${size} bytes, over the ${MAX_FILE_BYTES}-byte limit`, { code: 'oversized', rule: 'max-file-size', file: rel, hint: 'split it into smaller notes, or archive old parts' });
}

/** Read a whole file by descriptor (no link followed, FIFOs never block), bounded by MAX_FILE_BYTES. */
function readBytes(root: string, rel: string, folders?: Set<string>): Buffer | undefined {
  // the folders' check is shared only where O_NOFOLLOW guards the file itself
  const abs = resolveInside(root, rel, folders && O_NOFOLLOW !== 0 ? { folders } : {});
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw symlinkError(rel);
    throw new MemtierError(`cannot read: ${code ?? (e as Error).message}`, { code: 'io', file: rel, cause: e, hint: 'check permissions' });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(rel);
    if (st.size > MAX_FILE_BYTES) throw oversized(rel, st.size);
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return off === buf.length ? buf : buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

/**
 * Strict read of a memory file (no lock needed): undefined when missing. `folders`: folders a
 * pass over many files already found real (resolveInside).
 */
export function readMemoryFile(root: string, rel: string, folders?: Set<string>): string | undefined {
  const buf = readBytes(root, rel, folders);
  return buf === undefined ? undefined : decodeStrict(buf, rel);
}

/** mkdir -p that reports a file in the way (ENOTDIR/EEXIST) or a permission problem as a MemtierError. */
function ensureDir(absDir: string, rel: string): void {
  try {
    mkdirSync(absDir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new MemtierError(`cannot create the folder for ${rel}: ${code ?? (e as Error).message}`, {
      code: 'io', file: rel, cause: e,
      hint: code === 'ENOTDIR' || code === 'EEXIST' ? 'a file is in the way of a folder on this path; rename it' : 'check permissions; nothing was changed',
    });
  }
}

/** A file's text for a check, or undefined (missing, not a file, unreadable). */
function readRaw(abs: string): string | undefined {
  try { return readFileSync(abs, 'utf8'); } catch { return undefined; }
}

/** Where an append wrote (Tx.undoAppend takes it back). */
export interface AppendReceipt { rel: string; offset: number; data: string }

export interface WriteOptions {
  /**
   * Compare-before-replace: the content the caller read. If the file changed since
   * (a person edited it), the write is refused with code `conflict`. `null` = must not exist.
   */
  expected?: string | null;
}

/** Bytes as text, invalid UTF-8 replaced (made on first use: few commands need it). */
let lossyDecoder: InstanceType<typeof TextDecoder> | undefined;
const lossy = { decode: (b: Uint8Array): string => (lossyDecoder ??= new TextDecoder('utf-8')).decode(b) };

export class Tx {
  constructor(private readonly ctx: StoreCtx, private readonly lock: LockHandle) {}

  private abs(rel: string): string {
    return resolveInside(this.ctx.root, rel);
  }

  private get commit() {
    return { beforeCommit: () => this.lock.verify() };
  }

  read(rel: string): string | undefined {
    return readMemoryFile(this.ctx.root, rel);
  }

  /** Does anything (file, folder or link) exist at `rel`? */
  exists(rel: string): boolean {
    try {
      lstatSync(this.abs(rel));
      return true;
    } catch (e) {
      if (e instanceof MemtierError) throw e;
      return false;
    }
  }

  private guard(rel: string, text: string): string {
    const clean = sanitizeText(text);
    assertNoSecrets(clean, rel);
    return clean;
  }

  /**
   * Atomic replace of a whole file (created if missing). A `.md` whose content opens with
   * frontmatter must parse strictly (lib/format/frontmatter.ts), else nothing is written.
   */
  write(rel: string, content: string, opts: WriteOptions = {}): void {
    assertNotReserved(rel);
    const abs = this.abs(rel);
    const clean = this.guard(rel, content);
    const size = Buffer.byteLength(clean);
    if (size > MAX_FILE_BYTES) {
      throw new MemtierError(`refused: ${size} bytes is over the ${MAX_FILE_BYTES}-byte file limit`, { code: 'oversized', rule: 'max-file-size', file: rel, hint: 'split the content into several notes' });
    }
    if (/\.(?:md|markdown)$/i.test(rel) && startsWithFrontmatter(clean)) parseFrontmatter(clean, rel);
    const marker = conflictMarkerLine(clean);
    // a file that holds an unresolved git conflict is the person's to resolve: never rewritten
    // (a rewrite would keep the markers, or drop one side's text with them)
    const old = opts.expected ?? readRaw(abs);
    const oldMarker = old ? conflictMarkerLine(old) : undefined;
    if (oldMarker !== undefined) {
      throw new MemtierError(`refused: ${rel} holds an unresolved git conflict block at line ${oldMarker} (<<<<<<< … ======= … >>>>>>>); memtier does not rewrite it`, { code: 'conflict-markers', rule: 'conflict-markers', file: rel, line: oldMarker, hint: `resolve the conflict in ${rel} by hand (keep what you want, delete the marker lines), then run the command again` });
    }
    if (marker !== undefined) {
      throw new MemtierError(`refused: line ${marker} starts a git conflict block (<<<<<<< … ======= … >>>>>>>); writing it would keep an unresolved merge in the memory`, { code: 'conflict-markers', rule: 'conflict-markers', file: rel, line: marker, hint: `resolve the conflict in ${rel} by hand (keep what you want, delete the marker lines), then run the command again` });
    }
    if (opts.expected !== undefined) {
      const now = this.read(rel);
      if ((opts.expected === null && now !== undefined) || (opts.expected !== null && now !== opts.expected)) {
        throw new MemtierError('changed on disk since it was read (someone edited it); nothing was written', {
          code: 'conflict',
          file: rel,
          hint: 'run the command again; it will start from the new content',
        });
      }
    }
    this.checkTarget(rel, abs);
    ensureDir(dirname(abs), rel);
    recording(this.ctx, [rel], () => atomicReplace(abs, clean, this.ctx.env, rel, this.commit));
  }

  /**
   * Atomic replace with bytes that are already in the memory's git history (sync bringing another
   * clone's committed version of a file): path containment, reserved names, the link and
   * regular-file checks and the lock hold as for write(), but the text guards do not: refusing
   * bytes another machine committed cannot take them out of the history, and would leave this
   * clone's files behind its branch forever.
   */
  writeCommitted(rel: string, content: Buffer): void {
    assertNotReserved(rel);
    const abs = this.abs(rel);
    this.checkTarget(rel, abs);
    ensureDir(dirname(abs), rel);
    recording(this.ctx, [rel], () => atomicReplace(abs, content, this.ctx.env, rel, this.commit));
  }

  /** The target, if it exists, must be a regular file (a rename would replace a link or fail on a folder). */
  private checkTarget(rel: string, abs: string): void {
    try {
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) throw symlinkError(rel);
      if (!st.isFile()) throw notRegular(rel);
    } catch (e) {
      if (e instanceof MemtierError) throw e;
    }
  }

  /**
   * Durable append of complete lines (a missing final "\n" is added), in one write of at most
   * MAX_ENTRY_BYTES. If the file ends in a torn memtier entry (a crash mid-write), the torn
   * tail is quarantined first; if it ends in a complete human line without a newline, a
   * newline is added before the new text.
   */
  append(rel: string, text: string): AppendReceipt {
    const abs = this.abs(rel);
    const clean = this.appendable(rel, text);
    this.checkTarget(rel, abs);
    ensureDir(dirname(abs), rel);
    // a torn tail cut off before a refused append is a change of the file: it stays recorded
    let cut = false;
    return recording(this.ctx, [rel], () => {
      const { prefix, size, cut: tornCut } = this.repairTail(rel, abs);
      cut = tornCut;
      const data = prefix + clean;
      if (size + Buffer.byteLength(data) > MAX_FILE_BYTES) throw oversized(rel, size + Buffer.byteLength(data));
      this.lock.intent({ rel, offset: size, data });
      durableAppend(abs, data, this.ctx.env, rel, this.commit);
      return { rel, offset: size, data };
    }, () => cut);
  }

  /**
   * Would append(rel, text) pass its guards (path, reserved names, text, secrets, entry size)?
   * Throws what append would throw, writes nothing: a caller about to create a file for the
   * text asks first, so a refused text leaves no new file behind.
   */
  checkAppend(rel: string, text: string): void {
    this.abs(rel);
    this.appendable(rel, text);
  }

  private appendable(rel: string, text: string): string {
    assertNotReserved(rel);
    if (!text.endsWith('\n')) text += '\n';
    const clean = this.guard(rel, text);
    if (Buffer.byteLength(clean) > MAX_ENTRY_BYTES) {
      throw new MemtierError(`refused: entry is ${Buffer.byteLength(clean)} bytes, over the ${MAX_ENTRY_BYTES}-byte entry limit`, { code: 'oversized', rule: 'max-entry-size', file: rel, hint: 'write long content as a note (memory/semantic/…) and log a one-line entry that links to it' });
    }
    return clean;
  }

  /**
   * Take back an append of this transaction (`receipt` from append) when a later write of the
   * same change failed, so the change is all or nothing. Only bytes that are still exactly the
   * appended ones at the end of the file are cut; otherwise a MemtierError says the append was kept.
   */
  undoAppend(receipt: AppendReceipt): void {
    const abs = this.abs(receipt.rel);
    const data = Buffer.from(receipt.data, 'utf8');
    let same = false;
    try {
      const fd = openSync(abs, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      try {
        const st = fstatSync(fd);
        if (st.isFile() && st.size === receipt.offset + data.length) {
          const got = Buffer.alloc(data.length);
          readSync(fd, got, 0, got.length, receipt.offset);
          same = got.equals(data);
        }
      } finally {
        closeSync(fd);
      }
    } catch { /* judged below */ }
    if (!same) throw new MemtierError('the appended text could not be taken back: it is no longer the end of the file', { code: 'io', file: receipt.rel, hint: 'it was kept; check the file before retrying' });
    recording(this.ctx, [receipt.rel], () => truncateFile(abs, receipt.offset, this.ctx.env, receipt.rel, this.commit));
  }

  /**
   * Look at the file's last line. Returns the prefix to write before an append ("\n" when a
   * complete human line lacks its newline) and the file's size afterwards. A torn memtier
   * entry (see isTornEntry) is moved to memory/.trash/torn/ and cut off.
   */
  private repairTail(rel: string, abs: string): { prefix: string; size: number; cut: boolean } {
    const end = readEnd(abs, rel);
    if (!end) return { prefix: '', size: 0, cut: false };
    const { size, tail } = end;
    if (size === 0) return { prefix: '', size, cut: false };
    const nl = tail.lastIndexOf(0x0a);
    // The complete lines read here must be text (from the first line start inside the chunk).
    const from = size > tail.length ? tail.indexOf(0x0a) + 1 : 0;
    if (nl >= 0 && from <= nl) this.checkText(rel, tail.subarray(from, nl + 1), size - tail.length + from, abs);
    if (nl === tail.length - 1) return { prefix: '', size, cut: false };
    if (nl < 0 && size > tail.length) return { prefix: '\n', size, cut: false };
    const lastBytes = tail.subarray(nl + 1);
    const line = lossy.decode(lastBytes);
    if (!isTornEntry(line)) {
      this.checkText(rel, lastBytes, size - lastBytes.length, abs);
      return { prefix: '\n', size, cut: false };
    }
    const cut = size - lastBytes.length;
    this.quarantine(rel, line);
    truncateFile(abs, cut, this.ctx.env, rel, this.commit);
    return { prefix: '', size: cut, cut: true };
  }

  /**
   * Cut a torn memtier entry off the end of `rel` (a crash mid-append left its last line without
   * its newline and ^id, possibly cut inside a character), saving it in memory/.trash/torn/, as
   * the next append would: a writer that reads the file before appending (the WAL reads the
   * buffer's ids, rotation its lines) calls it first, so one torn tail does not refuse every later
   * write. Returns whether something was cut; a missing file, one ending in a complete line or in
   * a person's line is left as it is (a person's invalid text is reported by the read).
   */
  settleTail(rel: string): boolean {
    const abs = this.abs(rel);
    let end: ReturnType<typeof readEnd>;
    try { end = readEnd(abs, rel); } catch { return false; } // not a file: the read reports it
    if (!end || end.size === 0) return false;
    const { size, tail } = end;
    const nl = tail.lastIndexOf(0x0a);
    if (nl === tail.length - 1 || (nl < 0 && size > tail.length)) return false;
    const lastBytes = tail.subarray(nl + 1);
    const line = lossy.decode(lastBytes);
    if (!isTornEntry(line)) return false;
    this.quarantine(rel, line);
    recording(this.ctx, [rel], () => truncateFile(abs, size - lastBytes.length, this.ctx.env, rel, this.commit));
    return true;
  }

  /** Refuse to append to a file whose end is not text (NUL bytes, invalid UTF-8), naming the line. */
  private checkText(rel: string, bytes: Buffer, offset: number, abs: string): void {
    if (bytes.indexOf(0) < 0 && isUtf8(bytes)) return;
    // Report through the strict reader so the error names the right line of the whole file.
    readMemoryFile(this.ctx.root, rel);
    throw new MemtierError('file is not valid UTF-8 text near its end', { code: 'encoding', rule: 'utf-8', file: rel, hint: `re-save ${abs} as UTF-8 text (offset ${offset})` });
  }

  /** Save a torn line to memory/.trash/torn/STAMP-PATH.txt so nothing is silently dropped. Returns its path. */
  quarantine(rel: string, tail: string): string {
    this.assertTrashUsable();
    const stamp = localStamp(this.ctx.clock.now(), this.ctx.clock.tz).replace(/:/g, '');
    const base = `${PATHS.trash}/torn/${stamp}-${rel.replace(/[/\\]/g, '__')}`;
    let q = `${base}.txt`;
    for (let i = 1; this.exists(q); i++) q = `${base}-${i}.txt`;
    const abs = this.abs(q);
    ensureDir(dirname(abs), q);
    recording(this.ctx, [q], () => atomicReplace(abs, sanitizeText(tail).replace(/\n+$/, '') + '\n', this.ctx.env, q, this.commit));
    return q;
  }

  /** Rename inside the root; refuses to overwrite anything (a file, a folder or a link). */
  move(fromRel: string, toRel: string): void {
    assertNotReserved(toRel);
    const from = this.abs(fromRel);
    const to = this.abs(toRel);
    if (!this.exists(fromRel)) throw new MemtierError(`cannot move ${fromRel}: it does not exist`, { code: 'missing', file: fromRel });
    if (this.exists(toRel)) throw new MemtierError(`cannot move ${fromRel}: ${toRel} already exists`, { code: 'exists', file: toRel });
    ensureDir(dirname(to), toRel);
    this.lock.verify();
    recording(this.ctx, [fromRel, toRel], () => {
      try {
        renameSync(from, to);
      } catch (e) {
        throw new MemtierError(`cannot move ${fromRel} to ${toRel}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { code: 'io', file: fromRel, cause: e, hint: 'check permissions; nothing was changed' });
      }
    });
    fsyncDir(dirname(to));
    if (dirname(to) !== dirname(from)) fsyncDir(dirname(from));
  }

  /**
   * The trash must be a real folder (or not exist yet) before anything is removed: a removal
   * saves first, to the trash, and removes second. Throws a clear error (code `trash`) otherwise.
   */
  assertTrashUsable(): void {
    const problem = trashProblem(this.ctx.root);
    if (problem) {
      throw new MemtierError(`${PATHS.trash} is ${problem}, not a folder: memtier keeps everything it removes there, so nothing was removed`, {
        code: 'trash', rule: 'trash-folder', file: PATHS.trash,
        hint: `move it out of the way (mv ${PATHS.trash} ${PATHS.memoryDir}/trash-was-not-a-folder) and run the command again`,
      });
    }
  }

  /** Trash, never delete: move to memory/.trash/STAMP/ORIGINAL-PATH. Returns the trash path. */
  trash(rel: string): string {
    this.assertTrashUsable();
    const stamp = localStamp(this.ctx.clock.now(), this.ctx.clock.tz).replace(/:/g, '');
    let dest = `${PATHS.trash}/${stamp}/${rel}`;
    for (let i = 1; this.exists(dest); i++) dest = `${PATHS.trash}/${stamp}-${i}/${rel}`;
    this.move(rel, dest);
    return dest;
  }

  mkdir(rel: string): void {
    assertNotReserved(rel);
    ensureDir(this.abs(rel), rel);
  }

  /**
   * Delete for real: a file or folder inside memory/.trash/ (the one place memtier deletes:
   * `trash purge`, the trash's retention, `forget --purge`). Refuses any path outside the trash.
   * Folders left empty up to the trash itself are removed too. Returns false when nothing was there.
   */
  purge(rel: string): boolean {
    const norm = rel.replace(/\\/g, '/').replace(/\/+$/, '');
    if (!norm.startsWith(`${PATHS.trash}/`) || norm.split('/').includes('..')) {
      throw new MemtierError(`refused to delete ${rel}: only what is inside ${PATHS.trash}/ can be deleted`, { code: 'path', rule: 'purge-in-trash', file: rel, hint: 'memtier never deletes memory files; "memtier forget" moves an entry to the trash' });
    }
    this.assertTrashUsable();
    const abs = this.abs(norm);
    if (!this.exists(norm)) return false;
    this.lock.verify();
    touch(this.ctx, norm);
    try {
      rmSync(abs, { recursive: true, force: true });
    } catch (e) {
      throw new MemtierError(`cannot delete ${norm}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { code: 'io', file: norm, cause: e, hint: 'check permissions' });
    }
    // folders left empty, up to (not including) the trash itself
    const top = this.abs(PATHS.trash);
    for (let d = dirname(abs); d.startsWith(top + '/'); d = dirname(d)) {
      try { if (readdirSync(d).length > 0) break; rmdirSync(d); } catch { break; }
    }
    fsyncDir(existsSync(dirname(abs)) ? dirname(abs) : top);
    return true;
  }
}

/** Why memory/.trash cannot hold removed content ("a symbolic link", "a file", …), or undefined when it can (a folder, or absent). */
export function trashProblem(root: string): string | undefined {
  for (const rel of [PATHS.memoryDir, PATHS.trash]) {
    let st;
    try { st = lstatSync(join(root, rel)); } catch { return undefined; }
    if (st.isSymbolicLink()) return rel === PATHS.trash ? 'a symbolic link' : `inside ${rel}, a symbolic link`;
    if (!st.isDirectory()) return rel === PATHS.trash ? (st.isFile() ? 'a file' : 'not a regular folder') : `inside ${rel}, which is not a folder`;
  }
  return undefined;
}

/** The head of an entry as memtier writes it, by character class (D = digit): `- YYYY-MM-DD HH:MM ` or `- HH:MM `. */
const HEAD_TEMPLATES = ['- DDDD-DD-DD DD:DD ', '- DD:DD '];
function isHeadPrefix(line: string): boolean {
  return HEAD_TEMPLATES.some((t) => line.length < t.length && [...line].every((c, i) => (t[i] === 'D' ? c >= '0' && c <= '9' : c === t[i])));
}

/**
 * The end of the file at `abs`: its size and its last MAX_ENTRY_BYTES + 1 bytes (an entry is at
 * most MAX_ENTRY_BYTES: a longer last line is not ours), or undefined when it does not exist.
 */
function readEnd(abs: string, rel: string): { size: number; tail: Buffer } | undefined {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw symlinkError(rel);
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(rel);
    const n = Math.min(st.size, MAX_ENTRY_BYTES + 1);
    const tail = Buffer.alloc(n);
    if (n > 0) readSync(fd, tail, 0, n, st.size - n);
    return { size: st.size, tail };
  } finally {
    closeSync(fd);
  }
}

/**
 * A last line (without its newline) that memtier wrote but a crash cut short: it starts like
 * an entry (or is a prefix of an entry's head) and lacks its `^id` ending. Exact recovery
 * after a crash uses the lock's append intent; this is the fallback for lines found later.
 */
export function isTornEntry(line: string): boolean {
  if (line.length > 0 && isHeadPrefix(line)) return true;
  if (!/^- (?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2} /.test(line)) return false;
  const m = /\s\^([A-Za-z0-9-]+)\s*$/.exec(line);
  return !(m && ID_RE.test(m[1]!));
}

/** What the last mutate repaired after a crash (for logs and tests). */
export interface RepairReport {
  /** Orphan temp files removed (root-relative). */
  temps: string[];
  /** Torn appends cut off: the file and where the torn bytes were saved. */
  torn: { file: string; savedTo: string }[];
}

/**
 * The paths each root's mutations change in this process, for the git auto-commit (lib/git):
 * recorded before each write, so the commit holds every path a command changed, whatever step
 * changed it (rotation, archive, trash, quarantine, a torn tail cut back).
 *
 * In a git memory the record is also kept on disk, in `.memtier/commit-pending/PID-TOKEN.txt`
 * (a lock-style first line `pid host token time`, then one path a line), appended before the
 * first write to each path. A command killed between its writes and its commit leaves the record
 * behind, and the next memtier command on that root commits those paths as a recovered commit
 * (lib/git `recoverPendingCommits`). The record is appended without fsync: a process kill keeps
 * it (the page cache survives), a power cut may lose it, and then `memtier health` reports the
 * uncommitted files (the `uncommitted` check).
 *
 * A write that fails before it changes its file (a guard refuses it, the disk does) takes its
 * paths back out of the record (untouch): a refused write must not leave a path that the next
 * command's recovery commits whatever is there by then (a secret pasted in meanwhile, the bytes
 * of a hard-linked file outside the memory). The recovery checks each path too (vetForCommit).
 */
interface Touched { paths: Set<string>; record?: string | null }
/**
 * One registry per process, whichever copy of this module records a write: a command's bundle
 * (dist/cli/NAME.js) holds its own copy, and the modules it loads on demand from dist/lib/
 * (extract --apply's capture, a supersede) write through theirs. The commit at the command's end
 * must see the paths both wrote.
 */
const touched: Map<string, Touched> = ((globalThis as Record<symbol, unknown>)[Symbol.for('memtier.store.touched')] ??= new Map<string, Touched>()) as Map<string, Touched>;
export const PENDING_DIR = '.memtier/commit-pending';

/** Is the memory a git repository memtier commits to (MEMTIER_GIT not off, a .git at the root)? */
export function gitEnabled(env: NodeJS.ProcessEnv): boolean {
  const v = (env.MEMTIER_GIT ?? '').toLowerCase();
  return !(v === 'off' || v === '0' || v === 'false' || v === 'no');
}

/**
 * Record `rels` for the commit before they are written. Returns the paths recorded by this call
 * (not recorded before), which untouch() takes back when the write fails.
 */
function touch(ctx: StoreCtx, ...rels: string[]): string[] {
  const key = resolve(ctx.root);
  let t = touched.get(key);
  if (!t) touched.set(key, (t = { paths: new Set() }));
  const fresh = [...new Set(rels.filter((r) => !r.startsWith(PATHS.state + '/') && !t.paths.has(r)))];
  if (fresh.length === 0) return [];
  if (t.record === undefined) {
    if (gitEnabled(ctx.env) && existsSync(join(key, '.git'))) {
      // a person's stopped rebase or merge, or a detached HEAD: writing now would land inside a
      // file git is merging, or on no branch (asked once per command, before its first write)
      const blocked = gitWriteBlocker(key);
      if (blocked) throw new MemtierError(`refused: ${blocked.reason}; nothing was written`, { code: 'git-busy', rule: 'git-operation', file: rels[0] ?? '.git', hint: blocked.hint });
    }
    t.record = null;
    if (gitEnabled(ctx.env) && existsSync(join(key, '.git'))) {
      const dir = join(key, PENDING_DIR);
      const token = randomChars(8);
      const record = join(dir, `${process.pid}-${token}.txt`);
      try {
        mkdirSync(dir, { recursive: true });
        writeFileSync(record, `${process.pid} ${hostname()} ${token} ${new Date().toISOString()}\n`, { flag: 'wx' });
      } catch (e) {
        // A full disk creates the file but not its first line: an empty record would read as a
        // fresh one (no pid to check) and outlive the next commands; remove it, write nothing.
        try { rmSync(record, { force: true }); } catch { /* not created */ }
        t.record = undefined;
        throw recordError(e, rels[0]);
      }
      t.record = record;
    }
  }
  if (t.record) {
    try { appendFileSync(t.record, fresh.join('\n') + '\n'); } catch (e) { throw recordError(e, fresh[0]); }
  }
  for (const r of fresh) t.paths.add(r);
  return fresh;
}

/**
 * Take back what touch() recorded for a write that failed before it changed anything (a guard
 * refused it, the disk refused it): nothing of it is committed, by this command or, were it
 * killed now, by the next one's recovery, which would commit whatever is at the path by then.
 */
function untouch(ctx: StoreCtx, fresh: string[]): void {
  if (fresh.length === 0) return;
  const t = touched.get(resolve(ctx.root));
  if (!t) return;
  for (const r of fresh) t.paths.delete(r);
  if (!t.record) return;
  const drop = new Set(fresh);
  // rewritten whole and renamed over it (a name that is no record: not ".txt")
  const tmp = `${t.record}.${randomChars(6)}.tmp`;
  try {
    const [head, ...rest] = readFileSync(t.record, 'utf8').split('\n');
    const kept = [...new Set(rest.filter((l) => l && !drop.has(l)))];
    writeFileSync(tmp, [head, ...kept].join('\n') + '\n');
    renameSync(tmp, t.record);
  } catch {
    // the record cannot be rewritten (a full disk): it keeps the path, and the recovery of a dead
    // command's record checks every path against the store's guards before it commits it (vetForCommit)
    try { rmSync(tmp, { force: true }); } catch { /* not created */ }
  }
}

/**
 * Run the write `fn` of `rels`, recorded for the commit first; when it throws before changing the
 * file (`changed` says whether an earlier step of it did), the record is taken back.
 */
function recording<T>(ctx: StoreCtx, rels: string[], fn: () => T, changed?: () => boolean): T {
  const fresh = touch(ctx, ...rels);
  try {
    return fn();
  } catch (e) {
    if (!changedBeforeError(e) && !changed?.()) untouch(ctx, fresh);
    throw e;
  }
}

/** Recording a path to commit failed (before the path is written): nothing was changed. */
function recordError(e: unknown, rel: string | undefined): MemtierError {
  const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  return new MemtierError(`recording the change for git failed: ${code}${full ? ' (no space left on the disk)' : ''}: nothing was written`, {
    code: 'io', file: rel ?? PENDING_DIR, cause: e,
    hint: full ? 'the disk is full: free space and run the command again' : `check that ${PENDING_DIR} is writable`,
  });
}

/** The memory files this process changed under `root` since they were last settled. */
export function takeTouched(root: string): string[] {
  const t = touched.get(resolve(root));
  return t ? [...t.paths].sort() : [];
}

/** The changes takeTouched listed are committed (or there was nothing to commit): forget them and drop this process's record. */
export function settleTouched(root: string): void {
  const key = resolve(root);
  const t = touched.get(key);
  if (t?.record) rmSync(t.record, { force: true });
  touched.delete(key);
}

/** Records of commits other processes started under `root` and did not finish (their holder is gone). */
export function deadCommitRecords(root: string): { file: string; pid: number; time: string; paths: string[] }[] {
  const key = resolve(root);
  const own = touched.get(key)?.record;
  const dir = join(key, PENDING_DIR);
  let names: string[];
  try { names = readdirSync(dir); } catch { return []; }
  const out: { file: string; pid: number; time: string; paths: string[] }[] = [];
  for (const n of names.sort()) {
    const file = join(dir, n);
    if (file === own || !n.endsWith('.txt') || !lockIsStale(file)) continue;
    let text: string;
    try { text = readFileSync(file, 'utf8'); } catch { continue; }
    const [head, ...rest] = text.split('\n');
    const { info } = parseLock(head ?? '');
    out.push({ file, pid: info?.pid ?? 0, time: info?.time ?? '', paths: [...new Set(rest.map((l) => l.trim()).filter((l) => l && !l.startsWith(PATHS.state + '/')))].sort() });
  }
  return out;
}

/** A path a recovered commit leaves out, and why (never quoting the file's content). */
export interface CommitRefusal { path: string; why: string }

/**
 * Which of `rels` (paths a dead command recorded, lib/git recoverPendingCommits) may be committed
 * as they are now: a path is committed only while what is there would pass the store's guards —
 * inside the root, no symbolic link on the way or at the end, a regular file (or a folder of them)
 * with no other hard link, within the size limit, holding no credential. A path that is gone is
 * committed (as a removal). Between the dead command's write and this recovery anyone may have
 * changed the file: a key pasted into SESSION-STATE.md, a day file replaced by a hard link to a
 * file outside the memory. Those are refused, and stay uncommitted for a person to look at.
 */
export function vetForCommit(root: string, rels: string[]): { ok: string[]; refused: CommitRefusal[] } {
  const ok: string[] = [];
  const refused: CommitRefusal[] = [];
  const fileProblem = (rel: string, st: Stats): string | undefined => {
    if (st.isSymbolicLink()) return 'is a symbolic link';
    if (!st.isFile()) return 'is not a regular file';
    if (st.nlink > 1) return 'has other hard links (the same bytes are reachable from outside the memory)';
    if (st.size > MAX_FILE_BYTES) return `is ${st.size} bytes, over the ${MAX_FILE_BYTES}-byte file limit`;
    let buf: Buffer | undefined;
    try { buf = readBytes(root, rel); } catch (e) { return `cannot be read (${(e as Error).message})`; }
    if (buf === undefined) return undefined; // gone meanwhile: a removal
    if (buf.length === 0) return undefined;
    const text = lossy.decode(buf);
    try {
      assertNoSecrets(text, rel);
      const clean = sanitizeText(text);
      if (clean !== text) assertNoSecrets(clean, rel);
    } catch (e) {
      if (e instanceof MemtierError && e.code === 'secret') return `${e.message.replace(/^refused: /, '')}${e.line ? ` at line ${e.line}` : ''}${e.rule ? ` [${e.rule}]` : ''}`;
      throw e;
    }
    return undefined;
  };
  for (const rel of rels) {
    let abs: string;
    try { abs = resolveInside(root, rel); } catch (e) { refused.push({ path: rel, why: `is not a path memtier writes (${(e as Error).message})` }); continue; }
    let st;
    try { st = lstatSync(abs); } catch { ok.push(rel); continue; }
    if (!st.isDirectory()) {
      const why = fileProblem(rel, st);
      if (why) refused.push({ path: rel, why }); else ok.push(rel);
      continue;
    }
    // a folder (a move of one): every file under it, links never followed
    const files: string[] = [];
    const bad: CommitRefusal[] = [];
    const walk = (r: string): void => {
      let names: string[];
      try { names = readdirSync(join(root, r)); } catch { return; }
      for (const n of names.sort()) {
        const cr = `${r}/${n}`;
        let cst;
        try { cst = lstatSync(join(root, cr)); } catch { continue; }
        if (cst.isDirectory()) { walk(cr); continue; }
        const why = fileProblem(cr, cst);
        if (why) bad.push({ path: cr, why }); else files.push(cr);
      }
    };
    walk(rel);
    if (bad.length === 0) ok.push(rel);
    else { ok.push(...files); refused.push(...bad); }
  }
  return { ok, refused };
}

interface Held { tx: Tx; depth: number }
/** Roots this process holds the lock of (mutate is re-entrant per root). */
const held = new Map<string, Held>();

export class Store {
  /** Repairs done by the last mutate that broke a dead holder's lock (empty otherwise). */
  lastRepair: RepairReport = { temps: [], torn: [] };

  constructor(readonly ctx: StoreCtx) {}

  /**
   * Run `fn` under the root's lock. The lock is released even when `fn` throws. Nested calls
   * on the same root in the same process reuse the held lock.
   */
  mutate<T>(fn: (tx: Tx) => T): T {
    const key = resolve(this.ctx.root);
    const outer = held.get(key);
    if (outer) {
      outer.depth++;
      try { return fn(outer.tx); } finally { outer.depth--; }
    }
    let st;
    try { st = statSync(this.ctx.root); } catch { st = undefined; }
    if (!st || !st.isDirectory()) {
      throw new MemtierError(`memory root ${this.ctx.root} does not exist`, { code: 'no-memory', hint: 'run "memtier init"' });
    }
    const { handle, recovery } = acquireLockWithRecovery(this.ctx.root, this.ctx.env);
    const tx = new Tx(this.ctx, handle);
    held.set(key, { tx, depth: 1 });
    try {
      this.lastRepair = this.recover(tx, handle, recovery);
      const result = fn(tx);
      if (result && typeof (result as { then?: unknown }).then === 'function') {
        throw new MemtierError('store.mutate() callbacks must be synchronous (the lock is released when the callback returns)', {
          code: 'internal',
          hint: 'compute first (await what you need), then call mutate with synchronous writes',
        });
      }
      return result;
    } finally {
      held.delete(key);
      handle.release();
    }
  }

  /** After a holder died: cut torn appends back exactly, remove orphan temp files and lock leftovers. */
  private recover(tx: Tx, lock: LockHandle, recovery: Recovery): RepairReport {
    const report: RepairReport = { temps: [], torn: [] };
    let crashed = recovery.brokeStale;
    // The stale locks set aside (by this writer's break, or by a breaker that died before its
    // repair): each dead holder's torn append is cut by its intent (cutTorn carries the intent in
    // our own lock first), and only then is the aside file removed, so a writer killed in between
    // leaves the intent to the next one.
    const dir = join(this.ctx.root, PATHS.state);
    let names: string[] = [];
    try { names = readdirSync(dir); } catch { /* none */ }
    for (const name of names.sort()) {
      if (!STALE_ASIDE_RE.test(name)) continue;
      const p = join(dir, name);
      if (!lockIsStale(p)) continue;
      const intent = readAside(p)?.intent;
      if (intent) {
        const saved = this.cutTorn(tx, lock, intent);
        if (saved) report.torn.push({ file: intent.rel, savedTo: saved });
      }
      try { unlinkSync(p); crashed = true; } catch { /* gone */ }
    }
    // the aside's intent is applied: our lock no longer needs to carry it
    if (report.torn.length) lock.intent(undefined);
    if (crashed) report.temps = sweepOrphanTemps(this.ctx.root);
    return report;
  }

  /** If `i.rel` ends in a strict prefix of the announced append, save and cut it. */
  private cutTorn(tx: Tx, lock: LockHandle, i: AppendIntent): string | undefined {
    let abs: string;
    try { abs = resolveInside(this.ctx.root, i.rel); } catch { return undefined; }
    const data = Buffer.from(i.data, 'utf8');
    let fd: number;
    try { fd = openSync(abs, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK); } catch { return undefined; }
    let got: Buffer;
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || st.size <= i.offset || st.size >= i.offset + data.length) return undefined;
      got = Buffer.alloc(st.size - i.offset);
      readSync(fd, got, 0, got.length, i.offset);
    } finally {
      closeSync(fd);
    }
    if (!got.equals(data.subarray(0, got.length))) return undefined;
    // Carry the intent in our own lock: if we die mid-repair, the next breaker repeats it.
    lock.intent(i);
    const saved = tx.quarantine(i.rel, lossy.decode(got));
    recording(this.ctx, [i.rel], () => truncateFile(abs, i.offset, this.ctx.env, i.rel, { beforeCommit: () => lock.verify() }));
    return saved;
  }
}

function readAside(p: string): { intent?: AppendIntent } | undefined {
  try {
    return parseLock(readFileSync(p, 'utf8'));
  } catch {
    return undefined;
  }
}

export function openStore(ctx: StoreCtx): Store {
  return new Store(ctx);
}
