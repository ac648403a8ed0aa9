/**
 * Derived text does not compete with its source: a day's closure block, which repeats the day's
 * words, ranks below the entry it summarizes, unless the query names a time (then the day itself
 * is what is asked about).
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tmpTree } from '../helpers.js';

describe('closure blocks rank below their entries', () => {
  it('the entry with the answer comes first; with a time in the query the closure is not weighed down', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 10:00 [DECISION] raise the connection pool to 50 for the billing database ^pool0001\n\n## Closure\nUpdated: 2026-05-14\nDecisions: connection pool raised to 50 for billing database\nSignal: the billing database pool ran dry at peak\nOpen: none\n');
    const s = JSON.parse((await runCli(['search', '--root', root, 'billing database connection pool', '--json', '--explain'])).stdout);
    expect(s.results[0].id).toBe('pool0001');
    const closure = s.results.find((r: any) => /Updated: 2026-05-14/.test(r.text));
    expect(closure.explain.derived).toBe(0.6);
    const dated = JSON.parse((await runCli(['search', '--root', root, 'billing pool on 2026-05-14', '--json', '--explain'])).stdout);
    expect(dated.results.find((r: any) => /Updated: 2026-05-14/.test(r.text)).explain.derived).toBe(1);
  });
});

describe('question intent', () => {
  it('a quantity question favours the entry with the number; an outcome question the fix over the report', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 09:00 [TECH] the connection pool of the billing database ran dry at peak ^pool0001\n- 15:00 [TECH] the billing database connection pool raised to 50 ^pool0002\n');
    const many = JSON.parse((await runCli(['search', '--root', root, 'how many connections in the billing database pool', '--json', '--explain'])).stdout);
    expect(many.results[0].id).toBe('pool0002');
    expect(many.results[0].explain.intent).toBeGreaterThan(1);
    expect(many.results.find((r: any) => r.id === 'pool0001').explain.intent).toBe(1);
    const fix = JSON.parse((await runCli(['search', '--root', root, 'how did we fix the billing database pool', '--json', '--explain'])).stdout);
    expect(fix.results[0].id).toBe('pool0002');
    const plain = JSON.parse((await runCli(['search', '--root', root, 'billing database pool', '--json', '--explain'])).stdout);
    expect(plain.results.every((r: any) => r.explain.intent === 1)).toBe(true);
  });
});

describe('date intent', () => {
  it('a "when" question, in Chinese or English, favours the entry that names a day over one that only shares its words', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-03-12.md'), '# 2026-03-12\n\n- 09:00 [PEOPLE] 爸爸的手术医生说可以腰麻，爸爸不想全麻，手术风险不大 #family ^surg0001\n- 10:00 [EVENT] the knee surgery of dad, the surgeon is fine with it and dad is calm about the surgery ^surg0003\n');
    writeFileSync(join(root, 'memory/episodic/2026-03-18.md'), '# 2026-03-18\n\n- 11:00 [DECISION] 爸爸的手术定在 4 月 9 日，南山医院 #family ^surg0002\n- 12:00 [DECISION] dad\'s knee surgery is on April 9 at Nanshan hospital ^surg0004\n');
    const zh = JSON.parse((await runCli(['search', '--root', root, '爸爸手术哪天做', '--json', '--explain'])).stdout);
    expect(zh.results[0].id).toBe('surg0002');
    expect(zh.results[0].explain.intent).toBeGreaterThan(1);
    expect(zh.results.find((r: any) => r.id === 'surg0001').explain.intent).toBe(1);
    const en = JSON.parse((await runCli(['search', '--root', root, 'when is the knee surgery of dad', '--json', '--explain'])).stdout);
    expect(en.results[0].id).toBe('surg0004');
    expect(en.results.find((r: any) => r.id === 'surg0003').explain.intent).toBe(1);
    // the buffer's own time stamp is not a day the text names
    const plain = JSON.parse((await runCli(['search', '--root', root, 'knee surgery of dad', '--json', '--explain'])).stdout);
    expect(plain.results.every((r: any) => r.explain.intent === 1)).toBe(true);
  });
});

describe('days named in an entry\'s own words', () => {
  it('an entry written the day after ("last night", 昨天) is in the range of the day it names', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-01.md'), '# 2026-05-01\n\n- 09:00 [TECH] reviewed the billing dashboards ^bill0001\n');
    writeFileSync(join(root, 'memory/episodic/2026-05-02.md'), '# 2026-05-02\n\n- 09:00 [EVENT] we deployed the billing service last night, no errors ^bill0002\n- 10:00 [EVENT] deployed the search service this morning ^srch0001\n- 11:00 [EVENT] 昨天把支付服务也部署了 ^pay00001\n');
    writeFileSync(join(root, 'memory/episodic/2026-05-20.md'), '# 2026-05-20\n\n- 09:00 [EVENT] deployed the billing service again after the fix ^bill0003\n');
    const s = JSON.parse((await runCli(['search', '--root', root, 'what did we deploy on 2026-05-01', '--json', '--explain'])).stdout);
    const time = (id: string): number => s.results.find((r: any) => r.id === id)?.explain.time;
    expect(time('bill0002')).toBe(2); // "last night", written on 2 May
    expect(time('srch0001')).toBe(1); // "this morning" of 2 May is not 1 May
    expect(time('bill0003')).toBe(1); // weeks later: not read for days it names
    expect(s.results[0].id).toBe('bill0002');
    const zh = JSON.parse((await runCli(['search', '--root', root, '5月1日部署了什么', '--json', '--explain'])).stdout);
    expect(zh.results.find((r: any) => r.id === 'pay00001')?.explain.time).toBe(2);
  });
});

describe('open items rank below answers', () => {
  it('a pending item, a Pending section line or an open question does not outrank the statement that answers, unless the query asks what is open', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 09:00 [TECH] billing database max connections 500 on the primary ^open0002\n- 10:00 [EVENT] 乐乐的兴趣班选了围棋，编程明年再说 ^open0004\n');
    writeFileSync(join(root, 'memory/working-buffer.md'), '- 2026-05-15T09:35:00+00:00 [PENDING] ask Wei whether the billing database max connections 500 is enough ^open0001\n');
    writeFileSync(join(root, 'MEMORY.md'), '# MEMORY\n\n## Open questions\n- 乐乐的兴趣班选围棋还是编程？\n');
    const en = JSON.parse((await runCli(['search', '--root', root, '--now', '2026-05-15', 'what is the max connections of the billing database', '--json', '--explain'])).stdout);
    expect(en.results[0].id).toBe('open0002');
    expect(en.results.find((r: any) => r.id === 'open0001').explain.open).toBe(0.8);
    expect(en.results[0].explain.open).toBe(1);
    const zh = JSON.parse((await runCli(['search', '--root', root, '--now', '2026-05-15', '乐乐的兴趣班选了什么', '--json', '--explain'])).stdout);
    expect(zh.results[0].id).toBe('open0004');
    expect(zh.results.find((r: any) => r.path === 'MEMORY.md').explain.open).toBe(0.8);
    // asking after open items, or not asking at all: nothing weighed down
    const pending = JSON.parse((await runCli(['search', '--root', root, 'what is still pending on the billing database', '--json', '--explain'])).stdout);
    expect(pending.results.every((r: any) => r.explain.open === 1)).toBe(true);
    const plain = JSON.parse((await runCli(['search', '--root', root, 'billing database max connections', '--json', '--explain'])).stdout);
    expect(plain.results.every((r: any) => r.explain.open === 1)).toBe(true);
    // a question after a day: the day a line was written answers it, whatever the line's form
    const when = JSON.parse((await runCli(['search', '--root', root, 'when did we ask about the billing database max connections', '--json', '--explain'])).stdout);
    expect(when.results.every((r: any) => r.explain.open === 1)).toBe(true);
  });
});

describe('how early / 多早: a month of a year answers a date question', () => {
  it('favours the line naming 2026 年 1 月 or January 2026', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-04-08.md'), '# 2026-04-08\n\n- 09:00 [LESSON] 历史单据的汇率计算用 BigDecimal，最后再四舍五入 ^rate0001\n- 10:00 [LESSON] the historical invoices exchange rate uses BigDecimal, rounded last ^rate0003\n');
    writeFileSync(join(root, 'memory/episodic/2026-04-30.md'), '# 2026-04-30\n\n- 09:00 [DECISION] 历史单据汇率只回填 2026 年 1 月以后的 ^rate0002\n- 10:00 [DECISION] historical invoices exchange rate backfilled only after January 2026 ^rate0004\n');
    const zh = JSON.parse((await runCli(['search', '--root', root, '历史单据的汇率要回填到多早', '--json', '--explain'])).stdout);
    expect(zh.results[0].id).toBe('rate0002');
    expect(zh.results[0].explain.intent).toBeGreaterThan(1);
    expect(zh.results.find((r: any) => r.id === 'rate0001').explain.intent).toBe(1);
    const en = JSON.parse((await runCli(['search', '--root', root, 'how far back is the historical invoices exchange rate', '--json', '--explain'])).stdout);
    expect(en.results[0].id).toBe('rate0004');
    expect(en.results.find((r: any) => r.id === 'rate0003').explain.intent).toBe(1);
  });
});

describe('borrowed words do not outrank their source', () => {
  it('an entry that owes more of its score to its neighbour\'s words than to its own ranks below that neighbour (English and Chinese)', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-02-26.md'), '# 2026-02-26\n\n- 10:30 [TECH] the Terraform state of the EKS cluster is kept in S3 with a DynamoDB lock ^ctxe0001\n- 11:00 [LESSON] plan before apply #terraform ^ctxe0002\n');
    writeFileSync(join(root, 'memory/episodic/2026-03-25.md'), '# 2026-03-25\n\n- 12:00 [TECH] 真机上相机预览黑屏，模拟器正常 ^ctxz0001\n- 13:00 [LESSON] 升级大版本先在真机上测 #相机 ^ctxz0002\n');
    for (const [q, source, lesson] of [['where is the Terraform state kept', 'ctxe0001', 'ctxe0002'], ['相机黑屏', 'ctxz0001', 'ctxz0002']] as const) {
      const s = JSON.parse((await runCli(['search', '--root', root, '--now', '2027-07-21', q, '--json', '--explain'])).stdout);
      expect(s.results.slice(0, 2).map((r: any) => r.id)).toEqual([source, lesson]);
      const l = s.results[1];
      expect(l.explain.context).toBeGreaterThan(l.explain.bm25);
      expect(l.explain.belowSource).toBeLessThan(1);
      expect(s.results[0].explain.belowSource).toBeUndefined();
    }
  });
});

describe('the fix after the report', () => {
  it('on an outcome question the decision written after the report it follows ranks above it; an unrelated change next to it does not (English and Chinese)', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-07-20.md'), '# 2026-07-20\n\n- 08:40 [TECH] the billing database connection pool has maxOpenConns 20, requests queue at peak ^fixe0001\n- 09:10 [DECISION] maxOpenConns raised to 80, tried on the canary first ^fixe0002\n- 12:00 [TECH] 爸爸的核磁结果：左膝半月板撕裂 #family ^fixz0003\n- 12:30 [TECH] settlement 升级到 Java 21 #java ^fixz0004\n- 14:00 [TECH] MySQL 连接池 maxOpenConns 只有 20，高峰时排队 ^fixz0001\n- 14:30 [DECISION] maxOpenConns 调到 80，先在灰度实例上验证 ^fixz0002\n');
    for (const [q, report, fix] of [['how did we fix the billing database connection pool in the end', 'fixe0001', 'fixe0002'], ['连接池最后怎么处理的', 'fixz0001', 'fixz0002']] as const) {
      const s = JSON.parse((await runCli(['search', '--root', root, '--now', '2026-07-21', q, '--json', '--explain'])).stdout);
      expect(s.results.slice(0, 2).map((r: any) => r.id)).toEqual([fix, report]);
      expect(s.results[0].explain.aboveReport).toBeGreaterThan(1);
      const plain = JSON.parse((await runCli(['search', '--root', root, '--now', '2026-07-21', q.replace(/how did we fix |in the end|最后怎么处理的/g, ''), '--json', '--explain'])).stdout);
      expect(plain.results[0].id).toBe(report);
    }
    // 结果 asks an outcome, but the change next to the MRI result shares no tag and no word with it
    const mri = JSON.parse((await runCli(['search', '--root', root, '--now', '2026-07-21', '爸爸的核磁结果是什么', '--json', '--explain'])).stdout);
    expect(mri.results[0].id).toBe('fixz0003');
    expect(mri.results.find((r: any) => r.id === 'fixz0004')?.explain.aboveReport).toBeUndefined();
  });
});

describe('the fix written days later', () => {
  it('on a question after a fix, the decision written days after the report, in another file, sharing its tag, ranks above it; one months later or of another thread does not; a question after a result does not move it', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-03-02.md'), '# 2026-03-02\n\n- 10:00 [TECH] the mail relay rejects bulk sends, quota exceeded #mail ^fxde0001\n- 11:00 [TECH] 对账报表导出超时，数据量太大 #report ^fxdz0001\n- 15:00 [EVENT] 妈妈的体检结果出来了，血压偏高 #family ^fxdr0001\n');
    writeFileSync(join(root, 'memory/episodic/2026-03-06.md'), '# 2026-03-06\n\n- 09:00 [DECISION] newsletters go through a queue with 50 per minute, no direct sends #mail ^fxde0002\n- 10:00 [DECISION] 报表改成按天分片异步生成 #report ^fxdz0002\n- 11:00 [DECISION] 周末带妈妈去复查 #family ^fxdr0002\n');
    writeFileSync(join(root, 'memory/episodic/2026-06-20.md'), '# 2026-06-20\n\n- 09:00 [DECISION] the queue rate goes from 50 to 80 per minute #mail ^fxde0003\n- 10:00 [DECISION] 报表分片从按天改成按周 #report ^fxdz0003\n');
    const ask = async (q: string): Promise<any> => JSON.parse((await runCli(['search', '--root', root, '--now', '2026-07-01', q, '--json', '--explain'])).stdout);
    for (const [q, report, fix, later] of [['how did we fix the mail relay rejecting bulk sends', 'fxde0001', 'fxde0002', 'fxde0003'], ['对账报表导出超时后来怎么解决的', 'fxdz0001', 'fxdz0002', 'fxdz0003']] as const) {
      const s = await ask(q);
      const ids = s.results.map((r: any) => r.id);
      expect(ids.slice(0, 2)).toEqual([fix, report]);
      expect(s.results[0].explain.fixAfter).toBeGreaterThan(1);
      expect(s.results.find((r: any) => r.id === later)?.explain.fixAfter).toBeUndefined();
    }
    // 结果 asks after a result, not a fix: the report is the answer
    const r = await ask('妈妈的体检结果是什么');
    expect(r.results[0].id).toBe('fxdr0001');
    expect(r.results.some((x: any) => x.explain.fixAfter !== undefined)).toBe(false);
  });
});

describe('the finding after the open item', () => {
  it('on a cause question the first statement written after the task it follows ranks above that task, not a guess; a statement that already answers keeps its place (English and Chinese)', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-11.md'), '# 2026-05-11\n\n- 09:00 [TASK] look into the nightly export slowing down on Mondays #export ^fnde0001\n- 09:40 [TECH] export worker CPU is normal, maybe the disk #export ^fnde0002\n- 10:30 [TECH] the bucket lifecycle rule moves files to cold storage on Sundays, restores take hours #export ^fnde0003\n- 11:00 [DECISION] lifecycle rule moved to 90 days #export ^fnde0004\n');
    writeFileSync(join(root, 'memory/episodic/2026-05-12.md'), '# 2026-05-12\n\n- 09:00 [TASK] 查一下周一夜间导出变慢 #export ^fndz0001\n- 09:40 [TECH] 导出 worker CPU 正常，怀疑是磁盘 #export ^fndz0002\n- 10:30 [TECH] 存储桶生命周期规则周日把文件转到冷存储，恢复要几个小时 #export ^fndz0003\n- 11:00 [DECISION] 生命周期规则改成 90 天 #export ^fndz0004\n');
    writeFileSync(join(root, 'memory/episodic/2026-05-13.md'), '# 2026-05-13\n\n- 10:00 [DECISION] the invoices run on a separate queue because of the month-end peak #billing ^fnds0001\n- 11:00 [TECH] the invoice queue has 4 workers #billing ^fnds0002\n');
    const ask = async (q: string): Promise<any> => JSON.parse((await runCli(['search', '--root', root, '--now', '2026-05-20', q, '--json', '--explain'])).stdout);
    for (const [q, task, finding, guess] of [['did we find the cause of the nightly export slowing down on Mondays', 'fnde0001', 'fnde0003', 'fnde0002'], ['周一夜间导出变慢的原因找到了吗', 'fndz0001', 'fndz0003', 'fndz0002']] as const) {
      const s = await ask(q);
      const ids = s.results.map((r: any) => r.id);
      expect(ids.indexOf(finding)).toBe(ids.indexOf(task) - 1);
      expect(s.results.find((r: any) => r.id === finding).explain.findingAbove).toBeGreaterThan(1);
      expect(s.results.find((r: any) => r.id === guess)?.explain.findingAbove).toBeUndefined();
      // the same words without asking a cause: no finding is raised
      const plain = await ask(q.replace(/did we find the cause of |的原因找到了吗/g, ''));
      expect(plain.results.some((r: any) => r.explain.findingAbove !== undefined)).toBe(false);
    }
    // the decision that says why is the answer, not an open item: the line after it stays below
    const why = await ask('why do the invoices run on a separate queue');
    expect(why.results[0].id).toBe('fnds0001');
    expect(why.results.some((r: any) => r.explain.findingAbove !== undefined)).toBe(false);
  });
});

describe('the finding after the open item, with a session state', () => {
  it("ranks above the session's current task on the same problem, and the state file's context line is no finding (English and Chinese)", async () => {
    for (const [state, day, q, finding, context] of [
      [
        '# SESSION-STATE\n\n## Current Task\n- investigate the checkout API latency spikes at lunch\n\n## Key Context\n- the latency spikes cluster between 12:00 and 12:15, when the lunch promotions start\n',
        '# 2026-07-20\n\n- 09:00 [TASK] look at the checkout API latency at lunch, pull the traces first #checkout ^ckte0001\n- 09:40 [TECH] the payment client opens a new TLS connection per request, no keep-alive #checkout ^ckte0002\n',
        'did we find the cause of the checkout API latency spikes at lunch', 'ckte0002', 'the latency spikes cluster',
      ],
      [
        '# SESSION-STATE\n\n## Current Task\n- 排查结算接口在午高峰的延迟抖动\n\n## Key Context\n- 抖动集中在 12:00-12:15，午间促销开始的时候\n',
        '# 2026-07-20\n\n- 09:00 [TASK] 看结算接口午高峰延迟，先拉链路数据 #checkout ^cktz0001\n- 09:40 [TECH] 支付客户端每个请求新建 TLS 连接，没有 keep-alive #checkout ^cktz0002\n',
        '结算接口午高峰延迟抖动的原因查到了吗', 'cktz0002', '抖动集中在',
      ],
    ] as const) {
      const root = join(tmpTree(), 'mem');
      expect((await runCli(['init', root])).code).toBe(0);
      writeFileSync(join(root, 'SESSION-STATE.md'), state);
      writeFileSync(join(root, 'memory/episodic/2026-07-20.md'), day);
      const s = JSON.parse((await runCli(['search', '--root', root, '--now', '2026-07-20T12:00:00', q, '--json', '--explain'])).stdout);
      const at = (f: (r: any) => boolean): number => s.results.findIndex(f);
      const found = at((r) => r.id === finding);
      // above the day's task it follows, and above the session's current task on the same problem
      expect(found, q).toBeGreaterThanOrEqual(0);
      expect(found, q).toBeLessThan(at((r) => r.id === `${finding.slice(0, 4)}0001`));
      expect(found, q).toBeLessThan(at((r) => r.path === 'SESSION-STATE.md' && r.heading.includes('Current Task')));
      expect(s.results[found].explain.findingAbove).toBeGreaterThan(1);
      // a state file's sections are no timeline: its context line did not follow its current task
      const ctx = s.results.find((r: any) => r.text.includes(context));
      expect(ctx, q).toBeDefined();
      expect(ctx.explain.findingAbove).toBeUndefined();
    }
  });
});

describe('a note line restating a log entry ranks below the entry', () => {
  it('the dated entry comes first, the note that copies it right after; a note line that only shares a few words keeps its place', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/semantic/people.md'), '---\ntags: [people]\ntype: semantic\n---\n# People\n\n- Emily Carter: product manager in London, owns the customer roadmap\n- Kenji Sato: CTO of our Tokyo partner Hayate Express, API integration contact\n- 小林（林晓）：QA，负责 App 的回归测试；注意和阿杰都姓林\n- 阿杰（林志杰）：Flutter 负责人，司机端 App\n');
    writeFileSync(join(root, 'memory/episodic/2026-04-02.md'), '# 2026-04-02\n\n- 09:30 [PEOPLE] Kenji Sato is the CTO of Hayate Express, our contact for the API integration ^rest0001\n- 10:00 [PEOPLE] 小林加入 QA，负责 App 回归测试，注意别和阿杰搞混，他们都姓林 ^rest0002\n- 11:00 [TECH] Flutter 升级 3.22 ^rest0003\n');
    for (const [q, entry] of [['who is the CTO of the Tokyo partner Hayate Express', 'rest0001'], ['谁负责 App 的回归测试', 'rest0002']] as const) {
      const s = JSON.parse((await runCli(['search', '--root', root, '--now', '2026-07-21', q, '--json', '--explain'])).stdout);
      expect(s.results[0].id).toBe(entry);
      expect(s.results[1].path).toBe('memory/semantic/people.md');
      expect(s.results[1].explain.restates).toBe(`memory/episodic/2026-04-02.md#L${entry === 'rest0001' ? 3 : 4}`);
    }
    // 阿杰's line shares Flutter with the entry, not half its words: the note keeps its place
    const f = JSON.parse((await runCli(['search', '--root', root, '--now', '2026-07-21', '阿杰 Flutter 负责人', '--json', '--explain'])).stdout);
    expect(f.results[0].path).toBe('memory/semantic/people.md');
    expect(f.results[0].explain.restates).toBeUndefined();
  });
});

describe('the line said by the person the question names', () => {
  it('"what does Melanie do" favours Melanie\'s own lines over Caroline\'s about the same thing; a date question does not', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2023-05-08.md'), '# 2023-05-08\n\n- 13:00 Caroline: Melanie, you said pottery is like therapy, I want to try pottery too ^spk00001\n- 13:01 Melanie: I signed up for a pottery class, it relaxes me ^spk00002\n');
    const s = JSON.parse((await runCli(['search', '--root', root, '--now', '2023-06-01', 'what does Melanie do to relax, pottery?', '--json', '--explain'])).stdout);
    expect(s.results[0].id).toBe('spk00002');
    expect(s.results[0].explain.speaker).toBe(1.2);
    expect(s.results.find((r: any) => r.id === 'spk00001').explain.speaker).toBeUndefined();
    const when = JSON.parse((await runCli(['search', '--root', root, '--now', '2023-06-01', 'when did Melanie try pottery', '--json', '--explain'])).stdout);
    expect(when.results.every((r: any) => r.explain.speaker === undefined)).toBe(true);
  });
});
