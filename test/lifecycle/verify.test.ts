import { describe, expect, it } from 'vitest';
import { verify } from '../../lib/lifecycle/verify.js';
import { readTree, runCli, testCtx, tmpTree } from '../helpers.js';

function fixture(): Record<string, string> {
  return {
    'MEMORY.md': '# Memory\n- [Infra](memory/semantic/infrastructure.md) — servers\n- [Gone](memory/semantic/gone.md) — removed note\n- [Cited](memory/semantic/infrastructure.md#^nope0001) — bad anchor\n- [Good](memory/semantic/infrastructure.md#^inf00001) — good anchor\n',
    'SESSION-STATE.md': '# Session state\n\n## Key context\n- branch: main\n- branch: release\n- owner: ana\n',
    'memory/semantic/infrastructure.md': '---\ntags: [infrastructure]\nlast_verified: 2026-03-01\n---\n# Infrastructure\n- 2026-05-01 10:00 [TECH] db port is 5432 ^inf00001\n- 2026-05-10 10:00 [TECH] DB port is 5433 ^inf00002\n- 2026-05-10 11:00 [TECH] config lives in `memory/semantic/missing.conf` ^inf00003\n- 2026-05-10 12:00 [TECH] the proxy is caddy ^inf00004\n- 2026-05-12 09:00 [TECH] upgraded the kernel yesterday ^inf00005\n- 2026-05-12 09:30 [TECH] 明天 rotate the keys ^inf00006\n',
    'memory/semantic/decisions.md': '---\ntags: [review]\nlast_verified: 2026-05-10\n---\n# Decisions\n- 2026-04-01 10:00 [DECISION] use MySQL for the orders service ^dec00001\n- 2026-04-02 10:00 [DECISION] use Redis for sessions ^dec00002\n- 2026-05-02 10:00 [DECISION] use Postgres instead of MySQL for orders ^dec00003\n- ~~2026-04-03 10:00 [DECISION] use nginx~~ superseded by ^dec00005 ^dec00004\n- 2026-05-03 10:00 [DECISION] switch from nginx to caddy ^dec00005\n',
    'memory/semantic/people.md': '---\ntags: [people]\ncreated: 2026-05-04\nlast_verified: 2026-05-04\n---\n# People\n- Ana joined last week\n',
    'memory/episodic/2026-05-14.md': '# 2026-05-14\n- 09:00 [EVENT] yesterday the build broke, see `memory/nowhere.md` ^ep000001\n',
  };
}

