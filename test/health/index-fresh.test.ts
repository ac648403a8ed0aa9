/**
 * index-fresh against the search module's real cache (.memtier/index): skipped without a cache,
 * info for a few changed files (queries re-read them), a repairable warning when far behind or
 * broken, and a clean second --fix.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHealth } from '../../lib/health/run.js';
import { rebuildIndex } from '../../lib/search/cache.js';
import { rmTree, testCtx } from '../helpers.js';
import { copyFixture } from './fixture-kit.js';

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmTree(r); });
const indexed = (): string => {
  const root = copyFixture('clean');
  roots.push(root);
  rebuildIndex(testCtx(root));
  return root;
};
const only = { only: ['index-fresh'] };

describe('index-fresh', () => {
  it('is skipped when no index was built yet', async () => {
    const root = copyFixture('clean');
    roots.push(root);
    const r = await runHealth(testCtx(root), only);
    expect(r.results).toEqual([{ id: 'index-fresh', status: 'skipped', findings: 0, reason: 'no index (not built yet: the first search builds it)' }]);
  });

  it('passes on a fresh index and reports its size', async () => {
    const r = await runHealth(testCtx(indexed()), only);
    expect(r.results[0]!.status).toBe('pass');
    expect(r.figures['index-fresh']).toMatchObject({ files: 7, changed: 0 });
  });

  it('only informs when a few files changed (queries re-read them)', async () => {
    const root = indexed();
    writeFileSync(join(root, 'memory/episodic/2026-05-15.md'), readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8') + '- 15:00 [EVENT] one more ^x1y2z3w4\n');
    const r = await runHealth(testCtx(root), only);
    expect(r.findings).toMatchObject([{ check: 'index-fresh', severity: 'info', message: '1 file changed since the index was built (each query re-reads them)' }]);
    expect(r.exitCode).toBe(0);
  });

  it('warns when far behind, and --fix rebuilds it; a second --fix finds nothing', async () => {
    const root = indexed();
    for (let i = 0; i < 30; i++) writeFileSync(join(root, `memory/semantic/n${i}.md`), `---\ntags: [docker]\nlast_verified: 2026-05-10\n---\n# Note ${i}\n`);
    const before = await runHealth(testCtx(root), only);
    expect(before.findings).toMatchObject([{ severity: 'warn', fixable: true, message: '30 of 37 files changed since the index was built (queries re-read up to 24)' }]);
    const fixed = await runHealth(testCtx(root), { ...only, fix: true });
    expect(fixed.fixed).toEqual(['index-fresh: rebuilt the search index (.memtier/index)']);
    expect(fixed.findings).toEqual([]);
    expect((await runHealth(testCtx(root), { ...only, fix: true })).fixed).toEqual([]);
  });

  it('warns when the manifest points at a build that is gone', async () => {
    const root = indexed();
    const m = JSON.parse(readFileSync(join(root, '.memtier/index/manifest.json'), 'utf8')) as { build: string };
    rmSync(join(root, '.memtier/index', m.build), { recursive: true });
    const r = await runHealth(testCtx(root), { ...only, fix: true });
    expect(r.fixed).toEqual(['index-fresh: rebuilt the search index (.memtier/index)']);
    expect(r.findings).toEqual([]);
  });

  it('is rebuilt after other repairs moved many files', async () => {
    const root = indexed();
    for (let i = 1; i <= 28; i++) {
      const day = `2026-03-${String(i).padStart(2, '0')}`;
      writeFileSync(join(root, `memory/episodic/${day}.md`), `# ${day}\n- 09:00 [EVENT] day ${i} #backup ^d${i}x0000\n\nUpdated: ${day}\nDecisions: none\nSignal: none\nOpen: none\n`);
    }
    rebuildIndex(testCtx(root));
    const r = await runHealth(testCtx(root), { fix: true });
    expect(r.fixed.filter((l) => l.startsWith('episodic-count'))).toHaveLength(28);
    expect(r.fixed.at(-1)).toBe('index-fresh: rebuilt the search index (.memtier/index)');
    expect(r.findings.filter((f) => f.check === 'index-fresh')).toEqual([]);
    expect((await runHealth(testCtx(root), { fix: true })).fixed).toEqual([]);
  });
});
