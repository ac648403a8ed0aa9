/**
 * The memory read once per command: a file's strict read (UTF-8 checked, size-limited) is kept
 * for as long as its stats (size, mtime) say it is unchanged, so the passes of one command —
 * consolidate's entries, its day files, its summary, then health's snapshot — read each file once.
 * A write changes the stats: the store's atomic replace gives the file a new inode, an append or a
 * cut changes its size (the same check the index cache's freshness relies on).
 */
import { lstatSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readMemoryFile } from '../store/store.js';

interface Cached { ino: number; size: number; mtimeMs: number; text: string }

const cache = new Map<string, Cached>();
/** Files kept at most (a long-running process must not keep a 50k-note memory in memory). */
const MAX_FILES = 20_000;

const keyOf = (root: string, rel: string): string => `${resolve(root)}\0${rel}`;

/** Forget every read: each command starts afresh (memtier watch and mcp run many in one process). */
export function clearReads(): void {
  cache.clear();
}

/** A file's stats as a walk just took them. */
export interface KnownStats { ino: number; size: number; mtimeMs: number }

/**
 * Strict read of `rel` (undefined when missing), from the cache while its stats are unchanged.
 * A walk passes the stats it took (`known`) and the folders it found real (readMemoryFile).
 */
export function readOnce(root: string, rel: string, known?: KnownStats, folders?: Set<string>): string | undefined {
  let st: KnownStats | undefined = known;
  if (!st) {
    try { st = lstatSync(join(root, rel)); } catch { return readMemoryFile(root, rel, folders); }
  }
  const key = keyOf(root, rel);
  const c = cache.get(key);
  if (c && c.ino === st.ino && c.size === st.size && c.mtimeMs === st.mtimeMs) return c.text;
  const text = readMemoryFile(root, rel, folders);
  if (text === undefined) { cache.delete(key); return undefined; }
  if (cache.size >= MAX_FILES) cache.clear();
  cache.set(key, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, text });
  return text;
}

/**
 * Strict read of `rel` for a pass that reads it once: served from the cache when an earlier read of
 * this command kept it (and it is unchanged), otherwise read and not kept (a pass over the whole
 * memory must not hold every file's text until the command ends).
 */
export function readPassing(root: string, rel: string, folders?: Set<string>): string | undefined {
  return cache.has(keyOf(root, rel)) ? readOnce(root, rel, undefined, folders) : readMemoryFile(root, rel, folders);
}
