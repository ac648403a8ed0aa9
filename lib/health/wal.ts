/**
 * The bridge to the WAL module: health --fix finishes an interrupted rotation and rotates an
 * oversized buffer by calling lib/wal/rotate.ts, never by re-implementing rotation. Loaded
 * lazily: a health run that finds nothing to rotate never loads it.
 */
import type { Ctx } from '../core/context.js';

/** Can --fix rotate the buffer / finish an interrupted rotation? (Always, in this build.) */
export async function walFixes(): Promise<{ rotate: boolean; recover: boolean }> {
  return { rotate: true, recover: true };
}

/** Rotate the working buffer into today's episodic file. */
export async function rotateBuffer(ctx: Ctx): Promise<string[]> {
  const { rotate } = await import('../wal/rotate.js');
  return [rotate(ctx, { force: true }).message];
}

/** Finish a rotation a crash interrupted (the buffer renamed aside under memory/.rotating/). */
export async function finishRotation(ctx: Ctx): Promise<string[]> {
  const { finishRotation: finish } = await import('../wal/rotate.js');
  return [finish(ctx).message];
}
