/**
 * The store: the only code that writes memory files.
 *
 *   const store = openStore(ctx);
 *   store.mutate((tx) => { tx.append('memory/working-buffer.md', line + '\n'); });
 *
 * Every mutation runs under the root's lock; every write passes the guards (path containment,
 * no symlinks, control characters, secrets, size, strict frontmatter); replaces are atomic,
 * appends durable, removals go to memory/.trash/.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { MemtierError } from '../core/errors.js';
import { localStamp } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { PATHS } from '../format/layout.js';
import { atomicReplace, durableAppend, fsyncDir } from './fsync.js';
import { acquireLock, type LockHandle } from './lock.js';
import { resolveInside } from './guards/paths.js';
import { assertNoSecrets } from './guards/secrets.js';
import { decodeStrict, MAX_ENTRY_BYTES, MAX_FILE_BYTES, sanitizeText } from './guards/text.js';
import { ID_RE } from '../format/entry.js';

export interface StoreCtx {
  root: string;
  env: NodeJS.ProcessEnv;
  clock: Clock;
}

/** Strict read of a memory file (no lock needed): undefined when missing. */
export function readMemoryFile(root: string, rel: string): string | undefined {
  const abs = resolveInside(root, rel);
  let buf: Buffer;
  try {
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) throw new MemtierError('is a symbolic link; memtier does not follow links', { code: 'path', rule: 'no-symlink', file: rel });
    if (!st.isFile()) throw new MemtierError('is not a regular file', { code: 'path', file: rel });
    if (st.size > MAX_FILE_BYTES) return decodeStrict(new Uint8Array(st.size), rel); // throws oversized
    buf = readFileSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return decodeStrict(buf, rel);
}

/** Optional hook run on every replaced `.md` whose content starts with frontmatter (set by lib/format/frontmatter). */
export type FrontmatterValidator = (content: string, file: string) => void;
let frontmatterValidator: FrontmatterValidator | undefined;
export function setFrontmatterValidator(v: FrontmatterValidator): void {
  frontmatterValidator = v;
}

export interface WriteOptions {
  /**
   * Compare-before-replace: the content the caller read. If the file changed since
   * (a person edited it), the write is refused with code `conflict`. `null` = must not exist.
   */
  expected?: string | null;
}

export class Tx {
  constructor(private readonly ctx: StoreCtx, private readonly lock: LockHandle) {}

  private abs(rel: string): string {
    return resolveInside(this.ctx.root, rel);
  }

  read(rel: string): string | undefined {
    return readMemoryFile(this.ctx.root, rel);
  }

  exists(rel: string): boolean {
    return existsSync(this.abs(rel));
  }

  private guard(rel: string, text: string, lineOffset = 0): string {
    const clean = sanitizeText(text);
    assertNoSecrets(clean, rel, lineOffset);
    return clean;
  }

  /** Atomic replace of a whole file (created if missing). */
  write(rel: string, content: string, opts: WriteOptions = {}): void {
    const abs = this.abs(rel);
    const clean = this.guard(rel, content);
    if (Buffer.byteLength(clean) > MAX_FILE_BYTES) {
      throw new MemtierError(`refused: ${Buffer.byteLength(clean)} bytes is over the ${MAX_FILE_BYTES}-byte file limit`, { code: 'oversized', rule: 'max-file-size', file: rel, hint: 'split the content into several notes' });
    }
    if (rel.endsWith('.md') && clean.startsWith('---') && frontmatterValidator) frontmatterValidator(clean, rel);
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
    mkdirSync(dirname(abs), { recursive: true });
    this.lock.verify();
    atomicReplace(abs, clean, this.ctx.env, rel);
  }

