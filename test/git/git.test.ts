import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autoCommit, commitMessage, recoverIndexLock } from '../../lib/git/index.js';
import { sync } from '../../lib/git/sync.js';
import { runCli, testCtx, tmpTree, writeTree } from '../helpers.js';

const ENV = { PATH: process.env.PATH, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' };

function g(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...ENV, HOME: cwd } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function repo(files: Record<string, string>): string {
  const root = tmpTree(files);
  g(root, 'init', '-q', '-b', 'main');
  g(root, 'add', '-A');
  g(root, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-qm', 'init');
  return root;
}

describe('git auto-commit', () => {
  it('a writing command commits only memory paths, with a message saying what changed; nothing when nothing changed', async () => {
    const root = repo({ 'MEMORY.md': '# Memory\n', 'memory/episodic/2026-03-01.md': '# old\n', 'notes.txt': 'x\n' });
    writeFileSync(join(root, 'notes.txt'), 'staged by a person\n');
    g(root, 'add', 'notes.txt');
    const r = await runCli(['archive', '--root', root], { env: ENV });
    expect(r.code).toBe(0);
    expect(g(root, 'log', '-1', '--format=%s')).toMatch(/^memtier archive: moved 1 episodic day/);
    const files = g(root, 'show', '--no-renames', '--name-status', '--format=', 'HEAD').trim().split('\n');
    expect(files.sort()).toEqual(['A\tmemory/archive/2026/03/2026-03-01.md', 'D\tmemory/episodic/2026-03-01.md'].sort());
    // the person's staged change is still staged and not committed
    expect(g(root, 'diff', '--cached', '--name-only').trim()).toBe('notes.txt');
    const count = g(root, 'rev-list', '--count', 'HEAD');
    const again = await runCli(['archive', '--root', root], { env: ENV });
    expect(again.code).toBe(0);
    expect(g(root, 'rev-list', '--count', 'HEAD')).toBe(count);
  });

  it('review in a git memory: one commit naming the week and what moved; the second review commits nothing', async () => {
    const root = repo({
      'MEMORY.md': '# Memory\n\n## Open questions\n',
      'memory/episodic/2026-05-13.md': '# 2026-05-13\n- 09:00 [DECISION] deploy with systemd timers ^dec00002\n- 10:00 [LESSON] pin the node version in CI ^les00001\n',
    });
    const r = await runCli(['review', '--root', root], { env: ENV });
    expect(r.code).toBe(0);
    expect(g(root, 'log', '-1', '--format=%s')).toMatch(/^memtier review: review 2026-W20: file 1 decision, 1 lesson/);
    const files = g(root, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort();
    expect(files).toEqual(['MEMORY.md', 'memory/procedural/lessons-learned.md', 'memory/reviews/2026-W20.md', 'memory/semantic/decisions.md']);
    expect(g(root, 'status', '--porcelain')).toBe('');
    const count = g(root, 'rev-list', '--count', 'HEAD');
    const again = await runCli(['review', '--root', root], { env: ENV });
    expect(again.stdout).toMatch(/No meaningful changes/);
    expect(g(root, 'rev-list', '--count', 'HEAD')).toBe(count);
  });

  it('MEMTIER_GIT=off commits nothing; autoCommit("all") commits memory files only', async () => {
    const root = repo({ 'MEMORY.md': '# Memory\n', 'memory/episodic/2026-03-01.md': '# old\n' });
    await runCli(['archive', '--root', root], { env: { ...ENV, MEMTIER_GIT: 'off' } });
    expect(g(root, 'rev-list', '--count', 'HEAD').trim()).toBe('1');
    writeFileSync(join(root, 'other.txt'), 'not memory\n');
    const c = autoCommit(testCtx(root, undefined, 'UTC', ENV), 'all', 'memtier test: everything');
    expect(c.committed).toBe(true);
    expect(g(root, 'status', '--porcelain')).toBe('?? other.txt\n');
  });

  it('a commit message with NUL, CR, ESC and bidi controls is committed, without them', () => {
    const root = repo({ 'MEMORY.md': '# Memory\n' });
    writeFileSync(join(root, 'MEMORY.md'), '# Memory\n- changed\n');
    expect(commitMessage('add', 'a\u0000b \u001b[31mred\u001b[0m\rover \u202eevil')).toBe('memtier add: ab red over evil');
    // cut at 120 characters, never between the two halves of one (a lone half reads as \ufffd in git)
    expect(commitMessage('wal decide', `${'a'.repeat(119)}🧪 and more`)).toBe(`memtier wal decide: ${'a'.repeat(119)}🧪`);
    const c = autoCommit(testCtx(root, undefined, 'UTC', ENV), ['MEMORY.md'], 'memtier test: x\u0000y \u001b]0;title\u0007 \u001b[2Jz\r\nsecond line');
    expect(c.committed).toBe(true);
    const log = g(root, 'log', '-1', '--format=%B');
    expect(log).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    expect(log).toMatch(/^memtier test: xy .*z\nsecond line/);
  });

  it('recovers a .git/index.lock left by a killed commit', () => {
    const root = repo({ 'MEMORY.md': '# Memory\n' });
    writeFileSync(join(root, '.git/index.lock'), '');
    writeFileSync(join(root, 'MEMORY.md'), '# Memory\n- new\n');
    const c = autoCommit(testCtx(root, undefined, 'UTC', ENV), ['MEMORY.md'], 'memtier test: after a crash');
    expect(c.recoveredLock).toBe(true);
    expect(c.committed).toBe(true);
    expect(existsSync(join(root, '.git/index.lock'))).toBe(false);
    expect(recoverIndexLock(root, Date.now())).toBe(false);
    // moved aside, never deleted
    expect(readdirSync(join(root, '.git')).some((n) => n.startsWith('index.lock.stale-'))).toBe(true);
  });

  it('recovers HEAD.lock, a branch lock and a temporary index left by a git killed mid-commit (found by the chaos run)', () => {
    const root = repo({ 'MEMORY.md': '# Memory\n' });
    const head = g(root, 'rev-parse', 'HEAD').trim();
    // What a SIGKILL during `git commit -- PATHS` leaves: each one alone fails every later commit.
    writeFileSync(join(root, '.git/HEAD.lock'), '');
    writeFileSync(join(root, '.git/refs/heads/main.lock'), `${head}\n`);
    writeFileSync(join(root, '.git/next-index-4242.lock'), 'DIRC');
    writeFileSync(join(root, 'MEMORY.md'), '# Memory\n- new\n');
    const c = autoCommit(testCtx(root, undefined, 'UTC', ENV), ['MEMORY.md'], 'memtier test: after a killed git');
    expect(c.recoveredLock).toBe(true);
    expect(c.committed).toBe(true);
    for (const l of ['HEAD.lock', 'refs/heads/main.lock', 'next-index-4242.lock']) expect(existsSync(join(root, '.git', l))).toBe(false);
    // moved aside, never deleted, and out of refs/ (a `main.lock.stale-N` there would read as a branch)
    expect(readdirSync(join(root, '.git/memtier-stale-locks')).map((n) => n.replace(/\.stale-\d+$/, '')).sort()).toEqual(['HEAD.lock', 'next-index-4242.lock', 'refs%heads%main.lock']);
    expect(g(root, 'branch', '--format=%(refname:short)').trim()).toBe('main');
    expect(g(root, 'log', '-1', '--format=%s').trim()).toBe('memtier test: after a killed git');
    expect(g(root, 'fsck', '--no-dangling')).toBe('');
  });

  it('leaves an index.lock alone while a git process works in the repository', () => {
    const root = repo({ 'MEMORY.md': '# Memory\n' });
    writeFileSync(join(root, '.git/index.lock'), '');
    // a process whose name starts with "git" and whose cwd is the repository
    const fake = join(tmpTree({}), 'git-busy');
    copyFileSync('/bin/sleep', fake);
    chmodSync(fake, 0o755);
    const child = spawn(fake, ['30'], { cwd: root, stdio: 'ignore' });
    try {
      let seen = false;
      for (let i = 0; i < 200 && !seen; i++) {
        try { seen = readFileSync(`/proc/${child.pid}/comm`, 'utf8').startsWith('git'); } catch { /* not yet */ }
        if (!seen) spawnSync('sleep', ['0.02']);
      }
      expect(seen).toBe(true);
      expect(recoverIndexLock(root, Date.now() + 3600_000)).toBe(false);
      expect(existsSync(join(root, '.git/index.lock'))).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('git auto-commit of lifecycle commands', () => {
  it('supersede and forget are committed; a .gitignore that excludes the trash does not stop the commit', async () => {
    const root = repo({
      'MEMORY.md': '# Memory\n',
      '.gitignore': 'memory/.trash/\n',
      'memory/episodic/2026-05-10.md': '# 2026-05-10\n- 09:00 [TECH] api at old.example ^apiold0001\n- 10:00 [EVENT] lunch ^lunch00001\n',
    });
    const s = await runCli(['supersede', '^apiold0001', '--by', 'api at new.example', '--root', root], { env: ENV });
    expect(s.code).toBe(0);
    expect(g(root, 'log', '-1', '--format=%s')).toMatch(/^memtier supersede \^apiold0001: marked memory\/episodic\/2026-05-10.md:2/);
    expect(g(root, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['memory/episodic/2026-05-10.md', 'memory/episodic/2026-05-15.md']);
    const f = await runCli(['forget', '^lunch00001', '--root', root], { env: ENV });
    expect(f.code).toBe(0);
    expect(f.stderr).toBe('');
    expect(g(root, 'log', '-1', '--format=%s')).toMatch(/^memtier forget \^lunch00001: forgot memory\/episodic\/2026-05-10.md:3/);
    expect(g(root, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(root, 'memory/.trash/forgotten/2026-05-15.md'))).toBe(true);
  });
});

describe('git identity and sync errors', () => {
  it('without a configured identity, commits are made as memtier <memtier@localhost>', () => {
    const root = repo({ 'MEMORY.md': '# Memory\n' });
    writeFileSync(join(root, 'MEMORY.md'), '# Memory\n- new fact\n');
    const home = tmpTree({});
    const bare = { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
    const c = autoCommit(testCtx(root, undefined, 'UTC', bare), ['MEMORY.md'], 'memtier test: identity');
    expect(c.committed).toBe(true);
    expect(c.sha).toBe(g(root, 'rev-parse', 'HEAD').trim());
    expect(g(root, 'log', '-1', '--format=%an <%ae>|%cn <%ce>').trim()).toBe('memtier <memtier@localhost>|memtier <memtier@localhost>');
  });

  it('sync: no remote is a clear error (exit 2); --dry-run says what it would do and changes nothing', async () => {
    const root = repo({ 'MEMORY.md': '# Memory\n' });
    const r = await runCli(['sync', '--root', root], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no remote/);
    expect(r.stderr).toMatch(/git remote add origin/);
    const bare = join(tmpTree({}), 'r.git');
    g(root, 'init', '-q', '--bare', bare);
    g(root, 'remote', 'add', 'origin', bare);
    writeFileSync(join(root, 'MEMORY.md'), '# Memory\n- changed\n');
    const head = g(root, 'rev-parse', 'HEAD');
    const d = await runCli(['sync', '--root', root, '--dry-run', '--json'], { env: ENV });
    expect(d.code).toBe(0);
    expect(JSON.parse(d.stdout).message).toMatch(/would commit 1 changed memory file/);
    expect(g(root, 'rev-parse', 'HEAD')).toBe(head);
    expect(g(bare, 'for-each-ref').trim()).toBe('');
  });
});

describe('memtier sync', () => {
  it('two clones and a bare remote: concurrent appends to the same episodic day both survive', async () => {
    const base = tmpTree({});
    const bare = join(base, 'remote.git');
    g(base, 'init', '-q', '--bare', '-b', 'main', bare);
    const seed = join(base, 'seed');
    // the memory as `memtier init --git` makes it (its .gitattributes: union merge for the logs)
    const init = await runCli(['init', seed, '--git'], { env: ENV });
    expect(init.code).toBe(0);
    expect(readFileSync(join(seed, '.gitattributes'), 'utf8')).toContain('memory/episodic/*.md merge=memtier');
    writeTree(seed, { 'memory/episodic/2026-05-15.md': '# 2026-05-15\n- 09:00 [EVENT] start ^start001\n' });
    g(seed, 'add', '-A');
    g(seed, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-qm', 'seed', '--allow-empty');
    g(seed, 'branch', '-M', 'main');
    g(seed, 'remote', 'add', 'origin', bare);
    g(seed, 'push', '-q', '-u', 'origin', 'main');
    const a = join(base, 'a'), b = join(base, 'b');
    g(base, 'clone', '-q', bare, a);
    g(base, 'clone', '-q', bare, b);
    const day = 'memory/episodic/2026-05-15.md';
    appendFileSync(join(a, day), '- 10:00 [EVENT] from machine A ^aaaa0001\n');
    appendFileSync(join(b, day), '- 10:05 [EVENT] from machine B ^bbbb0001\n');
    const ra = await runCli(['sync', '--root', a, '--json'], { env: ENV });
    expect(ra.code).toBe(0);
    expect(JSON.parse(ra.stdout).pushed).toBe(true);
    const rb = await runCli(['sync', '--root', b, '--json'], { env: ENV });
    expect(rb.code).toBe(0);
    const jb = JSON.parse(rb.stdout);
    expect(jb.pulled).toBe(true);
    expect(jb.pushed).toBe(true);
    const ra2 = await runCli(['sync', '--root', a], { env: ENV });
    expect(ra2.code).toBe(0);
    for (const dir of [a, b]) {
      const text = readFileSync(join(dir, day), 'utf8');
      expect(text).toContain('^aaaa0001');
      expect(text).toContain('^bbbb0001');
      expect(text).toContain('^start001');
    }
    expect(g(a, 'rev-parse', 'HEAD')).toBe(g(b, 'rev-parse', 'HEAD'));
  });

  it('a real conflict (both machines rewrote the same MEMORY.md line): exit 1, this side in place, the other kept beside it, no rebase left, pushed', async () => {
    const base = tmpTree({});
    const bare = join(base, 'remote.git');
    g(base, 'init', '-q', '--bare', '-b', 'main', bare);
    const seed = join(base, 'seed');
    mkdirSync(seed);
    writeTree(seed, { 'MEMORY.md': '# Memory\n- db: postgres\n' });
    g(seed, 'init', '-q', '-b', 'main');
    g(seed, 'add', '-A');
    g(seed, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-qm', 'seed');
    g(seed, 'remote', 'add', 'origin', bare);
    g(seed, 'push', '-q', '-u', 'origin', 'main');
    const a = join(base, 'a'), b = join(base, 'b');
    g(base, 'clone', '-q', bare, a);
    g(base, 'clone', '-q', bare, b);
    writeFileSync(join(a, 'MEMORY.md'), '# Memory\n- db: mysql\n');
    writeFileSync(join(b, 'MEMORY.md'), '# Memory\n- db: sqlite\n');
    expect((await runCli(['sync', '--root', a], { env: { ...ENV, MEMTIER_MACHINE: 'machine-a' } })).code).toBe(0);
    const rb = await runCli(['sync', '--root', b, '--json'], { env: { ...ENV, MEMTIER_MACHINE: 'machine-b' } });
    expect(rb.code).toBe(1);
    const j = JSON.parse(rb.stdout);
    expect(j.conflicts.map((c: { file: string; copy: string }) => [c.file, c.copy])).toEqual([['MEMORY.md', 'MEMORY.conflict-machine-a.md']]);
    expect(j.pushed).toBe(true);
    expect(readFileSync(join(b, 'MEMORY.md'), 'utf8')).toBe('# Memory\n- db: sqlite\n');
    expect(readFileSync(join(b, 'MEMORY.conflict-machine-a.md'), 'utf8')).toBe('# Memory\n- db: mysql\n');
    expect(existsSync(join(b, '.git', 'rebase-merge'))).toBe(false);
    expect(g(b, 'log', '-1', '--format=%s')).toMatch(/^memtier sync: merge machine-a's memory into machine-b's/);
    expect(g(b, 'status', '--porcelain')).toBe('');
  });

  it('refuses a memory that is not a git repository', () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    expect(() => sync(testCtx(root, undefined, 'UTC', ENV))).toThrow(/not a git repository/);
  });
});
