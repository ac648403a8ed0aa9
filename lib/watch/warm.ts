/**
 * A memory kept warm inside a long-running process: its folders watched (tree.ts), the index
 * cache's freshness answered from the watcher (fresh.ts) instead of a stat per file, and the index
 * loaded once. `memtier watch` serves the CLI with it; `memtier mcp` serves an MCP client.
 *
 * Call `sync()` before each request: the cookie handshake makes every change made before the
 * call visible to it (never stale).
 */
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { setFreshnessSource } from '../search/cache.js';
import { WatchedFreshness } from './fresh.js';
import { WatchedTree } from './tree.js';

export interface WarmMemory {
  tree: WatchedTree;
  /** Wait until every change made before this call is seen. */
  sync(): Promise<void>;
  /** Unwatch and give the index back its stat-per-file freshness. */
  close(): void;
}

export async function warmMemory(ctx: Ctx, opts: { burstLimit?: number | undefined } = {}): Promise<WarmMemory> {
  const tree = new WatchedTree(ctx.root, opts);
  try {
    tree.start();
  } catch (e) {
    tree.close();
    throw new MemtierError(`cannot watch the memory: ${(e as Error).message}`, { code: 'watch-failed', file: ctx.root, cause: e });
  }
  const fresh = new WatchedFreshness(tree);
  // a build for a request logs its progress as lines (the server's stderr is its log); the
  // first build below shows it on the terminal when run in one
  fresh.progress = { mode: 'log', write: (line) => { if (line) ctx.log.info(line); } };
  setFreshnessSource(fresh);
  const close = (): void => { setFreshnessSource(undefined); tree.close(); };
  try {
    // builds the cache when there is none
    const { loadIndex } = await import('../search/search.js');
    await loadIndex(ctx);
  } catch (e) {
    close();
    throw e;
  }
  return { tree, sync: () => tree.sync(), close };
}
