import { afterAll, describe, expect, it } from 'vitest';
import { readRecallHistory } from '../../lib/search/history.js';
import { rmTree, runCli, tmpTree } from '../helpers.js';

const root = tmpTree({
  'MEMORY.md': '# Memory\n',
  'memory/episodic/2026-05-14.md': '- 10:00 [DECISION] use Postgres for billing #db ^dec00001\n- 11:00 [EVENT] billing deploy done ^evt00001\n',
});
afterAll(() => rmTree(root));

describe('memtier search (CLI)', () => {
  it('prints ranked results with citations, and JSON with every field', async () => {
    const t = await runCli(['search', 'postgres', 'billing', '--root', root]);
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^1\. memory\/episodic\/2026-05-14\.md#L1 \^dec00001 {2}\[DECISION\] 2026-05-14 cold #db/);
    const j = JSON.parse((await runCli(['search', 'postgres', '--root', root, '--json', '--explain'])).stdout);
    expect(j.results[0]).toMatchObject({ cite: 'memory/episodic/2026-05-14.md#L1', id: 'dec00001', type: 'DECISION', tags: ['db'], date: '2026-05-14', tier: 'cold' });
    expect(j.results[0].explain.bm25).toBeGreaterThan(0);
  });
  it('--explain shows the factors in text', async () => {
    expect((await runCli(['search', 'postgres', '--root', root, '--explain'])).stdout).toMatch(/explain: bm25=[\d.]+ context=[\d.]+ file=[\d.]+ tag=/);
  });
  it('records history only with --record', async () => {
    await runCli(['search', 'postgres', '--root', root]);
    expect(readRecallHistory(root).size).toBe(0);
    await runCli(['search', 'postgres', '--root', root, '--record']);
    expect(readRecallHistory(root).get('dec00001')!.count).toBe(1);
  });
  it('refuses bad flags with a hint (exit 2)', async () => {
    for (const args of [['search'], ['search', 'x', '--type', 'NOPE'], ['search', 'x', '--since', 'May'], ['search', 'x', '--tier', 'lukewarm'], ['search', 'x', '--k', '0']]) {
      const r = await runCli([...args, '--root', root]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/memtier: /);
    }
  });
  it('has complete help', async () => {
    const h = (await runCli(['search', '--help'])).stdout;
    for (const f of ['--k', '--tags', '--type', '--since', '--until', '--tier', '--explain', '--record']) expect(h).toContain(f);
    const r = (await runCli(['recall', '--help'])).stdout;
    for (const f of ['--query', '--messages', '--query-mode', '--context-used', '--max-chars', '--include-faded']) expect(r).toContain(f);
  });
});

describe('search quotes its query back safely', () => {
  it('"no match" never shows a credential the query held, nor its terms', async () => {
    const root = tmpTree();
    expect((await runCli(['init', root])).code).toBe(0);
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const r = await runCli(['search', '--root', root, token]);
    expect(r.stdout).toMatch(/no match for \(a value that looks like a GitHub token, not shown\)/);
    expect(r.stdout + r.stderr).not.toContain(token.slice(4, 20));
    const plain = await runCli(['search', '--root', root, 'zzqqxx']);
    expect(plain.stdout).toContain('no match for "zzqqxx" (terms: zzqqxx)');
  });
});
