/**
 * The index build's term dictionary (string-table.ts): numbers in the order strings are added,
 * found again by a range of any text, hashes equal to the on-disk termHash, and UTF-8 bytes
 * equal to Buffer.write's (lone surrogates included), through growth and clear.
 */
import { describe, expect, it } from 'vitest';
import { termHash } from '../../lib/search/index-format.js';
import { hashRange, StringTable } from '../../lib/search/string-table.js';

describe('StringTable', () => {
  const words = ['deploy', 'déploiement', '部署', '😀ok', 'a\ud800b', '\udc00', 'x'.repeat(5000), ''];
  for (let i = 0; i < 3000; i++) words.push(`w${i.toString(36)}`);

  it('numbers strings in order and finds each again by a range of another text', () => {
    const t = new StringTable(2); // tiny: it grows many times
    for (const [i, w] of words.entries()) expect(t.add(w, 0, w.length, hashRange(w, 0, w.length))).toBe(i);
    for (const [i, w] of words.entries()) {
      const text = `«${w}»`;
      expect(t.find(text, 1, 1 + w.length, hashRange(text, 1, 1 + w.length))).toBe(i);
      expect(t.string(i)).toBe(w);
      expect(t.length(i)).toBe(w.length);
      expect(t.hash(i) >>> 0).toBe(termHash(w));
    }
    expect(t.find('nope', 0, 4, hashRange('nope', 0, 4))).toBe(-1);
    t.clear();
    expect(t.size).toBe(0);
    expect(t.find('deploy', 0, 6, hashRange('deploy', 0, 6))).toBe(-1);
    expect(t.add('deploy', 0, 6, hashRange('deploy', 0, 6))).toBe(0);
  });

  it('writes UTF-8 as Buffer.write does', () => {
    const t = new StringTable();
    const buf = Buffer.alloc(3 * 5000 + 8);
    for (const w of words) {
      const k = t.add(w, 0, w.length, hashRange(w, 0, w.length));
      const n = t.utf8(k, buf, 3);
      expect(buf.subarray(3, 3 + n).equals(Buffer.from(w, 'utf8')), JSON.stringify(w.slice(0, 20))).toBe(true);
    }
  });
});
