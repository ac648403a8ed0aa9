/** normalizeText's ASCII path gives what the Unicode replacements give (they are the reference here). */
import { describe, expect, it } from 'vitest';
import { normalizeText } from '../../lib/lifecycle/common.js';
import { foldForCompare } from '../../lib/format/compare.js';
import { seededRandom } from '../../lib/core/random.js';

/** normalizeText as written with Unicode property classes (every text took this path before). */
function reference(s: string): string {
  return foldForCompare(s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s\^[a-z0-9-]+\s*$/i, '')
    .replace(/(?:^|\s)[#＃][\p{L}][\p{L}\p{N}_/-]*/gu, ' ')
    .replace(/[\s\p{P}\p{S}]+/gu, ' ')
    .trim());
}

describe('normalizeText', () => {
  it('on ASCII text equals the Unicode reference: entries, tags, ids, punctuation, controls', () => {
    const fixed = [
      '', ' ', '- 09:00 [DECISION] Use Postgres for events #Projects ^k2j3mx0a',
      'deploy: docker-compose v2.1 (on the NAS) #infra/docker ^abc-123  ',
      '#tag-first then words', 'a#notatag b #9digit #_x #a_b/c-d', '~~struck~~ superseded by ^new00001 ^old00001',
      'tabs\tand\nlines\r\nand\u000bvertical\ffeeds', 'ctrl \u0001\u001f\u007f chars', '^id-only', 'x ^ID00001', 'ends with ^id ',
      'C++ & C#: "quotes", <angle>, {braces}, [brackets], back`tick`, ~tilde~, |pipe|, @at, $dollar, %pct, ^caret, _under_',
    ];
    for (const s of fixed) expect(normalizeText(s), JSON.stringify(s)).toBe(reference(s));
    const rnd = seededRandom(7);
    const alphabet = 'aZ09 #^-_/.:\t\n!~`[]{}@\\\u0001\u007fxY';
    for (let k = 0; k < 20000; k++) {
      let s = '';
      const n = Math.floor(rnd() * 24);
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
      expect(normalizeText(s), JSON.stringify(s)).toBe(reference(s));
    }
  });

  it('every ASCII character alone and between words', () => {
    for (let c = 0; c < 128; c++) {
      const ch = String.fromCharCode(c);
      for (const s of [ch, `a${ch}b`, `a ${ch}b c`, `x #a${ch}b`, `x ^a${ch}`]) expect(normalizeText(s), JSON.stringify(s)).toBe(reference(s));
    }
  });

  it('non-ASCII text takes the Unicode path', () => {
    for (const s of ['Café #Très ^abc12345', '周会改到下午三点，在三楼 #会议', 'ｆｕｌｌｗｉｄｔｈ　ＡＢＣ', 'naïve — dash “quotes”']) expect(normalizeText(s)).toBe(reference(s));
  });
});
