import { describe, expect, it } from 'vitest';
import { activation, halfLifeDays, HOT_RECALL_COUNT, PRUNE_THRESHOLD, RECALL_BOOST, RECALL_THRESHOLD } from '../../lib/search/activation.js';
import { recallBudget } from '../../lib/search/budget.js';

const NOW = new Date('2026-05-15T14:30:00Z');

describe('activation and decay', () => {
  it('exports the seed thresholds', () => {
    expect([RECALL_THRESHOLD, PRUNE_THRESHOLD, RECALL_BOOST, HOT_RECALL_COUNT]).toEqual([0.15, 0.05, 0.3, 5]);
  });
  it('per-type half-lives', () => {
    expect(halfLifeDays('LESSON')).toBe(Infinity);
    expect(halfLifeDays('PREF')).toBe(90);
    expect(halfLifeDays(undefined, 'knowledge')).toBe(90);
    expect(halfLifeDays('TECH')).toBe(30);
    expect(halfLifeDays('EVENT')).toBe(14);
    expect(halfLifeDays()).toBe(30);
  });
  it('halves once per half-life', () => {
    expect(activation({ date: '2026-05-15' }, NOW, 'UTC')).toBe(1);
    expect(activation({ date: '2026-04-15' }, NOW, 'UTC')).toBeCloseTo(0.5, 10); // 30 days, default
    expect(activation({ type: 'EVENT', date: '2026-05-01' }, NOW, 'UTC')).toBeCloseTo(0.5, 10); // 14 days
    expect(activation({ type: 'PREF', date: '2026-02-14' }, NOW, 'UTC')).toBeCloseTo(0.5, 10); // 90 days
    expect(activation({ type: 'LESSON', date: '2020-01-01' }, NOW, 'UTC')).toBe(1); // lessons never decay
    expect(activation({}, NOW, 'UTC')).toBe(1); // undated: no age
  });
  it('a recall adds 0.3 (capped at 1) and decay restarts from the last recall', () => {
    // created 60 days ago (0.25 at the recall 30 days ago... no: at recall day age 30 → 0.5), recalled twice then
    const a = activation({ date: '2026-03-16', lastRecall: '2026-04-15T10:00:00Z', recallCount: 1 }, NOW, 'UTC');
    // at recall: 0.5 + 0.3 = 0.8, then 30 days → 0.4 (base alone: 0.25)
    expect(a).toBeCloseTo(0.4, 10);
    const capped = activation({ date: '2026-03-16', lastRecall: '2026-04-15', recallCount: 5 }, NOW, 'UTC');
    expect(capped).toBeCloseTo(0.5, 10); // min(1, 0.5 + 1.5) × 0.5
    expect(activation({ date: '2026-05-15', lastRecall: '2026-05-15', recallCount: 3 }, NOW, 'UTC')).toBe(1);
  });
  it('is deterministic and in [0, 1]', () => {
    const inp = { type: 'EVENT' as const, date: '2025-01-01', lastRecall: '2025-02-01', recallCount: 2 };
    const a = activation(inp, NOW, 'UTC');
    expect(a).toBe(activation(inp, NOW, 'UTC'));
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(PRUNE_THRESHOLD);
  });
});

describe('adaptive recall budget', () => {
  it('follows the seed curve: 10, then t² down to 4, then 4→2, then 2', () => {
    const at = (u: number) => recallBudget(u).limit;
    expect([0, 0.1, 0.29].map(at)).toEqual([10, 10, 10]);
    expect(at(0.3)).toBe(10);
    expect(at(0.5)).toBe(9); // t = 0.5 → 10 − 6 × 0.25 = 8.5 → 9
    expect(at(0.6)).toBe(7); // t = 0.75 → 10 − 6 × 0.5625 = 6.6 → 7
    expect(at(0.7)).toBe(4);
    expect(at(0.775)).toBe(3);
    expect(at(0.85)).toBe(2);
    expect([0.9, 1].map(at)).toEqual([2, 2]);
    expect(recallBudget(0.5).zone).toBe('medium');
    expect(recallBudget(0.8).zone).toBe('heavy');
    expect(recallBudget(0.95).zone).toBe('critical');
  });
  it('is monotone', () => {
    let prev = Infinity;
    for (let u = 0; u <= 1.0001; u += 0.01) { const l = recallBudget(u).limit; expect(l).toBeLessThanOrEqual(prev); prev = l; }
  });
});
