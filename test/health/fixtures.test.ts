/**
 * One test per fixture folder: the findings of `memtier health` over the fixture must be exactly
 * the ones its markers state (see fixture-kit.ts). Adding a fixture folder adds a test.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runHealth } from '../../lib/health/run.js';
import { rmTree, testCtx } from '../helpers.js';
import { compare, copyFixture, expectations, fixtureNames } from './fixture-kit.js';

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmTree(r); });

describe('health fixtures state their own findings', () => {
  for (const name of fixtureNames()) {
    it(name, async () => {
      const root = copyFixture(name);
      roots.push(root);
      const { markers, env } = expectations(name);
      const report = await runHealth(testCtx(root, undefined, undefined, env));
      const diff = compare(report.findings, markers);
      expect(diff, `findings of fixture "${name}"`).toEqual({ unexpected: [], missing: [] });
      expect(report.exitCode).toBe(markers.some((m) => report.findings.some((f) => f.check === m.check && f.severity === 'fail')) ? 1 : 0);
      if (markers.length === 0) expect(report.findings.filter((f) => f.severity === 'fail')).toEqual([]);
    });
  }
});
