/**
 * statMany (search/statmany.ts): the same stats whether the main thread works alone or shares
 * the list with a worker thread, and the freshness check sees hand edits either way.
 */
import { appendFileSync, mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openIndex, rebuildIndex, type LoadReport } from '../../lib/search/cache.js';
import { search } from '../../lib/search/search.js';
import { statMany } from '../../lib/search/statmany.js';
import { rmTree, testCtx, tmpTree } from '../helpers.js';

const roots: string[] = [];
afterEach(() => { while (roots.length) rmTree(roots.pop()!); });

describe('statMany', () => {
  it('returns the same mtimes and sizes on one thread and on two, -1 for missing files and folders', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1500; i++) files[`memory/semantic/n${i}.md`] = `# Note ${i}\n${'x'.repeat(i % 97)}\n`;
    const root = tmpTree(files);
    roots.push(root);
    mkdirSync(join(root, 'memory/semantic/folder.md'));
    const paths = [...Object.keys(files), 'memory/semantic/missing.md', 'memory/semantic/folder.md'];
    const one = statMany(root + '/', paths, { MEMTIER_PARALLEL_STAT_MIN: '0' });
    const two = statMany(root + '/', paths, { MEMTIER_PARALLEL_STAT_MIN: '1' });
    expect(one.parallel).toBe(false);
    expect(two.parallel).toBe(true);
    expect([...two.mtimeMs]).toEqual([...one.mtimeMs]);
    expect([...two.size]).toEqual([...one.size]);
    expect(one.size[7]).toBe(statSync(join(root, paths[7]!)).size);
    expect(one.mtimeMs[1500]).toBe(-1);
    expect(one.mtimeMs[1501]).toBe(-1);
  });

  it('with a worker thread sharing the stats, the next search still sees an in-place append', async () => {
    const files: Record<string, string> = { 'MEMORY.md': '# Memory\n' };
    for (let d = 1; d <= 28; d++) files[`memory/episodic/2026-04-${String(d).padStart(2, '0')}.md`] = `- 10:00 [EVENT] routine standup number ${d} ^st0000${String(d).padStart(2, '0')}\n`;
    const root = tmpTree(files);
    roots.push(root);
    const old = new Date('2026-05-01T10:00:00Z');
    for (const f of Object.keys(files)) utimesSync(join(root, f), old, old);
    for (const d of ['memory/episodic', 'memory']) utimesSync(join(root, d), old, old);
    const env = { MEMTIER_PARALLEL_STAT_MIN: '1' };
    rebuildIndex(testCtx(root, undefined, undefined, env));
    appendFileSync(join(root, 'memory/episodic/2026-04-17.md'), '- 11:00 [EVENT] the zanzibar outage ^zz00000001\n');
    const r: LoadReport = { mode: 'fresh', changed: 0, files: 0 };
    openIndex(testCtx(root, undefined, undefined, env), r);
    expect(r).toEqual({ mode: 'cache', changed: 1, files: 29 });
    const hits = await search(testCtx(root, undefined, undefined, env), 'zanzibar outage');
    expect(hits[0]?.id).toBe('zz00000001');
    writeFileSync(join(root, 'memory/episodic/2026-04-18.md'), '- 10:00 [EVENT] replaced by hand ^rp00000001\n');
    expect((await search(testCtx(root, undefined, undefined, env), 'replaced by hand'))[0]?.id).toBe('rp00000001');
  });
});