describe('verify', () => {
  it('finds dead paths, relative dates with their absolute dates, contradictions, reversed decisions and stale notes', () => {
    const root = tmpTree(fixture());
    const r = verify(testCtx(root));
    const by = (k: string) => r.findings.filter((f) => f.kind === k);
    expect(by('dead-path').map((f) => `${f.file}:${f.line}`).sort()).toEqual(['MEMORY.md:3', 'MEMORY.md:4', 'memory/semantic/infrastructure.md:8']);
    const rel = by('relative-date');
    expect(rel.map((f) => [f.file, f.line, f.meant])).toEqual([
      ['memory/semantic/infrastructure.md', 10, '2026-05-11'],
      ['memory/semantic/infrastructure.md', 11, '2026-05-13'],
      ['memory/semantic/people.md', 7, 'the week of 2026-04-27'],
    ]);
    const c = by('contradiction');
    expect(c).toHaveLength(1);
    expect(c[0]!.message).toMatch(/db port/);
    expect(c[0]!.related).toEqual(['memory/semantic/infrastructure.md#^inf00002']);
    expect(by('session-state')).toHaveLength(1);
    expect(by('session-state')[0]!.line).toBe(5);
    const rev = by('reversed-decision');
    expect(rev.map((f) => f.line)).toEqual([6]); // MySQL reversed; nginx is already superseded
    expect(by('stale').map((f) => f.file)).toEqual(['memory/semantic/infrastructure.md']);
    // logs are history: the episodic "yesterday" and its path are not reported
    expect(r.findings.some((f) => f.file.startsWith('memory/episodic/'))).toBe(false);
  });

  it('writes the report, exits 1, and a second run leaves it unchanged; a clean memory exits 0', async () => {
    const root = tmpTree(fixture());
    const a = await runCli(['verify', '--root', root]);
    expect(a.code).toBe(1);
    expect(a.stdout).toMatch(/→ memory\/reviews\/verify-2026-05-15\.md/);
    const rep = readTree(root)['memory/reviews/verify-2026-05-15.md']!;
    expect(rep).toContain('## Relative dates');
    expect(rep).toContain('meant 2026-05-11');
    const snap = readTree(root);
    const b = await runCli(['verify', '--root', root, '--json']);
    expect(b.code).toBe(1);
    expect(JSON.parse(b.stdout).written).toBe(false);
    expect(readTree(root)).toEqual(snap);

    const clean = tmpTree({ 'MEMORY.md': '# Memory\n- [Infra](memory/semantic/infrastructure.md) — servers\n', 'memory/semantic/infrastructure.md': '---\ntags: [infrastructure]\nlast_verified: 2026-05-10\n---\n# Infra\n- 2026-05-10 10:00 [TECH] db port is 5432 ^inf00001\n' });
    const ok = await runCli(['verify', '--root', clean, '--dry-run']);
    expect(ok.code).toBe(0);
    expect(readTree(clean)['memory/reviews/verify-2026-05-15.md']).toBeUndefined();
  });

  it("links a finding in a note whose name has a space as a link (the path percent-encoded)", async () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n', 'memory/Projects/Website Redesign.md': '# Website Redesign\n\nThe launch is tomorrow.\n' });
    const r = await runCli(['verify', '--root', root, '--now', '2026-05-15T12:00:00Z']);
    expect(r.code).toBe(1);
    const rep = readTree(root)['memory/reviews/verify-2026-05-15.md']!;
    expect(rep).toContain('- [memory/Projects/Website Redesign.md:3](../Projects/Website%20Redesign.md#L3) ');
  });
});