  /**
   * Durable append of complete lines (`text` must end with "\n"). If the file ends in a torn
   * memtier entry (a crash mid-write), the torn tail is quarantined first; if it ends in a
   * complete human line without a newline, a newline is added before the new text.
   */
  append(rel: string, text: string): void {
    const abs = this.abs(rel);
    if (!text.endsWith('\n')) text += '\n';
    const clean = this.guard(rel, text);
    if (Buffer.byteLength(clean) > MAX_ENTRY_BYTES) {
      throw new MemtierError(`refused: entry is ${Buffer.byteLength(clean)} bytes, over the ${MAX_ENTRY_BYTES}-byte entry limit`, { code: 'oversized', rule: 'max-entry-size', file: rel, hint: 'write long content as a note (memory/semantic/…) and log a one-line entry that links to it' });
    }
    mkdirSync(dirname(abs), { recursive: true });
    const prefix = this.repairTail(rel);
    this.lock.verify();
    durableAppend(abs, prefix + clean, this.ctx.env, rel);
  }

  /** Returns "\n" when the file lacks a final newline after a complete line; quarantines a torn entry. */
  private repairTail(rel: string): string {
    const cur = this.read(rel);
    if (cur === undefined || cur.length === 0 || cur.endsWith('\n')) return '';
    const cut = cur.lastIndexOf('\n') + 1;
    const tail = cur.slice(cut);
    if (isTornEntry(tail)) {
      this.quarantine(rel, tail);
      this.lock.verify();
      atomicReplace(this.abs(rel), cur.slice(0, cut), this.ctx.env, rel);
      return '';
    }
    return '\n';
  }

  /** Save a torn line to memory/.trash/torn/ so nothing is silently dropped. */
  quarantine(rel: string, tail: string): string {
    const q = `${PATHS.trash}/torn/${localStamp(this.ctx.clock.now(), this.ctx.clock.tz).replace(/:/g, '')}-${rel.replace(/\//g, '__')}.txt`;
    const abs = this.abs(q);
    mkdirSync(dirname(abs), { recursive: true });
    atomicReplace(abs, sanitizeText(tail) + '\n', this.ctx.env, q);
    return q;
  }

  /** Rename inside the root; refuses to overwrite. */
  move(fromRel: string, toRel: string): void {
    const from = this.abs(fromRel);
    const to = this.abs(toRel);
    if (existsSync(to)) throw new MemtierError(`cannot move ${fromRel}: ${toRel} already exists`, { code: 'exists', file: toRel });
    mkdirSync(dirname(to), { recursive: true });
    this.lock.verify();
    renameSync(from, to);
    fsyncDir(dirname(to));
    if (dirname(to) !== dirname(from)) fsyncDir(dirname(from));
  }

  /** Trash, never delete: move to memory/.trash/STAMP/ORIGINAL-PATH. Returns the trash path. */
  trash(rel: string): string {
    const stamp = localStamp(this.ctx.clock.now(), this.ctx.clock.tz).replace(/:/g, '');
    let dest = `${PATHS.trash}/${stamp}/${rel}`;
    for (let i = 1; existsSync(this.abs(dest)); i++) dest = `${PATHS.trash}/${stamp}-${i}/${rel}`;
    this.move(rel, dest);
    return dest;
  }

  mkdir(rel: string): void {
    mkdirSync(this.abs(rel), { recursive: true });
  }
}

/** A line that memtier wrote (starts like an entry) but that lacks its `^id` ending: torn by a crash. */
export function isTornEntry(line: string): boolean {
  if (!/^- (?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2} /.test(line)) return false;
  const m = /\s\^([A-Za-z0-9-]+)\s*$/.exec(line);
  return !(m && ID_RE.test(m[1]!));
}

export class Store {
  constructor(readonly ctx: StoreCtx) {}

  /** Run `fn` under the root's lock. The lock is released even when `fn` throws. */
  mutate<T>(fn: (tx: Tx) => T): T {
    if (!existsSync(this.ctx.root) || !statSync(this.ctx.root).isDirectory()) {
      throw new MemtierError(`memory root ${this.ctx.root} does not exist`, { code: 'no-memory', hint: 'run "memtier init"' });
    }
    const lock = acquireLock(this.ctx.root, this.ctx.env);
    try {
      return fn(new Tx(this.ctx, lock));
    } finally {
      lock.release();
    }
  }
}

export function openStore(ctx: StoreCtx): Store {
  return new Store(ctx);
}
