/**
 * Forms a Chinese-speaking user hits: a full-width ＃ is a tag, CJK columns line up by display
 * width, and a recall query cut from messages never splits an emoji (a lone surrogate would be
 * invalid text in JSON).
 */
import { describe, expect, it } from 'vitest';
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
