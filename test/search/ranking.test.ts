/**
 * Ranking tests in the minisearch style: a small memory, and for each query the expected
 * positions with the reason each entry ranks where it does.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { rmTree, testCtx, tmpTree } from '../helpers.js';
import { searchDetailed, search } from '../../lib/search/search.js';

const root = tmpTree({
  'MEMORY.md': '# Memory\n- [Infrastructure](memory/semantic/infrastructure.md) — servers, nginx, docker hosts\n- [Preferences](memory/semantic/preferences.md) — how the user likes things\n',
  'memory/semantic/infrastructure.md': [
    '---', 'tags: [infra, docker]', 'type: TECH', 'last_verified: 2026-05-01', '---',
    '# Infrastructure', '', '## Servers', 'The prod box runs Ubuntu 24.04 with docker compose.', 'Backups go to the NAS nightly.', '',
    '## Proxy', 'nginx terminates TLS on port 8443.', '',
  ].join('\n'),
  'memory/semantic/preferences.md': '---\ntags: [preferences]\n---\n# Preferences\n- 09:00 [PREF] User prefers pnpm over npm for every repo ^pref00001\n- 09:05 [PREF] Answers in English, code comments in English ^pref00002\n',
  'memory/episodic/2026-05-12.md': [
    '# 2026-05-12', '- 09:00 [EVENT] docker deploy of billing failed: image pull timeout #deploy ^ev0512a',
    '- 09:30 [DECISION] roll back billing to v1.8 until the registry mirror works #deploy ^ev0512b',
    '- 16:00 [EVENT] lunch with Dana about the roadmap ^ev0512c', '',
  ].join('\n'),
  'memory/episodic/2026-02-01.md': '- 10:00 [EVENT] docker deploy failed on staging: disk full ^ev0201a\n- 10:30 [EVENT] cleaned old images, staging deploy ok ^ev0201b\n',
  'memory/episodic/2026-05-14.md': '- 10:00 [EVENT] Docker 部署失败，镜像拉取超时 ^zh000001\n- 11:00 [DECISION] 决定使用阿里云镜像仓库 ^zh000002\n',
  'memory/episodic/2026-05-13.md': '- 08:00 [EVENT] quarterly planning notes shared with the team ^dup00001\n- 18:00 [EVENT] ~~old plan~~\n',
  'memory/episodic/2026-05-11.md': '- 08:00 [EVENT] quarterly planning notes shared with the team ^dup00002\n',
  'memory/archive/2025/01/2025-01-10.md': '- 10:00 [EVENT] docker deploy failed because the registry was down ^arc00001\n',
  'memory/procedural/lessons-learned.md': '# Lessons\n- 12:00 [LESSON] Always pin docker image tags before a deploy ^les00001\n',
  'memory/.trash/20260510T000000/memory/semantic/old.md': '# Old\ndocker deploy secret sauce\n',
  '.memtier/notes.md': 'docker deploy failed in the cache folder\n',
});
const ctx = testCtx(root); // 2026-05-15T14:30Z, UTC
afterAll(() => rmTree(root));

const paths = async (q: string, opts = {}) => (await search(ctx, q, opts)).map((r) => `${r.path}#L${r.line}`);

describe('ranking', () => {
  it('"docker deploy failed": recent incident first, the old one still found, archive lower, trash never', async () => {
    const got = await paths('docker deploy failed', { k: 20 });
    // 1. 05-12 entry: all three terms + #deploy tag, in a day whose file covers the query, fresh.
    expect(got[0]).toBe('memory/episodic/2026-05-12.md#L2');
    // The February incident matches all terms too: three months old, it ranks lower but is there.
    expect(got).toContain('memory/episodic/2026-02-01.md#L1');
    expect(got.indexOf('memory/episodic/2026-02-01.md#L1')).toBeGreaterThan(got.indexOf('memory/episodic/2026-05-12.md#L2'));
    // The archive holds the same words: archived days weigh 0.85 and decayed, so below the February one.
    expect(got.indexOf('memory/archive/2025/01/2025-01-10.md#L1')).toBeGreaterThan(got.indexOf('memory/episodic/2026-02-01.md#L1'));
    // Trash and .memtier are never searched.
    expect(got.some((p) => p.includes('.trash') || p.includes('.memtier'))).toBe(false);
  });

  it('a note is split into heading sections; frontmatter tags count as a tag match', async () => {
    const resp = await searchDetailed(ctx, 'infra backups', { explain: true });
    const top = resp.results[0]!;
    // "Servers" section: "backups" in its body, "infra" is a frontmatter tag of the note (×1.3).
    expect(top.path).toBe('memory/semantic/infrastructure.md');
    expect([top.line, top.endLine]).toEqual([8, 10]); // from its heading to its last text line
    expect(top.heading).toBe('Infrastructure › Servers');
    expect(top.tags).toEqual(['infra', 'docker']);
    expect(top.type).toBe('TECH');
    expect(top.explain!.tag).toBeCloseTo(1.3);
    for (const f of ['bm25', 'context', 'file', 'tag', 'type', 'tier', 'activation', 'recency', 'time', 'superseded', 'score']) expect(top.explain).toHaveProperty(f);
  });

  it('MEMORY.md index lines are units of the hot tier', async () => {
    const r = (await search(ctx, 'nginx hosts'))[0]!;
    // "nginx" and "hosts" both on the index line; the Proxy section has only "nginx".
    expect(`${r.path}#L${r.line}`).toBe('MEMORY.md#L2');
    expect(r.tier).toBe('hot');
  });

  it('Chinese queries find Chinese entries', async () => {
    const got = await paths('部署失败');
    expect(got[0]).toBe('memory/episodic/2026-05-14.md#L1');
    // 镜像 is in both entries, 仓库 only in the decision: the decision first
    // (仓库 also searches "repo", "repository" at half weight: a note about repos may follow them)
    expect((await paths('镜像仓库')).slice(0, 2)).toEqual(['memory/episodic/2026-05-14.md#L2', 'memory/episodic/2026-05-14.md#L1']);
    // 阿里云 only in the decision; its neighbour comes second through context alone
    const r = await search(ctx, '阿里云');
    expect(r.map((x) => [x.line, x.via])).toEqual([[2, 'terms'], [1, 'context']]);
  });

  it('mixed-script queries match both scripts', async () => {
    const got = await paths('Docker 部署');
    // the Chinese entry has both "docker" and "部署"; English docker entries have only one of the two
    expect(got[0]).toBe('memory/episodic/2026-05-14.md#L1');
    expect(got).toContain('memory/episodic/2026-05-12.md#L2');
  });

  it('English queries find English entries in a mostly Chinese memory', async () => {
    expect((await paths('pnpm'))[0]).toBe('memory/semantic/preferences.md#L5'); // line 5: after 3 frontmatter lines and the title
  });

  it('filters: --type, --tags, --since/--until, --tier', async () => {
    expect(await paths('billing', { type: 'DECISION' })).toEqual(['memory/episodic/2026-05-12.md#L3']);
    expect((await search(ctx, 'docker', { tags: ['deploy'] })).every((r) => r.tags.includes('deploy'))).toBe(true);
    const since = await search(ctx, 'docker deploy', { since: '2026-05-01' });
    expect(since.length).toBeGreaterThan(0);
    expect(since.every((r) => r.date! >= '2026-05-01')).toBe(true);
    const until = await search(ctx, 'docker deploy', { until: '2026-03-01' });
    expect(until.map((r) => r.date)).toContain('2026-02-01');
    expect(until.every((r) => r.date! <= '2026-03-01')).toBe(true);
    expect((await search(ctx, 'docker', { tier: 'warm' })).every((r) => r.tier === 'warm')).toBe(true);
    expect((await search(ctx, 'docker', { tier: 'hot' })).map((r) => r.path)).toEqual(['MEMORY.md']);
  });

  it('time expressions: "what happened last Tuesday" lists that day', async () => {
    const resp = await searchDetailed(ctx, 'what happened last Tuesday');
    expect(resp.range).toMatchObject({ from: '2026-05-12', to: '2026-05-12' });
    expect(resp.results.map((r) => r.line)).toEqual([2, 3, 4]);
    expect(resp.results.every((r) => r.date === '2026-05-12')).toBe(true);
  });

  it('a time expression boosts entries of its range over equally good ones', async () => {
    const plain = await paths('docker deploy staging');
    const dated = await searchDetailed(ctx, 'docker deploy in February 2026', { explain: true });
    expect(plain[0]).toBe('memory/episodic/2026-02-01.md#L1');
    expect(dated.results[0]!.date).toBe('2026-02-01');
    expect(dated.results[0]!.explain!.time).toBe(2);
  });

  it('near-duplicates collapse into the first', async () => {
    const r = await search(ctx, 'quarterly planning notes');
    // 05-13 (fresher) is kept; the identical 05-11 entry is folded into it
    expect(r[0]!.id).toBe('dup00001');
    expect(r[0]!.duplicates).toEqual(['memory/episodic/2026-05-11.md#L1']);
    expect(r.some((x) => x.id === 'dup00002')).toBe(false);
  });

  it('lessons never decay; the type weight favours them on ties', async () => {
    const r = (await search(ctx, 'pin image tags', { explain: true }))[0]!;
    expect(r.type).toBe('LESSON');
    expect(r.activation).toBe(1);
  });

  it('no match gives no results', async () => {
    expect(await search(ctx, 'kubernetes helm')).toEqual([]);
  });
});

describe('CJK without ICU word breaks (MEMTIER_CJK=bigram)', () => {
  it('finds Chinese and mixed entries through character bigrams, and rebuilds the cache for the mode', async () => {
    const zh = tmpTree({
      'MEMORY.md': '# 记忆\n- [基础设施](memory/semantic/infra.md) — 服务器与部署\n',
      'memory/episodic/2026-05-14.md': '- 10:00 [EVENT] Docker 部署失败，镜像拉取超时 ^zhb00001\n- 11:00 [EVENT] 周会讨论了预算 ^zhb00002\n- 12:00 [TECH] nginx reload fixed the 502 errors ^zhb00003\n',
    });
    try {
      const icu = testCtx(zh);
      const bigram = testCtx(zh, undefined, 'UTC', { MEMTIER_CJK: 'bigram' });
      const first = async (c: typeof icu, q: string) => (await search(c, q))[0]?.id;
      expect(await first(icu, '部署失败')).toBe('zhb00001');
      expect(await first(bigram, '部署失败')).toBe('zhb00001'); // 部署 署失 失败 all in the entry
      expect(await first(bigram, '预算')).toBe('zhb00002');
      expect(await first(bigram, 'docker 部署')).toBe('zhb00001');
      expect(await first(bigram, 'nginx 502')).toBe('zhb00003'); // English in a Chinese memory
      expect(await first(icu, '预算')).toBe('zhb00002'); // and back: the ICU index is rebuilt again
    } finally {
      rmTree(zh);
    }
  });
});
