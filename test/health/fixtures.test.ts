/**
 * One test per fixture folder: the findings of `memtier health` over the fixture must be exactly
 * the ones its markers state (see fixture-kit.ts). Adding a fixture folder adds a test.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runHealth } from '../../lib/health/run.js';
import { rmTree, testCtx } from '../helpers.js';
import { CHECKS } from '../../lib/health/checks/index.js';
import { compare, copyFixture, expectations, fixtureNames } from './fixture-kit.js';

/** Checks whose findings a plain fixture cannot show, and the test that covers them instead. */
const COVERED_ELSEWHERE: Record<string, string> = {
  'index-fresh': 'index-fresh.test.ts (needs a cache built by the search module)',
  unadopted: 'the mixed-openclaw fixture and cli.test.ts (info only: fixtures compare warnings and failures)',
  'file-types': 'test/hostile/files-and-paths.test.ts (symbolic links, FIFOs and a folder at a file\'s path cannot live in a fixture folder)',
  uncommitted: 'test/git/uncommitted.test.ts (needs a git repository and file times against the clock)',
  sync: 'test/health/sync-check.test.ts (needs git repositories: a bare remote and its clones)',
};

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmTree(r); });

describe('every check has a fixture', () => {
  it('named after it (or a test named in COVERED_ELSEWHERE), with a marker for it', () => {
    const names = fixtureNames();
    for (const c of CHECKS) {
      if (COVERED_ELSEWHERE[c.id]) continue;
      const own = names.filter((n) => n === c.id || n.startsWith(`${c.id}-`));
      expect(own.length, `fixture for ${c.id}`).toBeGreaterThan(0);
      expect(own.some((n) => expectations(n).markers.some((m) => m.check === c.id)), `a marker for ${c.id}`).toBe(true);
    }
  });
});

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
