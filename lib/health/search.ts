/**
 * The bridge to the search module's index cache (lib/search/cache.ts, owned by the search work):
 * `indexStatus(root)` says how far the cache is behind the files, `rebuildIndex(ctx)` rebuilds
 * it. Loaded lazily, and only when a cache exists, so a memory without one costs a stat.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Ctx } from '../core/context.js';

export interface IndexStatus {
  missing: boolean;
  files: number;
  /** Files new, changed or gone since the cache was built. */
  changed: number;
  build?: string;
  /** The build folder the manifest points at is gone (a reader falls back to the files). */
  vanished?: boolean;
}

export interface IndexBridge {
  status(root: string): IndexStatus;
  rebuild(ctx: Ctx): void;
  /** Past this many changed files a query rebuilds the whole cache itself. */
  rebuildAt: number;
  dir: string;
}

const MANIFEST = '.memtier/index/manifest.json';

interface CacheModule {
  indexStatus(root: string): IndexStatus;
  rebuildIndex(ctx: Ctx): unknown;
  REBUILD_AT?: number;
  INDEX_DIR?: string;
}

/** undefined when there is no cache on disk. */
export async function loadIndexBridge(root: string): Promise<IndexBridge | undefined> {
  if (!existsSync(join(root, MANIFEST))) return undefined;
  const m = (await import('../search/cache.js')) as CacheModule;
  const dir = m.INDEX_DIR ?? '.memtier/index';
  return {
    status(r) {
      const s = m.indexStatus(r);
      return s.build !== undefined && !existsSync(join(r, dir, s.build)) ? { ...s, vanished: true } : s;
    },
    rebuild(ctx) { m.rebuildIndex(ctx); },
    rebuildAt: m.REBUILD_AT ?? 24,
    dir,
  };
}

/** Is there an index cache at all (manifest present)? */
export function hasIndex(root: string): boolean {
  return existsSync(join(root, MANIFEST));
}
