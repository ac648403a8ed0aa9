/**
 * Named crash points for tests: when MEMTIER_CRASH_AT names a point, the process kills
 * itself with SIGKILL right there, so tests can prove that nothing acknowledged is lost
 * at each step of an append, an atomic replace or a rotation. MEMTIER_CRASH_SKIP=N lets the
 * point pass N times first (to crash in the middle of a run).
 */
export type CrashPoint =
  | 'append.before-write' | 'append.partial-write' | 'append.after-write'
  | 'replace.temp-written' | 'replace.before-rename' | 'replace.after-rename'
  | 'rotate.after-rename' | 'rotate.after-merge' | 'rotate.before-cleanup'
  | 'lock.acquired' | 'forget.after-save' | string;

/** Counts a pass through `name`; true when this pass is the one that must crash. */
export function crashArmed(env: NodeJS.ProcessEnv, name: CrashPoint): boolean {
  const at = env.MEMTIER_CRASH_AT;
  if (!at || at !== name) return false;
  const skip = Number(env.MEMTIER_CRASH_SKIP ?? 0);
  const key = `__memtierCrash_${name}`;
  const g = globalThis as unknown as Record<string, number>;
  g[key] = (g[key] ?? 0) + 1;
  return g[key]! > skip;
}

export function crash(): never {
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL is delivered before kill() returns for the calling process; never reached.
  throw new Error('unreachable');
}

export function crashPoint(env: NodeJS.ProcessEnv, name: CrashPoint): void {
  if (crashArmed(env, name)) crash();
}
