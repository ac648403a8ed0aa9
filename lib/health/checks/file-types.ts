import { lstatSync, realpathSync, renameSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { localStamp } from '../../core/clock.js';
import { LOCK_FILE } from '../../store/lock.js';
import { openStore } from '../../store/store.js';
import type { Check, Finding } from '../types.js';
import type { SpecialPath } from '../../memory/snapshot.js';

/** Does the link at `rel` lead outside the memory root (or nowhere)? */
function leadsOutside(root: string, rel: string): boolean {
  let realRoot: string;
  try { realRoot = realpathSync(root); } catch { realRoot = resolve(root); }
  let real: string;
  try { real = realpathSync(join(root, rel)); } catch { return true; } // dangling: nowhere inside
  return real !== realRoot && !real.startsWith(realRoot + sep);
}

const WHAT: Record<SpecialPath['kind'], string> = { symlink: 'a symbolic link', fifo: 'a FIFO (named pipe)', folder: 'a folder', file: 'a file', other: 'a device or socket' };

function finding(root: string, p: SpecialPath): Finding {
  const base = { check: 'file-types', file: p.rel } as const;
  if (p.rel === LOCK_FILE) {
    return { ...base, severity: 'fail', message: `${LOCK_FILE} is ${WHAT[p.kind]}, not memtier's lock file: every write is refused until it is moved`, fix: 'run "memtier health --fix" (moves it into memory/.trash/)', fixable: true };
  }
  if (p.kind === 'symlink') {
    const to = p.target ? ` to ${p.target.replace(/[^\x20-\x7e]/g, '?').slice(0, 200)}` : '';
    const state = p.rel === '.memtier' || p.rel.startsWith('.memtier/');
    const effect = state
      ? 'memtier keeps no index or recall cache through it, and every write is refused (the lock lives there)'
      : p.expected === 'folder'
        ? 'memtier does not read the files under it (search, recall and health skip them) and never writes through it'
        : 'memtier does not read it (search, recall and health skip it) and writers refuse it';
    const outside = leadsOutside(root, p.rel);
    return {
      ...base,
      severity: outside || state ? 'fail' : 'warn',
      message: `is a symbolic link${to}${outside ? ', outside the memory root' : ''}: ${effect}`,
      fix: `replace the link with a real ${p.expected}${state ? ' (or delete it: .memtier is rebuilt)' : ' holding the content'}`,
    };
  }
  return {
    ...base,
    severity: 'fail',
    message: `is ${WHAT[p.kind]} where memtier expects a ${p.expected}: readers skip it and writers fail on it`,
    fix: `move it out of the memory and put a ${p.expected} in its place`,
  };
}

/** Memory paths that are links, FIFOs or the wrong kind of entry (a folder named SESSION-STATE.md). */
export const check: Check = {
  id: 'file-types',
  description: 'memory files are regular files and memory folders real folders: no symbolic link, FIFO or folder in their place, no folder at .memtier/lock; --fix moves such a lock aside into the trash',
  severity: 'fail',
  fixable: true,
  source: 'issue 18',
  doc: {
    trigger: 'MEMORY.md, SESSION-STATE.md, todos.md, a day file, memory/, knowledge/ or .memtier/ that is a symbolic link, a FIFO, or a folder where a file belongs (or a file where a folder belongs); a `.memtier/lock` that is not a regular file',
    failing: 'MEMORY.md -> /etc/passwd (a link out of the memory root)\nSESSION-STATE.md/ (a folder)\n.memtier/lock/ (a folder)',
    fixed: 'MEMORY.md, SESSION-STATE.md: regular files inside the root; .memtier/lock: absent (created by each write)',
    why: 'memtier never follows links (a link would let search print, and the index copy, files outside the memory) and never writes through them, so such a file silently drops out of search while every writer fails on it; a folder at the lock path blocks every write',
  },
  run(snap) {
    return snap.special.map((p) => finding(snap.root, p));
  },
  fix(findings, _snap, env) {
    const out: string[] = [];
    for (const x of findings) {
      if (!x.fixable || x.file !== LOCK_FILE) continue;
      const abs = join(env.ctx.root, LOCK_FILE);
      let st;
      try { st = lstatSync(abs); } catch { out.push(`${LOCK_FILE} is already gone`); continue; }
      if (st.isFile()) { out.push(`${LOCK_FILE} is a regular lock file now; left it`); continue; }
      // No writer can hold the lock while this stands at its path, so it is moved aside first
      // (a name the store does not reserve), then into the trash under the lock.
      const stamp = localStamp(env.ctx.clock.now(), env.ctx.clock.tz).replace(/:/g, '');
      const asideRel = `${dirname(LOCK_FILE)}/not-a-lock-${stamp}`;
      renameSync(abs, join(env.ctx.root, asideRel));
      const dest = openStore(env.ctx).mutate((tx) => tx.trash(asideRel));
      out.push(`moved ${LOCK_FILE} (${st.isDirectory() ? 'a folder' : 'not a regular file'}) to ${dest}`);
    }
    return out;
  },
};
