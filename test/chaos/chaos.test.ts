/**
 * The short chaos run inside `npm test` (the long one is `npm run chaos`, test/chaos/harness.mjs):
 * one fixed seed, every named crash point fired at least once (matrix), 8 writers, the upkeep, a
 * watch server, a committer and a person under random SIGKILLs for 6 s (longer while a point has not fired), then the proof that
 * nothing acknowledged was lost or duplicated. On a failure the findings, the seed and the kept
 * memory are printed; `npm run chaos -- --seed 1 --seconds 6 --matrix` replays it.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error the harness is plain JavaScript (it runs without a build step in scripts/chaos.mjs)
import { crashPoints, runChaos } from './harness.mjs';

describe('chaos (short run)', () => {
  it('the harness knows every named crash point of lib/', () => {
    const points: string[] = crashPoints();
    for (const p of ['append.before-write', 'append.partial-write', 'append.after-write', 'replace.temp-written', 'replace.before-rename', 'replace.after-rename', 'rotate.after-rename', 'rotate.after-merge', 'rotate.before-cleanup', 'lock.acquired', 'commit.before']) expect(points).toContain(p);
  });

  it('seed 1: 0 lost, 0 duplicated, every crash point fired, nothing left behind', async () => {
    const r = await runChaos({ seed: 1, seconds: 6, matrix: true });
    if (!r.ok) console.error([r.summary, ...r.failures, `memory kept in ${r.base}`].join('\n'));
    // the findings themselves in the assertion's message (CI's summary keeps a failure's first lines)
    expect(r.failures, `${r.failures.length} findings: ${r.failures.slice(0, 6).join(' || ').slice(0, 1200)}`).toEqual([]);
    expect(r.fired).toEqual(r.points);
    expect(r.acknowledged).toBeGreaterThan(0);
    expect(r.kills).toBeGreaterThan(0);
    expect(r.summary).toMatch(/^chaos: seed 1, \d+ s, \d+ kills, \d+ acknowledged, 0 lost, 0 duplicated$/);
  }, 180_000);
});