describe('verify: prose only, strict frontmatter, weekdays, --days', () => {
  it('a fresh skeleton is clean: links inside HTML comments and code blocks are not checked', async () => {
    const { cpSync } = await import('node:fs');
    const { SKELETON } = await import('../helpers.js');
    const root = tmpTree({});
    cpSync(SKELETON, root, { recursive: true });
    // the skeleton's notes say created/last_verified 2026-01-01: verify on a day within 30 days of it
    const r = verify(testCtx(root, '2026-01-10T10:00:00Z'));
    expect(r.findings).toEqual([]);
    const more = tmpTree({
      'MEMORY.md': '# Memory\n<!-- - [Title](path) — hook\n  and [x](nowhere.md) -->\n```\ncat `memory/none.md` yesterday\n```\n- [Real](memory/gone.md) — dead\n',
    });
    const m = verify(testCtx(more));
    expect(m.findings.map((f) => `${f.kind} ${f.line}`)).toEqual(['dead-path 7']);
  });

  it('a note whose frontmatter does not parse is an unparsable finding, never rewritten, and skips its other checks', async () => {
    const bad = '---\ntags: [a\ncreated: 2026-05-01\n---\n# Broken\n- went live yesterday, see `memory/none.md`\n';
    const root = tmpTree({ 'MEMORY.md': '# Memory\n', 'memory/semantic/broken.md': bad });
    const r = await runCli(['verify', '--root', root, '--json']);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.findings.map((f: { kind: string; file: string }) => `${f.kind} ${f.file}`)).toEqual(['unparsable memory/semantic/broken.md']);
    expect(readTree(root)['memory/semantic/broken.md']).toBe(bad);
  });

  it('weekday phrases resolve from the entry date (next Monday, last Friday, 下周一, 3 days ago)', () => {
    // 2026-05-13 is a Wednesday
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/semantic/projects.md': '---\ntags: [projects]\ncreated: 2026-05-13\nlast_verified: 2026-05-13\n---\n# Projects\n- 2026-05-13 10:00 [PROJ] demo next Monday ^p1\n- 2026-05-13 10:01 [PROJ] shipped last Friday ^p2\n- 2026-05-13 10:02 [PROJ] 下周一 发布 ^p3\n- 2026-05-13 10:03 [PROJ] fixed 3 days ago ^p4\n- release is tomorrow (2026-05-14) ^p5\n',
    });
    const meant = verify(testCtx(root)).findings.filter((f) => f.kind === 'relative-date').map((f) => f.meant);
    expect(meant).toEqual(['2026-05-18', '2026-05-08', '2026-05-18', '2026-05-10']);
  });

  it('Chinese relative dates a user wrote: 下週三 (traditional), 三天后, 大后天 (not 后天), 两天前, 大前天', () => {
    // 2026-05-13 is a Wednesday
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/semantic/projects.md': '---\ntags: [projects]\ncreated: 2026-05-13\nlast_verified: 2026-05-13\n---\n# Projects\n- 2026-05-13 10:00 [PROJ] 下週三 评审 ^q1\n- 2026-05-13 10:01 [PROJ] 三天后 上线 ^q2\n- 2026-05-13 10:02 [PROJ] 大后天 发布 ^q3\n- 2026-05-13 10:03 [PROJ] 两天前 修好了 ^q4\n- 2026-05-13 10:04 [PROJ] 大前天 出的问题 ^q5\n',
    });
    const meant = verify(testCtx(root)).findings.filter((f) => f.kind === 'relative-date').map((f) => f.meant);
    expect(meant).toEqual(['2026-05-20', '2026-05-16', '2026-05-16', '2026-05-11', '2026-05-10']);
  });

  it('--days N checks paths in the last N episodic days; older days and the default leave logs alone', async () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/episodic/2026-05-14.md': '# 2026-05-14\n- 09:00 [EVENT] wrote `memory/semantic/plan.md` ^e1\n',
      'memory/episodic/2026-05-01.md': '# 2026-05-01\n- 09:00 [EVENT] wrote `memory/semantic/old-plan.md` ^e2\n',
    });
    expect(verify(testCtx(root)).findings).toEqual([]);
    const r = await runCli(['verify', '--root', root, '--days', '7', '--dry-run', '--json']);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.findings.map((f: { file: string; line: number }) => `${f.file}:${f.line}`)).toEqual(['memory/episodic/2026-05-14.md:2']);
    expect(readTree(root)['memory/reviews/verify-2026-05-15.md']).toBeUndefined();
  });
});

describe('verify: contradictions in semantic notes', () => {
  it('same subject and attribute with two values (key: value, X is <name>), scoped by section; labels and adjectives are not facts', () => {
    const fm = '---\ntags: [x]\ncreated: 2026-05-10\nlast_verified: 2026-05-10\n---\n';
    const root = tmpTree({
      'MEMORY.md': '# Memory\n## Key facts\n- Editor: emacs\n',
      'todos.md': '# Todos\n- [ ] deploy: blocked on review\n',
      'memory/semantic/preferences.md': fm + '# Prefs\n- Why: short answers save time\n- Editor: helix\n- Style is terse\n',
      'memory/semantic/people.md': fm + '# People\n- Editor: vim\n- Why: another reason\n',
      'memory/semantic/projects.md': fm + '# Projects\n## Alpha\n- Status: active\n## Beta\n- Status: paused\n',
      'memory/semantic/infrastructure.md': fm + '# Infra\n## web-1\n- IP: 10.0.0.1\n## web-2\n- IP: 10.0.0.2\n- The primary database is PostgreSQL\n- The primary database is MySQL\n- The API is fast\n- The API is stable\n- ~~The primary database is Oracle~~ superseded by ^x1 ^x0\n',
    });
    const c = verify(testCtx(root)).findings.filter((f) => f.kind === 'contradiction');
    expect(c.map((f) => `${f.file}:${f.line} → ${f.related!.join(',')}`)).toEqual([
      'memory/semantic/infrastructure.md:11 → memory/semantic/infrastructure.md#L12',
      'memory/semantic/people.md:7 → memory/semantic/preferences.md#L8',
    ]);
    expect(c[0]!.message).toMatch(/"postgresql" vs "mysql"/);
  });
});

