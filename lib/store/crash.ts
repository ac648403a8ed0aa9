/**
 * Named crash points for tests: when MEMTIER_CRASH_AT names a point, the process kills
 * itself with SIGKILL right there, so tests can prove that nothing acknowledged is lost
 * at each step of an append, an atomic replace or a rotation.
 */
export type CrashPoint =
  | 'append.before-write' | 'append.partial-write' | 'append.after-write'
  | 'replace.temp-written' | 'replace.before-rename' | 'replace.after-rename'
  | 'rotate.after-rename' | 'rotate.after-merge' | 'rotate.before-cleanup'
  | 'lock.acquired' | string;

export function crashPoint(env: NodeJS.ProcessEnv, name: CrashPoint): void {
  const at = env.MEMTIER_CRASH_AT;
  if (at && at === name) {
    // Count-limited crash points (MEMTIER_CRASH_SKIP=N passes the point N times first).
    const skip = Number(env.MEMTIER_CRASH_SKIP ?? 0);
    const key = `__memtierCrash_${name}`;
    const g = globalThis as unknown as Record<string, number>;
    g[key] = (g[key] ?? 0) + 1;
    if (g[key]! > skip) process.kill(process.pid, 'SIGKILL');
  }
}
