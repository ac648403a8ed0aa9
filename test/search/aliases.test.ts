/**
 * Aliases the memory declares ("Hayate Express（东京合作方）", "小林（林晓）", "Robert (aka Bob)",
 * "Bob = Robert", a note's `aliases:`): a question naming one name finds the lines that say only
 * the other; a parenthesis that is not a second name declares nothing.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { declaredAliases } from '../../lib/search/aliases.js';
import { runCli, tmpTree } from '../helpers.js';

const search = async (root: string, q: string): Promise<any> => JSON.parse((await runCli(['search', '--root', root, '--now', '2026-07-21', q, '--json', '--explain'])).stdout);

describe('declared aliases', () => {
  it('reads names in parentheses, aka and X = Y lines, and nothing else', () => {
    expect(declaredAliases('Hayate Express（东京合作方）要接我们的轨迹查询 API')).toEqual([['Hayate Express', '东京合作方']]);
    expect(declaredAliases('- 小林（林晓）：QA，负责回归测试')).toEqual([['小林', '林晓']]);
    expect(declaredAliases('周明，远航物流（FarSail Logistics）后端负责人')).toEqual([['远航物流', 'FarSail Logistics']]);
    expect(declaredAliases('met Robert (aka Bob) at the airport')).toEqual([['Robert', 'Bob']]);
    expect(declaredAliases('- Bob = Robert Miller')).toEqual([['Bob', 'Robert Miller']]);
    for (const none of ['延迟告警阈值 5s（待确认）', '司机端 App (driver app)', '乐乐入学的学校是南山实验学校（麒麟部）', 'maxOpenConns = 80', 'e-POD (electronic proof of delivery)', '不要岩板（岩板边角容易崩）', '伦敦比我们晚 7 小时（夏令时）', '单程 5 公里（估计）']) {
      expect(declaredAliases(none)).toEqual([]);
    }
  });

  it('a question naming one name finds the line that says only the other, in either language; the declaration counts its names once', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-03-28.md'), '# 2026-03-28\n\n- 14:00 [PROJ] Hayate Express（东京合作方）要接我们的轨迹查询 API ^alia0001\n- 15:00 [TECH] 合作方 wiki 整理了一遍 ^alia0002\n');
    writeFileSync(join(root, 'memory/episodic/2026-04-02.md'), '# 2026-04-02\n\n- 09:30 [PEOPLE] Kenji Sato is the CTO of Hayate Express, our contact for the integration ^alia0003\n- 15:40 [TECH] 给 Hayate 的限流 200 QPS ^alia0004\n');
    const zh = await search(root, '东京合作方的限流是多少');
    expect(zh.results[0].id).toBe('alia0004');
    expect(zh.results[0].explain.matched).toMatch(/hayat/);
    expect(zh.aliases).toEqual(['Hayate Express']);
    const en = await search(root, 'who is our contact at the Tokyo partner');
    expect(en.results.map((r: any) => r.id).slice(0, 3)).toContain('alia0003');
    expect(en.results.find((r: any) => r.id === 'alia0003').explain.matched).toMatch(/hayat/);
    const decl = en.results.find((r: any) => r.id === 'alia0001');
    expect(decl.explain.aliasOnce).toBeLessThan(0);
  });

  it('one entity, one weight: the other name\'s words weigh what the question\'s name weighs, so a line that says only the other name and answers outranks the declaration', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-03-10.md'), '# 2026-03-10\n\n- 14:00 [PROJ] Nordlys Energi（奥斯陆客户）要拿我们的月度报表 ^alic0001\n');
    writeFileSync(join(root, 'memory/episodic/2026-03-16.md'), '# 2026-03-16\n\n- 09:30 [PEOPLE] Ingrid Berg runs the data team at Nordlys Energi ^alic0002\n- 11:00 [DECISION] Nordlys 通过 SFTP 每天凌晨拉取报表 CSV，不开放数据库 ^alic0003\n- 16:00 [TECH] Nordlys 的 SFTP 账号只读 ^alic0004\n- 17:00 [TECH] Nordlys 的测试环境下周开 ^alic0005\n');
    const s = await search(root, '奥斯陆客户用什么方式拉取报表');
    expect(s.results[0].id).toBe('alic0003');
    const idfOf = (r: any, t: string): number => Number(new RegExp(`(?:^| )${t}\\(idf ([\\d.]+)\\)`).exec(r.explain.matched)?.[1]);
    const decl = s.results.find((r: any) => r.id === 'alic0001');
    // the other name's words together weigh what the question's name weighs, each at most its rarest word
    const said = [idfOf(decl, '奥斯陆'), idfOf(decl, '客户')];
    const people = s.results.find((r: any) => r.id === 'alic0002');
    const other = [idfOf(people, 'nord'), idfOf(people, 'energi')];
    expect(other[0]! + other[1]!).toBeLessThanOrEqual(said[0]! + said[1]! + 0.001);
    expect(Math.max(...other)).toBeCloseTo(Math.max(...said), 2);
    expect(Math.min(...other)).toBeGreaterThan(1.5);
  });

  it('a note\'s aliases: frontmatter names its title', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/semantic/robert.md'), '---\ntype: people\naliases: [Bobby, 老罗]\n---\n# Robert Miller\n\nLives in Leeds, two kids.\n');
    writeFileSync(join(root, 'memory/episodic/2026-05-02.md'), '# 2026-05-02\n\n- 09:00 [EVENT] Robert Miller moved his flight to Friday ^alib0001\n- 10:00 [EVENT] the printer moved to floor 2 ^alib0002\n');
    // the note is about Robert (its title); the entry that says only "Robert Miller" is found too
    for (const q of ['when does Bobby fly', '老罗 moved']) {
      const s = await search(root, q);
      expect(s.results.find((r: any) => r.id === 'alib0001')?.explain.matched).toMatch(/robert/);
    }
  });
});
