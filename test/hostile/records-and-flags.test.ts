/**
 * Hostile cases of issue 29: what a refused write leaves for git, what `forget --purge` leaves
 * behind, a quiet health check more lenient than the full one, and flags and tags quoted back.
 * Each runs the real binary on a memory built from the skeleton.
 *
 * - 3: a refused or failed write records nothing for the commit, and the recovery of a dead
 *   command's record commits a path only while what is there passes the store's guards (no
 *   credential, no hard link to a file outside, no symbolic link).
 * - 4: `forget --purge` takes the entry out of the state snapshots and empties recall's cache;
 *   `wal restore` of an older snapshot leaves the items of forgotten entries out, and says so.
 * - 6: `health --quiet` fails a memory that cannot be written, as the full run does.
 * - 9: `search --since/--until` take days of the calendar only.
 * - 10: a negative number after a flag gets a plain usage error.
 * - 11: a look-alike tag is quoted with its invisible character escaped.
 * - 14: a note that is its title alone is found by it.
 *
 * The cases that need an unwritable file use `chattr +i` (root on ext4 and the like), or a
 * read-only mode where the tests do not run as root; where neither works they are skipped.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CHECKS } from '../../lib/health/checks/index.js';
import { failingChecks } from '../../lib/health/run.js';
import { REPO, runBin, tmpTree } from '../helpers.js';
import { fake, UPPER } from '../fake-credentials.js';
import { expectNoCrash, expectNoLeak, expectRefused, makeMemory, runCli, snapshotMemory, type RunResult } from './kit.js';

const git = (root: string, ...args: string[]): string => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' });
/** Every commit's patch: what git keeps whatever the files say now. */
const history = (root: string): string => git(root, 'log', '--all', '-p', '--format=commit %H %s');
const pending = (root: string): string[] => (existsSync(join(root, '.memtier/commit-pending')) ? readdirSync(join(root, '.memtier/commit-pending')) : []);

/** A memory made by `memtier init --git` (its first commit made). */
function gitMemory(): string {
  const root = join(tmpTree(), 'mem');
  const r = runBin(['init', root, '--git']);
  expect(r.code, r.stderr).toBe(0);
  return root;
}

/** A record of commit-pending as a command killed before its commit leaves it (its process is gone). */
function deadRecord(root: string, paths: string[]): void {
  const pid = spawnSync(process.execPath, ['-e', '']).pid!;
  mkdirSync(join(root, '.memtier/commit-pending'), { recursive: true });
  writeFileSync(join(root, '.memtier/commit-pending', `${pid}-deadtest.txt`), `${pid} ${hostname()} deadtest 2026-05-15T14:00:00.000Z\n${paths.join('\n')}\n`);
}

/** Make `path` unwritable (immutable; or read-only where not root): returns how to undo it, or undefined when this machine cannot. */
function lockDown(path: string): (() => void) | undefined {
  try {
    execFileSync('chattr', ['+i', path], { stdio: 'ignore' });
    return () => { execFileSync('chattr', ['-i', path], { stdio: 'ignore' }); };
  } catch { /* no chattr, or not allowed */ }
  if (process.getuid?.() === 0) return undefined; // root writes through any mode
  chmodSync(path, 0o555);
  return () => { chmodSync(path, 0o755); };
}
const canLockDown = ((): boolean => {
  const dir = tmpTree({ probe: 'x' });
  const undo = lockDown(dir);
  undo?.();
  return undo !== undefined;
})();

/** An AWS access key id (generated: never a real one). */
const awsKey = (seed: number): string => 'AK' + 'IA' + fake(16, UPPER, seed);

