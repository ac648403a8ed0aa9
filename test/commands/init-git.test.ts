import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tmpTree } from '../helpers.js';

const hasGit = spawnSync('git', ['--version']).status === 0;
const git = (cwd: string, ...args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8' }).stdout;

describe.skipIf(!hasGit)('init --git commits what it set up', () => {
  it('a new repository starts with the whole memory committed (the wal shortcut executable)', async () => {
    const root = join(tmpTree(), 'mem');
    const r = await runCli(['init', root, '--git', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.git).toMatchObject({ initialized: true, commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(git(root, 'ls-files', '-s', 'memory/scripts/wal')).toMatch(/^100755 /);
    expect(git(root, 'log', '--format=%s')).toBe('memtier init: a new memory from memory-skeleton/\n');
    // a second run commits nothing and says so
    const again = JSON.parse((await runCli(['init', root, '--git', '--json'])).stdout);
    expect(again.created).toEqual([]);
    expect(again.git.commit).toBeUndefined();
  });

  it('in an existing repository only the files init created are committed; the person\'s files stay as they were', async () => {
    const root = tmpTree({ 'SOUL.md': 'soul\n', 'memory/2026-05-01.md': '- an OpenClaw day\n' });
    spawnSync('git', ['init', '-q'], { cwd: root });
    mkdirSync(join(root, 'notes'));
    writeFileSync(join(root, 'notes/x.md'), 'x\n');
    const j = JSON.parse((await runCli(['init', root, '--git', '--json'])).stdout);
    expect(j.git).toMatchObject({ initialized: false, already: true });
    const committed = git(root, 'show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean);
    expect(committed).toContain('MEMORY.md');
    expect(committed).toContain('.gitattributes');
    expect(committed).not.toContain('SOUL.md');
    expect(committed).not.toContain('memory/2026-05-01.md');
    expect(git(root, 'status', '--porcelain')).toContain('?? SOUL.md');
  });
});
