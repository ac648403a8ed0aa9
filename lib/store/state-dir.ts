/**
 * Is `.memtier/` fit to hold derived state? Kept apart from the lock so that search and recall
 * (which write their caches there) can ask without loading the store.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { MemtierError } from '../core/errors.js';

/**
 * Why `.memtier/` (or a folder under it, e.g. `index`) cannot hold memtier's derived state:
 * a symbolic link (it would carry the index, caches and lock into another folder) or something
 * that is not a folder. Undefined when usable or missing (it is created on use).
 */
export function stateDirProblem(root: string, sub = ''): { rel: string; why: string } | undefined {
  let rel = '.memtier';
  for (const part of ['', ...sub.split('/').filter(Boolean)]) {
    if (part) rel += '/' + part;
    let st;
    try { st = lstatSync(join(root, rel)); } catch { return undefined; }
    if (st.isSymbolicLink()) return { rel, why: 'is a symbolic link' };
    if (!st.isDirectory()) return { rel, why: 'is not a folder' };
  }
  return undefined;
}

/** Throw a clear error (nothing written) when `.memtier/` cannot hold state: for the commands that write there outside the store (watch, cron). */
export function assertStateDir(root: string, what: string): void {
  const p = stateDirProblem(root);
  if (!p) return;
  throw new MemtierError(`${p.why}: ${what} writes there, never through a link or into something that is not a folder; nothing was written`, {
    code: 'state-dir',
    file: p.rel,
    hint: 'run "memtier health" (file-types says where it points), move it aside, and run the command again',
  });
}
