/**
 * Issue #31: an OpenClaw workspace after adoption. The workspace of test/e2e/openclaw-workspace.ts
 * (20 free-form daily notes of October, one in Chinese), taken through init → adopt → health --fix
 * five weeks later, which archives every one of them (past the 30-day TTL). Archiving moves files,
 * not what happened: review and consolidate of a period still read its days (finding 2), and health
 * after adopt speaks about what memtier can do with notes a person wrote (finding 3).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, workspaceCli } from './openclaw-workspace.js';

const cli = workspaceCli;

/** init, adopt, health --fix: the README's path; returns the root with every October day archived. */
async function adopted(): Promise<string> {
  const root = makeWorkspace();
  for (const args of [['init', root], ['adopt'], ['health', '--fix']]) {
    const r = await cli(root, args);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBeLessThan(2);
  }
  expect(existsSync(join(root, 'memory/archive/2026/10/2026-10-08.md'))).toBe(true);
  expect(existsSync(join(root, 'memory/episodic/2026-10-08.md'))).toBe(false);
  return root;
}

describe('an OpenClaw workspace after adoption (issue #31)', () => {
  it('finding 2: review and consolidate of a period read its archived days', { timeout: 120_000 }, async () => {
    const root = await adopted();

    // W41 (5-11 October): the Valkey decision of 8 October, now in memory/archive/2026/10/
    const w41 = await cli(root, ['review', '--week', '2026-W41', '--dry-run']);
    expect(w41.code, w41.stderr).toBeLessThan(2);
    const found = w41.json.extracted.map((x: any) => `${x.type} ${x.text} (${x.source})`);
    expect(found.some((s: string) => /DECISION.*Valkey/.test(s) && s.includes('memory/archive/2026/10/2026-10-08.md')), found.join('\n')).toBe(true);
    expect(w41.json.message).not.toMatch(/no meaningful changes/i);

    // W42: the Chinese decision of 15 October (加索引)
    const w42 = await cli(root, ['review', '--week', '2026-W42', '--dry-run']);
    expect(w42.json.extracted.some((x: any) => x.type === 'DECISION' && x.text.includes('索引')), JSON.stringify(w42.json.extracted)).toBe(true);

    // consolidate of an archived day summarizes it, citing the archived file
    const c = await cli(root, ['consolidate', '--date', '2026-10-08', '--dry-run']);
    expect(c.code, c.stderr).toBeLessThan(2);
    expect(c.json.summary.note ?? '').not.toMatch(/no entries/);
    expect(c.json.summary.entries).toBeGreaterThan(0);
  });

  it('finding 3: after adopt, health speaks of what memtier can do: archive due is one info line with the command; a person\'s untimed lines are not orphans', { timeout: 120_000 }, async () => {
    const root = makeWorkspace();
    expect((await cli(root, ['init', root])).code).toBe(0);
    expect((await cli(root, ['adopt'])).code).toBe(0);
    const h = await cli(root, ['health']);
    expect(h.code, h.stderr).toBe(0);
    expect(h.json.counts.warn, JSON.stringify(h.json.findings.filter((f: any) => f.severity !== 'info'))).toBe(0);
    const due = h.json.findings.filter((f: any) => f.check === 'episodic-count');
    expect(due).toHaveLength(1);
    expect(due[0].severity).toBe('info');
    expect(due[0].message).toMatch(/^21 episodic days past the 30-day TTL \(2026-10-01 … 2026-10-20/);
    expect(due[0].fix).toMatch(/memtier archive/);
    expect(h.json.findings.filter((f: any) => f.check === 'orphans')).toEqual([]);
    // --fix archives all 21 and leaves nothing behind
    const fix = await cli(root, ['health', '--fix']);
    expect(fix.json.fixed.filter((l: string) => l.startsWith('episodic-count: archived'))).toHaveLength(21);
    const after = await cli(root, ['health']);
    expect(after.json.findings.filter((f: any) => f.severity !== 'info' && f.severity !== 'skip')).toEqual([]);
    // a memtier log line without a type is still an orphan (timed: memtier wrote its shape)
    writeFileSync(join(root, 'memory/episodic/2026-11-24.md'), '# 2026-11-24\n\n- 09:00 talked to Ana about the migration\n- a line the person typed\n');
    const o = (await cli(root, ['health'])).json.findings.filter((f: any) => f.check === 'orphans');
    expect(o.map((f: any) => `${f.severity} ${f.file}:${f.line} ${f.message}`)).toEqual(['warn memory/episodic/2026-11-24.md:3 1 entry has no [TYPE] and no #tag']);
    expect(o[0].fix).toMatch(/memtier classify/);
  });

  it('finding 8: the week\'s review of a free-form note finds the decision phrased "we\'re dropping X … moving to Y", lists the dated event coming up, and makes no PEOPLE or LESSON of a costume or a meeting', { timeout: 120_000 }, async () => {
    const root = makeWorkspace();
    expect((await cli(root, ['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/2026-11-19.md'), '# 2026-11-19\n\nLena got her part in the school Christmas play. She is a reindeer and needs antlers. The school Christmas show is on 17 December at 18:00.\n\nWe\'re dropping PagerDuty at the end of the month and moving to Grafana OnCall.\n\nPostmortem review on Friday with Rafael.\n');
    const r = await cli(root, ['review', '--dry-run']);
    expect(r.code, r.stderr).toBeLessThan(2);
    const found = r.json.extracted.map((x: any) => `${x.type} ${x.text}`);
    expect(found.some((f: string) => /^DECISION .*PagerDuty.*Grafana OnCall/.test(f)), found.join('\n')).toBe(true);
    expect(found.filter((f: string) => /^(?:PEOPLE|LESSON) /.test(f)), found.join('\n')).toEqual([]);
    expect(r.json.upcoming.map((x: any) => x.date)).toEqual(['2026-12-17']);
    expect(r.json.upcoming[0].text).toMatch(/Christmas show is on 17 December/);
    expect(r.json.upcoming[0].source).toMatch(/^memory\/2026-11-19\.md#L3$/);
    // the scheduled review writes them into the week's report
    expect((await cli(root, ['review'])).code).toBeLessThan(2);
    const report = readFileSync(join(root, 'memory/reviews/2026-W48.md'), 'utf8');
    expect(report).toMatch(/## Coming up \(dated events in the week's notes\)\n- 2026-12-17: .*Christmas show/);
    expect(report).toMatch(/\[DECISION\] .*PagerDuty/);
  });

  it('finding 7: a review without --apply (the scheduled job) writes its finds to the week\'s report, linked from MEMORY.md; again, nothing', { timeout: 120_000 }, async () => {
    const root = await adopted();
    const r = await cli(root, ['review', '--week', '2026-W41']);
    expect(r.code, r.stderr).toBeLessThan(2);
    const report = readFileSync(join(root, 'memory/reviews/2026-W41.md'), 'utf8');
    expect(report).toMatch(/found \(review --apply files it\): \[DECISION\] .*Valkey.*\(from memory\/archive\/2026\/10\/2026-10-08\.md#L\d+\)/);
    expect(readFileSync(join(root, 'MEMORY.md'), 'utf8')).toMatch(/^Last reviewed: 2026-11-24 \(2026-W41\) → memory\/reviews\/2026-W41\.md$/m);
    // nothing filed into a home without --apply
    expect(readFileSync(join(root, 'memory/semantic/decisions.md'), 'utf8')).not.toContain('Valkey');
    const again = await cli(root, ['review', '--week', '2026-W41']);
    expect(again.json.changed).toBe(false);
    expect(again.json.message).toMatch(/listed in memory\/reviews\/2026-W41\.md/);
    expect(readFileSync(join(root, 'memory/reviews/2026-W41.md'), 'utf8')).toBe(report);
  });
});
