/**
 * Issue #32, "Chinese capture, second pass": traditional text reads as its simplified form to the
 * extraction rules and the time phrases (the table of lib/format/han.ts, character for character),
 * while what is proposed keeps the person's characters.
 */
import { describe, expect, it } from 'vitest';
import { extract } from '../../lib/capture/extract.js';
import { toSimplified } from '../../lib/format/han.js';

const NOW = new Date('2026-12-07T10:00:00Z'); // a Monday
const props = (text: string) => extract([{ role: 'user', content: text }], { now: NOW, tz: 'UTC' }).proposals.map((p) => ({ type: p.type, text: p.text, dates: p.dates }));

describe('traditional Chinese in capture', () => {
  const cases = [
    '我們決定下週五之前把合同發給法務。',
    '記得提醒我週五前交報告。',
    '教訓：上線前一定要先備份資料庫。',
    '我兒子對青黴素過敏。',
  ];
  it('each sentence gets the type and the dates its simplified form gets, and keeps its own characters', () => {
    for (const t of cases) {
      const trad = props(t);
      const simp = props(toSimplified(t));
      expect(simp.length, `simplified form of ${t} is proposed`).toBeGreaterThan(0);
      expect(trad.map((p) => [p.type, p.dates]), t).toEqual(simp.map((p) => [p.type, p.dates]));
      expect(trad[0]!.text.startsWith(t.slice(0, 3)), t).toBe(true);
    }
    // 下週五 is next week's Friday, as 下周五 is
    expect(props(cases[0]!)[0]!.dates).toEqual(['2026-12-18']);
  });

  it('a traditional question or a "do not keep" is filtered as its simplified form is', () => {
    expect(props('我們決定用哪個資料庫了嗎？')).toEqual([]);
    expect(props('這個不要記下來：我的新密碼規則。')).toEqual(props('这个不要记下来：我的新密码规则。'));
  });
});