describe('3: a refused write leaves nothing for the next command to commit', () => {
  it('add to a day file hard-linked to a file outside the memory: refused, and no later command commits the outside bytes', () => {
    const root = gitMemory();
    const outside = join(root, '..', 'outside-notes.md');
    writeFileSync(outside, '- 09:00 [EVENT] OUTSIDE-SENTINEL-5c1e private notes ^outside001\n');
    linkSync(outside, join(root, 'memory/episodic/2026-05-15.md'));
    const r = runCli(root, ['add', 'deploy on friday']);
    expectNoCrash(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has other hard links.*\[no-hardlink\]/);
    const next = runCli(root, ['search', 'deploy']);
    expectNoCrash(next);
    expect(next.code).toBe(0);
    expect(history(root)).not.toContain('OUTSIDE-SENTINEL');
    expect(git(root, 'ls-files')).not.toContain('2026-05-15.md');
    expect(pending(root)).toEqual([]);
  });

  it.skipIf(!canLockDown)('wal decide failing on an unwritable SESSION-STATE.md (EPERM): a key pasted there afterwards is never committed', () => {
    const root = gitMemory();
    const state = join(root, 'SESSION-STATE.md');
    const undo = lockDown(state)!;
    let r: RunResult;
    try { r = runCli(root, ['wal', 'decide', 'use sqlite for the cache']); } finally { undo(); }
    expectNoCrash(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SESSION-STATE\.md: atomic write failed: (EPERM|EACCES)/);
    // the person pastes a credential into the file the failed command had named
    const key = awsKey(2901);
    appendFileSync(state, `- aws: ${key}\n`);
    const next = runCli(root, ['search', 'sqlite']);
    expectNoCrash(next);
    expect(next.code).toBe(0);
    expect(history(root)).not.toContain(key);
    expect(next.stdout + next.stderr).not.toContain(key);
    expect(git(root, 'status', '--porcelain')).toContain('SESSION-STATE.md');
  });

  it('the recovery of a dead command\'s record commits its clean change, never a credential pasted into another of its paths', () => {
    const root = gitMemory();
    const key = awsKey(2902);
    appendFileSync(join(root, 'SESSION-STATE.md'), `- aws: ${key}\n`);
    appendFileSync(join(root, 'memory/working-buffer.md'), '- 2026-05-15 14:00 [DECISION] keep the recovered decision ^recover001\n');
    deadRecord(root, ['SESSION-STATE.md', 'memory/working-buffer.md']);
    const next = runCli(root, ['search', 'recovered']);
    expectNoCrash(next);
    expect(next.code).toBe(0);
    expect(git(root, 'log', '--format=%s', '-1')).toMatch(/^memtier recover: commit of an interrupted command/);
    expect(git(root, 'show', 'HEAD:memory/working-buffer.md')).toContain('keep the recovered decision');
    expect(history(root)).not.toContain(key);
    expect(next.stderr).toMatch(/did not commit SESSION-STATE\.md, recorded by an interrupted command: it looks like an? AWS access key.*\[aws-access-key-id\]/);
    expect(next.stdout + next.stderr).not.toContain(key);
    expect(pending(root)).toEqual([]);
  });

  it('the recovery never commits a recorded path that is now a hard link to a file outside, or a symbolic link', () => {
    const root = gitMemory();
    const outside = join(root, '..', 'outside-secret.md');
    writeFileSync(outside, 'OUTSIDE-SENTINEL-77aa\n');
    linkSync(outside, join(root, 'memory/episodic/2026-05-14.md'));
    symlinkSync(outside, join(root, 'memory/semantic/linked.md'));
    deadRecord(root, ['memory/episodic/2026-05-14.md', 'memory/semantic/linked.md']);
    const next = runCli(root, ['search', 'anything']);
    expectNoCrash(next);
    expect(next.code).toBe(0);
    expect(history(root)).not.toContain('OUTSIDE-SENTINEL');
    expect(git(root, 'ls-files')).not.toMatch(/2026-05-14\.md|linked\.md/);
    expect(next.stderr).toMatch(/did not commit memory\/episodic\/2026-05-14\.md.*has other hard links/);
    expect(next.stderr).toMatch(/did not commit memory\/semantic\/linked\.md.*symbolic link/);
    expect(pending(root)).toEqual([]);
  });
});

