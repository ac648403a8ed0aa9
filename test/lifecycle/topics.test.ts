/**
 * Topics with a fixed clock: a topic emerges at 3 entries sharing a keyword (not at 2), topics of
 * mostly the same entries merge, a subtopic emerges at 5 within a topic, closure blocks are not
 * entries of a topic, an idle topic decays and is dropped, a topic that falls below 3 fades instead
 * of vanishing (until --rebuild), and `search --topic` searches within one.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tmpTree } from '../helpers.js';

const day = (d: string, lines: string[]): string => `# ${d}\n\n${lines.map((l, i) => `- ${String(9 + i).padStart(2, '0')}:00 ${l}`).join('\n')}\n`;

async function topics(root: string, now: string, extra: string[] = []): Promise<any> {
  const r = await runCli(['topics', '--root', root, '--json', '--now', now, ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

async function memory(): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root])).code).toBe(0);
  const ep = join(root, 'memory/episodic');
  writeFileSync(join(ep, '2026-05-01.md'), day('2026-05-01', [
    '[TECH] the billing service talks to postgres through pgbouncer',
    '[DECISION] postgres backups move to object storage',
    '[EVENT] kitchen renovation starts with the plumber',
  ]) + '\n## Closure\nUpdated: 2026-05-01\nDecisions: postgres backups\nSignal: none\nOpen: none\n');
  writeFileSync(join(ep, '2026-05-03.md'), day('2026-05-03', [
    '[LESSON] postgres vacuum blocked the billing migration',
    '[TECH] postgres replica lags during the billing import',
    '[PROJ] kitchen tiles chosen, plumber booked',
    '[PREF] 喜欢在早上写周报',
  ]));
  writeFileSync(join(ep, '2026-05-04.md'), day('2026-05-04', [
    '[DECISION] postgres upgrade to version 16 for the billing cluster',
    '[TECH] postgres connection limits raised for billing',
    '[EVENT] 周报 改到周一上午',
    '[EVENT] 周报 模板更新',
    '[PROJ] kitchen cabinets delivered, the plumber comes back later',
  ]));
  return root;
}

describe('memtier topics', () => {
  it('emerges at 3 entries, merges overlapping topics, finds subtopics, leaves closure blocks out', async () => {
    const root = await memory();
    const r = await topics(root, '2026-05-05T10:00:00Z');
    const names = r.active.map((t: any) => t.name);
    // postgres (6 entries) and billing (5, all inside postgres) merge
    expect(names[0]).toBe('postgres / billing');
    expect(r.active[0].entries).toBe(6);
    expect(names).toContain('kitchen / plumber');
    expect(names).toContain('周报');
    // "renovation" (1 entry) and "vacuum" are not topics; the closure block's words are not either
    expect(names.join(' ')).not.toMatch(/renovation|vacuum|signal|decisions/);
    const text = readFileSync(join(root, 'memory/palace/topics.md'), 'utf8');
    expect(text).toContain('## postgres / billing');
    expect(text).toMatch(/- 2026-05-04 · DECISION · postgres upgrade to version 16 for the billing cluster — \[memory\/episodic\/2026-05-04\.md#L3\]\(\.\.\/episodic\/2026-05-04\.md\)/);
    expect(text).not.toContain('Updated: 2026-05-01');
    // a second run on the same day writes nothing
    const again = await topics(root, '2026-05-05T10:00:00Z');
    expect(again.changed).toBe(false);
  });

  it('a subtopic emerges at 5 entries within a topic', async () => {
    const root = await memory();
    const ep = join(root, 'memory/episodic');
    writeFileSync(join(ep, '2026-05-06.md'), day('2026-05-06', [
      '[TECH] postgres replica promoted after failover drill',
      '[LESSON] postgres replica needs its own disk alerts',
      '[TECH] postgres replica count raised to three',
    ]));
    const r = await topics(root, '2026-05-07T10:00:00Z');
    const pg = r.active.find((t: any) => t.name.startsWith('postgres'));
    expect(pg.entries).toBe(9);
    // "replica": 4 entries of the topic: not yet a subtopic; one more makes it one
    expect(pg.subtopics).not.toContain('replica');
    writeFileSync(join(ep, '2026-05-07.md'), day('2026-05-07', ['[DECISION] postgres replica in a second zone']));
    const r2 = await topics(root, '2026-05-07T12:00:00Z');
    expect(r2.active.find((t: any) => t.name.startsWith('postgres')).subtopics).toContain('replica');
    expect(readFileSync(join(root, 'memory/palace/topics.md'), 'utf8')).toContain('### postgres › replica');
  });

  it('decays an idle topic, drops it after 90 days, and keeps a fading one until --rebuild', async () => {
    const root = await memory();
    await topics(root, '2026-05-05T10:00:00Z');
    const idle = await topics(root, '2026-06-20T10:00:00Z');
    expect(idle.active).toEqual([]);
    const kitchen = idle.idle.find((t: any) => t.name === 'kitchen / plumber');
    expect(kitchen.idleDays).toBe(47);
    expect(kitchen.weight).toBeCloseTo(Math.pow(0.5, 17 / 30), 3);
    expect(readFileSync(join(root, 'memory/palace/topics.md'), 'utf8')).toContain('## Idle topics');
    // a topic whose entries fall below 3 stays, fading, until it is dropped or rebuilt
    rmSync(join(root, 'memory/episodic/2026-05-03.md'));
    const faded = await topics(root, '2026-05-06T10:00:00Z');
    expect(faded.active.map((t: any) => t.name)).toContain('kitchen / plumber');
    const rebuilt = await topics(root, '2026-05-06T10:00:00Z', ['--rebuild']);
    expect(rebuilt.active.map((t: any) => t.name)).not.toContain('kitchen / plumber');
    const gone = await topics(root, '2026-09-01T10:00:00Z');
    expect([...gone.active, ...gone.idle]).toEqual([]);
  });

  it('search --topic searches one topic; an unknown topic is a usage error', async () => {
    const root = await memory();
    await topics(root, '2026-05-05T10:00:00Z');
    const r = await runCli(['search', '--root', root, '--topic', 'billing', 'import', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout).results;
    expect(res.length).toBeGreaterThan(0);
    for (const x of res) expect(x.text).toMatch(/postgres|billing/);
    const k = await runCli(['search', '--root', root, '--topic', 'kitchen', 'postgres', '--json']);
    expect(JSON.parse(k.stdout).results.every((x: any) => /kitchen|plumber/.test(x.text))).toBe(true);
    const bad = await runCli(['search', '--root', root, '--topic', 'astronomy', 'stars']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no topic "astronomy"/);
  });
});
