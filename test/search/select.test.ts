import { describe, expect, it } from 'vitest';
import { nthSmallest } from '../../lib/search/search.js';

describe('nthSmallest (the ranking cut-off)', () => {
  it('equals the sorted array at every index, with duplicates, negatives and a single element', () => {
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const len of [1, 2, 3, 10, 101, 1000]) {
      for (let round = 0; round < 5; round++) {
        const a = Float64Array.from({ length: len }, () => (round % 2 ? Math.floor(rnd() * 5) - 1 : rnd() * 100 - 10));
        const sorted = a.slice().sort();
        for (const n of len > 20 ? [0, 1, len >> 1, len - 20, len - 1] : Array.from({ length: len }, (_, i) => i)) {
          expect(nthSmallest(a.slice(), n)).toBe(sorted[n]);
        }
      }
    }
  });
});
