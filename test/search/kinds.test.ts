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

  it('a member is searched as words, never as a character the segmenter cut off it: 小号 does not find every 小 and 号 (两大一小, 15 号)', async () => {
    // the piano lesson names an instrument; 两大一小 (two adults, one child) and 15 号 (the 15th)
    // hold the pieces of 小号 (trumpet), which ICU cuts into 小 + 号: they are no answer
    const root = await memory([
      '五一去千岛湖，订了一间两大一小的家庭房',
      '房租每月 15 号交，别忘了',
      '每周六上午去少年宫上钢琴课，老师姓王',
    ]);
    for (const q of ['我在学什么乐器', '我在學什麼樂器']) {
      const r = await search(root, q);
      expect(r[0].id, q).toBe('kind0002');
      expect(r[0].explain.kind, q).toBe('乐器:钢琴');
      expect(r.filter((x) => x.explain.kind).map((x) => x.id), q).toEqual(['kind0002']);
    }
    const t = kindTerms('我在学什么乐器', queryTokens('我在学什么乐器'), queryTokens, () => true);
    expect(t.has('钢琴') && t.has('小提琴')).toBe(true);
    for (const piece of ['小', '号', '贝', '斯', '萨']) expect(t.has(piece), piece).toBe(false);
    expect(t.has('鼓')).toBe(true); // a one-character member is a word of its own
    // the English side names whole words as it did
    const en = kindTerms('what instruments does she play', queryTokens('what instruments does she play'), queryTokens, () => true);
    expect(en.has('piano') && en.has('trumpet')).toBe(true);
  });

  it('a question about a book, film or song finds the line that names a work in 《》', async () => {
    const root = await memory([
      '证书下个月过期，记得续',
      '最近在读《三体》，第二部比第一部好看',
      '帮同事看了一下他的简历',
      '周末去书店买了两本杂志',
    ]);
    for (const q of ['我在看什么书', '我在看什麼書', 'what book am I reading', '我在追什么电视剧']) {
      const r = await search(root, q);
      expect(r[0].id, q).toBe('kind0001');
      expect(r[0].explain.kind, q).toMatch(/:《》$/);
    }
    // a question that only says a word with 书 in it (证书), or "book" the verb, is about no title
    const cert = await search(root, '证书什么时候过期');
    expect(cert[0].id).toBe('kind0000');
    expect(cert.every((x) => !x.explain.kind)).toBe(true);
    for (const q of ['book a table for Friday', '证书什么时候过期', '秘书的电话']) expect(kindTerms(q, queryTokens(q), queryTokens, () => true).size, q).toBe(0);
    // the title mark is a term of its own (tokenize.ts TITLE_TERM), once per title; 「」 quotes are no title
    expect(queryTokens('最近在读《三体》和〈背影〉')).toContain('《》');
    expect(queryTokens('他说「好」')).not.toContain('《》');
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
