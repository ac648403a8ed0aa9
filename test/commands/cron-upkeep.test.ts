/**
 * The upkeep role (issue #28): one machine of a shared memory runs the scheduled upkeep, recorded
 * in memory/.upkeep; the scheduled commands run with --if-upkeep and skip on the other machines.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listMemoryFiles } from '../../lib/format/layout.js';
import { parseUpkeep } from '../../lib/format/upkeep.js';
import { jobs } from '../../lib/lifecycle/cron.js';
import { readTree, runCli, tmpTree } from '../helpers.js';

const hasGit = spawnSync('git', ['--version']).status === 0;
const GIT_ENV = { PATH: process.env.PATH, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' };

function g(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...GIT_ENV, HOME: cwd } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A fake crontab program: `-l` prints the stored file (or "no crontab"), `-` stores stdin. */
function fakeCrontab(dir: string): { bin: string; store: string } {
  const store = join(dir, 'crontab.txt');
  const bin = join(dir, 'fake-crontab');
  writeFileSync(bin, `#!/bin/sh\nif [ "$1" = "-l" ]; then\n  if [ -f '${store}' ]; then cat '${store}'; else echo "no crontab for test" >&2; exit 1; fi\nelif [ "$1" = "-" ]; then\n  cat > '${store}'\nelse exit 2; fi\n`);
  chmodSync(bin, 0o755);
  return { bin, store };
}

/** A day with typed entries: consolidate writes its summary, review files the decision. */
const MEMORY = {
  'MEMORY.md': '# Memory\n\n## Open questions\n',
  'memory/episodic/2026-05-15.md': '# 2026-05-15\n- 09:00 [DECISION] deploy with systemd timers ^dec00001\n- 10:00 [LESSON] pin the node version in CI ^les00001\n',
};
const SUMMARY = 'memory/reviews/daily/2026-05-15.md';
const ROLE = (machine: string) => `# memtier: the machine that runs the scheduled upkeep (consolidate, dream, review) for this memory\nmachine: ${machine}\nsince: 2026-05-01T08:00:00Z\n`;

describe('--if-upkeep: the scheduled commands skip where the role is another machine\'s', () => {
  it('role held by another machine: consolidate, dream, review and palace write nothing, exit 0, say where it runs', async () => {
    const root = tmpTree({ ...MEMORY, 'memory/.upkeep': ROLE('laptop') });
    const before = readTree(root, { includeState: true });
    const env = { MEMTIER_MACHINE: 'desktop' };
    const c = await runCli(['consolidate', '--if-upkeep', '--root', root, '--quiet'], { env });
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toBe('upkeep for this memory runs on laptop (memory/.upkeep); skipped here; to move it here: memtier cron --take-upkeep\n');
    const j = await runCli(['consolidate', '--if-upkeep', '--root', root, '--json'], { env });
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: true, skipped: 'upkeep-role', machine: 'laptop' });
    for (const argv of [['dream', '--apply'], ['review'], ['review', '--apply'], ['palace']]) {
      const r = await runCli([...argv, '--if-upkeep', '--root', root], { env });
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/^upkeep for this memory runs on laptop \(memory\/\.upkeep\); skipped here/);
    }
    expect(readTree(root, { includeState: true })).toEqual(before);
    // a person running it by hand (no flag): it runs as before
    const byHand = await runCli(['consolidate', '--root', root], { env });
    expect(byHand.code, byHand.stderr).toBe(0);
    expect(existsSync(join(root, SUMMARY))).toBe(true);
  });

  it('role held by this machine (any case of its name), or no role at all: the command runs', async () => {
    const mine = tmpTree({ ...MEMORY, 'memory/.upkeep': ROLE('Laptop') });
    const r = await runCli(['consolidate', '--if-upkeep', '--root', mine], { env: { MEMTIER_MACHINE: 'laptop' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/skipped here/);
    expect(existsSync(join(mine, SUMMARY))).toBe(true);
    const rev = await runCli(['review', '--if-upkeep', '--root', mine, '--json'], { env: { MEMTIER_MACHINE: 'laptop' } });
    expect(rev.code, rev.stderr).toBe(0);
    expect(JSON.parse(rev.stdout).skipped).toBeUndefined();
    expect(readFileSync(join(mine, 'memory/semantic/decisions.md'), 'utf8')).toContain('deploy with systemd timers');

    const none = tmpTree(MEMORY);
    const n = await runCli(['consolidate', '--if-upkeep', '--root', none], { env: { MEMTIER_MACHINE: 'desktop' } });
    expect(n.code, n.stderr).toBe(0);
    expect(existsSync(join(none, SUMMARY))).toBe(true);
  });

  it('a role file that names no machine: skipped with a note saying how to record one', async () => {
    const root = tmpTree({ ...MEMORY, 'memory/.upkeep': '# memtier: …\nsince: 2026-05-01T08:00:00Z\n' });
    const r = await runCli(['consolidate', '--if-upkeep', '--root', root, '--json'], { env: { MEMTIER_MACHINE: 'desktop' } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, skipped: 'upkeep-role' });
    expect(existsSync(join(root, SUMMARY))).toBe(false);
  });

  it('every command the scheduled jobs run carries --if-upkeep and accepts it (the jobs skip together)', async () => {
    const root = tmpTree({ ...MEMORY, 'memory/.upkeep': ROLE('laptop') });
    const before = readTree(root);
    const all = jobs('memtier', root).flatMap((j) => j.commands);
    expect(all.length).toBe(3);
    for (const argv of all) {
      expect(argv).toContain('--if-upkeep');
      const r = await runCli(argv.slice(1), { env: { MEMTIER_MACHINE: 'desktop' } });
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/skipped here/);
    }
    expect(readTree(root)).toEqual(before);
  });
});