describe('4: forget --purge keeps nothing, and wal restore does not bring a forgotten entry back', () => {
  const TEXT = 'choose redis for queueing';
  const decide = (root: string, text: string): string => {
    const r = runCli(root, ['wal', 'decide', text, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { id: string }).id;
  };

  it('the entry leaves the snapshots and the recall cache too; restoring the old snapshot finds nothing of it', () => {
    const root = makeMemory();
    const id = decide(root, TEXT);
    expect(runCli(root, ['wal', 'snapshot', 's1']).code).toBe(0);
    const rc = runCli(root, ['recall', '--query', 'redis queueing']);
    expect(rc.stdout).toContain(TEXT);
    expect(readFileSync(join(root, '.memtier/recall-cache.json'), 'utf8')).toContain(TEXT);
    const r = runCli(root, ['forget', `^${id}`, '--purge']);
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/memory\/\.snapshots\/s1\.md/);
    // no file under the root holds it: memory, snapshots, trash, .memtier/
    expectNoLeak(root, { code: 0, stdout: '', stderr: '', signal: null }, TEXT);
    const back = runCli(root, ['wal', 'restore', 's1']);
    expect(back.code, back.stderr).toBe(0);
    expect(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).not.toContain('redis');
    expect(runCli(root, ['recall', '--query', 'redis queueing']).stdout).not.toContain('redis');
  });

  it('forget (kept in the trash), then wal restore of a snapshot from before: the item is left out, and the output says so', () => {
    const root = makeMemory();
    const id = decide(root, TEXT);
    decide(root, 'keep postgres for billing');
    expect(runCli(root, ['wal', 'snapshot', 'before']).code).toBe(0);
    expect(runCli(root, ['forget', `^${id}`]).code).toBe(0);
    const r = runCli(root, ['wal', 'restore', 'before']);
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`left out 1 item of forgotten entries: Recent Decisions \\(\\^${id}\\)`));
    const state = readFileSync(join(root, 'SESSION-STATE.md'), 'utf8');
    expect(state).not.toContain('redis');
    expect(state).toContain('keep postgres for billing');
  });

  it('git memory: a snapshot another clone kept (holding a purged entry) is restored without it', () => {
    const root = gitMemory();
    const id = decide(root, TEXT);
    const before = readFileSync(join(root, 'SESSION-STATE.md'), 'utf8');
    expect(runCli(root, ['forget', `^${id}`, '--purge']).code).toBe(0);
    expect(readFileSync(join(root, 'memory/.forgotten'), 'utf8')).toMatch(new RegExp(`^\\^${id} forgotten `, 'm'));
    // the snapshot arrives as sync would bring it: the text is in no trash here, only in git history
    mkdirSync(join(root, 'memory/.snapshots'), { recursive: true });
    writeFileSync(join(root, 'memory/.snapshots/other-clone.md'), before);
    const r = runCli(root, ['wal', 'restore', 'other-clone', '--json']);
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, leftOut: [{ section: 'Recent Decisions', id }] });
    expect(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).not.toContain('redis');
  });
});

describe('6: health --quiet is never more lenient than health', () => {
  it.skipIf(!canLockDown)('a memory whose .memtier/ cannot be written: both fail it (disk)', () => {
    const root = makeMemory();
    expect(runCli(root, ['health']).code).toBe(0);
    const undo = lockDown(join(root, '.memtier'))!;
    let full: RunResult;
    let quiet: RunResult;
    try {
      full = runCli(root, ['health']);
      quiet = runCli(root, ['health', '--quiet']);
    } finally { undo(); }
    expectNoCrash(quiet);
    expect(full.code).toBe(1);
    expect(full.stdout).toMatch(/FAIL disk +\.memtier: no permission to write \.memtier/);
    expect(quiet.code).toBe(1);
    expect(quiet.stdout).toMatch(/FAIL disk +\.memtier: no permission to write \.memtier/);
  });

  it('every check that can report a FAIL runs in a quiet run (whole, or its failures part)', () => {
    const quiet = new Set(failingChecks(CHECKS).map((c) => c.id));
    for (const c of CHECKS) {
      const src = readFileSync(join(REPO, 'lib/health/checks', `${c.id}.ts`), 'utf8');
      if (/severity: 'fail'/.test(src)) expect(quiet.has(c.id), `${c.id} can FAIL but a quiet run skips it`).toBe(true);
    }
  });
});

