/**
 * normalizeFact's one-pass ASCII reduction gives exactly what the chain of regular expressions
 * it replaced gives (kept here as the reference), on generated text full of tags, ids and marks.
 */
import { describe, expect, it } from 'vitest';
import { asciiFactWords, normalizeFact } from '../../lib/health/markdown.js';
import { seededRandom } from '../../lib/core/random.js';
import { KeyWordIds, keyWords, Vocab } from '../../lib/health/key-words.js';

const reference = (t: string): string => t
  .replace(/(^|\s)#[a-z][a-z0-9_/-]*/g, ' ')
  .replace(/\^[a-z0-9-]{3,64}/g, ' ')
  .replace(/[^a-z0-9\s]+/g, ' ')
  .replace(/\s+/g, ' ')
  .trim();

describe('normalizeFact, ASCII', () => {
  it('asciiFactWords equals the regular expressions on generated text', () => {
    const rnd = seededRandom(31);
    const pieces = ['#', '#tag', ' #a-b/c_d', '^', '^ab', '^abc', '^k2j3mx0a', '^' + 'a-9'.repeat(30), ' ', '\t', '\n', '\v', '-', '_', '/', '.', ',', '](x)', 'word', 'w', '7', '42', 'x1y', '  ', '#9', '#-', '^-', '^^abc', '!', 'a#b'];
    for (let k = 0; k < 30_000; k++) {
      let s = '';
      const n = Math.floor(rnd() * 12);
      for (let j = 0; j < n; j++) s += pieces[Math.floor(rnd() * pieces.length)];
      expect(asciiFactWords(s), JSON.stringify(s)).toBe(reference(s));
    }
  });

  it('keys of ordinary entries', () => {
    expect(normalizeFact('Use SQLite for the cache #infra #db ^k2j3mx0a')).toBe('use sqlite for the cache');
    expect(normalizeFact('See [the notes](memory/semantic/x.md) — v2.1, port 8080!')).toBe('see the notes v2 1 port 8080');
    expect(normalizeFact('a#b #1 c^ab ^abcd e')).toBe('a b 1 c ab e');
  });
});

describe('KeyWordIds (near-duplicates)', () => {
  it('numbers exactly the words keyWords(normalizeFact(text)) gives, ASCII or not, in any case', () => {
    const rnd = seededRandom(7);
    const pieces = ['#', '#Tag', ' #a-B/c_d', '^', '^AB', '^abc', '^K2j3MX0a', '^' + 'a-9'.repeat(30), ' ', '\t', '\v', '-', '.', '](x)', '[link](memory/x.md)', 'Word', 'w', 'W', '7', '42', 'x1Y', '#9', '^-', 'a#b', 'é', 'Straße', 'ℌello', 'Ｐort', '三点', '會議', 'K', 'İ', 'SQLite', 'sqlite'];
    const vocab = new Vocab();
    const ids = new KeyWordIds(vocab);
    for (let k = 0; k < 20_000; k++) {
      let s = '';
      const n = Math.floor(rnd() * 14);
      for (let j = 0; j < n; j++) s += pieces[Math.floor(rnd() * pieces.length)];
      expect(ids.of(s).map((id) => vocab.words[id]), JSON.stringify(s)).toEqual(keyWords(normalizeFact(s)));
    }
    // one number per word: "SQLite" and "sqlite" fold to one, "ℌ" (NFKC "H") stays apart from "h"
    expect(vocab.words.length).toBe(new Set(vocab.words).size);
  });
});
