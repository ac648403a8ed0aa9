import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closureAppend, closureKeys, closureValues, dayEntries } from '../../lib/format/closure.js';
import { runHealth } from '../../lib/health/run.js';
import { parseGetSpec } from '../../lib/commands/get.js';
import { REPO, readTree, rmTree, runBin, runCli, testCtx, tmpTree } from '../helpers.js';

const roots: string[] = [];
const tmp = (files: Record<string, string> = {}): string => { const r = tmpTree(files); roots.push(r); return r; };
afterAll(() => { for (const r of roots) rmTree(r); });
const json = (s: string): any => JSON.parse(s);

/** A fresh memory from init (fixed clock: 2026-05-15 14:30 UTC). */
async function memory(extra: Record<string, string> = {}): Promise<string> {
  const root = join(tmp(), 'mem');
  const r = await runCli(['init', root, '--quiet']);
  expect(r.code, r.stderr).toBe(0);
  for (const [rel, content] of Object.entries(extra)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
  return root;
}

const DAY = [
  '# 2026-05-14',
  '',
  '- 09:10 [DECISION] use SQLite for the cache #decisions ^k2j3mx0a01',
  '- 09:20 [PROJ] pending: write the migration script ^k2j3mx0a02',
  '- 09:25 [PROJ] blocker: waiting for NAS credentials from Ana ^k2j3mx0a03',
  '- 10:00 [LESSON] pnpm needs --shamefully-hoist for expo ^k2j3mx0a04',
  '- 11:00 [PROJ] done: write the migration script ^k2j3mx0a05',
  '- ~~11:30 [DECISION] use Redis~~ superseded by ^k2j3mx0a01 ^k2j3mx0a06',
  '',
].join('\n');

describe('closure helpers', () => {
  it('derive Decisions, Signal and Open from the entries', () => {
    const v = closureValues('2026-05-14', dayEntries(DAY));
    expect(v).toEqual({
      Updated: '2026-05-14',
      Decisions: 'use SQLite for the cache (^k2j3mx0a01)',
      Signal: 'pnpm needs --shamefully-hoist for expo (^k2j3mx0a04)',
      Open: 'blocker: waiting for NAS credentials from Ana (^k2j3mx0a03)',
    });
  });
  it('say "none" for an empty day and append only missing keys of a partial block', () => {
    expect(closureValues('2026-05-14', [])).toMatchObject({ Decisions: 'none', Signal: 'none', Open: 'none' });
    const partial = DAY + 'Updated: 2026-05-14\nDecisions: by hand\n';
    const p = closureAppend('2026-05-14', partial);
    expect(p.status.missing).toEqual(['Signal', 'Open']);
    // the missing lines continue the block: no blank line inside it
    expect(p.append).toBe('Signal: pnpm needs --shamefully-hoist for expo (^k2j3mx0a04)\nOpen: blocker: waiting for NAS credentials from Ana (^k2j3mx0a03)\n');
    expect(closureAppend('2026-05-14', partial + p.append!).append).toBeUndefined();
  });
  it('cut long items and long lines', () => {
    const many = Array.from({ length: 20 }, (_, i) => `- 09:${String(i).padStart(2, '0')} [DECISION] ${'a very long decision text '.repeat(5)}${i} ^id${i}xxxxxx`).join('\n');
    const v = closureValues('2026-05-14', dayEntries(many));
    expect([...v.Decisions].length).toBeLessThanOrEqual(420);
    expect(v.Decisions).toMatch(/\+\d+ more$/);
    expect(v.Decisions).toContain('…');
  });
});

describe('memtier close-day', () => {
  it('writes the block after the last entry, once; health then finds no missing closure', async () => {
    const root = await memory({ 'memory/episodic/2026-05-14.md': DAY });
    const r = await runCli(['close-day', '2026-05-14', '--json', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    const j = json(r.stdout);
    expect(j).toMatchObject({ path: 'memory/episodic/2026-05-14.md', written: true, missing: ['Updated', 'Decisions', 'Signal', 'Open'] });
    const text = readFileSync(join(root, 'memory/episodic/2026-05-14.md'), 'utf8');
    expect(text).toBe(DAY + '\n## Closure\nUpdated: 2026-05-14\nDecisions: use SQLite for the cache (^k2j3mx0a01)\nSignal: pnpm needs --shamefully-hoist for expo (^k2j3mx0a04)\nOpen: blocker: waiting for NAS credentials from Ana (^k2j3mx0a03)\n');
    expect(closureKeys(text.split('\n')).size).toBe(4);
    const again = await runCli(['close-day', '--date', '2026-05-14', '--json', '--root', root]);
    expect(json(again.stdout).written).toBe(false);
    expect(readFileSync(join(root, 'memory/episodic/2026-05-14.md'), 'utf8')).toBe(text);
    const report = await runHealth(testCtx(root));
    expect(report.findings.filter((f) => f.check === 'closure-block')).toEqual([]);
  });

  it('defaults to today (the clock) and errors clearly on a day without a file', async () => {
    const root = await memory();
    const r = await runCli(['close-day', '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no episodic file for 2026-05-15');
    expect(r.stderr).toContain('memory/episodic/2026-05-15.md');
    // an OpenClaw daily file is the day's one home: closed in place, no second file created
    writeFileSync(join(root, 'memory/2026-05-10.md'), '- legacy\n');
    const legacy = await runCli(['close-day', '2026-05-10', '--root', root]);
    expect(legacy.code, legacy.stderr).toBe(0);
    expect(readFileSync(join(root, 'memory/2026-05-10.md'), 'utf8')).toMatch(/^Updated: 2026-05-10$/m);
    expect(existsSync(join(root, 'memory/episodic/2026-05-10.md'))).toBe(false);
    const bad = await runCli(['close-day', '2026-02-30', '--root', root]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a date');
  });
});

describe('memtier boot', () => {
  const big = (n: number): string => '# 2026-05-14\n\n' + Array.from({ length: n }, (_, i) => `- 10:${String(i % 60).padStart(2, '0')} [EVENT] yesterday line ${i} ${'x'.repeat(60)} ^y${String(i).padStart(9, '0')}`).join('\n') + '\n';

  it('prints the hot files, today, yesterday (legacy too) and the buffer under headers', async () => {
    const root = await memory({
      'memory/episodic/2026-05-15.md': '# 2026-05-15\n\n- 09:00 [EVENT] today entry ^t000000001\n',
      'memory/2026-05-14.md': '# yesterday, OpenClaw style\n- talked to Ana\n',
      'memory/episodic/2026-05-13.md': '# 2026-05-13\n- old day ^o000000001\n',
    });
    const r = await runCli(['boot', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    const heads = [...r.stdout.matchAll(/^==> (.+) <==$/gm)].map((m) => m[1]);
    expect(heads).toEqual(['MEMORY.md', 'SESSION-STATE.md', 'memory/2026-05-14.md', 'memory/episodic/2026-05-15.md', 'memory/working-buffer.md']);
    expect(r.stdout).toContain('today entry');
    expect(r.stdout).toContain('talked to Ana');
    expect(r.stdout).not.toContain('old day');
    const j = json((await runCli(['boot', '--json', '--root', root])).stdout);
    expect(j.files.map((f: any) => f.path)).toEqual(heads);
    expect(j.files.every((f: any) => f.truncated === false && typeof f.chars === 'number')).toBe(true);
    expect(j.rotating).toEqual([]);
  });

  it("shows the person's own daily notes moved under memory/ (an Obsidian vault's Daily/, a Journal/YEAR/MONTH/), not memtier's folders'", async () => {
    const root = await memory({
      'memory/Daily/2026-05-15.md': '# Friday\n\nShipped the pricing page with Priya.\n',
      'memory/Journal/2026/05/2026-05-14.md': '# Thursday\n\n决定先用 Plausible 做分析。\n',
      'memory/Journal/2025/12/2025-12-31.md': '# New Year\'s Eve\n',
      'memory/Daily/2026-05-12.md': '# Monday\n\nold note\n',
      'memory/semantic/2026-05-15.md': '# a note memtier files by topic, not a day\n- not a daily note\n',
    });
    const r = await runCli(['boot', '--json', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    const j = json(r.stdout);
    expect(j.days).toEqual(['2026-05-15', '2026-05-14']);
    expect(j.files.map((f: any) => [f.path, f.role])).toEqual([
      ['MEMORY.md', 'index'], ['SESSION-STATE.md', 'state'], ['memory/Journal/2026/05/2026-05-14.md', 'yesterday'], ['memory/Daily/2026-05-15.md', 'today'], ['memory/working-buffer.md', 'buffer'],
    ]);
    expect(j.text).toContain('Shipped the pricing page');
    expect(j.text).toContain('决定先用 Plausible');
    expect(j.text).not.toContain('old note');
    expect(j.text).not.toContain('not a daily note');
  });

  it('stays within the budget, cutting yesterday first (keeping its newest lines) and saying how to read the rest', async () => {
    const root = await memory({ 'memory/episodic/2026-05-14.md': big(200), 'memory/episodic/2026-05-15.md': '# 2026-05-15\n- 09:00 [EVENT] today stays ^t000000001\n' });
    const r = await runCli(['boot', '--max-chars', '4000', '--json', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    const j = json(r.stdout);
    expect(j.text.length).toBeLessThanOrEqual(4000);
    expect(j.chars).toBe(j.text.length);
    const y = j.files.find((f: any) => f.path === 'memory/episodic/2026-05-14.md');
    expect(y).toMatchObject({ truncated: true, omitted: false });
    expect(y.read).toMatch(/^memtier get memory\/episodic\/2026-05-14\.md:1-\d+$/);
    expect(j.text).toContain('yesterday line 199');
    expect(j.text).not.toContain('yesterday line 0 ');
    expect(j.text).toContain('today stays');
    for (const p of ['MEMORY.md', 'SESSION-STATE.md', 'memory/episodic/2026-05-15.md', 'memory/working-buffer.md']) {
      expect(j.files.find((f: any) => f.path === p).truncated, p).toBe(false);
    }
    // the cut note's command gives back exactly the lines that were cut
    const range = y.read.replace('memtier get ', '');
    const rest = json((await runCli(['get', range, '--json', '--root', root])).stdout);
    expect(rest.text).toContain('yesterday line 0 ');
    // a tiny budget leaves parts out whole but still fits
    const tiny = json((await runCli(['boot', '--max-chars', '600', '--json', '--root', root])).stdout);
    expect(tiny.text.length).toBeLessThanOrEqual(600);
    expect(tiny.files.some((f: any) => f.omitted)).toBe(true);
  });

  it('reports an interrupted rotation without touching it', async () => {
    const root = await memory({ 'memory/.rotating/buffer-2026-05-15T1400.md': '# Working buffer\n- 2026-05-15 13:59 [EVENT] in flight ^f000000001\n' });
    const before = readTree(root);
    const r = await runCli(['boot', '--root', root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('rotation was interrupted');
    expect(r.stdout).toContain('memory/.rotating/buffer-2026-05-15T1400.md');
    expect(readTree(root)).toEqual(before);
    const j = json((await runCli(['boot', '--json', '--root', root])).stdout);
    expect(j.rotating).toEqual(['memory/.rotating/buffer-2026-05-15T1400.md']);
  });

  it('refuses a budget too small to say anything', async () => {
    const root = await memory();
    const r = await runCli(['boot', '--max-chars', '10', '--root', root]);
    expect(r.code).toBe(2);
  });
});

describe('memtier get', () => {
  it('parses PATH[:FROM[-TO]]', () => {
    expect(parseGetSpec('MEMORY.md')).toEqual({ path: 'MEMORY.md' });
    expect(parseGetSpec('a.md:5')).toEqual({ path: 'a.md', from: 5, to: 5 });
    expect(parseGetSpec('a.md:5-9')).toEqual({ path: 'a.md', from: 5, to: 9 });
    expect(parseGetSpec('a.md:5-')).toEqual({ path: 'a.md', from: 5 });
  });

  it('prints a file or a line range; --json shape', async () => {
    const root = await memory({ 'memory/semantic/notes.md': '---\ntags: [samba]\n---\nl4\nl5\nl6\n' });
    const whole = await runCli(['get', 'memory/semantic/notes.md', '--root', root]);
    expect(whole.stdout).toBe('---\ntags: [samba]\n---\nl4\nl5\nl6\n');
    const part = await runCli(['get', 'memory/semantic/notes.md:4-5', '--root', root]);
    expect(part.stdout).toBe('l4\nl5\n');
    const j = json((await runCli(['get', 'memory/semantic/notes.md:5-99', '--json', '--root', root])).stdout);
    expect(j).toEqual({ path: 'memory/semantic/notes.md', from: 5, to: 6, lines: 6, text: 'l5\nl6\n' });
    const abs = await runCli(['get', join(root, 'memory/semantic/notes.md') + ':6', '--root', root]);
    expect(abs.stdout).toBe('l6\n');
  });

  it('refuses paths outside the root, missing files and bad ranges', async () => {
    const root = await memory();
    writeFileSync(join(root, '..', 'secret.md'), 'outside\n');
    for (const p of ['../secret.md', '/etc/passwd', 'memory/../../secret.md']) {
      const r = await runCli(['get', p, '--root', root]);
      expect(r.code, p).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toContain('outside');
    }
    const missing = await runCli(['get', 'memory/nope.md', '--root', root]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
    const past = await runCli(['get', 'MEMORY.md:999', '--root', root]);
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/has \d+ lines/);
    const back = await runCli(['get', 'MEMORY.md:5-2', '--root', root]);
    expect(back.code).toBe(2);
  });

  it('reads strictly: a binary file is refused with its name', async () => {
    const root = await memory();
    writeFileSync(join(root, 'memory/blob.md'), Buffer.from([0x61, 0x00, 0x62]));
    const r = await runCli(['get', 'memory/blob.md', '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('memory/blob.md');
  });
});

describe('memtier cache', () => {
  it('set, get, list, clear per session, with --json shapes', async () => {
    const root = await memory();
    const set = json((await runCli(['cache', 'set', 'url', 'https://example.org/docs', '--ttl', '600', '--json', '--root', root])).stdout);
    expect(set).toEqual({ ok: true, session: 'default', key: 'url', expires: '2026-05-15T14:40:00.000Z' });
    expect((await runCli(['cache', 'get', 'url', '--root', root])).stdout).toBe('https://example.org/docs\n');
    const got = json((await runCli(['cache', 'get', 'url', '--json', '--root', root])).stdout);
    expect(got).toMatchObject({ found: true, value: 'https://example.org/docs', set: '2026-05-15T14:30:00.000Z' });
    // another session does not see it
    const other = await runCli(['cache', 'get', 'url', '--root', root], { env: { OPENCLAW_SESSION_ID: 'agent-7' } });
    expect(other.code).toBe(1);
    await runCli(['cache', 'set', 'step', '3', '--session', 'agent-7', '--root', root]);
    expect(existsSync(join(root, '.memtier/cache/agent-7.json'))).toBe(true);
    const list = json((await runCli(['cache', 'list', '--json', '--root', root], { env: { OPENCLAW_SESSION_ID: 'agent-7' } })).stdout);
    expect(list.items.map((i: any) => i.key)).toEqual(['step']);
    const cleared = json((await runCli(['cache', 'clear', 'url', '--json', '--root', root])).stdout);
    expect(cleared.removed).toBe(1);
    expect((await runCli(['cache', 'get', 'url', '--root', root])).code).toBe(1);
    const all = json((await runCli(['cache', 'clear', '--session', 'agent-7', '--json', '--root', root])).stdout);
    expect(all.removed).toBe(1);
  });

  it('never returns an expired key and drops it at the next write', async () => {
    const root = await memory();
    await runCli(['cache', 'set', 'short', 'v1', '--ttl', '60', '--root', root]);
    await runCli(['cache', 'set', 'forever', 'v2', '--ttl', '0', '--root', root]);
    const later = { MEMTIER_NOW: '2026-05-15T14:31:01Z' };
    const r = await runCli(['cache', 'get', 'short', '--root', root], { env: later });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('v1');
    expect(json((await runCli(['cache', 'list', '--json', '--root', root], { env: later })).stdout).items.map((i: any) => i.key)).toEqual(['forever']);
    await runCli(['cache', 'set', 'x', 'y', '--root', root], { env: later });
    const file = readFileSync(join(root, '.memtier/cache/default.json'), 'utf8');
    expect(file).not.toContain('v1');
    expect(JSON.parse(file).forever.expires).toBeNull();
  });

  it('refuses a bad session id and a secret value (never echoed, nothing written)', async () => {
    const root = await memory();
    for (const id of ['../x', 'a/b', '', '-lead', 'x'.repeat(65), 'a\u202eb']) {
      const r = await runCli(['cache', 'set', 'k', 'v', `--session=${id}`, '--root', root]);
      expect(r.code, id).toBe(2);
      expect(r.stderr).toContain('session id');
    }
    const bad = await runCli(['cache', 'list', '--root', root], { env: { OPENCLAW_SESSION_ID: '../../etc' } });
    expect(bad.code).toBe(2);
    const secret = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    const r = await runCli(['cache', 'set', 'token', secret, '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('refused');
    expect(r.stderr + r.stdout).not.toContain(secret);
    expect(r.stderr + r.stdout).not.toContain(secret.slice(4, 20));
    const rj = await runCli(['cache', 'set', 'token', secret, '--json', '--root', root]);
    expect(rj.stdout + rj.stderr).not.toContain(secret.slice(4, 20));
    const pw = await runCli(['cache', 'set', 'password', 'hunter2hunter2', '--root', root]);
    expect(pw.code).toBe(2);
    expect(existsSync(join(root, '.memtier/cache/default.json'))).toBe(false);
  });

  it('reports a broken cache file and lets clear start it afresh', async () => {
    const root = await memory({ '.memtier/cache/default.json': '{not json' });
    const r = await runCli(['cache', 'get', 'k', '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cache clear');
    expect((await runCli(['cache', 'clear', '--root', root])).code).toBe(0);
    expect(readFileSync(join(root, '.memtier/cache/default.json'), 'utf8')).toBe('{}\n');
  });
});

describe('through the real binary', () => {
  beforeAll(() => {
    // emits dist/ even when a file another change is editing has a type error
    spawnSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', REPO], { stdio: 'ignore' });
    expect(existsSync(join(REPO, 'dist/lib/commands/boot.js'))).toBe(true);
  }, 120_000);

  it('init, the wal shortcut script, boot and get', () => {
    const root = join(tmp(), 'mem');
    const init = runBin(['init', root, '--json']);
    expect(init.code, init.stderr).toBe(0);
    expect(json(init.stdout).created).toContain('memory/scripts/wal');
    // the shortcut finds memtier on PATH (a folder holding a `memtier` link to bin/memtier.js)
    const binDir = tmp();
    symlinkSync(join(REPO, 'bin/memtier.js'), join(binDir, 'memtier'));
    const env = { PATH: `${binDir}:${process.env.PATH}`, HOME: binDir, MEMTIER_NOW: '2026-05-15T14:30:00Z', MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' };
    const out = execFileSync(join(root, 'memory/scripts/wal'), ['decide', 'use SQLite for the cache'], { env, cwd: binDir, encoding: 'utf8' });
    expect(out).toContain('logged');
    expect(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8')).toContain('[DECISION] use SQLite for the cache');
    const boot = runBin(['boot', '--root', root]);
    expect(boot.code, boot.stderr).toBe(0);
    expect(boot.stdout).toContain('==> memory/working-buffer.md <==');
    expect(boot.stdout).toContain('use SQLite for the cache');
    const get = runBin(['get', 'SESSION-STATE.md:1', '--root', root]);
    expect(get.stdout).toBe('# Session State\n');
  });

  it('bench write measures cold wal decide next to bare node (--json shape)', async () => {
    const r = await runCli(['bench', 'write', '--runs', '2', '--json'], { env: { PATH: process.env.PATH } });
    expect(r.code, r.stderr).toBe(0);
    const j = json(r.stdout);
    expect(j).toMatchObject({ ok: true, runs: 2, goalRatio: 2 });
    expect(j.bareSamplesMs).toHaveLength(2);
    expect(j.walSamplesMs).toHaveLength(2);
    expect(j.walDecideMs).toBeGreaterThan(0);
    expect(j.ratio).toBeCloseTo(j.walDecideMs / j.bareNodeMs, 1);
    expect(j.withinGoal).toBe(j.ratio <= 2);
    const bad = await runCli(['bench', 'write', '--runs', '0']);
    expect(bad.code).toBe(2);
  });

  it('the wal shortcut without memtier installed exits 2 with a clear message', () => {
    const root = join(tmp(), 'mem');
    expect(runBin(['init', root]).code).toBe(0);
    let code = 0;
    let err = '';
    try {
      execFileSync(join(root, 'memory/scripts/wal'), ['decide', 'x'], { env: { PATH: '/usr/bin:/bin', HOME: root }, encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      code = (e as { status: number }).status;
      err = String((e as { stderr: string }).stderr);
    }
    expect(code).toBe(2);
    expect(err).toContain('memtier is not installed');
    expect(err).toContain('not on the npm registry yet');
    expect(err).toContain('npm link');
    expect(err).not.toContain('npm install -g memtier');
  });
});
