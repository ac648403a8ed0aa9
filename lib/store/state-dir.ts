/**
 * Is `.memtier/` fit to hold derived state? Kept apart from the lock so that search and recall
 * (which write their caches there) can ask without loading the store.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';

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
