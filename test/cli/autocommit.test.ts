import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { runCli, tmpTree } from '../helpers.js';

const git = (root: string, ...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' });

function repo(): string {
  const root = tmpTree({ 'MEMORY.md': '# Memory\n' });
  git(root, 'init', '-q');
  return root;
}

describe('git auto-commit after a writing command', () => {
  it('commits exactly the files the command changed, with a message that says what', async () => {
    const root = repo();
    const r = await runCli(['wal', 'decide', 'use Postgres, not MySQL', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    expect(git(root, 'log', '--format=%s')).toBe('memtier wal decide: [DECISION] use Postgres, not MySQL\n');
    expect(git(root, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['SESSION-STATE.md', 'memory/working-buffer.md']);
    // MEMORY.md was not touched by the command: still untracked, not swept into the commit
    expect(git(root, 'status', '--porcelain')).toContain('?? MEMORY.md');
  });

  it('a read-only command commits nothing; MEMTIER_GIT=off commits nothing', async () => {
    const root = repo();
    await runCli(['wal', 'get', '--root', root]);
    expect(() => git(root, 'log')).toThrow();
    await runCli(['wal', 'decide', 'x', '--root', root], { env: { MEMTIER_GIT: 'off' } });
    expect(() => git(root, 'log')).toThrow(); // still no commit at all
  });
});
