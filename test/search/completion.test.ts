/**
 * Colloquial completion (lib/search/completion.ts): 升完 "finished upgrading" and 升级完成 "upgrade
 * completed" say the same, and so do 迁完 and 迁移完成, 部署完了 and 部署完成, 搞定 and 完成.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { completionTerms } from '../../lib/search/completion.js';
import { setCjkMode, tokenize } from '../../lib/search/tokenize.js';
import { runCli, tmpTree } from '../helpers.js';

afterEach(() => setCjkMode(undefined));

const terms = (run: string): string[] => {
  const out: string[] = [];
  completionTerms(run, (t) => out.push(t));
  return out;
};

describe('completion terms', () => {
  it('a short verb before 完 or 好 is its full word, and the action is finished', () => {
    expect(terms('服务器升完了吗')).toEqual(['升级', '完成']);
    expect(terms('数据库迁完了没')).toEqual(['迁移', '完成']);
    expect(terms('驱动装好了')).toEqual(['安装', '完成']);
    expect(terms('安装好了')).toEqual(['完成']);
    // 完 after any verb, and the colloquial words for done
    expect(terms('部署完了吗')).toEqual(['完成']);
    expect(terms('文档写完了')).toEqual(['完成']);
    expect(terms('这事搞定了')).toEqual(['完成']);
    expect(terms('迁移完毕')).toEqual(['完成']);
  });

  it('is no completion where 完 or 好 begins a word, or the verb ends one', () => {
    expect(terms('完全没问题')).toEqual([]);
    expect(terms('这个方案很完美')).toEqual([]);
    expect(terms('好几个人都说好看')).toEqual([]);
    expect(terms('修好看的那个')).toEqual([]);
    expect(terms('性能提升完全靠缓存')).toEqual([]);
    expect(terms('提升完了')).toEqual(['完成']); // 提升 finished, not 升级
    expect(terms('升级完成')).toEqual([]); // 完成 is the word itself
  });

  it('a segment made only of the short form is read as the full words (a stemmer\'s replacement); others keep their word', () => {
    setCjkMode('icu');
    expect(tokenize('服务器升完了吗')).toEqual(tokenize('服务器升级完成'));
    const t = tokenize('昨晚把日志集群升完了');
    expect(t).toEqual(expect.arrayContaining(['日志', '集群', '升级', '完成']));
    expect(t).not.toContain('升');
    expect(t).not.toContain('完了');
    expect(tokenize('这事搞定了')).toEqual(expect.arrayContaining(['搞定', '完成']));
    expect(tokenize('完全没问题')).not.toContain('完成');
  });

  it('the tokenizer adds them in both CJK modes, to the index and the query alike', () => {
    for (const mode of ['icu', 'bigram'] as const) {
      setCjkMode(mode);
      const q = tokenize('服务器升完了吗');
      expect(q, mode).toContain('升级');
      expect(q, mode).toContain('完成');
      expect(tokenize('服務器升完了嗎'), mode).toEqual(q); // traditional folds first
    }
  });
});

describe('search', () => {
  it('a question with 升完 finds the entry that says 升级完成, and 升级完成了吗 the one that says 升完', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), [
      '# 2026-05-14', '',
      '- 09:00 [EVENT] 订单库的慢查询日志打开了 ^cmpl0000',
      '- 10:00 [EVENT] 订单库 MySQL 升级完成，8.0.36，回归没问题 ^cmpl0001',
      '- 11:00 [EVENT] 订单库要不要分表，下周再议 ^cmpl0002',
      '- 12:00 [EVENT] 昨晚把日志集群升完了，ES 8.13 ^cmpl0003',
      '- 13:00 [EVENT] 日志集群扩容方案定了，加三台 ^cmpl0004',
      '',
    ].join('\n'));
    const first = async (q: string): Promise<string> => JSON.parse((await runCli(['search', '--root', root, q, '--json'])).stdout).results[0].id;
    expect(await first('订单库升完了吗')).toBe('cmpl0001');
    expect(await first('日志集群升级完成了吗')).toBe('cmpl0003');
    expect(await first('訂單庫升完了嗎')).toBe('cmpl0001');
  });
});