describe.skipIf(!hasGit)('cron and the upkeep role on a memory shared through git', () => {
  /** A bare remote and a clone of it with the memory committed and pushed. */
  function shared(): { remote: string; laptop: string } {
    const remote = join(tmpTree(), 'remote.git');
    g(tmpTree(), 'init', '-q', '--bare', '-b', 'main', remote);
    const laptop = tmpTree(MEMORY);
    g(laptop, 'init', '-q', '-b', 'main');
    g(laptop, 'add', '-A');
    g(laptop, 'commit', '-qm', 'init');
    g(laptop, 'remote', 'add', 'origin', remote);
    g(laptop, 'push', '-q', '-u', 'origin', 'main');
    return { remote, laptop };
  }

  it('--install on a clone with a remote records this machine, committed; a second machine sees it held and its jobs skip', async () => {
    const { remote, laptop } = shared();
    const tab1 = fakeCrontab(tmpTree());
    const env1 = { ...GIT_ENV, MEMTIER_CRONTAB: tab1.bin, MEMTIER_BIN: 'memtier', MEMTIER_MACHINE: 'laptop' };
    // a dry run says what it would record and records nothing
    const dry = await runCli(['cron', '--install', '--dry-run', '--root', laptop], { env: env1 });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^dry run/);
    expect(dry.stdout).toContain('would record this machine (laptop) in memory/.upkeep');
    expect(existsSync(join(laptop, 'memory/.upkeep'))).toBe(false);
    expect(existsSync(tab1.store)).toBe(false);

    const inst = await runCli(['cron', '--install', '--root', laptop], { env: env1 });
    expect(inst.code, inst.stderr).toBe(0);
    expect(inst.stdout).toContain('installed into your crontab:');
    expect(inst.stdout).toContain('upkeep: recorded this machine (laptop) in memory/.upkeep');
    expect(readFileSync(tab1.store, 'utf8')).toContain(' consolidate --date yesterday --if-upkeep --root ');
    const text = readFileSync(join(laptop, 'memory/.upkeep'), 'utf8');
    expect(text).toBe('# memtier: the machine that runs the scheduled upkeep (consolidate, dream, review) for this memory\nmachine: laptop\nsince: 2026-05-15T14:30:00Z\n');
    expect(parseUpkeep(text)).toEqual({ role: { machine: 'laptop', since: '2026-05-15T14:30:00Z' } });
    // committed with the memory, nothing left over
    expect(g(laptop, 'log', '-1', '--name-only', '--format=%s')).toMatch(/^memtier cron: upkeep role: laptop runs the scheduled upkeep\n+memory\/\.upkeep\n/);
    expect(g(laptop, 'status', '--porcelain')).toBe('');
    // installing again keeps the role as it is
    const again = await runCli(['cron', '--install', '--root', laptop, '--json'], { env: env1 });
    expect(JSON.parse(again.stdout).upkeep).toMatchObject({ state: 'here', holder: 'laptop', recorded: false });
    expect(readFileSync(join(laptop, 'memory/.upkeep'), 'utf8')).toBe(text);
    // not a note: never listed, and health has nothing to say about it
    expect(listMemoryFiles(laptop)).not.toContain('memory/.upkeep');
    const health = await runCli(['health', '--root', laptop], { env: env1 });
    expect(health.code, health.stdout).toBe(0);
    expect(health.stdout + health.stderr).not.toContain('.upkeep');
    expect(JSON.parse((await runCli(['health', '--root', laptop, '--json'], { env: env1 })).stdout).counts).toMatchObject({ fail: 0, warn: 0, info: 0 });

    // the second machine: a clone of the same remote
    g(laptop, 'push', '-q');
    const desktop = join(tmpTree(), 'desktop');
    g(tmpTree(), 'clone', '-q', remote, desktop);
    const tab2 = fakeCrontab(tmpTree());
    const env2 = { ...GIT_ENV, MEMTIER_CRONTAB: tab2.bin, MEMTIER_BIN: 'memtier', MEMTIER_MACHINE: 'desktop' };
    const second = await runCli(['cron', '--install', '--root', desktop], { env: env2 });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('installed into your crontab:');
    expect(second.stdout).toContain('upkeep: runs on laptop (memory/.upkeep); scheduled runs on this machine (desktop) skip; to move it here: memtier cron --take-upkeep');
    expect(readFileSync(join(desktop, 'memory/.upkeep'), 'utf8')).toBe(text);
    // printing the schedule shows the role too, as a comment
    const shown = await runCli(['cron', '--root', desktop], { env: env2 });
    expect(shown.stdout).toMatch(/\n# upkeep: runs on laptop \(memory\/\.upkeep\); scheduled runs on this machine \(desktop\) skip/);
    // the OpenClaw jobs: command jobs with --if-upkeep, and the agent turn is told the rule
    const oc = JSON.parse((await runCli(['cron', '--openclaw', '--root', desktop, '--json'], { env: env2 })).stdout);
    expect(oc.commands.slice(0, 3).every((c: string) => c.includes('"--if-upkeep"'))).toBe(true);
    expect(oc.commands[3]).toContain(`If ${desktop}/memory/.upkeep names a machine other than desktop, reply NO_REPLY`);
    expect(oc.upkeep).toMatchObject({ state: 'elsewhere', holder: 'laptop', machine: 'desktop' });
    // its nightly job skips
    const night = await runCli(['consolidate', '--if-upkeep', '--root', desktop], { env: env2 });
    expect(night.code).toBe(0);
    expect(night.stdout).toMatch(/^upkeep for this memory runs on laptop/);
    expect(existsSync(join(desktop, SUMMARY))).toBe(false);
  });

  it('--take-upkeep moves the role here (dry run first), committed; the old holder\'s jobs then skip', async () => {
    const { laptop } = shared();
    writeFileSync(join(laptop, 'memory/.upkeep'), ROLE('laptop'));
    g(laptop, 'add', '-A');
    g(laptop, 'commit', '-qm', 'role');
    const env = { ...GIT_ENV, MEMTIER_MACHINE: 'desktop' };
    const dry = await runCli(['cron', '--take-upkeep', '--dry-run', '--root', laptop], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('dry run: would record this machine (desktop) in memory/.upkeep as the one that runs the scheduled upkeep from laptop\n');
    expect(readFileSync(join(laptop, 'memory/.upkeep'), 'utf8')).toBe(ROLE('laptop'));

    const take = await runCli(['cron', '--take-upkeep', '--root', laptop, '--json'], { env });
    expect(take.code, take.stderr).toBe(0);
    expect(JSON.parse(take.stdout).upkeep).toMatchObject({ state: 'here', holder: 'desktop', recorded: true });
    expect(parseUpkeep(readFileSync(join(laptop, 'memory/.upkeep'), 'utf8'))).toEqual({ role: { machine: 'desktop', since: '2026-05-15T14:30:00Z' } });
    expect(g(laptop, 'log', '-1', '--name-only', '--format=%s')).toMatch(/^memtier cron: upkeep role: desktop.*\n+memory\/\.upkeep\n/);
    const same = await runCli(['cron', '--take-upkeep', '--root', laptop], { env });
    expect(same.stdout).toBe('upkeep: runs on this machine (desktop, memory/.upkeep); nothing changed\n');

    // the jobs of laptop now skip; desktop's run
    const old = await runCli(['consolidate', '--if-upkeep', '--root', laptop], { env: { ...GIT_ENV, MEMTIER_MACHINE: 'laptop' } });
    expect(old.stdout).toMatch(/^upkeep for this memory runs on desktop \(memory\/\.upkeep\); skipped here/);
    expect(existsSync(join(laptop, SUMMARY))).toBe(false);
    const now = await runCli(['consolidate', '--if-upkeep', '--root', laptop], { env });
    expect(now.code, now.stderr).toBe(0);
    expect(existsSync(join(laptop, SUMMARY))).toBe(true);
  });

  it('--take-upkeep with --install takes the role over in one run', async () => {
    const { laptop } = shared();
    writeFileSync(join(laptop, 'memory/.upkeep'), ROLE('laptop'));
    const tab = fakeCrontab(tmpTree());
    const r = await runCli(['cron', '--install', '--take-upkeep', '--root', laptop], { env: { ...GIT_ENV, MEMTIER_CRONTAB: tab.bin, MEMTIER_BIN: 'memtier', MEMTIER_MACHINE: 'desktop' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('installed into your crontab:');
    expect(r.stdout).toContain('upkeep: this machine (desktop) now runs the scheduled upkeep, recorded in memory/.upkeep from laptop');
    expect(parseUpkeep(readFileSync(join(laptop, 'memory/.upkeep'), 'utf8'))).toMatchObject({ role: { machine: 'desktop' } });
  });

  it('a repository without a remote, or no repository: --install records no role; "cron" prints no role line', async () => {
    const solo = tmpTree(MEMORY);
    g(solo, 'init', '-q', '-b', 'main');
    const plain = tmpTree(MEMORY);
    for (const root of [solo, plain]) {
      const tab = fakeCrontab(tmpTree());
      const r = await runCli(['cron', '--install', '--root', root], { env: { ...GIT_ENV, MEMTIER_CRONTAB: tab.bin, MEMTIER_BIN: 'memtier', MEMTIER_MACHINE: 'laptop' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('upkeep:');
      expect(existsSync(join(root, 'memory/.upkeep'))).toBe(false);
      const shown = await runCli(['cron', '--root', root, '--json'], { env: { MEMTIER_BIN: 'memtier', MEMTIER_MACHINE: 'laptop' } });
      expect(JSON.parse(shown.stdout).upkeep).toMatchObject({ state: 'none', recorded: false });
    }
    // --take-upkeep still records it (a person's choice)
    const t = await runCli(['cron', '--take-upkeep', '--root', plain], { env: { MEMTIER_MACHINE: 'laptop' } });
    expect(t.code, t.stderr).toBe(0);
    expect(parseUpkeep(readFileSync(join(plain, 'memory/.upkeep'), 'utf8'))).toMatchObject({ role: { machine: 'laptop' } });
  });
});
