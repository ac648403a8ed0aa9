/**
 * Issue #12: every writing command commits every path it changed — through rotation, archive,
 * trash moves, quarantine, anything. After each command on a git memory `git status --porcelain`
 * is empty and HEAD's commit lists what changed. One table, one fresh memory per row.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { runBin, runCli, tmpTree, writeTree } from '../helpers.js';

const git = (root: string, ...args: string[]): string => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
const cli = async (root: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> => {
  const r = await runCli([...args, '--root', root], { env });
  expect(r.code, `${args.join(' ')}: ${r.stderr}${r.stdout}`).toBeLessThan(2);
  return r.stdout;
};

/** A git memory with something for every command to do, all committed. */
async function fixture(): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root, '--git'])).code).toBe(0);
  writeTree(root, {
    // past the 30-day TTL: archive and health --fix move it
    'memory/episodic/2026-03-02.md': '# 2026-03-02\n\n- 09:00 [EVENT] migrated the billing database ^old00001\n\n## Closure\nUpdated: 2026-03-02\nDecisions: none\nSignal: none\nOpen: none\n',
    // yesterday, typed, not closed: close-day and health --fix close it
    'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 09:00 [DECISION] use SQLite for the cache ^dec00001\n- 10:00 [TECH] the broker runs on port 7001 ^tec00001\n',
    // an OpenClaw daily file: adopt moves it
    'memory/2026-05-13.md': '# 2026-05-13\n\nWorked on the release notes.\n',
  });
  await cli(root, ['wal', 'pending', 'write the runbook']);
  await cli(root, ['wal', 'snapshot', 'before-test']);
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'fixture');
  expect(git(root, 'status', '--porcelain')).toBe('');
  return root;
}

interface Row { name: string; setup?: string[][]; args: string[]; env?: NodeJS.ProcessEnv; changes: string[] }

const ROWS: Row[] = [
  { name: 'wal task', args: ['wal', 'task', 'ship the release'], changes: ['SESSION-STATE.md', 'memory/working-buffer.md'] },
  { name: 'wal decide', args: ['wal', 'decide', 'use Postgres, not MySQL'], changes: ['SESSION-STATE.md', 'memory/working-buffer.md'] },
  { name: 'wal context', args: ['wal', 'context', 'region', 'eu-west'], changes: ['SESSION-STATE.md', 'memory/working-buffer.md'] },
  { name: 'wal pending', args: ['wal', 'pending', 'call the vendor'], changes: ['SESSION-STATE.md', 'memory/working-buffer.md'] },
  { name: 'wal done', args: ['wal', 'done', 'write the runbook'], changes: ['SESSION-STATE.md', 'memory/working-buffer.md'] },
  { name: 'wal blocker', args: ['wal', 'blocker', 'waiting for the vendor'], changes: ['SESSION-STATE.md', 'memory/working-buffer.md'] },
  { name: 'wal snapshot', args: ['wal', 'snapshot', 'second'], changes: ['memory/.snapshots/second.md'] },
  { name: 'wal restore', setup: [['wal', 'task', 'something else']], args: ['wal', 'restore', 'before-test'], changes: ['SESSION-STATE.md', 'memory/.snapshots/'] },
  { name: 'wal decide that rotates the buffer', args: ['wal', 'decide', 'rotate now'], env: { MEMTIER_BUFFER_MAX_LINES: '3' }, changes: ['memory/working-buffer.md', 'memory/episodic/2026-05-15.md'] },
  { name: 'add', args: ['add', '--type', 'TECH', 'the staging cluster lives in fra1'], changes: ['memory/episodic/2026-05-15.md'] },
  { name: 'rotate', args: ['rotate', '--force'], changes: ['memory/working-buffer.md', 'memory/episodic/2026-05-15.md'] },
  { name: 'archive', args: ['archive'], changes: ['memory/episodic/2026-03-02.md', 'memory/archive/2026/03/2026-03-02.md'] },
  { name: 'close-day', args: ['close-day', '2026-05-14'], changes: ['memory/episodic/2026-05-14.md'] },
  { name: 'supersede', args: ['supersede', '^tec00001', '--by', 'the broker moved to port 7002'], changes: ['memory/episodic/2026-05-14.md'] },
  { name: 'forget', args: ['forget', '^tec00001'], changes: ['memory/episodic/2026-05-14.md'] },
  { name: 'health --fix', args: ['health', '--fix'], changes: ['memory/episodic/2026-03-02.md'] },
  { name: 'consolidate', args: ['consolidate'], changes: [] },
  { name: 'review', args: ['review'], changes: ['memory/reviews/'] },
  { name: 'dream --apply', args: ['dream', '--apply'], changes: [] },
  { name: 'palace', args: ['palace'], changes: ['memory/palace/'] },
  { name: 'verify', args: ['verify'], changes: [] },
  { name: 'adopt', args: ['adopt'], changes: ['memory/2026-05-13.md', 'memory/episodic/2026-05-13.md'] },
  { name: 'cache set', args: ['cache', 'set', 'k', 'v'], changes: [] },
];

