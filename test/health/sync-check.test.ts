/**
 * Issue #28, health knows sync: the `sync` check over real git repositories (a bare remote and
 * clones of it, in temp folders). Every finding is shown by a test of its own; none touches the
 * network (the remote is a folder, and the check reads local refs only).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs, { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync, type PathLike } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { runHealth } from '../../lib/health/run.js';
import { clearReads } from '../../lib/memory/reader.js';
import { FIXED_NOW, runCli, testCtx, tmpTree } from '../helpers.js';

/** What the fix calls for an interrupted sync (lib/git/sync.ts): stood in for, so the test does not depend on what a sync does. */
const recovered = vi.hoisted(() => ({ calls: [] as string[] }));
vi.mock('../../lib/git/sync.js', async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  recoverSync: (ctx: { root: string }) => {
    recovered.calls.push(ctx.root);
    rmSync(join(ctx.root, '.memtier', 'sync-intent.json'), { force: true });
    return { recovered: true, message: 'moved the branch where the sync had merged to' };
  },
}));

const HOME = tmpTree();
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' };

/** git in `cwd`; throws on failure unless `ok` allows it. */
function g(cwd: string, args: string[], o: { env?: NodeJS.ProcessEnv; ok?: boolean } = {}): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...ENV, ...o.env } });
  if (r.status !== 0 && !o.ok) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Commit everything in `root`, dated `at` (ISO). */
function commitAt(root: string, message: string, at: string): void {
  g(root, ['add', '-A']);
  g(root, ['commit', '-q', '-m', message], { env: { GIT_AUTHOR_DATE: at, GIT_COMMITTER_DATE: at } });
}

/** A git memory made by `memtier init --git`. */
async function gitMemory(dir = tmpTree(), name = 'mem'): Promise<string> {
  const root = join(dir, name);
  const r = await runCli(['init', root, '--git'], { env: ENV });
  expect(r.code, r.stderr).toBe(0);
  return root;
}

/** A bare remote, the memory `a` pushed to it (its upstream set), and `b`, a clone of it. */
async function shared(): Promise<{ dir: string; bare: string; a: string; b: string; branch: string }> {
  const dir = tmpTree();
  const bare = join(dir, 'remote.git');
  g(dir, ['init', '-q', '--bare', bare]);
  const a = await gitMemory(dir, 'a');
  const branch = g(a, ['rev-parse', '--abbrev-ref', 'HEAD']).trim();
  g(a, ['remote', 'add', 'origin', bare]);
  g(a, ['push', '-q', '-u', 'origin', branch]);
  g(bare, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
  const b = join(dir, 'b');
  g(dir, ['clone', '-q', bare, b]);
  return { dir, bare, a, b, branch };
}

const NOW = FIXED_NOW; // 2026-05-15T14:30:00Z
const health = (root: string, o: { fix?: boolean; env?: NodeJS.ProcessEnv } = {}) => runHealth(testCtx(root, NOW, 'UTC', { ...ENV, ...o.env }), { only: ['sync'], ...(o.fix ? { fix: true } : {}) });
const syncFindings = async (root: string) => (await health(root)).findings.filter((f) => f.check === 'sync');

afterEach(() => { recovered.calls.length = 0; });

describe('the sync check: quiet where there is nothing to say', () => {
  it('passes on a clone in step with its remote, and on a git memory with no remote', async () => {
    const { a, b } = await shared();
    const ra = await health(a);
    expect(ra.results).toEqual([{ id: 'sync', status: 'pass', findings: 0 }]);
    expect(ra.figures.sync).toMatchObject({ ahead: 0, behind: 0 });
    expect((await health(b)).results[0]).toMatchObject({ status: 'pass', findings: 0 });
    const alone = await gitMemory();
    expect((await health(alone)).results[0]).toMatchObject({ id: 'sync', status: 'pass', findings: 0 });
  });

  it('is skipped when the memory is not a git repository, or MEMTIER_GIT=off (even with a conflict block)', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root], { env: ENV })).code).toBe(0);
    writeFileSync(join(root, 'memory/semantic/people.md'), '# People\n<<<<<<< HEAD\nAna\n=======\nAnna\n>>>>>>> other\n');
    expect((await health(root)).results[0]).toMatchObject({ id: 'sync', status: 'skipped', reason: 'not a git repository' });
    const { a } = await shared();
    writeFileSync(join(a, 'memory/semantic/people.md'), '# People\n<<<<<<< HEAD\nAna\n=======\nAnna\n>>>>>>> other\n');
    expect((await health(a, { env: { MEMTIER_GIT: 'off' } })).results[0]).toMatchObject({ id: 'sync', status: 'skipped', reason: 'MEMTIER_GIT=off' });
  });
});

