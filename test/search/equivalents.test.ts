/**
 * The equivalents table: an abbreviation finds the word ("k8s" → Kubernetes, "OOM" → out of
 * memory), a word finds the other language's ("database" → 数据库) in a memory that holds Chinese,
 * at half weight; an English-only memory never loads the Chinese forms.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EQUIVALENTS, equivalentTerms, equivalentsOf } from '../../lib/search/equivalents.js';
import { queryTokens } from '../../lib/search/tokenize.js';
import { runCli, tmpTree } from '../helpers.js';

const ids = async (root: string, q: string): Promise<string[]> => JSON.parse((await runCli(['search', '--root', root, q, '--json'])).stdout).results.map((r: any) => r.id);

describe('equivalents', () => {
  it('finds entries written with another form of the word', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 09:00 [TECH] the Kubernetes nodes run out of memory under the nightly import ^eq000001\n- 10:00 [DECISION] 数据库迁移到 PostgreSQL 16 ^eq000002\n- 11:00 [TECH] the printer on floor 3 jams ^eq000003\n');
    expect((await ids(root, 'k8s OOM'))[0]).toBe('eq000001');
    expect((await ids(root, 'database migration'))[0]).toBe('eq000002');
    expect((await ids(root, 'printer'))[0]).toBe('eq000003');
  });

  it('a traditional form reads as the table\'s simplified one (數據庫 is 数据库)', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 09:00 [DECISION] move the database to PostgreSQL 16 ^eq000011\n- 10:00 [TECH] the printer on floor 3 jams ^eq000012\n');
    expect(equivalentTerms('數據庫', queryTokens('數據庫'), queryTokens)).toContain('databas');
    expect((await ids(root, '數據庫遷移'))[0]).toBe('eq000011');
  });

  it('weighs nothing in when no form is named, and skips Chinese forms for a memory without Chinese', () => {
    expect(equivalentTerms('the printer jams', queryTokens('the printer jams'), queryTokens)).toEqual([]);
    const t = equivalentTerms('k8s database', queryTokens('k8s database'), queryTokens, () => false);
    expect(t).toContain('kubernet');
    expect(t.some((x) => /[\u3400-\u9fff]/.test(x))).toBe(false);
    // every group has at least two forms, none repeated across groups
    const all = EQUIVALENTS.flat();
    expect(EQUIVALENTS.every((g) => g.length >= 2)).toBe(true);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('equivalents for work, people and places', () => {
  it('an English question finds the Chinese line (demo → 演示, regression testing → 回归测试, Japan → 日本) and back', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 09:00 [EVENT] UK 演示排练：Brightway 最关心照片能不能离线上传 ^eqw00001\n- 10:00 [EVENT] Brightway signed the contract for the pilot ^eqw00002\n- 11:00 [PEOPLE] 小林负责 App 回归测试 ^eqw00003\n- 12:00 [PEOPLE] the app store listing is owned by marketing ^eqw00004\n- 13:00 [TECH] the Japan partner API rate limit is 200 QPS ^eqw00005\n- 14:00 [TECH] 合作方的接口文档在 wiki 上 ^eqw00006\n');
    expect((await ids(root, 'what does Brightway care most about for the demo'))[0]).toBe('eqw00001');
    expect((await ids(root, 'who owns regression testing for the app'))[0]).toBe('eqw00003');
    expect((await ids(root, '日本合作方的接口限流多少'))[0]).toBe('eqw00005');
  });

  it('an analytics tool, a blog and a website find their Chinese lines (a bilingual vault trial: the decision ranked below two index lines)', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 09:00 [DECISION] 和 Marco 讨论了分析工具的合同，决定先用 Plausible 三个月 ^eqv00001\n- 10:00 [PEOPLE] Priya 负责博客迁移 ^eqv00002\n- 11:00 [EVENT] 新版官网下周上线 ^eqv00003\n- 12:00 [TECH] the printer on floor 3 jams ^eqv00004\n');
    expect((await ids(root, 'what did we decide about the analytics tool'))[0]).toBe('eqv00001');
    expect((await ids(root, 'who handles the blog migration'))[0]).toBe('eqv00002');
    expect((await ids(root, 'when does the new website launch'))[0]).toBe('eqv00003');
  });
});

describe('an equivalent standing in for a word the memory never writes', () => {
  it('takes the full weight of that word; with the word written somewhere it weighs half', async () => {
    const known = (absent: string) => (t: string): boolean => t !== absent;
    const q = 'who owns regression testing for the driver app';
    expect([...equivalentsOf(q, queryTokens(q), queryTokens, known('regress')).full].sort()).toEqual(['回归', '测试']);
    expect(equivalentsOf(q, queryTokens(q), queryTokens, () => true).full.size).toBe(0);
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 09:00 [PEOPLE] 小林加入 QA，负责 App 回归测试 ^eqs00001\n- 10:00 [PEOPLE] Emily owns the UK rollout: drivers get the new driver app first ^eqs00002\n- 11:00 [TECH] the driver app ships on Friday ^eqs00003\n');
    expect((await ids(root, q))[0]).toBe('eqs00001');
    const ex = JSON.parse((await runCli(['search', '--root', root, q, '--json', '--explain'])).stdout).results[0].explain;
    expect(ex.standIn.split(' ').sort()).toEqual(['回归', '测试']);
  });
});
