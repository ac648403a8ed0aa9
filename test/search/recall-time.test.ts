/**
 * Recall: a question's explicit time beats decay (issue 32). 去年国庆去哪玩了 — search ranked the
 * 2025 note first, but recall left it out as faded (an EVENT seven months old: activation ≈ 0)
 * and filled its block with unrelated entries of this year. The clock is FIXED_NOW, 2026-05-15.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recall } from '../../lib/search/recall.js';
import { rmTree, runCli, testCtx, tmpTree } from '../helpers.js';

const roots: string[] = [];
afterEach(() => { while (roots.length) rmTree(roots.pop()!); });

/** One old trip, and twelve fresh entries of May 2026 that share the question's ordinary words. */
function memory(old: string, fresh: string[]): string {
  const root = tmpTree({
    'MEMORY.md': '# Memory\n',
    'memory/episodic/2025-10-03.md': `# 2025-10-03\n- 10:00 [EVENT] ${old} ^trip2025\n`,
    'memory/episodic/2026-05-12.md': `# 2026-05-12\n${fresh.map((t, i) => `- ${String(8 + i).padStart(2, '0')}:00 [EVENT] ${t} ^new${String(i).padStart(5, '0')}`).join('\n')}\n`,
  });
  roots.push(root);
  return root;
}

const zh = (): string => memory('国庆去了青岛，看海，吃了海鲜', ['周末去公园玩了', '去超市买了水果', '带孩子去游乐场玩', '去健身房跑步', '下班去书店看书', '去朋友家玩桌游', '去银行办卡', '去医院复查', '去公司加班', '晚上去河边散步', '去商场买鞋', '去咖啡馆写代码']);
const en = (): string => memory('we went hiking in the Alps for the October holiday', ['we went to the park', 'went to the gym after work', 'we went to the store for fruit', 'went to the bank', 'went to the cinema', 'we went to a friend\'s place', 'went to the library', 'went to the office on Saturday', 'went for a walk by the river', 'went to the mall for shoes', 'went to a cafe to write', 'went to the doctor']);

describe('recall: a question that names a time', () => {
  it('keeps that time\'s entries however faded, first, in Chinese', async () => {
    const root = zh();
    const b = await recall(testCtx(root), '去年国庆去哪玩了', { noCache: true, noRecord: true });
    expect(b.results[0]!.id).toBe('trip2025');
    expect(b.results[0]!.activation).toBeLessThan(0.15); // faded: without the time it is left out
    expect(b.text.split('\n')[1]).toContain('青岛');
    // without a time, the faded trip is still left out (decay holds for everything else)
    const plain = await recall(testCtx(root), '看海吃海鲜', { noCache: true, noRecord: true });
    expect(plain.results.some((r) => r.id === 'trip2025')).toBe(false);
  });

  it('keeps that time\'s entries however faded, first, in English', async () => {
    const root = en();
    const b = await recall(testCtx(root), 'where did we go last October', { noCache: true, noRecord: true });
    expect(b.results[0]!.id).toBe('trip2025');
    expect(b.text.split('\n')[1]).toContain('Alps');
  });

  it('entries of other times come after the asked time\'s, never ahead of them (CLI, MEMTIER_NOW)', async () => {
    const r = await runCli(['recall', '--root', zh(), '--query', '去年国庆去哪玩了', '--json', '--no-record'], { env: { MEMTIER_NOW: '2026-05-15T09:00:00Z' } });
    expect(r.code, r.stderr).toBe(0);
    const dates: string[] = JSON.parse(r.stdout).results.map((x: { date: string }) => x.date);
    expect(dates[0]).toBe('2025-10-03');
    expect(dates.length).toBeGreaterThan(1);
    const inTime = dates.map((d) => d >= '2025-10-01' && d <= '2025-10-07');
    expect(inTime).toEqual([...inTime].sort((a, b) => Number(b) - Number(a))); // every one of that time before any other
  });
});
