/**
 * Kinds: a question that names a kind of thing ("what sports", 什么宠物) also searches its members,
 * so the line that names a member (surfing, 猫) is found though it never says the kind's word.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KINDS, kindTerms } from '../../lib/search/kinds.js';
import { queryTokens } from '../../lib/search/tokenize.js';
import { runCli, tmpTree } from '../helpers.js';

const search = async (root: string, q: string): Promise<any[]> => JSON.parse((await runCli(['search', '--root', root, q, '--json', '--explain'])).stdout).results;

async function memory(days: string[]): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root])).code).toBe(0);
  days.forEach((line, i) => writeFileSync(join(root, `memory/episodic/2026-05-1${i}.md`), `# 2026-05-1${i}\n\n- 09:00 [EVENT] ${line} ^kind000${i}\n`));
  return root;
}

describe('kinds', () => {
  it('"what sports does John like" finds the line that names a sport, not only John', async () => {
    const root = await memory([
      'John: I finally fixed the kitchen sink this morning',
      'John: spent the whole summer surfing with my old friends from college, the waves were unreal',
      'John: my sister flew in from Boston',
    ]);
    const r = await search(root, 'What sports does John like?');
    expect(r[0].id).toBe('kind0001');
    expect(r[0].explain.kind).toBe('sports:surf');
  });

  it('张伟养了什么宠物 finds the line about his cat', async () => {
    const root = await memory([
      '张伟：周末去超市买了很多菜',
      '张伟：家里的猫昨天去医院打了疫苗，一直很乖，回来就睡着了',
      '张伟：下周要去上海出差',
    ]);
    const r = await search(root, '张伟养了什么宠物');
    expect(r[0].id).toBe('kind0001');
    expect(r[0].explain.kind).toContain('宠物:猫');
  });

  it('takes the longest name (martial arts is not art), only members the memory holds, none already asked', () => {
    const all = new Set(['karat', 'taekwondo', 'paint', 'john']);
    const t = kindTerms('what martial arts has John done', queryTokens('what martial arts has John done'), queryTokens, (x) => all.has(x));
    expect([...t.keys()].sort()).toEqual(['karat', 'taekwondo']);
    expect(t.get('taekwondo')!.kind).toBe('martial arts');
    expect(kindTerms('what did John paint', queryTokens('what did John paint'), queryTokens, () => true).size).toBe(0);
    expect(kindTerms('what sports does John play besides surfing', queryTokens('what sports does John play besides surfing'), queryTokens, () => true).has('surf')).toBe(false);
    const ev = kindTerms('what events has Anna attended', queryTokens('what events has Anna attended'), queryTokens, () => true);
    expect(ev.has('parad') && ev.has('festiv')).toBe(true);
    expect(kindTerms('她参加过哪些活动', queryTokens('她参加过哪些活动'), queryTokens, () => true).has('婚礼')).toBe(true);
    // a phrase searches its last word: "table tennis" is tennis, not every table
    const sp = kindTerms('what sports does he play', queryTokens('what sports does he play'), queryTokens, () => true);
    expect(sp.has('tenni')).toBe(true);
    expect(sp.has('tabl')).toBe(false);
    const pl = kindTerms('which cities has she lived in', queryTokens('which cities has she lived in'), queryTokens, () => true);
    expect(pl.has('york') && !pl.has('new')).toBe(true);
    // a word that names a kind only sometimes is no name: "take place", 广州, 买菜
    for (const q of ['when did the wedding take place', '广州那家店在什么地方', '周末去买菜']) expect(kindTerms(q, queryTokens(q), queryTokens, () => true).size).toBe(0);
    // every kind has names and members
    expect(KINDS.every((k) => k.names.length > 0 && k.members.length > 0)).toBe(true);
  });
});
