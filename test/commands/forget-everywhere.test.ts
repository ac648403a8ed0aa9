/**
 * `forget ^id` removes an entry everywhere it is materialized (#13.5): every line carrying the id
 * (buffer, episodic day, canonical home) and the one SESSION-STATE.md item the WAL made of it, all
 * kept in the forgotten trash; search and boot no longer show it. Items that only share its words
 * in another section stay.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSessionState } from '../../lib/format/session-state.js';
import { readTree, runCli, tmpTree, writeTree } from '../helpers.js';

const cli = (root: string, args: string[], now?: string) =>
  runCli([...args, '--root', root], { env: { MEMTIER_WATCH: 'off', ...(now ? { MEMTIER_NOW: now } : {}) } });

async function fresh(): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root])).code).toBe(0);
  return root;
}

const state = (root: string) => parseSessionState(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).state;
const idOf = (stdout: string): string => JSON.parse(stdout).id as string;
const hits = async (root: string, q: string, re: RegExp) =>
  (JSON.parse((await cli(root, ['search', q, '--json'])).stdout).results as { path: string; text: string }[]).filter((r) => re.test(r.text));

describe('forget ^id of a WAL entry', () => {
  it('wal decide then forget: search finds nothing, boot does not print it, SESSION-STATE.md lacks it, the trash keeps both copies', async () => {
    const root = await fresh();
    const id = idOf((await cli(root, ['wal', 'decide', 'replace Redis with Valkey for the cache', '--json'])).stdout);
    // a pending item with the same words is another entry: it must survive
    const pending = idOf((await cli(root, ['wal', 'pending', 'replace Redis with Valkey for the cache', '--json'])).stdout);
    expect((await hits(root, 'Valkey cache', /valkey/i)).length).toBeGreaterThan(0);

    const f = await cli(root, ['forget', `^${id}`, '--json']);
    expect(f.code, f.stderr).toBe(0);
    const r = JSON.parse(f.stdout);
    expect(r.also).toEqual(['SESSION-STATE.md']);
    expect(r.state).toEqual(['Recent Decisions: 2026-05-15 14:30 — replace Redis with Valkey for the cache']);

    const st = state(root);
    expect(st.recentDecisions).toEqual([]);
    expect(st.pending).toEqual(['replace Redis with Valkey for the cache']);
    const buffer = readFileSync(join(root, 'memory/working-buffer.md'), 'utf8');
    expect(buffer).not.toContain(`^${id}`);
    expect(buffer).toContain(`^${pending}`);
    // search: only the pending entry and its state item, never the decision
    const left = await hits(root, 'Valkey cache', /valkey/i);
    expect(left.map((h) => h.text).join('\n')).not.toMatch(/DECISION|Recent Decisions/);
    const boot = (await cli(root, ['boot'])).stdout;
    expect(boot).not.toMatch(/\[DECISION\][^\n]*Valkey/);
    expect(boot).not.toMatch(/— replace Redis with Valkey/);

    const trash = readFileSync(join(root, 'memory/.trash/forgotten/2026-05-15.md'), 'utf8');
    expect(trash).toContain(`## 14:30 from memory/working-buffer.md:`);
    expect(trash).toContain(`[DECISION] replace Redis with Valkey for the cache ^${id}`);
    expect(trash).toContain('## 14:30 from SESSION-STATE.md\n- Recent Decisions: 2026-05-15 14:30 — replace Redis with Valkey for the cache\n');
  });

  it('after rotation and the weekly review: the episodic day, the canonical home and SESSION-STATE.md all lose it', async () => {
    const root = await fresh();
    const id = idOf((await cli(root, ['wal', 'decide', 'use Caddy instead of nginx', '--json'])).stdout);
    expect((await cli(root, ['rotate', '--force'])).code).toBe(0);
    expect((await cli(root, ['review'], '2026-05-18T09:00:00Z')).code).toBe(0);
    const withId = (t: Record<string, string>) => Object.keys(t).filter((p) => !p.includes('.trash/') && !p.startsWith('memory/reviews/') && t[p]!.includes(`^${id}`)).sort();
    expect(withId(readTree(root))).toEqual(['memory/episodic/2026-05-15.md', 'memory/semantic/decisions.md']);

    const f = await cli(root, ['forget', `^${id}`], '2026-05-18T10:00:00Z');
    expect(f.code, f.stderr).toBe(0);
    expect(f.stdout).toMatch(/and its copies in memory\/semantic\/decisions\.md:\d+, SESSION-STATE\.md/);
    expect(f.stdout).toContain('  - Recent Decisions: 2026-05-15 14:30 — use Caddy instead of nginx  (SESSION-STATE.md)');
    const tree = readTree(root);
    expect(withId(tree)).toEqual([]);
    expect(Object.entries(tree).filter(([p, t]) => !p.includes('.trash/') && !p.startsWith('memory/reviews/') && /Caddy/.test(t)).map(([p]) => p)).toEqual([]);
    expect(await hits(root, 'Caddy nginx', /caddy/i)).toEqual([]);
    expect((await cli(root, ['boot'], '2026-05-18T10:00:00Z')).stdout).not.toMatch(/caddy/i);
  });

  it('each kind of WAL entry takes its own SESSION-STATE.md item with it: task, key fact, keyless fact, blocker, done', async () => {
    const root = await fresh();
    const ids: Record<string, string> = {};
    for (const [name, args] of [
      ['task', ['wal', 'task', 'migrate the wiki']],
      ['deadline', ['wal', 'context', 'deadline', '2026-06-01']],
      ['fact', ['wal', 'context', 'the demo moved to Friday']],
      ['blocker', ['wal', 'blocker', 'waiting for the VPN token']],
      ['pending', ['wal', 'pending', 'ask Ana for the quota']],
      ['done', ['wal', 'done', 'ask Ana']],
    ] as const) ids[name] = idOf((await cli(root, [...args, '--json'])).stdout);
    const before = state(root);
    expect(before.currentTask).toBe('migrate the wiki');
    expect(before.keyContext).toEqual([['deadline', '2026-06-01'], ['the demo moved to Friday', '']]);
    expect(before.blockers).toEqual(['waiting for the VPN token']);
    expect(before.done).toEqual(['2026-05-15 14:30 — ask Ana for the quota']);

    for (const k of ['task', 'deadline', 'fact', 'blocker', 'done']) expect((await cli(root, ['forget', `^${ids[k]}`])).code, k).toBe(0);
    const after = state(root);
    expect(after).toEqual({ currentTask: '', keyContext: [], recentDecisions: [], pending: [], blockers: [], done: [] });
    expect(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).not.toMatch(/wiki|deadline|demo|VPN|quota/);
  });

  it('--dry-run names the state item and writes nothing', async () => {
    const root = await fresh();
    const id = idOf((await cli(root, ['wal', 'decide', 'ship on Tuesday', '--json'])).stdout);
    const before = readTree(root);
    const r = JSON.parse((await cli(root, ['forget', `^${id}`, '--dry-run', '--json'])).stdout);
    expect(r).toMatchObject({ dryRun: true, changed: true, also: ['SESSION-STATE.md'], state: ['Recent Decisions: 2026-05-15 14:30 — ship on Tuesday'] });
    expect(readTree(root)).toEqual(before);
  });

  it('an id already in the trash whose SESSION-STATE.md item was left behind: forget removes the item, then changes nothing', async () => {
    const root = await fresh();
    // what a forget made before it cleaned the state: the line in the trash, the item still in the state
    writeTree(root, {
      'memory/.trash/forgotten/2026-05-14.md': '# Forgotten 2026-05-14\n\n## 09:00 from memory/working-buffer.md:4\n- 2026-05-14 08:00 [DECISION] drop the staging cluster ^olddec001\n',
      'SESSION-STATE.md': '# Session State\n\n## Recent Decisions\n- 2026-05-14 08:00 — drop the staging cluster\n- 2026-05-13 10:00 — keep the prod cluster\n',
    });
    const r = await cli(root, ['forget', '^olddec001', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ changed: true, state: ['Recent Decisions: 2026-05-14 08:00 — drop the staging cluster'] });
    expect(state(root).recentDecisions).toEqual(['2026-05-13 10:00 — keep the prod cluster']);
    expect(readFileSync(join(root, 'memory/.trash/forgotten/2026-05-15.md'), 'utf8')).toContain('- Recent Decisions: 2026-05-14 08:00 — drop the staging cluster');
    const again = JSON.parse((await cli(root, ['forget', '^olddec001', '--json'])).stdout);
    expect(again).toMatchObject({ changed: false });
    expect(again.message).toMatch(/already forgotten/);
  });
});