describe('9: search --since / --until take days of the calendar', () => {
  const root = makeMemory({ 'memory/episodic/2026-02-28.md': '# 2026-02-28\n\n- 09:00 [DECISION] move the billing cron to sunday ^cron00001\n' });
  it.each([
    ['--since', '2026-13-45', /there is no month 13/],
    ['--since', '9999-99-99', /there is no month 99/],
    ['--until', '0000-00-00', /there is no year 0000/],
    ['--since', '2026-02-30', /2026-02 has 28 days/],
    ['--until', '2025-02-29', /2025-02 has 28 days/],
  ])('%s %s is a usage error naming the flag and the value', (flag, value, why) => {
    const before = snapshotMemory(root);
    const r = runCli(root, ['search', 'billing', flag, value]);
    expectRefused(root, before, r, { message: new RegExp(`search: ${flag} is not a real date: "${value}" \\(${why.source}\\)`) });
  });
  it('a real day still filters (2024-02-29, a leap day; 2026-02-28)', () => {
    expect(runCli(root, ['search', 'billing', '--since', '2024-02-29']).stdout).toMatch(/2026-02-28\.md#L3/);
    expect(runCli(root, ['search', 'billing', '--until', '2026-02-27']).stdout).toMatch(/no match/);
  });
});

describe('10: a negative number after a flag is a plain usage error', () => {
  const root = makeMemory();
  it.each([
    [['search', 'x', '--k', '-1'], /search: --k takes a positive whole number, got -1\n/],
    [['search', 'x', '--k=-1'], /search: --k takes a positive whole number, got -1\n/],
    [['recall', '--query', 'x', '--max-chars', '-5'], /recall: --max-chars takes a positive whole number, got -5\n/],
    [['cache', 'set', 'k', 'v', '--ttl', '-1'], /--ttl takes a duration, 0 or more, got -1\n/],
    [['graph', 'related', 'x', '--hops', '-2'], /graph: --hops takes a number, 0 or more, got -2\n/],
    [['search', 'x', '--type', '-x'], /search: --type needs a value \(the argument after it starts with "-"\)/],
  ])('%j', (args, message) => {
    const before = snapshotMemory(root);
    const r = runCli(root, args);
    expectRefused(root, before, r, { message });
    expect(r.stderr).not.toMatch(/ambiguous|\\u000a|chars\)'/);
  });
});

describe('11: a look-alike tag is quoted with its invisible character escaped', () => {
  const root = makeMemory();
  it.each([
    ['an inline tag holding U+3164 (a Hangul filler)', ['add', 'deploy #infra\u3164structure today'], 'infra\\u3164structure', '\u3164'],
    ['--tags holding U+200B (zero-width space)', ['add', '--tags', 'infra\u200bstructure', 'deploy today'], 'infra\\u200bstructure', '\u200b'],
    ['--tags holding U+00AD (soft hyphen)', ['add', '--tags', 'infra\u00adstructure', 'deploy today'], 'infra\\u00adstructure', '\u00ad'],
  ])('%s', (_name, args, shown, raw) => {
    const before = snapshotMemory(root);
    const r = runCli(root, args);
    expectRefused(root, before, r, { message: /not in TAGS\.md.*it holds an invisible character/ });
    expect(r.stderr).toContain(`"${shown}"`);
    expect(r.stderr).not.toContain(raw);
    // never suggested as a tag to add on purpose
    expect(r.stderr).toMatch(/remove the invisible character from/);
  });
  it('health quotes a look-alike tag of a note escaped too', () => {
    const mem = makeMemory({ 'memory/semantic/deploy.md': '---\ntags: [infra\u3164structure]\n---\n# Deploy\n\nthe deploy runs on friday\n' });
    const r = runCli(mem, ['health']);
    expectNoCrash(r);
    expect(r.stdout).toMatch(/tag "infra\\u3164structure" .*is not in TAGS\.md \(it holds an invisible character, shown escaped\)/);
    expect(r.stdout).not.toContain('\u3164');
  });
});

describe('14: a note that is its title alone is found by it', () => {
  const root = makeMemory({
    'memory/semantic/k8s-plan.md': '# Kubernetes migration plan\n',
    'memory/semantic/zebra.md': '---\ntitle: Zebra crossing policy\ntags: [planning]\n---\n',
    'memory/semantic/steps.md': '# Rollout\n\n## Canary in eu-west\n\n## Full fleet\n',
  });
  it.each([
    ['a heading alone', 'kubernetes migration', /memory\/semantic\/k8s-plan\.md#L1\b/],
    ['a frontmatter title alone', 'zebra crossing', /memory\/semantic\/zebra\.md#L2\b/],
    ['headings alone', 'canary', /memory\/semantic\/steps\.md#L1-L5/],
  ])('%s', (_name, query, cite) => {
    const r = runCli(root, ['search', query]);
    expectNoCrash(r);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(cite);
  });
  it('a skeleton note (its heading and an instruction comment: a template) is still no result', () => {
    const r = runCli(root, ['search', 'decisions', '--json']);
    expect((JSON.parse(r.stdout) as { results: { path: string }[] }).results.map((x) => x.path)).not.toContain('memory/semantic/decisions.md');
  });
});
