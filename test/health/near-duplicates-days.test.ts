/**
 * near-duplicates compares a log entry with those of its own day and the day before only: the same
 * line on days a week or years apart is two events, not a copy (a person's hand-typed daily logs
 * repeat "gym with Ana at 7" for years); within a day, or logged again the next day, it is a copy.
 * The working buffer counts as the newest day. Facts are still compared with every fact.
 */
import { describe, expect, it } from 'vitest';
import { runHealth } from '../../lib/health/run.js';
import { testCtx, tmpTree } from '../helpers.js';

const LINE = 'went to the gym with Ana at the club before work';
const dup = async (files: Record<string, string>): Promise<string[]> => {
  const root = tmpTree({ 'MEMORY.md': '# Memory\n', ...files });
  const r = await runHealth(testCtx(root), { only: ['near-duplicates'] });
  return r.findings.filter((f) => f.check === 'near-duplicates').map((f) => `${f.file}:${f.line} ${f.message}`);
};

describe('near-duplicates among logs: the same day and the day before', () => {
  it('the same line twice in one day, or again the next day, is reported', async () => {
    expect(await dup({ 'memory/2026-05-10.md': `# 2026-05-10\n\n- ${LINE}\n- ${LINE} today\n` })).toEqual(['memory/2026-05-10.md:4 91% the same as memory/2026-05-10.md:3']);
    expect(await dup({ 'memory/2026-05-10.md': `# 2026-05-10\n\n- ${LINE}\n`, 'memory/episodic/2026-05-11.md': `# 2026-05-11\n\n- ${LINE}\n` }))
      .toEqual(['memory/episodic/2026-05-11.md:3 100% the same as memory/2026-05-10.md:3']);
  });

  it('the same line on days further apart is not (a week, a year; also with a day between)', async () => {
    expect(await dup({
      'memory/2025-05-10.md': `# 2025-05-10\n\n- ${LINE}\n`,
      'memory/2026-05-03.md': `# 2026-05-03\n\n- ${LINE}\n`,
      'memory/2026-05-10.md': `# 2026-05-10\n\n- ${LINE}\n`,
      'memory/2026-05-12.md': `# 2026-05-12\n\n- ${LINE}\n`,
    })).toEqual([]);
  });

  it('the working buffer counts as the newest day', async () => {
    expect(await dup({
      'memory/working-buffer.md': `# Working buffer\n\n- 2026-05-12 09:00 [EVENT] ${LINE} ^b1aaaaaa\n`,
      'memory/2026-05-12.md': `# 2026-05-12\n\n- ${LINE}\n`,
      'memory/2026-05-01.md': `# 2026-05-01\n\n- ${LINE}\n`,
    })).toEqual(['memory/working-buffer.md:3 100% the same as memory/2026-05-12.md:3']);
  });

  it('facts are compared with every fact, whatever file holds them', async () => {
    expect(await dup({
      'memory/semantic/preferences.md': '# Preferences\n- Ana prefers short status reports on Fridays\n',
      'memory/semantic/people.md': '# People\n- Ana prefers short written status reports on Fridays\n',
    })).toHaveLength(1);
  });
});

describe('logPairs: blocks of days give what comparing every pair of close days gives', () => {
  it('on random word sets over random days, at any block size', async () => {
    const { logPairs } = await import('../../lib/health/checks/near-duplicates.js');
    const { seededRandom } = await import('../../lib/core/random.js');
    for (let seed = 1; seed <= 6; seed++) {
      const r = seededRandom(seed);
      const n = 400;
      const sets: number[][] = [];
      const day: (string | undefined)[] = [];
      for (let k = 0; k < n; k++) {
        const base = sets.length && r() < 0.4 ? [...sets[Math.floor(r() * sets.length)]!] : Array.from({ length: 3 + Math.floor(r() * 10) }, () => Math.floor(r() ** 2 * 40));
        if (r() < 0.5) base[Math.floor(r() * base.length)] = Math.floor(r() * 40);
        sets.push([...new Set(base)]);
        day.push(r() < 0.03 ? undefined : `2026-0${1 + Math.floor(r() * 2)}-${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`);
      }
      const start: number[] = [];
      const pool: number[] = [];
      for (const s of sets) { start.push(pool.length); pool.push(...s); }
      const count = sets.map((s) => s.length);
      const newest = day.filter((d): d is string => d !== undefined).sort().pop()!;
      const num = (d: string | undefined): number => Date.parse(`${d ?? newest}T00:00:00Z`) / 86_400_000;
      const want: string[] = [];
      for (let j = 0; j < n; j++) for (let i = 0; i < j; i++) {
        if (Math.abs(num(day[i]) - num(day[j])) > 1) continue;
        const a = new Set(sets[i]);
        const inter = sets[j]!.filter((w) => a.has(w)).length;
        const jac = inter / (sets[i]!.length + sets[j]!.length - inter);
        if (jac >= 0.8) want.push(`${i} ${j} ${jac}`);
      }
      expect(want.length, `seed ${seed}: pairs to find`).toBeGreaterThan(5);
      const rs = sets.map((_, k) => k);
      for (const block of [1, 7, 50, 4096]) {
        const words = Int32Array.from(pool);
        const got = logPairs(rs, (k) => day[k], { arr: () => words, start: (k) => start[k]! }, count, 40, 0.8, block).map(([i, j, jac]) => `${i} ${j} ${jac}`);
        expect(got, `seed ${seed} block ${block}`).toEqual(want);
      }
    }
  });
});
