/**
 * Path containment: every path memtier writes must stay inside the memory root,
 * with no symlinked file or directory anywhere between the root and the target.
 */
import { lstatSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { MemtierError } from '../../core/errors.js';

/** C0/C1 controls, DEL, soft hyphen, Arabic letter mark, Mongolian vowel separator, zero-width and bidi controls, BOM. */
export const INVISIBLE_CHARS = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;
const BAD_CHARS = INVISIBLE_CHARS;
const BAD_CHARS_G = new RegExp(INVISIBLE_CHARS.source, 'gu');
/** Names memtier reserves for itself (temp files, the lock): never a write destination. */
const RESERVED = /(?:^|\/)(?:\.[^/]*\.memtier-tmp-[^/]*|\.memtier\/lock[^/]*)$/s;

/** Refuse a write destination that is one of memtier's own temp or lock names. */
export function assertNotReserved(rel: string): void {
  if (RESERVED.test(rel.replace(/\\/g, '/'))) {
    throw new MemtierError(`path "${rel.replace(BAD_CHARS_G, '?').slice(0, 200)}" is a name memtier reserves for its temp files and lock`, { code: 'path', rule: 'reserved-name', file: rel, hint: 'choose another file name' });
  }
}

export const SESSION_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function assertSessionId(id: string): string {
  if (typeof id !== 'string' || !SESSION_ID_RE.test(id)) {
    throw new MemtierError(`invalid session id "${String(id).replace(/[^\x20-\x7e]/g, '?').slice(0, 80)}"`, {
      code: 'session-id',
      rule: 'session-id',
      hint: 'a session id is 1-64 characters: letters, digits, "_" and "-", starting with a letter or digit',
    });
  }
  return id;
}

/**
 * Validate a root-relative path and return its absolute form. Refuses absolute paths,
 * `..`, NUL and control/bidi/zero-width characters, and symlinks on the way (when `checkLinks`).
 * `folders`: folders found real (not links) earlier in the same pass, not checked again, and
 * where this call adds the ones it checks (a walk reading 10,000 files of a few folders); with
 * it the last part is not checked: the caller opens it with O_NOFOLLOW.
 */
export function resolveInside(root: string, rel: string, opts: { checkLinks?: boolean; folders?: Set<string> } = {}): string {
  const fail = (why: string, hint: string): never => {
    const shown = rel.replace(BAD_CHARS_G, '?').slice(0, 200);
    throw new MemtierError(`path "${shown}" ${why}`, { code: 'path', rule: 'path-containment', file: shown, hint });
  };
  if (rel.length === 0) fail('is empty', 'give a path relative to the memory root, e.g. memory/semantic/people.md');
  if (BAD_CHARS.test(rel)) fail('contains a control, bidi or zero-width character', 'use plain printable characters in paths');
  if (isAbsolute(rel) || /^[A-Za-z]:/.test(rel)) fail('is absolute', 'give a path relative to the memory root');
  const norm = normalize(rel);
  if (norm === '..' || norm.startsWith('..' + sep) || norm.split(sep).includes('..')) fail('leaves the memory root', 'remove ".." from the path');
  const abs = join(root, norm);
  if (opts.checkLinks !== false) {
    let cur = root;
    const parts = norm.split(sep).filter(Boolean);
    for (let i = 0; i < parts.length; i++) {
      cur = join(cur, parts[i]!);
      const folder = i < parts.length - 1;
      if (opts.folders && (!folder || opts.folders.has(cur))) continue;
      let st;
      try { st = lstatSync(cur); } catch { break; } // does not exist yet: nothing below can be a link
      if (st.isSymbolicLink()) fail(`goes through a symbolic link (${cur.slice(root.length + 1)})`, 'memtier never writes through symlinks; replace the link with a real file or folder');
      if (folder && st.isDirectory()) opts.folders?.add(cur);
    }
  }
  return abs;
}
