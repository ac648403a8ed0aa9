/**
 * When health's first pass fails on the main thread while a worker thread shares it, the worker is
 * stopped too: a live worker keeps the process from exiting, so `memtier health` printed its error
 * and then hung for good (found by hand: an agent's health call never returned).
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { generateMemory } from '../../lib/bench/perf.js';
import { AUTO_WORKER_BYTES } from '../../lib/core/workers.js';
import { earlyWorker, firstPass } from '../../lib/health/first-pass.js';
import { checkEnv } from '../../lib/health/run.js';
import { FileMemo } from '../../lib/health/summary.js';
import type { Check } from '../../lib/health/types.js';
import { loadSnapshot } from '../../lib/memory/snapshot.js';
import { testCtx, tmpTree } from '../helpers.js';

const WORKER = new URL('../../dist/lib/health/first-pass-worker.js', import.meta.url);

describe("health's first pass failing on the main thread", () => {
  it('rejects and stops the worker sharing the pass', async () => {
    const root = tmpTree();
    generateMemory(root, 200, 9);
    const ctx = testCtx(root, undefined, undefined, { MEMTIER_HEALTH_WORKERS: '1' });
    const snap = loadSnapshot(root, { lazy: true });
    const env = { ...checkEnv(ctx), memo: new FileMemo(undefined) };
    let n = 0;
    const boom: Check = {
      id: 'near-duplicates', description: 'fails on its fifth file', severity: 'warn', fixable: false,
      summarize: () => () => { if (++n === 5) throw new Error('boom'); },
      run: () => ({ findings: [] }),
    } as unknown as Check;
    const early = earlyWorker(ctx.env, { url: WORKER });
    early.seen(AUTO_WORKER_BYTES, true);
    const started = early.worker();
    expect(started, 'a worker started').toBeDefined();
    const exited = once(started!.worker, 'exit');
    await expect(firstPass([boom], snap, env, undefined, snap.files, { url: WORKER, early: started!, host: () => ({ cores: 2, load: 0 }) })).rejects.toThrow('boom');
    const stopped = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
    expect(stopped, 'the worker exited').toBe(true);
  });
});