describe('verify: reversed decisions', () => {
  it('"switch back to X" reverses the latest decision on the topic that chose something else; marked ones are skipped', () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/episodic/2026-04-01.md': '# 2026-04-01\n- 09:00 [DECISION] use Redis for the session store ^dec00001\n',
      'memory/episodic/2026-04-10.md': '# 2026-04-10\n- 09:00 [DECISION] use Memcached for the session store instead of Redis ^dec00002\n',
      'memory/episodic/2026-05-01.md': '# 2026-05-01\n- 09:00 [DECISION] switch back to Redis for the session store ^dec00003\n- 10:00 [DECISION] deploy on Fridays ^dec00004\n',
      'memory/episodic/2026-05-02.md': '# 2026-05-02\n- 09:00 [DECISION] no longer deploy on Fridays ^dec00005\n',
    });
    const rev = verify(testCtx(root)).findings.filter((f) => f.kind === 'reversed-decision');
    // d1 reversed by d2 (instead of Redis), d2 reversed by d3 (back to Redis), d4 by d5 (no longer)
    expect(rev.map((f) => `${f.file}:${f.line} ${f.related}`)).toEqual([
      'memory/episodic/2026-04-01.md:2 memory/episodic/2026-04-10.md#^dec00002',
      'memory/episodic/2026-04-10.md:2 memory/episodic/2026-05-01.md#^dec00003',
      'memory/episodic/2026-05-01.md:3 memory/episodic/2026-05-02.md#^dec00005',
    ]);
    expect(rev[1]!.message).toContain('memtier supersede ^dec00002 --by ^dec00003');
  });

  it('after "memtier supersede ^old --by ^new" the reversal is no longer reported', async () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/semantic/decisions.md': '# Decisions\n- 2026-04-01 09:00 [DECISION] use MySQL for orders ^mdec0001\n- 2026-05-01 09:00 [DECISION] use Postgres instead of MySQL for orders ^mdec0002\n',
    });
    expect(verify(testCtx(root)).findings.filter((f) => f.kind === 'reversed-decision')).toHaveLength(1);
    const s = await runCli(['supersede', '^mdec0001', '--by', '^mdec0002', '--root', root]);
    expect(s.code).toBe(0);
    expect(readTree(root)['memory/semantic/decisions.md']).toContain('- ~~2026-04-01 09:00 [DECISION] use MySQL for orders~~ superseded by ^mdec0002 ^mdec0001\n');
    const v = await runCli(['verify', '--root', root, '--dry-run']);
    expect(v.code).toBe(0);
  });
});

describe('verify: stale', () => {
  it('notes (frontmatter) and entries (an inline last_verified) older than 30 days; --stale-days changes the limit', async () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/semantic/infrastructure.md': '---\ntags: [infrastructure]\nlast_verified: 2026-05-01\n---\n# Infra\n- db host 10.0.0.5 (last_verified: 2026-03-01) ^host0001\n- cache host 10.0.0.6 (last_verified: 2026-05-10) ^host0002\n',
      'memory/procedural/deploy.md': '---\ntags: [procedural]\nlast_verified: 2026-04-01\n---\n# Deploy\n',
    });
    const st = verify(testCtx(root)).findings.filter((f) => f.kind === 'stale').map((f) => `${f.file}:${f.line}`);
    expect(st).toEqual(['memory/procedural/deploy.md:3', 'memory/semantic/infrastructure.md:6']);
    const r = await runCli(['verify', '--root', root, '--stale-days', '10', '--dry-run', '--json']);
    const j = JSON.parse(r.stdout);
    expect(j.counts.stale).toBe(3);
  });
});