describe('every writing command commits every path it changed', () => {
  for (const row of ROWS) {
    it(row.name, async () => {
      const root = await fixture();
      for (const a of row.setup ?? []) await cli(root, a);
      const before = git(root, 'rev-parse', 'HEAD').trim();
      await cli(root, row.args, row.env);
      expect(git(root, 'status', '--porcelain'), `${row.name} left changes uncommitted`).toBe('');
      const changed = git(root, 'diff', '--no-renames', '--name-only', before, 'HEAD').trim().split('\n').filter(Boolean);
      for (const c of row.changes) expect(changed.some((f) => f === c || (c.endsWith('/') && f.startsWith(c))), `${c} in ${changed.join(', ')}`).toBe(true);
      // the command's own commit holds them (a recovered or earlier commit would not count)
      if (row.changes.length) expect(git(root, 'log', '--format=%s', '-1')).toMatch(/^memtier /);
      expect(changed.filter((f) => f.startsWith('.memtier/') || f.startsWith('memory/.trash/'))).toEqual([]);
    });
  }
});

describe('the scenario of issue #12', () => {
  it('a buffer that rotates twice: a clean tree and every decision in HEAD', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root, '--git'])).code).toBe(0);
    for (let i = 1; i <= 30; i++) await cli(root, ['wal', 'decide', `decision number ${i}`], { MEMTIER_BUFFER_MAX_LINES: '12' });
    expect(git(root, 'status', '--porcelain')).toBe('');
    const day = readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8');
    expect(day).toContain('decision number 1 ');
    for (let i = 1; i <= 30; i++) {
      expect(git(root, 'grep', '-c', '-w', `decision number ${i}`, 'HEAD', '--', 'memory').length, `decision ${i}`).toBeGreaterThan(0);
    }
    // the trash (rotation's aside files) is ignored by git, not committed
    expect(readFileSync(join(root, '.gitignore'), 'utf8')).toMatch(/^memory\/\.trash\/$/m);
    expect(git(root, 'ls-files', 'memory/.trash')).toBe('');
  });
});

describe('through the real binary, whose command bundles load some modules from dist/lib on demand', () => {
  it('extract --apply commits what its on-demand capture wrote', async () => {
    const root = await fixture();
    const env = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    const r = runBin(['extract', '--apply', 'We decided to move the billing service to Postgres 16.', '--root', root], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/added \^\w+ to memory\/episodic\/2026-05-15\.md/);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(git(root, 'show', '--stat', '--format=%s', 'HEAD')).toMatch(/memtier extract[\s\S]*memory\/episodic\/2026-05-15\.md/);
    expect(git(root, 'ls-files', '--others', '.memtier/commit-pending')).toBe('');
  });
});
