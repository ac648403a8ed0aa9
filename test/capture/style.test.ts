/**
 * A rule of style for the agent's answers is a preference (issue #32): "回答尽量简短，先给结论再解释"
 * gave nothing, though "I prefer short answers" was a [PREF]. The rules style-en and style-zh
 * (lib/capture/rules.ts) read how the person wants to be answered: length, order, language, emoji.
 */
import { describe, expect, it } from 'vitest';
import { extract } from '../../lib/capture/extract.js';

const NOW = new Date('2026-05-15T14:30:00Z');
const types = (text: string): string[] => extract([{ role: 'user', content: text }], { now: NOW, tz: 'UTC' }).proposals.map((p) => `${p.type} ${p.rule}`);

describe('a rule of style is a [PREF]', () => {
  it('Chinese, simplified and traditional', () => {
    for (const t of ['回答尽量简短，先给结论再解释', '回答時儘量簡短，先給結論再解釋', '先说结论，再展开', '回复的时候别用表情符号', '解释要详细一点，别省略步骤', '用中文回答，技术名词保留英文', '别长篇大论，说重点就行']) {
      expect(types(t), t).toEqual([expect.stringMatching(/^PREF /)]);
    }
  });

  it('English', () => {
    for (const t of ['Answer briefly, conclusion first.', 'Keep your answers short and to the point.', 'Give me the conclusion first, then the details.', 'No emojis in replies, please.', 'Reply in Chinese when I write in Chinese.', 'Be concise in your answers.', 'Bottom line first, then the reasoning.']) {
      expect(types(t), t).toEqual([expect.stringMatching(/^PREF /)]);
    }
  });

  it('is no rule where the words only describe something', () => {
    for (const t of ['The answer to the billing question is in the wiki.', '他的回答很简短，没说原因。', 'The summary first appeared in the March report.', '我们写了一份详细的设计文档。']) {
      expect(types(t).filter((x) => x.startsWith('PREF')), t).toEqual([]);
    }
  });
});
