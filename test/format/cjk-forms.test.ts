/**
 * Forms a Chinese-speaking user hits: a full-width ＃ is a tag, CJK columns line up by display
 * width, and a recall query cut from messages never splits an emoji (a lone surrogate would be
 * invalid text in JSON).
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tmpTree } from '../helpers.js';
import { parseEntryLine } from '../../lib/format/entry.js';
import { displayWidth, padDisplay } from '../../lib/format/width.js';
import { queryFromMessages } from '../../lib/search/recall.js';

describe('CJK forms', () => {
  it('reads a full-width ＃ as a tag', () => {
    expect(parseEntryLine('- 09:00 [DECISION] 数据库迁移 ＃数据库 #postgres ^abc123')!.tags).toEqual(['数据库', 'postgres']);
  });
  it('measures and pads by display width', () => {
    expect(displayWidth('数据库')).toBe(6);
    expect(displayWidth('db')).toBe(2);
    expect(displayWidth('５月')).toBe(4);
    expect(padDisplay('数据库', 8)).toBe('数据库  ');
    expect(displayWidth(padDisplay('数据库', 8))).toBe(displayWidth(padDisplay('database', 8)));
  });
  it('never cuts an emoji in half in a query built from messages', () => {
    // one of the two is cut inside a pair whatever the limit (emoji at even, then at odd offsets)
    for (const [long, mode] of [['😀'.repeat(3000), 'message'], ['a' + '😀'.repeat(3000), 'message'], ['😀'.repeat(3000), 'recent'], ['a' + '😀'.repeat(3000), 'recent'], ['😀'.repeat(3000), 'full'], ['a' + '😀'.repeat(3000), 'full']] as const) {
      const q = queryFromMessages([{ role: 'user', content: long }], mode);
      expect(q.length).toBeGreaterThan(0);
      expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(q)).toBe(false);
      expect(JSON.parse(JSON.stringify(q))).toBe(q);
    }
  });
});

describe('Chinese near-duplicates', () => {
  it('三点 and 3 点, spacing and punctuation apart, are one fact; 四点 is another', async () => {
    const { foldForCompare, compareWords } = await import('../../lib/format/compare.js');
    const { normalizeText } = await import('../../lib/lifecycle/common.js');
    const { normalizeFact } = await import('../../lib/health/markdown.js');
    expect(normalizeText('周会改到下午三点，在三楼')).toBe(normalizeText('周会改到下午 3 点, 在 3 楼'));
    expect(normalizeFact('周会改到下午三点，在三楼')).toBe(normalizeFact('周会改到下午 3 点, 在 3 楼'));
    expect(normalizeText('周会改到下午四点')).not.toBe(normalizeText('周会改到下午三点'));
    expect(foldForCompare('二十三号 和 十点')).toBe('23号和10点');
    expect(compareWords('部署 docker 到集群')).toEqual(['部署', 'docker', '到集', '集群']);
  });

  it('health reports them', async () => {
    const { runCli, tmpTree } = await import('../helpers.js');
    const { join } = await import('node:path');
    const { writeFileSync } = await import('node:fs');
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 09:00 [EVENT] 周会时间改到下午三点，在三楼会议室 ^aaa111\n- 10:00 [EVENT] 周会时间改到下午 3 点, 在 3 楼会议室 ^bbb222\n- 11:00 [EVENT] 周会时间改到下午四点，在三楼会议室 ^ccc333\n');
    const r = JSON.parse((await runCli(['health', '--root', root, '--only', 'near-duplicates', '--json'])).stdout);
    expect(r.findings.map((f: any) => `${f.line} ${f.message}`)).toEqual(['4 100% the same as memory/episodic/2026-05-14.md:3']);
  });
});

describe('traditional and simplified characters', () => {
  it('fold to one form for comparing, keeping every character in its place', async () => {
    const { toSimplified } = await import('../../lib/format/han.js');
    const { normalizeText } = await import('../../lib/lifecycle/common.js');
    expect(toSimplified('母親節訂了機票')).toBe('母亲节订了机票');
    expect(toSimplified('上週二開會 at 3pm')).toHaveLength('上週二開會 at 3pm'.length);
    expect(toSimplified('plain text')).toBe('plain text');
    expect(normalizeText('母親節訂了機票')).toBe(normalizeText('母亲节订了机票'));
    expect(normalizeText('母親節訂了機票')).not.toBe(normalizeText('父亲节订了机票'));
  });

  it('a question in one form finds a note in the other, and a traditional time phrase reads as its simplified one', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-08.md'), '# 2026-05-08\n\n- 10:00 [EVENT] 母親節前訂好了回家的機票 #family ^tick0001\n- 11:00 [EVENT] 周末去爬山 ^hike0001\n');
    const s = JSON.parse((await runCli(['search', '--root', root, '母亲节的机票', '--json'])).stdout);
    expect(s.results[0].id).toBe('tick0001');
    const t = JSON.parse((await runCli(['search', '--root', root, '機票', '--json'])).stdout);
    expect(t.results[0].id).toBe('tick0001');
    const { parseTimeRange } = await import('../../lib/search/timeexpr.js');
    const now = new Date('2026-05-15T10:00:00Z');
    const trad = parseTimeRange('上週二的會議', now, 'UTC')!;
    const simp = parseTimeRange('上周二的会议', now, 'UTC')!;
    expect([trad.from, trad.to]).toEqual([simp.from, simp.to]);
    expect(trad.phrases).toEqual(['上週二']); // the span of the question as written
  });
});
