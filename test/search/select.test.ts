import { describe, expect, it } from 'vitest';
import { mthLargest } from '../../lib/search/search.js';

describe('mthLargest (the ranking cut-off)', () => {
  it('equals the sorted array at length − m for every m, with duplicates, negatives and a single element', () => {
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const len of [1, 2, 3, 10, 101, 1000]) {
      for (let round = 0; round < 5; round++) {
        const a = Float64Array.from({ length: len }, () => (round % 2 ? Math.floor(rnd() * 5) - 1 : rnd() * 100 - 10));
        if (round === 4) a.sort(); // ascending input: every value enters the heap
        const copy = a.slice();
        const sorted = a.slice().sort();
        for (const m of len > 20 ? [1, 2, 20, len >> 1, len - 1, len] : Array.from({ length: len }, (_, i) => i + 1)) {
          expect(mthLargest(a, m)).toBe(sorted[len - m]);
        }
        expect(a).toEqual(copy); // left as it was
      }
    }
  });
});
