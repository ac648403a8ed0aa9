/**
 * The memory read once per command: a file's strict read (UTF-8 checked, size-limited) is kept
 * for as long as its stats (size, mtime) say it is unchanged, so the passes of one command —
 * consolidate's entries, its day files, its summary, then health's snapshot — read each file once.
 * A write changes the stats: the store's atomic replace gives the file a new inode, an append or a
 * cut changes its size (the same check the index cache's freshness relies on).
 */
import { lstatSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readMemoryFile, type ReadOptions } from '../store/store.js';

interface Cached { ino: number; size: number; mtimeMs: number; text: string }

const cache = new Map<string, Cached>();
/** Files kept at most (a long-running process must not keep a 50k-note memory in memory). */
const MAX_FILES = 20_000;

const keyOf = (root: string, rel: string): string => `${resolve(root)}\0${rel}`;

/** Forget every read: each command starts afresh (memtier watch and mcp run many in one process). */
export function clearReads(): void {
  cache.clear();
}

/**
 * Strict read of `rel` (undefined when missing), from the cache while its stats are unchanged.
 * `opts.checkLinks: false` is for a file the caller's own walk just found (store.ts ReadOptions).
 */
export function readOnce(root: string, rel: string, opts: ReadOptions = {}): string | undefined {
  let st;
  try { st = lstatSync(join(root, rel)); } catch { return readMemoryFile(root, rel, opts); }
  const key = keyOf(root, rel);
  const c = cache.get(key);
  if (c && c.ino === st.ino && c.size === st.size && c.mtimeMs === st.mtimeMs) return c.text;
  const text = readMemoryFile(root, rel, opts);
  if (text === undefined) { cache.delete(key); return undefined; }
  if (cache.size >= MAX_FILES) cache.clear();
  cache.set(key, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, text });
  return text;
}
