/**
 * Issue #32: `search --tags X` said "N more matches; raise --k" counting the matches its filter
 * removed. With a filter, the total is what passed it.
 */
import { describe, expect, it } from 'vitest';
import { runCli, tmpTree } from '../helpers.js';

describe('search with a filter', () => {
  it('counts what passed the filter, so "more matches" is not promised when there are none', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `- 09:${String(i).padStart(2, '0')} [EVENT] deploy of the billing service number ${i}${i < 2 ? ' #billing' : ''} ^dep${String(i).padStart(5, '0')}`);
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'TAGS.md': '# Tags\n\nbilling\n',
      'memory/episodic/2026-05-14.md': `# 2026-05-14\n\n${lines.join('\n')}\n`,
    });
    const env = { MEMTIER_NOW: '2026-05-15T10:00:00Z', MEMTIER_TZ: 'UTC', MEMTIER_WATCH: 'off' };
    const all = JSON.parse((await runCli(['search', 'deploy billing service', '--k', '5', '--root', root, '--json'], { env })).stdout);
    expect(all.total).toBeGreaterThan(5);
    const tagged = await runCli(['search', 'deploy billing service', '--k', '5', '--tags', 'billing', '--root', root], { env });
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(tagged.stdout).not.toMatch(/more matches/);
    const tj = JSON.parse((await runCli(['search', 'deploy billing service', '--k', '1', '--tags', 'billing', '--root', root, '--json'], { env })).stdout);
    expect(tj.results).toHaveLength(1);
    expect(tj.total).toBe(2);
  });
});

describe('metadata is not memory', () => {
  it('"last time" does not find MEMORY.md\'s "Last reviewed:" line (#32)', async () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\nLast reviewed: 2026-05-11 (2026-W19) → memory/reviews/2026-W19.md\n\n## Key facts\n- backups run nightly to the NAS\n',
      'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 09:00 [EVENT] the last time the backup failed it was a full disk ^bk000001\n',
    });
    const env = { MEMTIER_NOW: '2026-05-15T10:00:00Z', MEMTIER_TZ: 'UTC', MEMTIER_WATCH: 'off' };
    const r = JSON.parse((await runCli(['search', 'when was the last time we reviewed', '--root', root, '--json'], { env })).stdout);
    expect(r.results.map((x: { text: string }) => x.text).join('\n')).not.toMatch(/Last reviewed/);
    // the lines after it keep their numbers
    const f = JSON.parse((await runCli(['search', 'backups nightly NAS', '--root', root, '--json'], { env })).stdout);
    expect(f.results[0]).toMatchObject({ path: 'MEMORY.md', line: 5 });
  });
});
