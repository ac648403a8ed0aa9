/**
 * The first index build of a large memory (or a rebuild) run with V8's young generation held at
 * its starting size. Left to itself V8 doubles the young generation's two semi-spaces up to 16 MB
 * each whenever many young objects survive a scavenge, which the scan of 50,000 files does at once
 * (52 → 94 MB resident before the build's first file), and keeps them: the build's garbage is
 * short-lived (a file's text, its tokens), so a small young generation costs it ~5 % more CPU on
 * one thread and the process's peak ~15-35 MB less (measured: the first build at 50,000 notes
 * 180 → 147 MB on one thread, 10,000 notes 130 → 111 MB on Node 24). health's first run was
 * measured too and gains nothing from it (152-154 MB either way), so it does not use it.
 *
 * V8 reads --semi-space-growth-factor each time it would grow the young generation, so it is set
 * for the pass and put back to V8's default (2) after it; left alone when the process was started
 * with the flag (node --semi-space-growth-factor=N, or in NODE_OPTIONS).
 */
const FLAG = 'semi-space-growth-factor';
const DEFAULT_FACTOR = 2;

export function withSmallYoungGeneration<T>(fn: () => T): T {
  const given = process.execArgv.some((a) => a.replace(/_/g, '-').includes(FLAG)) || (process.env.NODE_OPTIONS ?? '').replace(/_/g, '-').includes(FLAG);
  if (given) return fn();
  const v8 = process.getBuiltinModule('node:v8') as typeof import('node:v8');
  v8.setFlagsFromString(`--${FLAG}=1`);
  try {
    return fn();
  } finally {
    v8.setFlagsFromString(`--${FLAG}=${DEFAULT_FACTOR}`);
  }
}