describe('the sync check: FAIL', () => {
  it('a rebase stopped on a conflict: names the operation, says how to finish or abort it, and the conflict block with its line', async () => {
    const { a, b, branch } = await shared();
    writeFileSync(join(a, 'memory/semantic/people.md'), '# People\n\n- Ana leads the platform team\n');
    commitAt(a, 'people', '2026-05-15T14:00:00Z');
    g(a, ['push', '-q']);
    g(b, ['pull', '-q', '--no-rebase']);
    writeFileSync(join(b, 'memory/semantic/people.md'), '# People\n\n- Ana leads the data team\n');
    commitAt(b, 'b says data', '2026-05-15T14:10:00Z');
    g(b, ['push', '-q']);
    writeFileSync(join(a, 'memory/semantic/people.md'), '# People\n\n- Ana leads the infra team\n');
    commitAt(a, 'a says infra', '2026-05-15T14:11:00Z');
    g(a, ['fetch', '-q']);
    g(a, ['rebase', `origin/${branch}`], { ok: true });
    expect(existsSync(join(a, '.git', 'rebase-merge')) || existsSync(join(a, '.git', 'rebase-apply'))).toBe(true);

    const r = await health(a);
    expect(r.exitCode).toBe(1);
    const op = r.findings.find((f) => /rebase/.test(f.message));
    expect(op).toMatchObject({ check: 'sync', severity: 'fail', message: expect.stringContaining('a git rebase is stopped') });
    expect(op!.fix).toMatch(/git rebase --continue/);
    expect(op!.fix).toMatch(/git rebase --abort/);
    const block = r.findings.find((f) => f.file === 'memory/semantic/people.md');
    expect(block).toMatchObject({ severity: 'fail', line: 3, message: expect.stringContaining('git conflict block') });
    // a rebase detaches HEAD: reported as the rebase, not twice
    expect(r.findings.filter((f) => /detached/.test(f.message))).toEqual([]);
    expect(r.figures.sync).toMatchObject({ operation: 'rebase', conflictBlocks: 1 });

    g(a, ['rebase', '--abort']);
    expect(await syncFindings(a)).toEqual([
      expect.objectContaining({ severity: 'warn', message: expect.stringMatching(/^1 commit on origin\/.+ not in the local branch .+\(as of the last fetch\)/) }),
    ]);
  });

  it('a merge stopped on a conflict', async () => {
    const { a } = await shared();
    const base = g(a, ['rev-parse', '--abbrev-ref', 'HEAD']).trim();
    g(a, ['switch', '-q', '-c', 'side']);
    writeFileSync(join(a, 'todos.md'), '# Todos\n- side\n');
    commitAt(a, 'side', '2026-05-15T14:00:00Z');
    g(a, ['switch', '-q', base]);
    writeFileSync(join(a, 'todos.md'), '# Todos\n- main\n');
    commitAt(a, 'main', '2026-05-15T14:01:00Z');
    g(a, ['merge', 'side'], { ok: true });
    const f = (await syncFindings(a)).find((x) => /merge/.test(x.message));
    expect(f).toMatchObject({ severity: 'fail', file: '.git/MERGE_HEAD', message: expect.stringContaining('a git merge is stopped') });
    expect(f!.fix).toMatch(/git merge --abort/);
  });

  it('a detached HEAD', async () => {
    const { a } = await shared();
    g(a, ['checkout', '-q', '--detach', 'HEAD']);
    const r = await health(a);
    expect(r.exitCode).toBe(1);
    expect(r.findings).toEqual([expect.objectContaining({ check: 'sync', severity: 'fail', file: '.git/HEAD', message: expect.stringContaining('HEAD is detached') })]);
    expect(r.findings[0]!.fix).toMatch(/git switch/);
  });

  it('a conflict block committed into a memory file, with its file and line (a lone ======= is no conflict)', async () => {
    const { a } = await shared();
    writeFileSync(join(a, 'memory/semantic/vendors.md'), '# Vendors\n\n- Hetzner\n<<<<<<< HEAD\n- price 40 EUR\n=======\n- price 45 EUR\n>>>>>>> laptop\n');
    writeFileSync(join(a, 'memory/semantic/setext.md'), 'Title\n=======\n\ntext\n');
    commitAt(a, 'markers', '2026-05-15T14:20:00Z');
    const r = await health(a);
    expect(r.findings).toEqual([expect.objectContaining({ severity: 'fail', file: 'memory/semantic/vendors.md', line: 4, message: expect.stringContaining('git conflict block') })]);
  });

  it('health --quiet reports a conflict block in a file unchanged since the last full run (from the findings that run kept)', async () => {
    const { a } = await shared();
    const rel = 'memory/semantic/vendors.md';
    writeFileSync(join(a, rel), '# Vendors\n<<<<<<< HEAD\n- price 40 EUR\n=======\n- price 45 EUR\n>>>>>>> laptop\n');
    commitAt(a, 'markers', '2026-05-15T14:20:00Z');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(a, rel), hourAgo, hourAgo);
    const full = await runCli(['health', '--json', '--root', a], { env: ENV });
    expect(JSON.parse(full.stdout).findings).toContainEqual(expect.objectContaining({ check: 'sync', file: rel, line: 2 }));
    expect(readFileSync(join(a, '.memtier/health-files.json'), 'utf8')).toContain('git conflict block');
    const quiet = await runCli(['health', '--quiet', '--root', a], { env: ENV });
    expect(quiet.code).toBe(1);
    expect(quiet.stdout).toMatch(new RegExp(`FAIL sync +${rel}:2: git conflict block`));
    // and a second full run, from the kept summaries
    const again = await runCli(['health', '--json', '--root', a], { env: ENV });
    expect(JSON.parse(again.stdout).findings).toContainEqual(expect.objectContaining({ check: 'sync', file: rel, line: 2 }));
  });

  it('a full run does not read a note unchanged since the last full run to look for conflict blocks (its summary is kept)', async () => {
    const { a } = await shared();
    const rel = 'memory/semantic/vendors.md';
    writeFileSync(join(a, rel), '# Vendors\n\n- Hetzner, 40 EUR a month\n');
    commitAt(a, 'vendors', '2026-05-15T14:20:00Z');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(a, rel), hourAgo, hourAgo);
    expect((await runCli(['health', '--root', a], { env: ENV })).code).toBe(0);
    expect(readFileSync(join(a, '.memtier/health-summary.json'), 'utf8')).toContain('"conflict-block":0');
    // every reader of memtier's opens files through node:fs openSync
    let opened = 0;
    const openSync = fs.openSync;
    fs.openSync = ((path: PathLike, ...rest: unknown[]) => {
      if (String(path) === join(a, rel)) opened++;
      return (openSync as (...x: unknown[]) => number)(path, ...rest);
    }) as typeof fs.openSync;
    syncBuiltinESMExports();
    try {
      clearReads();
      const r = await runCli(['health', '--json', '--root', a], { env: ENV });
      expect(JSON.parse(r.stdout).results).toContainEqual({ id: 'sync', status: 'pass', findings: 0 });
    } finally {
      fs.openSync = openSync;
      syncBuiltinESMExports();
    }
    expect(opened).toBe(0);
  });
});

