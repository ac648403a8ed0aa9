/**
 * Where recall keeps its 15-second cache of answered blocks (recall.ts), and how `forget --purge`
 * empties it: a block answered before the forget may quote the forgotten entry.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { stateDirProblem } from '../store/state-dir.js';

export const CACHE_FILE = '.memtier/recall-cache.json';

/**
 * Remove the recall cache (derived state: the next recall answers afresh). Never through a
 * linked or misplaced `.memtier/` (health reports it). Returns whether a cache was there.
 */
export function clearRecallCache(root: string): boolean {
  if (stateDirProblem(root)) return false;
  try {
    rmSync(join(root, CACHE_FILE));
    return true;
  } catch {
    return false;
  }
}
