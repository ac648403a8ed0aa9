/**
 * `memtier bench write`: what an agent pays per WAL write. The whole-process median of N cold
 * `node bin/memtier.js wal decide "…"` runs next to the median of a bare `node -e ''` measured in
 * the same loop (interleaved, alternating which goes first, so machine load hits both alike).
 * Goal: the WAL write within 2× the bare Node start.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Args, CommandResult } from '../cli/spec.js';
import { flagNumber } from '../cli/spec.js';
import { makeClock } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { findBin } from '../core/bin.js';
import { makeTestCtx } from '../core/context.js';
import { MemtierError, UsageError } from '../core/errors.js';
import type { BenchSpec } from '../commands/bench.js';
import { initMemory } from '../commands/init.js';

export const GOAL_RATIO = 2;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : 0;
};
const r1 = (x: number): number => Math.round(x * 10) / 10;

function binOrThrow(): string {
  const bin = findBin();
  if (!bin) throw new UsageError('cannot find bin/memtier.js', 'run the benchmark from an installed or built memtier (npm ci, or npx tsc -p .)');
  return bin;
}

function timed(args: string[], env: NodeJS.ProcessEnv): { ms: number; code: number; err: string } {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  return { ms: performance.now() - t, code: r.status ?? 2, err: (r.stderr ?? '').trim() };
}

export interface WriteReport {
  runs: number;
  bareNodeMs: number;
  walDecideMs: number;
  ratio: number;
  goalRatio: number;
  withinGoal: boolean;
  bareSamplesMs: number[];
  walSamplesMs: number[];
  node: string;
}

export function runWriteBench(ctx: Ctx, runs: number): WriteReport {
  const bin = binOrThrow();
  const dir = mkdtempSync(join(tmpdir(), 'memtier-bench-write-'));
  // a clean environment: no git auto-commit, the temp memory as root, a real clock
  const env: NodeJS.ProcessEnv = { PATH: ctx.env.PATH, HOME: ctx.env.HOME ?? tmpdir(), MEMTIER_ROOT: dir, MEMTIER_GIT: 'off', MEMTIER_TZ: 'UTC' };
  try {
    initMemory(makeTestCtx(dir, makeClock({ tz: 'UTC' }), env), dir);
    const wal = (i: number): string[] => [bin, 'wal', 'decide', `bench decision ${i}: chose option ${i % 7} over ${(i + 3) % 7}`];
    // warm the page cache once for each
    timed(['-e', ''], env);
    const first = timed(wal(0), env);
    if (first.code !== 0) {
      const notAvailable = /not available|unknown command/.test(first.err);
      throw new MemtierError(notAvailable ? '"memtier wal" is not available in this build' : `memtier wal decide failed (exit ${first.code}): ${first.err.slice(0, 300)}`, {
        code: notAvailable ? 'not-implemented' : 'bench',
        hint: notAvailable ? 'build a memtier that has the wal command (npx tsc -p .)' : 'run the same command by hand in a fresh "memtier init" folder to see why',
      });
    }
    const bare: number[] = [];
    const walMs: number[] = [];
    for (let i = 1; i <= runs; i++) {
      const doBare = (): void => { bare.push(timed(['-e', ''], env).ms); };
      const doWal = (): void => {
        const r = timed(wal(i), env);
        if (r.code !== 0) throw new MemtierError(`memtier wal decide failed on run ${i} (exit ${r.code}): ${r.err.slice(0, 300)}`, { code: 'bench' });
        walMs.push(r.ms);
      };
      if (i % 2) { doBare(); doWal(); } else { doWal(); doBare(); }
    }
    const b = median(bare);
    const w = median(walMs);
    const ratio = b > 0 ? w / b : 0;
    return {
      runs, bareNodeMs: r1(b), walDecideMs: r1(w), ratio: Math.round(ratio * 100) / 100, goalRatio: GOAL_RATIO, withinGoal: ratio <= GOAL_RATIO,
      bareSamplesMs: bare.map(r1), walSamplesMs: walMs.map(r1), node: process.version,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const bench: BenchSpec = {
  name: 'write',
  summary: 'cold whole-process `memtier wal decide` median vs bare `node -e ""`',
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const runs = flagNumber(args, 'runs') ?? 15;
    if (!Number.isInteger(runs) || runs < 1 || runs > 1000) throw new UsageError(`--runs ${runs} must be a whole number from 1 to 1000`, 'e.g. --runs 15');
    ctx.log.info(`timing ${runs} cold "memtier wal decide" runs and ${runs} bare "node -e ''" runs, interleaved`);
    const r = runWriteBench(ctx, runs);
    const text = [
      `bare node start           ${r.bareNodeMs} ms (median of ${r.runs})`,
      `memtier wal decide (cold) ${r.walDecideMs} ms (median of ${r.runs}, whole process: start, lock, append, SESSION-STATE.md rewrite)`,
      `ratio                     ${r.ratio}× (goal ≤ ${r.goalRatio}×: ${r.withinGoal ? 'met' : 'NOT met'})`,
      `node ${r.node}`,
    ].join('\n');
    return { text, json: { ok: true, ...r } };
  },
};