describe('verify: relative dates anchor on the nearest date', () => {
  it('entry date, then a date on the line, then a dated heading, then the note\'s created', () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/procedural/runbook.md': '---\ntags: [procedural]\ncreated: 2026-05-01\nlast_verified: 2026-05-10\n---\n# Runbook\n- restarted it yesterday\n## 2026-05-12 incident\n- the fix lands tomorrow\n- on 2026-05-05 we said next week\n',
    });
    const rel = verify(testCtx(root)).findings.filter((f) => f.kind === 'relative-date').map((f) => `${f.line} ${f.meant}`);
    expect(rel).toEqual(['7 2026-04-30', '9 2026-05-13', '10 the week of 2026-05-11']);
  });
});

describe('verify: SESSION-STATE', () => {
  it('only Key Context keys count: two values for one key is a finding, Pending items sharing a prefix are not', () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'SESSION-STATE.md': '# Session State\n\n## Current Task\nship it\n\n## Key Context\n- deadline: 2026-06-01\n- owner: ana\n- deadline: 2026-06-15\n<!-- - owner: bo -->\n\n## Pending\n- deploy: waiting for review\n- deploy: docs\n',
    });
    const ss = verify(testCtx(root)).findings.filter((f) => f.kind === 'session-state');
    expect(ss.map((f) => f.line)).toEqual([9]);
    expect(ss[0]!.message).toContain('"2026-06-01" (line 7) and "2026-06-15"');
  });
});

describe('verify: reversals are pairs, not a cross product', () => {
  it('one later reversal flags only the latest earlier decision on its topic; unrelated decisions sharing one word are left alone', () => {
    const days = ['2026-04-01', '2026-04-02', '2026-04-03', '2026-04-04'];
    const files: Record<string, string> = { 'MEMORY.md': '# Memory\n' };
    days.forEach((d, i) => { files[`memory/episodic/${d}.md`] = `# ${d}\n- 09:00 [DECISION] use Redis for the job queue ^rq00000${i}\n- 10:00 [DECISION] Redis docs go in the wiki ^rw00000${i}\n`; });
    files['memory/episodic/2026-05-01.md'] = '# 2026-05-01\n- 09:00 [DECISION] use SQS for the job queue instead of Redis ^sqs00001\n';
    const rev = verify(testCtx(tmpTree(files))).findings.filter((f) => f.kind === 'reversed-decision');
    expect(rev.map((f) => `${f.file}:${f.line}`)).toEqual(['memory/episodic/2026-04-04.md:2']);
  });
});

describe('verify: superseded pointers', () => {
  it('reports a "superseded by ^id" whose entry was forgotten, and nothing while it exists', async () => {
    const cli = runCli;
    const root = tmpTree({ 'MEMORY.md': '# Memory\n', 'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 09:00 [DECISION] use MySQL ^old1234567\n' });
    expect((await cli(['supersede', '^old1234567', '--by', 'use Postgres', '--root', root])).code).toBe(0);
    const clean = await cli(['verify', '--dry-run', '--root', root, '--json']);
    expect(JSON.parse(clean.stdout).findings.filter((f: { message: string }) => /superseded by/.test(f.message))).toEqual([]);
    const newId = /superseded by \^([a-z0-9-]+)/.exec(readTree(root)['memory/episodic/2026-05-14.md']!)![1]!;
    expect((await cli(['forget', `^${newId}`, '--root', root])).code).toBe(0);
    const r = await cli(['verify', '--dry-run', '--root', root, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).findings).toContainEqual(expect.objectContaining({ kind: 'dead-path', file: 'memory/episodic/2026-05-14.md', line: 3, message: expect.stringContaining(`superseded by ^${newId}, which no longer exists`) }));
  });
});