describe('the sync check: WARN', () => {
  it('conflict copies left by sync, each naming its file and how to resolve it', async () => {
    const { a } = await shared();
    writeFileSync(join(a, 'memory/semantic/people.md'), '# People\n- Ana\n');
    writeFileSync(join(a, 'memory/semantic/people.conflict-laptop.md'), '# People\n- Anna\n');
    writeFileSync(join(a, 'MEMORY.conflict-work-pc.md'), '# Memory\n');
    commitAt(a, 'copies', '2026-05-15T14:20:00Z');
    const fs = await syncFindings(a);
    expect(fs.map((f) => f.file).sort()).toEqual(['MEMORY.conflict-work-pc.md', 'memory/semantic/people.conflict-laptop.md']);
    const people = fs.find((f) => f.file === 'memory/semantic/people.conflict-laptop.md')!;
    expect(people).toMatchObject({ severity: 'warn', message: expect.stringContaining('conflict copy of memory/semantic/people.md') });
    expect(people.message).toContain('laptop');
    expect(people.fix).toBe('merge what you want to keep into memory/semantic/people.md, then run "memtier resolve memory/semantic/people.md"');
    expect(fs.find((f) => f.file === 'MEMORY.conflict-work-pc.md')!.fix).toBe('merge what you want to keep into MEMORY.md, then run "memtier resolve MEMORY.md"');
  });

  it('commits not pushed for over an hour, with the age of the oldest; not when the oldest is younger', async () => {
    const { a, branch } = await shared();
    writeFileSync(join(a, 'memory/semantic/people.md'), '# People\n- Ana\n');
    commitAt(a, 'fresh', '2026-05-15T14:20:00Z');
    expect(await syncFindings(a)).toEqual([]);
    expect((await health(a)).figures.sync).toMatchObject({ ahead: 1, behind: 0 });

    const { a: old } = await shared();
    writeFileSync(join(old, 'memory/semantic/people.md'), '# People\n- Ana\n');
    commitAt(old, 'old', '2026-05-12T14:00:00Z');
    writeFileSync(join(old, 'memory/semantic/people.md'), '# People\n- Ana\n- Bo\n');
    commitAt(old, 'newer', '2026-05-15T14:00:00Z');
    const fs = await syncFindings(old);
    expect(fs).toEqual([expect.objectContaining({ severity: 'warn', message: `2 commits not pushed to origin/${branch}, the oldest for 3 days: the other machines do not have them`, fix: 'run "memtier sync"' })]);
    g(old, ['push', '-q']);
    expect(await syncFindings(old)).toEqual([]);
  });

  it('commits on the remote not pulled (as of the last fetch, never fetching itself)', async () => {
    const { a, b, branch } = await shared();
    writeFileSync(join(b, 'memory/semantic/people.md'), '# People\n- Ana\n');
    commitAt(b, 'one', '2026-05-15T14:00:00Z');
    writeFileSync(join(b, 'memory/semantic/people.md'), '# People\n- Ana\n- Bo\n');
    commitAt(b, 'two', '2026-05-15T14:01:00Z');
    g(b, ['push', '-q']);
    // not fetched yet: the check does not ask the network
    expect(await syncFindings(a)).toEqual([]);
    g(a, ['fetch', '-q']);
    expect(await syncFindings(a)).toEqual([expect.objectContaining({ severity: 'warn', message: expect.stringContaining(`2 commits on origin/${branch} not in the local branch ${branch} (as of the last fetch)`), fix: 'run "memtier sync"' })]);
  });

  it('a memory with a remote it was never synced with', async () => {
    const dir = tmpTree();
    const bare = join(dir, 'remote.git');
    g(dir, ['init', '-q', '--bare', bare]);
    const root = await gitMemory(dir);
    g(root, ['remote', 'add', 'origin', bare]);
    const fs = await syncFindings(root);
    expect(fs).toEqual([expect.objectContaining({ severity: 'warn', message: expect.stringContaining('never been synced'), fix: 'run "memtier sync"' })]);
    expect(fs[0]!.message).toContain('origin');
    // pushed without setting an upstream: compared with the remote's branch all the same
    const branch = g(root, ['rev-parse', '--abbrev-ref', 'HEAD']).trim();
    g(root, ['push', '-q', 'origin', branch]);
    expect(await syncFindings(root)).toEqual([]);
    writeFileSync(join(root, 'memory/semantic/people.md'), '# People\n- Ana\n');
    commitAt(root, 'old', '2026-05-13T14:00:00Z');
    expect(await syncFindings(root)).toEqual([expect.objectContaining({ message: expect.stringContaining(`1 commit not pushed to origin/${branch}, the oldest for 2 days`) })]);
  });

  it('a sync killed midway (.memtier/sync-intent.json): --fix finishes it through recoverSync', async () => {
    const { a } = await shared();
    mkdirSync(join(a, '.memtier'), { recursive: true });
    writeFileSync(join(a, '.memtier/sync-intent.json'), '{"op":"sync"}\n');
    const fs = await syncFindings(a);
    expect(fs).toEqual([expect.objectContaining({ severity: 'warn', file: '.memtier/sync-intent.json', fixable: true, message: expect.stringContaining('memtier sync was interrupted') })]);
    expect(recovered.calls).toEqual([]);
    const fixed = await health(a, { fix: true });
    expect(recovered.calls).toEqual([a]);
    expect(fixed.fixed).toContain('sync: finished the interrupted sync: moved the branch where the sync had merged to');
    expect(fixed.findings.filter((f) => f.check === 'sync')).toEqual([]);
  });

  it('the commit record of a command killed before its commit: --fix commits its files', async () => {
    const { a } = await shared();
    writeFileSync(join(a, 'MEMORY.md'), readFileSync(join(a, 'MEMORY.md'), 'utf8') + '\n- written by a command that was killed\n');
    mkdirSync(join(a, '.memtier/commit-pending'), { recursive: true });
    // pid 2^22 + 1 is above Linux's pid limit: no process holds it
    writeFileSync(join(a, '.memtier/commit-pending/4194305-abcdefgh.txt'), `4194305 ${hostname()} abcdefgh 2026-05-15T13:00:00.000Z\nMEMORY.md\n`);
    const fs = await syncFindings(a);
    expect(fs).toEqual([expect.objectContaining({ severity: 'warn', file: '.memtier/commit-pending/4194305-abcdefgh.txt', fixable: true, message: expect.stringMatching(/^a memtier command was stopped between its writes and its git commit \(pid 4194305, started 2026-05-15T13:00:00.000Z\): 1 file not committed \(MEMORY.md\)/) })]);
    const count = g(a, ['rev-list', '--count', 'HEAD']).trim();
    const fixed = await health(a, { fix: true });
    expect(fixed.fixed.some((l) => /^sync: committed what an interrupted command changed \(1 file, [0-9a-f]{10}\)$/.test(l)), fixed.fixed.join('\n')).toBe(true);
    expect(Number(g(a, ['rev-list', '--count', 'HEAD']).trim())).toBe(Number(count) + 1);
    expect(g(a, ['log', '-1', '--format=%s'])).toMatch(/^memtier recover:/);
    expect(existsSync(join(a, '.memtier/commit-pending/4194305-abcdefgh.txt'))).toBe(false);
    expect(fixed.findings.filter((f) => f.check === 'sync')).toEqual([]);
  });
});
