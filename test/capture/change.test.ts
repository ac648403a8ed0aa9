/**
 * A fact that changed (issue #32, Chinese capture second pass): "钢琴课又改了，改到周日下午" and
 * "备份保留天数改成 30 天" were never proposed, so the old fact was never superseded. Extraction now
 * proposes a change (rules.ts change-*), and selective capture supersedes the entry it changes
 * (capture.ts: the live typed entry that names what changed and holds a value of the same kind).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { changeOf } from '../../lib/capture/change.js';
import { extract } from '../../lib/capture/extract.js';
import { runCli, tmpTree } from '../helpers.js';

const DAY = 'memory/episodic/2026-05-15.md';
const NOW = new Date('2026-05-15T14:30:00Z'); // a Friday
const proposed = (text: string): string[] => extract([{ role: 'user', content: text }], { now: NOW, tz: 'UTC' }).proposals.map((p) => p.type);

async function memory(entries: [string, string][]): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root])).code).toBe(0);
  for (const [type, text] of entries) expect((await runCli(['add', '--root', root, '--type', type, text])).code).toBe(0);
  return root;
}

const apply = async (root: string, text: string): Promise<any> => {
  const r = await runCli(['extract', '--root', root, '--apply', '--json', text]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('changeOf', () => {
  it('reads what changed, what it is now and the kind of value, in Chinese and English', () => {
    expect(changeOf('钢琴课又改了，改到周日下午')).toEqual({ subject: '钢琴课', to: '周日下午', kind: 'time' });
    expect(changeOf('备份保留天数改成 30 天')).toEqual({ subject: '备份保留天数', to: '30 天', kind: 'number' });
    expect(changeOf('备份保留天数从 7 天调整为 30 天')).toEqual({ subject: '备份保留天数', to: '30 天', kind: 'number' });
    expect(changeOf('周会推迟到周四下午三点')).toMatchObject({ subject: '周会', kind: 'time' });
    expect(changeOf('默认编辑器换成 Neovim')).toEqual({ subject: '默认编辑器', to: 'Neovim', kind: 'other' });
    expect(changeOf('鋼琴課又改了，改到週日下午')).toEqual({ subject: '钢琴课', to: '週日下午', kind: 'time' });
    expect(changeOf('The piano lesson moved to Sunday afternoon')).toEqual({ subject: 'piano lesson', to: 'Sunday afternoon', kind: 'time' });
    expect(changeOf('Backup retention bumped to 30 days.')).toEqual({ subject: 'Backup retention', to: '30 days', kind: 'number' });
    expect(changeOf('Our standup got pushed back to 10:30')).toEqual({ subject: 'standup', to: '10:30', kind: 'time' });
    expect(changeOf('We moved the standup from 9:30 to 10am')).toEqual({ subject: 'standup', to: '10am', kind: 'time' });
    expect(changeOf('The default editor changed to Neovim')).toEqual({ subject: 'default editor', to: 'Neovim', kind: 'other' });
  });

  it('is no change without a subject, or with only a pronoun for one', () => {
    for (const t of ['改到周日下午', 'I moved to Berlin last year', 'We switched to Postgres', 'It changed to something else', 'I want to move to the new plan', 'We decided to use Valkey']) expect(changeOf(t), t).toBeUndefined();
  });
});

describe('extraction proposes a change', () => {
  it('of a time as an event, of anything else as a decision; traditional as simplified', () => {
    expect(proposed('钢琴课又改了，改到周日下午')).toEqual(['EVENT']);
    expect(proposed('鋼琴課又改了，改到週日下午')).toEqual(['EVENT']);
    expect(proposed('面试提前到明天上午')).toEqual(['EVENT']);
    expect(proposed('备份保留天数改成 30 天')).toEqual(['DECISION']);
    expect(proposed('备份保留天数从 7 天调整为 30 天')).toEqual(['DECISION']);
    expect(proposed('Backup retention changed to 30 days')).toEqual(['DECISION']);
    expect(proposed('Backup retention bumped to 30 days')).toEqual(['DECISION']);
    expect(proposed('We moved the standup to 10am')).toEqual(['EVENT']);
  });
});

describe('selective capture supersedes the entry a change changes', () => {
  it('Chinese: the piano lesson\'s time and the backup retention, each entry of its own type; the teacher and the fee untouched', async () => {
    const root = await memory([
      ['EVENT', '女儿的钢琴课每周六上午 10 点，在少年宫'],
      ['TECH', '备份保留天数是 7 天，每天凌晨 3 点跑'],
      ['PEOPLE', '钢琴老师姓王，很严格'],
      ['PROJ', '钢琴课学费一学期 3600 元'],
    ]);
    const ids = readFileSync(join(root, DAY), 'utf8').match(/\^[a-z0-9]+$/gm)!.map((x) => x.slice(1));
    const r = await apply(root, '钢琴课又改了，改到周日下午。备份保留天数改成 30 天。');
    const [lesson, backup] = r.proposals;
    expect(lesson).toMatchObject({ type: 'EVENT', contradicts: { id: ids[0], reason: 'changed to 周日下午' } });
    // a change takes the type (and home) of the entry it changes
    expect(backup).toMatchObject({ type: 'TECH', home: 'memory/semantic/infrastructure.md', contradicts: { id: ids[1], reason: 'changed to 30 天' } });
    expect(r.superseded).toHaveLength(2);
    const text = readFileSync(join(root, DAY), 'utf8');
    expect(text).toContain(`~~14:30 [EVENT] 女儿的钢琴课每周六上午 10 点，在少年宫~~ superseded by ^${lesson.added.id}`);
    expect(text).toContain(`~~14:30 [TECH] 备份保留天数是 7 天，每天凌晨 3 点跑~~ superseded by ^${backup.added.id}`);
    expect(text).toContain(`[TECH] 备份保留天数改成 30 天 ^${backup.added.id}`);
    // the teacher names the lesson but holds no time; the fee holds a number, not a time
    expect(text).toContain(`- 14:30 [PEOPLE] 钢琴老师姓王，很严格 ^${ids[2]}`);
    expect(text).toContain(`- 14:30 [PROJ] 钢琴课学费一学期 3600 元 ^${ids[3]}`);
    // search answers with the new time, the old one left out
    const s = JSON.parse((await runCli(['search', '--root', root, '钢琴课改到什么时候了', '--json'])).stdout);
    expect(s.results[0].text).toContain('周日下午');
    expect(s.results.some((x: any) => x.text.includes('每周六上午'))).toBe(false);
  });

  it('traditional Chinese is read as simplified', async () => {
    const root = await memory([['EVENT', '女儿的钢琴课每周六上午 10 点，在少年宫']]);
    const r = await apply(root, '鋼琴課又改了，改到週日下午');
    expect(r.proposals[0].contradicts?.reason).toBe('changed to 週日下午');
  });

  it('English: moved to, bumped to; a number change leaves a time alone', async () => {
    const root = await memory([
      ['EVENT', "Emma's piano lesson is on Saturday at 10am at the music school"],
      ['TECH', 'Backup retention is 7 days for the billing database'],
      ['PEOPLE', "Mrs Chen is Emma's piano teacher"],
    ]);
    const r = await apply(root, "Emma's piano lesson moved to Sunday afternoon. Backup retention bumped to 30 days. The piano lesson fee was raised to 40 dollars.");
    const [lesson, backup, fee] = r.proposals;
    // the fee names the lesson, but the lesson's entry holds a time, not an amount
    expect(fee.added).toBeDefined();
    expect(fee.contradicts).toBeUndefined();
    expect(lesson.contradicts.reason).toMatch(/^changed to Sunday/);
    expect(backup).toMatchObject({ type: 'TECH', contradicts: { reason: 'changed to 30 days' } });
    expect(r.superseded).toHaveLength(2);
    const text = readFileSync(join(root, DAY), 'utf8');
    expect(text).toMatch(/^- 14:30 \[PEOPLE\] Mrs Chen is Emma's piano teacher \^/m);
  });
});
