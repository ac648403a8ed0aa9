import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BigramBm25, bigramTokens, runCjkBench } from '../../lib/bench/cjk.js';
import { initMemory } from '../../lib/commands/init.js';
import { makeClock } from '../../lib/core/clock.js';
import { makeTestCtx } from '../../lib/core/context.js';
import { runCli, testCtx, tmpTree, writeTree } from '../helpers.js';

/** A small bilingual memory: two answers, one of them a near miss for bigram BM25. */
function dataset(): string {
  const dir = tmpTree();
  const root = join(dir, 'memory');
  initMemory(testCtx(root), root);
  writeTree(root, {
    'memory/episodic/2026-05-10.md': [
      '# 2026-05-10',
      '',
      '- 09:00 [TECH] 连接池 maxOpenConns 只有 20，高峰时排队 ^aaaaaaaaaaaa',
      '- 10:00 [DECISION] maxOpenConns 调到 80，先在灰度实例上验证 ^bbbbbbbbbbbb',
      '- 11:00 [PEOPLE] Kenji Sato is the CTO of Hayate Express, our contact for the API ^cccccccccccc',
      '',
    ].join('\n'),
  });
  writeTree(dir, {
    'queries.json': JSON.stringify([
      { id: 'q1', q: 'who is our contact at Hayate', expect: 'Kenji Sato is the CTO', lang: 'en' },
      { id: 'q2', q: '连接池最后调成多少', expect: 'maxOpenConns 调到 80', lang: 'zh' },
      { id: 'q3', q: 'what about the weather on Mars', expect: '高峰时排队', lang: 'en' },
    ]),
    'README.md': 'Clock: `2026-05-11T09:00:00+08:00`, zone `Asia/Shanghai`.\n',
  });
  return dir;
}

describe('bench cjk', () => {
  it('splits CJK runs into bigrams and keeps other words whole', () => {
    expect(bigramTokens('连接池 maxOpenConns 调到 80')).toEqual(['连接', '接池', 'maxopenconns', '调到', '80']);
    expect(bigramTokens('池')).toEqual(['池']);
  });

  it('ranks lines by BM25 over those tokens', () => {
    const dir = dataset();
    const bm = new BigramBm25(join(dir, 'memory'));
    const top = bm.search('maxOpenConns 调到多少', 2);
    expect(top[0]!.text).toContain('调到 80');
    expect(top[0]!.file).toBe('memory/episodic/2026-05-10.md');
    expect(top[0]!.line).toBe(4);
  });

  it('scores hits per language, lists the misses, and never writes the data', async () => {
    const dir = dataset();
    const before = readdirSync(join(dir, 'memory'), { recursive: true }).map(String).sort();
    const episodic = readFileSync(join(dir, 'memory/memory/episodic/2026-05-10.md'), 'utf8');
    // a clock nobody fixed: the data's README states the memory's own
    const rep = await runCjkBench(makeTestCtx(dir, makeClock({})), { memory: join(dir, 'memory'), queries: join(dir, 'queries.json'), data: dir });
    expect(rep.queries).toBe(3);
    expect(rep.clock).toEqual({ now: '2026-05-11T01:00:00.000Z', tz: 'Asia/Shanghai' });
    // q1 and q2 found first; q3 asks about something the memory does not hold
    expect(rep.memtier.byLang.zh).toMatchObject({ n: 1, hit1: 1 });
    expect(rep.memtier.byLang.en!.n).toBe(2);
    expect(rep.memtier.misses.map((m) => m.id)).toContain('q3');
    const q3 = rep.memtier.misses.find((m) => m.id === 'q3')!;
    expect(q3.expect).toMatchObject({ file: 'memory/episodic/2026-05-10.md', line: 3 });
    expect(rep.memtier.hit1).toBeCloseTo(2 / 3, 3);
    expect(rep.bigram.n).toBe(3);
    expect(readdirSync(join(dir, 'memory'), { recursive: true }).map(String).sort()).toEqual(before);
    expect(readFileSync(join(dir, 'memory/memory/episodic/2026-05-10.md'), 'utf8')).toBe(episodic);
  });

  it('runs from the command line with --json and refuses a missing memory', async () => {
    const dir = dataset();
    const ok = await runCli(['bench', 'cjk', '--data', dir, '--json'], { cwd: dir });
    expect(ok.code).toBe(0);
    const rep = JSON.parse(ok.stdout);
    expect(rep.memtier.n).toBe(3);
    expect(rep.bigram.byLang.zh.n).toBe(1);
    const bad = await runCli(['bench', 'cjk', '--memory', join(dir, 'nowhere'), '--queries', join(dir, 'queries.json')], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/holds no MEMORY\.md/);
  });
});
