/**
 * The bridge to the WAL module (lib/wal/rotate.ts, owned by the WAL work): health --fix finishes
 * an interrupted rotation and rotates an oversized buffer by calling its exported functions,
 * never by re-implementing rotation. Loaded lazily; when the module or the function is missing
 * the fix is reported as unavailable instead.
 */
import type { Ctx } from '../core/context.js';

type Fn = (...args: unknown[]) => unknown;

async function loadRotate(): Promise<Record<string, unknown> | undefined> {
  const spec = '../wal/rotate.js';
  try {
    return (await import(spec)) as Record<string, unknown>;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw e;
  }
}

function pick(mod: Record<string, unknown> | undefined, names: string[]): Fn | undefined {
  for (const n of names) if (typeof mod?.[n] === 'function') return mod[n] as Fn;
  return undefined;
}

function describe(res: unknown, fallback: string): string[] {
  if (typeof res === 'string') return [res];
  if (Array.isArray(res)) return res.map(String);
  if (res && typeof res === 'object') {
    const r = res as Record<string, unknown>;
    const msg = r.message ?? r.summary ?? r.text;
    if (typeof msg === 'string') return [msg];
    const n = r.moved ?? r.entries ?? r.count;
    if (typeof n === 'number') return [`${fallback} (${n} entries)`];
  }
  return [fallback];
}

const ROTATE = ['rotateBuffer', 'rotate'];
const RECOVER = ['recoverRotation', 'finishRotation', 'resumeRotation', 'recover'];

/** Can --fix rotate the buffer / finish an interrupted rotation in this build? */
export async function walFixes(): Promise<{ rotate: boolean; recover: boolean }> {
  const mod = await loadRotate();
  return { rotate: pick(mod, ROTATE) !== undefined, recover: pick(mod, RECOVER) !== undefined };
}

/** Rotate the working buffer into today's episodic file. */
export async function rotateBuffer(ctx: Ctx): Promise<string[]> {
  const fn = pick(await loadRotate(), ROTATE);
  if (!fn) return ['not fixed: buffer rotation is not available in this build (lib/wal/rotate.ts); run "memtier rotate"'];
  return describe(await fn(ctx, { force: true }), 'rotated the working buffer into today\'s episodic file');
}

/** Finish a rotation a crash interrupted (the buffer renamed aside under memory/.rotating/). */
export async function finishRotation(ctx: Ctx): Promise<string[]> {
  const fn = pick(await loadRotate(), RECOVER);
  if (!fn) return ['not fixed: rotation recovery is not available in this build (lib/wal/rotate.ts); run "memtier rotate"'];
  return describe(await fn(ctx), 'finished the interrupted rotation');
}