describe('verify: what a note holds is found however it is written', () => {
  // verify skips a file, or a line, that cannot hold a finding; these are the places where the
  // text looked at is not the text as written (a code span or comment taken out joins its sides)
  it('a relative date or a last_verified that a code span or an HTML comment splits is still found', () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/semantic/a.md': '---\ncreated: 2026-05-01\n---\n# A\n- deployed yes`ter`terday\n',
      'memory/semantic/b.md': '---\ncreated: 2026-05-01\n---\n# B\n- planned for last<!-- really --> week\n',
      'memory/semantic/c.md': '# C\n- db host 10.0.0.5 (last_<!-- x -->verified: 2026-03-01)\n',
    });
    const r = verify(testCtx(root));
    expect(r.findings.filter((f) => f.kind === 'relative-date').map((f) => `${f.file}:${f.line} ${f.meant}`)).toEqual([
      'memory/semantic/a.md:5 2026-04-30',
      'memory/semantic/b.md:5 the week of 2026-04-20',
    ]);
    expect(r.findings.filter((f) => f.kind === 'stale').map((f) => `${f.file}:${f.line}`)).toEqual(['memory/semantic/c.md:2']);
  });

  it('decisions on a file\'s first and last line (no final newline), and a struck-through one, count', () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/episodic/2026-04-01.md': '- 09:00 [DECISION] use MySQL for the orders service ^ord00001\n- 09:30 [DECISION] use nginx for the proxy ^prx00001',
      'memory/episodic/2026-04-02.md': '# 2026-04-02\n- ~~10:00 [DECISION] use Redis for the orders cache~~ superseded by ^ord00001 ^red00001\n',
      'memory/episodic/2026-05-01.md': '# 2026-05-01\n- 09:00 [DECISION] use Postgres instead of MySQL for the orders service ^ord00002\n- 09:10 [DECISION] use caddy instead of nginx for the proxy ^prx00002',
      'memory/episodic/2026-05-02.md': '# 2026-05-02\n- 09:00 [DECISION] no longer use Redis for the orders cache ^red00002\n',
    });
    const rev = verify(testCtx(root)).findings.filter((f) => f.kind === 'reversed-decision');
    // Redis is already superseded: only MySQL (line 1) and nginx (line 2, no newline after it) are reported
    expect(rev.map((f) => `${f.file}:${f.line} ${f.related}`)).toEqual([
      'memory/episodic/2026-04-01.md:1 memory/episodic/2026-05-01.md#^ord00002',
      'memory/episodic/2026-04-01.md:2 memory/episodic/2026-05-01.md#^prx00002',
    ]);
  });

  it('a contradiction whose separator only shows once tags are taken out is still found', () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/semantic/infra.md': '# Infra\n## web-1\n- port: 8080\n- port #infra: 8081\n',
    });
    const c = verify(testCtx(root)).findings.filter((f) => f.kind === 'contradiction');
    expect(c.map((f) => f.message)).toEqual([expect.stringContaining('"port" (under "web 1") has 2 different values: "8080" vs "8081"')]);
  });
});

describe('verify: relative dates read as search reads them (lib/format/time, issue 32)', () => {
  it('weeks and months counted whole, days ahead read, spans and last year\'s holidays said whole (the old table read 上上周二 as 上周二)', () => {
    // 2026-05-13 is a Wednesday
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/semantic/projects.md': '---\ncreated: 2026-05-13\nlast_verified: 2026-05-13\n---\n# Projects\n'
        + '- 2026-05-13 10:00 [PROJ] 上上周二 定的方案 ^q1\n- 2026-05-13 10:01 [PROJ] 下下周一 发布 ^q2\n- 2026-05-13 10:02 [PROJ] 下下个月 迁移 ^q3\n'
        + '- 2026-05-13 10:03 [PROJ] 一周后 评审 ^q4\n- 2026-05-13 10:04 [PROJ] 两周后 上线 ^q5\n- 2026-05-13 10:05 [PROJ] 上周一到周三 出差 ^q6\n'
        + '- 2026-05-13 10:06 [PROJ] 去年五一 去的青岛 ^q7\n- 2026-05-13 10:07 [PROJ] shipped two weeks ago ^q8\n- 2026-05-13 10:08 [PROJ] 每周一 例会 ^q9\n',
    });
    expect(verify(testCtx(root)).findings.filter((f) => f.kind === 'relative-date').map((f) => f.meant)).toEqual([
      '2026-04-28', '2026-05-25', '2026-07', '2026-05-20', '2026-05-27', '2026-05-04 to 2026-05-06', '2025-05-01 to 2025-05-05', 'around 2026-04-29',
    ]);
  });
});
