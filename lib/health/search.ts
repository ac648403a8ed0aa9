/**
 * The bridge to the search module's index cache (owned by the search work). Loaded lazily;
 * when the module or its freshness function is missing the index check is skipped.
 */
import type { Ctx } from '../core/context.js';
import type { Snapshot } from './snapshot.js';

export interface IndexStatus {
  missing: boolean;
  problems: { file?: string; message: string }[];
  figures?: Record<string, unknown>;
}

export interface IndexBridge {
  status(ctx: Ctx, snap: Snapshot): Promise<IndexStatus>;
  canRebuild: boolean;
  rebuild(ctx: Ctx): Promise<string>;
}

export async function loadIndexBridge(): Promise<IndexBridge | undefined> {
  return undefined;
}
