/**
 * The short multi-machine chaos run inside `npm test` (the long one is `npm run chaos -- --machines 3`,
 * test/chaos/machines.mjs): one fixed seed, three clones of one bare remote, each with writers, an
 * editor, rotate/archive, a person's hand edits and `memtier sync` at random, under random SIGKILLs
 * and crash points (every sync.* point fired at least once), for 45 s (longer while a sync point has
 * not fired); then every machine syncs until nothing changes and each is checked. On a failure the
 * findings, the seed and the kept memories are printed; `npm run chaos -- --seed 1 --seconds 45
 * --machines 3 --matrix` replays it.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error the harness is plain JavaScript (it runs without a build step in scripts/chaos.mjs)
import { runMachines } from './machines.mjs';

// In the default run since 10 seeds x 6 minutes on the final code of issue #28 ended with 0 lost,
// 0 duplicated and 0 resurrected (README, "Many machines"): about 75 s on 2 cores.
describe('chaos, three machines (short run)', () => {
  it('seed 1: every acknowledged entry once on every machine, nothing forgotten back, supersedes struck, one commit everywhere', async () => {
    const r = await runMachines({ seed: 1, seconds: 45, machines: 3, syncMatrix: true });
    if (!r.ok) console.error([r.summary, ...r.failures, ...r.notes.map((n: string) => `note ${n}`), `memories kept in ${r.base}`].join('\n'));
    // the findings themselves in the assertion's message (CI's summary keeps a failure's first lines)
    expect(r.failures, `${r.failures.length} findings: ${r.failures.slice(0, 6).join(' || ').slice(0, 1200)}`).toEqual([]);
    expect(r.fired.filter((p: string) => p.startsWith('sync.'))).toEqual(r.syncPoints);
    expect(r.acknowledged).toBeGreaterThan(0);
    expect(r.kills).toBeGreaterThan(0);
    expect(r.summary).toMatch(/^chaos: seed 1, machines 3, \d+ s, \d+ kills, \d+ acknowledged, 0 lost, 0 duplicated, 0 resurrected, \d+ conflicts$/);
  }, 420_000);
});
