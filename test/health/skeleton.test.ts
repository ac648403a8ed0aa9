/**
 * A memory fresh from `memtier init` must pass health: the skeleton is the first thing a user
 * checks, and a failing fresh install would teach agents to ignore FAIL. Skipped until the
 * init command is in the build.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHealth } from '../../lib/health/run.js';
import { REPO, rmTree, runCli, testCtx, tmpTree } from '../helpers.js';

const hasInit = existsSync(join(REPO, 'lib/commands/init.ts'));
const roots: string[] = [];
afterAll(() => { for (const r of roots) rmTree(r); });

describe('a fresh memory', () => {
  it.skipIf(!hasInit)('from "memtier init" has no failing check and nothing to fix', async () => {
    const root = tmpTree();
    roots.push(root);
    const r = await runCli(['init', root]);
    expect(r.code, r.stderr).toBe(0);
    const report = await runHealth(testCtx(root));
    expect(report.findings.filter((f) => f.severity === 'fail')).toEqual([]);
    expect(report.findings.filter((f) => f.fixable)).toEqual([]);
  });
});
