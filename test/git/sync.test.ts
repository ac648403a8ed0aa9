/**
 * Issue #28: one memory on several machines. Clones of one bare remote, each a "machine" (its own
 * MEMTIER_MACHINE), driven through the real CLI: every numbered finding of the issue has a case
 * here that failed on the rebase-and-union sync.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBin, runCli, tmpTree, type CliResult } from '../helpers.js';

const ID = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x', GIT_CONFIG_NOSYSTEM: '1' };

function g(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: cwd, ...ID } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

interface Machine { name: string; root: string; run: (args: string[], env?: NodeJS.ProcessEnv) => Promise<CliResult>; bin: (args: string[], env?: NodeJS.ProcessEnv) => CliResult }

/** A bare remote holding a new memory (`init --git`) and `n` machines that cloned it with `memtier clone`. */
async function machines(n: number, names = ['laptop', 'desktop', 'server']): Promise<{ bare: string; ms: Machine[] }> {
  const base = tmpTree({});
  const bare = join(base, 'remote.git');
  g(base, 'init', '-q', '--bare', '-b', 'main', bare);
  const seed = join(base, 'seed');
  const env = (name: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: base, MEMTIER_MACHINE: name, MEMTIER_TZ: 'UTC', ...ID, ...extra });
  expect((await runCli(['init', seed, '--git'], { env: env('seed') })).code).toBe(0);
  g(seed, 'branch', '-M', 'main');
  g(seed, 'remote', 'add', 'origin', bare);
  g(seed, 'push', '-q', '-u', 'origin', 'main');
  const ms: Machine[] = [];
  for (const name of names.slice(0, n)) {
    const root = join(base, name);
    const c = await runCli(['clone', bare, root, '--machine', name], { env: env(name), cwd: base });
    expect(c.code, c.stderr).toBe(0);
    ms.push({
      name, root,
      run: (args, extra) => runCli([...args, '--root', root], { env: env(name, extra), cwd: root }),
      bin: (args, extra) => runBin([...args, '--root', root], { env: env(name, extra), cwd: root }),
    });
  }
  return { bare, ms };
}

/** Every line of the memory's files (trash and .memtier excluded) that carries `^id`. */
function linesWith(root: string, id: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const d of readdirSync(join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) { if (!['.git', '.memtier', '.trash'].includes(d.name)) walk(r); continue; }
      if (!/\.md$/.test(d.name)) continue;
      for (const l of readFileSync(join(root, r), 'utf8').split('\n')) if (l.includes(`^${id}`)) out.push(`${r}: ${l}`);
    }
  };
  walk('');
  return out;
}

const idOf = (r: CliResult): string => {
  const m = /\^([a-z0-9]{6,})/.exec(r.stdout);
  if (!m) throw new Error(`no id in: ${r.stdout} ${r.stderr}`);
  return m[1]!;
};

async function syncOk(m: Machine): Promise<Record<string, unknown>> {
  const r = await m.run(['sync', '--json']);
  expect(r.code, `${m.name}: ${r.stdout}${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

function noMarkers(root: string): void {
  const r = spawnSync('grep', ['-rlE', '--exclude-dir=.git', '--exclude-dir=.memtier', '^(<<<<<<<|>>>>>>>) ', root], { encoding: 'utf8' });
  expect(r.stdout).toBe('');
}

describe('memtier sync: many machines, one memory', () => {
  it('#1 two machines that both used wal converge; SESSION-STATE.md merges by section and key, the later task wins', async () => {
    const { ms: [a, b] } = await machines(2);
    const da = idOf(await a!.run(['wal', 'decide', 'use postgres for the ledger'], { GIT_COMMITTER_DATE: '2026-12-05T09:00:00Z' }));
    await a!.run(['wal', 'task', 'migrate the ledger'], { GIT_COMMITTER_DATE: '2026-12-05T09:00:01Z' });
    await a!.run(['wal', 'context', 'region: eu-west'], { GIT_COMMITTER_DATE: '2026-12-05T09:00:02Z' });
    await syncOk(a!);
    const db = idOf(await b!.run(['wal', 'decide', 'ship on fridays is banned'], { GIT_COMMITTER_DATE: '2026-12-05T10:00:00Z' }));
    await b!.run(['wal', 'task', 'write the runbook'], { GIT_COMMITTER_DATE: '2026-12-05T10:00:01Z' });
    await b!.run(['wal', 'pending', 'ask ops about backups'], { GIT_COMMITTER_DATE: '2026-12-05T10:00:02Z' });
    const jb = await syncOk(b!);
    expect(jb.merge).toBe('merged');
    await syncOk(a!);
    for (const m of [a!, b!]) {
      const st = readFileSync(join(m.root, 'SESSION-STATE.md'), 'utf8');
      expect(st).toMatch(/## Current Task\nwrite the runbook\n/);
      expect(st).toContain('use postgres for the ledger');
      expect(st).toContain('ship on fridays is banned');
      expect(st).toContain('- region: eu-west');
      expect(st).toContain('- ask ops about backups');
      // the losing task is still in the log
      expect(readFileSync(join(m.root, 'memory/working-buffer.md'), 'utf8')).toContain('task: migrate the ledger');
      expect(linesWith(m.root, da)).toHaveLength(1);
      expect(linesWith(m.root, db)).toHaveLength(1);
      noMarkers(m.root);
    }
    expect(g(a!.root, 'rev-parse', 'HEAD')).toBe(g(b!.root, 'rev-parse', 'HEAD'));
    expect(g(a!.root, 'status', '--porcelain')).toBe('');
  });

  it('#2 a forget on one machine stays forgotten while the other appends to the same day; the id travels, the text does not', async () => {
    const { ms: [a, b] } = await machines(2);
    const p = idOf(await a!.run(['add', '--type', 'DECISION', 'the launch code word is bluebird']));
    await syncOk(a!);
    await syncOk(b!);
    expect(linesWith(b!.root, p)).toHaveLength(1);
    expect((await a!.run(['forget', `^${p}`])).code).toBe(0);
    const q = idOf(await b!.run(['add', '--type', 'EVENT', 'met the auditors']));
    await syncOk(a!);
    await syncOk(b!);
    await syncOk(a!);
    for (const m of [a!, b!]) {
      expect(linesWith(m.root, p)).toEqual([]);
      expect(linesWith(m.root, q)).toHaveLength(1);
      const forgotten = readFileSync(join(m.root, 'memory/.forgotten'), 'utf8');
      expect(forgotten).toContain(`^${p}`);
      expect(forgotten).not.toContain('bluebird');
    }
    const s = await b!.run(['search', 'bluebird', '--json']);
    expect(JSON.stringify(JSON.parse(s.stdout).results ?? [])).not.toContain(p);
  });

  it('#2 a supersede on one machine is not undone by the other: the old entry struck on both, its id once', async () => {
    const { ms: [a, b] } = await machines(2);
    const x = idOf(await a!.run(['add', '--type', 'DECISION', 'use MySQL']));
    await syncOk(a!);
    await syncOk(b!);
    expect((await a!.run(['supersede', `^${x}`, '--by', 'use Postgres'])).code).toBe(0);
    await b!.run(['add', '--type', 'EVENT', 'lunch with the team']);
    await syncOk(a!);
    await syncOk(b!);
    await syncOk(a!);
    for (const m of [a!, b!]) {
      const ls = linesWith(m.root, x).filter((l) => !l.includes(`superseded by`) || l.includes('~~'));
      expect(ls).toHaveLength(1);
      expect(ls[0]).toMatch(/~~.*use MySQL.*~~/);
    }
  });

  it('#2 a rotation on one machine while the other writes to the buffer: every entry once, in the buffer or the day', async () => {
    const { ms: [a, b] } = await machines(2);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(idOf(await a!.run(['wal', 'decide', `decision number ${i}`])));
    await syncOk(a!);
    await syncOk(b!);
    expect((await a!.run(['rotate', '--force'])).code).toBe(0);
    ids.push(idOf(await b!.run(['wal', 'decide', 'decision from b'])));
    ids.push(idOf(await b!.run(['wal', 'pending', 'pending from b'])));
    await syncOk(a!);
    await syncOk(b!);
    await syncOk(a!);
    for (const m of [a!, b!]) for (const id of ids) expect(linesWith(m.root, id), `${m.name} ^${id}`).toHaveLength(1);
  });

  // found by the chaos run with machines: git saw the move of the day to the archive as a rename on
  // one side only, and the merge read the other side at the old, deleted path: the day was gone
  it('#2 both machines archive the same day, one after adding to it: every entry once, in the archive', async () => {
    const { ms: [a, b] } = await machines(2);
    const at = (d: string): string[] => ['--now', `${d}T10:00:00Z`];
    const ids = [idOf(await a!.run(['add', '--type', 'EVENT', 'the first entry of the day', ...at('2026-10-01')]))];
    await syncOk(a!);
    await syncOk(b!);
    for (let i = 0; i < 5; i++) ids.push(idOf(await a!.run(['add', '--type', 'EVENT', `late entry number ${i} with words enough to change the file`, ...at('2026-10-01')])));
    for (const m of [a!, b!]) expect((await m.run(['archive', '--now', '2026-12-05T10:00:00Z'])).code).toBe(0);
    await syncOk(a!);
    await syncOk(b!);
    await syncOk(a!);
    for (const m of [a!, b!]) {
      for (const id of ids) {
        const ls = linesWith(m.root, id);
        expect(ls, `${m.name} ^${id}`).toHaveLength(1);
        expect(ls[0]).toMatch(/^memory\/archive\/2026\/10\/2026-10-01\.md: /);
      }
      expect(existsSync(join(m.root, 'memory/episodic/2026-10-01.md'))).toBe(false);
    }
  });

  it('#2 both machines rotate the same entry into the same day while one keeps writing: the entry once, in the day', async () => {
    const { ms: [a, b] } = await machines(2);
    const x = idOf(await a!.run(['wal', 'decide', 'rotated on both machines']));
    await syncOk(a!);
    await syncOk(b!);
    for (const m of [a!, b!]) expect((await m.run(['rotate', '--force'])).code).toBe(0);
    const y = idOf(await b!.run(['wal', 'decide', 'written after the rotation']));
    await syncOk(a!);
    await syncOk(b!);
    await syncOk(a!);
    for (const m of [a!, b!]) {
      expect(linesWith(m.root, x), m.name).toHaveLength(1);
      expect(linesWith(m.root, x)[0]).toMatch(/^memory\/episodic\//);
      expect(linesWith(m.root, y)).toHaveLength(1);
    }
  });

  it('#3 an entry written while a killed sync was half done is merged into its log by the next command, not set aside', async () => {
    const { ms: [a, b] } = await machines(2);
    await a!.run(['wal', 'decide', 'from a']);
    await syncOk(a!);
    await b!.run(['wal', 'decide', 'from b']);
    // b's sync dies after writing the first merged file and before moving the branch
    expect(b!.bin(['sync'], { MEMTIER_CRASH_AT: 'sync.apply' }).code).not.toBe(0);
    expect(existsSync(join(b!.root, '.memtier/sync-intent.json'))).toBe(true);
    // a writer that got past the recovery before the intent existed appends to the half-moved buffer
    const line = '- 2026-12-05 11:11 [EVENT] written in the window ^window0001\n';
    writeFileSync(join(b!.root, 'memory/working-buffer.md'), readFileSync(join(b!.root, 'memory/working-buffer.md'), 'utf8') + line);
    expect((await b!.run(['boot'])).code).toBe(0);
    expect(existsSync(join(b!.root, '.memtier/sync-intent.json'))).toBe(false);
    expect(linesWith(b!.root, 'window0001')).toEqual([`memory/working-buffer.md: ${line.trimEnd()}`]);
    expect(readdirSync(join(b!.root, 'memory')).filter((n) => n.includes('.conflict-'))).toEqual([]);
    await syncOk(b!);
    await syncOk(a!);
    expect(linesWith(a!.root, 'window0001')).toHaveLength(1);
  });

  for (const at of ['sync.committed', 'sync.fetched', 'sync.intent', 'sync.apply', 'sync.ref', 'sync.pushed']) {
    it(`#3/#4 a sync killed at ${at} loses nothing: the next command finishes it, writes go on, and the machines converge`, async () => {
      const { ms: [a, b] } = await machines(2);
      const ids = [idOf(await a!.run(['add', '--type', 'EVENT', 'from a, one'])), idOf(await a!.run(['wal', 'decide', 'from a, two']))];
      await syncOk(a!);
      ids.push(idOf(await b!.run(['add', '--type', 'EVENT', 'from b, one'])), idOf(await b!.run(['wal', 'decide', 'from b, two'])));
      const killed = b!.bin(['sync'], { MEMTIER_CRASH_AT: at });
      expect(killed.code).not.toBe(0);
      // writes after the kill are acknowledged and kept
      const after = await b!.run(['add', '--type', 'EVENT', 'written after the kill']);
      expect(after.code, after.stderr).toBe(0);
      ids.push(idOf(after));
      expect(existsSync(join(b!.root, '.memtier/sync-intent.json'))).toBe(false);
      expect(g(b!.root, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
      await syncOk(b!);
      await syncOk(a!);
      for (const m of [a!, b!]) {
        for (const id of ids) expect(linesWith(m.root, id), `${m.name} ^${id} after a kill at ${at}`).toHaveLength(1);
        noMarkers(m.root);
        expect(existsSync(join(m.root, '.git/rebase-merge'))).toBe(false);
      }
      expect(g(a!.root, 'rev-parse', 'HEAD')).toBe(g(b!.root, 'rev-parse', 'HEAD'));
    });
  }

  it('#3 a rebase sync did not start: writes refuse (exit 2, nothing written), sync explains and aborts nothing', async () => {
    const { ms: [a, b] } = await machines(2);
    writeFileSync(join(a!.root, 'MEMORY.md'), readFileSync(join(a!.root, 'MEMORY.md'), 'utf8').replace(/\n$/, '\n- db: mysql\n'));
    await syncOk(a!);
    writeFileSync(join(b!.root, 'MEMORY.md'), readFileSync(join(b!.root, 'MEMORY.md'), 'utf8').replace(/\n$/, '\n- db: sqlite\n'));
    g(b!.root, 'commit', '-qam', 'a person edits');
    spawnSync('git', ['pull', '--rebase', '-q', 'origin', 'main'], { cwd: b!.root, env: { PATH: process.env.PATH, HOME: b!.root, ...ID } });
    expect(existsSync(join(b!.root, '.git/rebase-merge')) || existsSync(join(b!.root, '.git/rebase-apply'))).toBe(true);
    const buffer = readFileSync(join(b!.root, 'memory/working-buffer.md'), 'utf8');
    const state = readFileSync(join(b!.root, 'SESSION-STATE.md'), 'utf8');
    const w = await b!.run(['wal', 'decide', 'written during a rebase']);
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/rebase is in progress/);
    expect(w.stderr).toMatch(/git rebase --continue|git rebase --abort/);
    expect(readFileSync(join(b!.root, 'memory/working-buffer.md'), 'utf8')).toBe(buffer);
    expect(readFileSync(join(b!.root, 'SESSION-STATE.md'), 'utf8')).toBe(state);
    const s = await b!.run(['sync']);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/rebase is in progress/);
    // the person's rebase is still theirs to finish
    expect(existsSync(join(b!.root, '.git/rebase-merge')) || existsSync(join(b!.root, '.git/rebase-apply'))).toBe(true);
  });

  it('#3 a stopped merge with markers in SESSION-STATE.md: wal refuses, and a marker is never written back by a command', async () => {
    const { ms: [a, b] } = await machines(2);
    await a!.run(['wal', 'task', 'task on a']);
    await syncOk(a!);
    await b!.run(['wal', 'task', 'task on b']);
    // a clone without memtier's merge driver (its command lives in .git/config): git's text merge
    g(b!.root, 'config', '--remove-section', 'merge.memtier');
    g(b!.root, 'fetch', '-q', 'origin');
    spawnSync('git', ['merge', 'origin/main'], { cwd: b!.root, env: { PATH: process.env.PATH, HOME: b!.root, ...ID } });
    expect(existsSync(join(b!.root, '.git/MERGE_HEAD'))).toBe(true);
    const w = await b!.run(['wal', 'decide', 'inside the conflict']);
    expect(w.code, w.stdout + w.stderr).toBe(2);
    expect(w.stderr).toMatch(/merge is in progress/);
    // the person marks it resolved with the markers still in: memtier's rewrite refuses them
    g(b!.root, 'add', '-A');
    g(b!.root, 'commit', '-qm', 'resolved (not really)');
    expect(readFileSync(join(b!.root, 'SESSION-STATE.md'), 'utf8')).toMatch(/^<<<<<<< /m);
    const w2 = await b!.run(['wal', 'task', 'next task']);
    expect(w2.code).toBe(2);
    expect(w2.stderr).toMatch(/conflict block/);
    expect(readFileSync(join(b!.root, 'SESSION-STATE.md'), 'utf8')).not.toContain('next task');
  });

  it('#4 a stopped cherry-pick: reads work without warnings, writes refuse clearly, a killed command\'s commit waits for the branch', async () => {
    const { ms: [a] } = await machines(1);
    const mem = (t: string): void => writeFileSync(join(a!.root, 'MEMORY.md'), readFileSync(join(a!.root, 'MEMORY.md'), 'utf8').replace(/\n$/, `\n${t}\n`));
    g(a!.root, 'checkout', '-q', '-b', 'side');
    mem('- from the side branch');
    g(a!.root, 'commit', '-qam', 'side');
    g(a!.root, 'checkout', '-q', 'main');
    mem('- from main');
    g(a!.root, 'commit', '-qam', 'main');
    // a command killed between its write and its commit leaves its record
    const killed = a!.bin(['add', '--type', 'EVENT', 'killed before its commit'], { MEMTIER_CRASH_AT: 'commit.before' });
    expect(killed.code).not.toBe(0);
    spawnSync('git', ['cherry-pick', 'side'], { cwd: a!.root, env: { PATH: process.env.PATH, HOME: a!.root, ...ID } });
    expect(existsSync(join(a!.root, '.git/CHERRY_PICK_HEAD'))).toBe(true);
    const head = g(a!.root, 'rev-parse', 'HEAD');
    const boot = await a!.run(['boot']);
    expect(boot.code).toBe(0);
    expect(boot.stderr).not.toMatch(/partial commit|warning/);
    expect(g(a!.root, 'rev-parse', 'HEAD')).toBe(head); // nothing committed into the person's pick
    const w = await a!.run(['add', '--type', 'EVENT', 'during the pick']);
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/cherry-pick is in progress/);
    expect(w.stderr).toMatch(/git cherry-pick --abort/);
    g(a!.root, 'cherry-pick', '--abort');
    expect((await a!.run(['boot'])).code).toBe(0);
    expect(g(a!.root, 'log', '-1', '--format=%s')).toMatch(/^memtier recover:/);
    expect(g(a!.root, 'status', '--porcelain')).toBe('');
  });

  it('#4 a detached HEAD is reported, never written on or pushed as HEAD:HEAD', async () => {
    const { bare, ms: [a] } = await machines(1);
    await a!.run(['add', '--type', 'EVENT', 'before detaching']);
    g(a!.root, 'checkout', '-q', '--detach');
    const head = g(a!.root, 'rev-parse', 'HEAD');
    const w = await a!.run(['add', '--type', 'EVENT', 'on a detached head']);
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/detached HEAD/);
    expect(w.stderr).toMatch(/git switch/);
    const s = await a!.run(['sync']);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/detached HEAD/);
    expect(g(a!.root, 'rev-parse', 'HEAD')).toBe(head);
    expect(g(bare, 'for-each-ref', '--format=%(refname)').trim().split('\n')).toEqual(['refs/heads/main']);
  });

  it('prose changed on both machines in the same place: exit 1, both versions kept (no marker), the rest synced; resolve finishes it', async () => {
    const { ms: [a, b] } = await machines(2);
    const add = (m: Machine, line: string): void => writeFileSync(join(m.root, 'MEMORY.md'), readFileSync(join(m.root, 'MEMORY.md'), 'utf8').replace(/\n$/, `\n${line}\n`));
    add(a!, '- db: mysql (decided on the laptop)');
    const ea = idOf(await a!.run(['add', '--type', 'EVENT', 'laptop entry']));
    await syncOk(a!);
    add(b!, '- db: sqlite (decided on the desktop)');
    const eb = idOf(await b!.run(['add', '--type', 'EVENT', 'desktop entry']));
    const r = await b!.run(['sync', '--json']);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.pushed).toBe(true);
    expect(j.conflicts).toEqual([{ file: 'MEMORY.md', copy: 'MEMORY.conflict-laptop.md', reason: expect.any(String) }]);
    expect(readFileSync(join(b!.root, 'MEMORY.md'), 'utf8')).toContain('sqlite');
    expect(readFileSync(join(b!.root, 'MEMORY.conflict-laptop.md'), 'utf8')).toContain('mysql');
    expect(j.message).toMatch(/memtier resolve MEMORY\.md/);
    noMarkers(b!.root);
    await a!.run(['sync']);
    for (const m of [a!, b!]) {
      expect(existsSync(join(m.root, 'MEMORY.conflict-laptop.md'))).toBe(true);
      expect(linesWith(m.root, ea)).toHaveLength(1);
      expect(linesWith(m.root, eb)).toHaveLength(1);
    }
    // the person merges by hand on either machine, then one command finishes it everywhere
    writeFileSync(join(a!.root, 'MEMORY.md'), readFileSync(join(a!.root, 'MEMORY.md'), 'utf8').replace(/- db: sqlite.*\n/, '- db: postgres (settled)\n'));
    const res = await a!.run(['resolve', 'MEMORY.md', '--json']);
    expect(res.code, res.stderr + res.stdout).toBe(0);
    await syncOk(b!);
    for (const m of [a!, b!]) {
      expect(existsSync(join(m.root, 'MEMORY.conflict-laptop.md'))).toBe(false);
      expect(readFileSync(join(m.root, 'MEMORY.md'), 'utf8')).toContain('postgres (settled)');
    }
  });

  it('sync refuses to commit a memory file holding conflict markers, and says which line', async () => {
    const { bare, ms: [a] } = await machines(1);
    const before = g(bare, 'rev-parse', 'main');
    writeFileSync(join(a!.root, 'MEMORY.md'), '# Memory\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> theirs\n');
    const r = await a!.run(['sync']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/MEMORY\.md line 2/);
    expect(g(bare, 'rev-parse', 'main')).toBe(before);
  });

  it('errors say what happened and what to do: an unreachable remote', async () => {
    const { ms: [a] } = await machines(1);
    g(a!.root, 'remote', 'set-url', 'origin', join(a!.root, 'no-such-remote.git'));
    await a!.run(['add', '--type', 'EVENT', 'offline write']);
    const r = await a!.run(['sync']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot be reached/);
    expect(r.stderr).toMatch(/safe and committed here/);
    expect(g(a!.root, 'status', '--porcelain')).toBe('');
  });

  it('#7 a second machine from one command: memtier clone records its name and syncs', async () => {
    const { ms: [a, b, c] } = await machines(3);
    expect(g(b!.root, 'config', 'memtier.machine').trim()).toBe('desktop');
    const ids = [idOf(await a!.run(['add', '--type', 'EVENT', 'a'])), idOf(await b!.run(['add', '--type', 'EVENT', 'b'])), idOf(await c!.run(['add', '--type', 'EVENT', 'c']))];
    for (const m of [a!, b!, c!, a!, b!]) await syncOk(m);
    for (const m of [a!, b!, c!]) for (const id of ids) expect(linesWith(m.root, id)).toHaveLength(1);
  });
});

describe('the README\'s path for a second machine', () => {
  it('init --git, a remote made with git\'s own default branch, sync; clone on another machine takes the branch that was pushed', async () => {
    const base = tmpTree({});
    const env = { PATH: process.env.PATH, HOME: base, ...ID };
    const bare = join(base, 'remote.git');
    spawnSync('git', ['-c', 'init.defaultBranch=master', 'init', '-q', '--bare', bare], { env });
    const mem = join(base, 'memory');
    expect((await runCli(['init', mem, '--git'], { env })).code).toBe(0);
    expect(g(mem, 'branch', '--show-current').trim()).toBe('main');
    g(mem, 'remote', 'add', 'origin', bare);
    const first = await runCli(['sync', '--root', mem], { env: { ...env, MEMTIER_MACHINE: 'laptop' } });
    expect(first.code, first.stderr).toBe(0);
    const desk = join(base, 'desk');
    const c = await runCli(['clone', bare, desk, '--machine', 'desktop', '--json'], { env, cwd: base });
    expect(c.code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout)).toMatchObject({ memory: true, empty: false, machine: 'desktop' });
    expect(g(desk, 'branch', '--show-current').trim()).toBe('main');
    const id = idOf(await runCli(['wal', 'decide', 'from the desk', '--root', desk], { env: { ...env, MEMTIER_MACHINE: 'desktop' } }));
    expect((await runCli(['sync', '--root', desk], { env: { ...env, MEMTIER_MACHINE: 'desktop' } })).code).toBe(0);
    expect((await runCli(['sync', '--root', mem], { env: { ...env, MEMTIER_MACHINE: 'laptop' } })).code).toBe(0);
    expect(linesWith(mem, id)).toHaveLength(1);
  });
});

describe("a person's own git pull uses memtier's merge driver", () => {
  it('clone registers merge=memtier; a plain git merge of two machines\' wal writes keeps both sides and what one forgot stays forgotten', async () => {
    const { ms: [a, b] } = await machines(2);
    expect(g(b!.root, 'config', 'merge.memtier.driver')).toMatch(/merge-driver %O %A %B %P/);
    expect(readFileSync(join(b!.root, '.gitattributes'), 'utf8')).toContain('memory/working-buffer.md merge=memtier');
    const gone = idOf(await a!.run(['wal', 'decide', 'to be forgotten']));
    await syncOk(a!);
    await syncOk(b!);
    await a!.run(['forget', `^${gone}`]);
    const x = idOf(await a!.run(['wal', 'decide', 'decided on a']));
    await syncOk(a!);
    const y = idOf(await b!.run(['wal', 'decide', 'decided on b']));
    g(b!.root, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
    expect(existsSync(join(b!.root, '.git/MERGE_HEAD'))).toBe(false);
    const buffer = readFileSync(join(b!.root, 'memory/working-buffer.md'), 'utf8');
    expect(buffer).toContain(`^${x}`);
    expect(buffer).toContain(`^${y}`);
    expect(buffer).not.toContain(`^${gone}`);
    const st = readFileSync(join(b!.root, 'SESSION-STATE.md'), 'utf8');
    expect(st).toContain('decided on a');
    expect(st).toContain('decided on b');
    noMarkers(b!.root);
  });
});

describe('killing sync as a process', () => {
  it('a person can still use plain git: nothing memtier leaves in .git blocks "git status"', async () => {
    const { ms: [a] } = await machines(1);
    await a!.run(['add', '--type', 'EVENT', 'x']);
    await syncOk(a!);
    expect(execFileSync('git', ['-C', a!.root, 'status', '--porcelain'], { encoding: 'utf8' })).toBe('');
    expect(readdirSync(join(a!.root, '.git')).filter((n) => n.startsWith('memtier-sync-index'))).toEqual([]);
  });
});

describe('memtier sync: what a synced machine cannot do here (SECURITY.md)', () => {
  it('a .memtier/ file another machine force-committed (watch.json, the index) is never written here; a symbolic link in its tree arrives as a plain file', async () => {
    const { ms: [a, b, c] } = await machines(3);
    // b is hostile: it commits state files of its own and a link to a file outside the memory
    const { mkdirSync, symlinkSync, lstatSync } = await import('node:fs');
    mkdirSync(join(b!.root, '.memtier'), { recursive: true });
    writeFileSync(join(b!.root, '.memtier/watch.json'), JSON.stringify({ socket: '/tmp/not-yours.sock', root: a!.root }));
    symlinkSync('/etc/passwd', join(b!.root, 'memory/semantic/passwd.md'));
    g(b!.root, 'add', '-f', '.memtier/watch.json', 'memory/semantic/passwd.md');
    g(b!.root, 'commit', '-qm', 'hostile');
    g(b!.root, 'push', '-q', 'origin', 'main');
    await a!.run(['add', '--type', 'EVENT', 'laptop entry']);
    const j = await syncOk(a!);
    expect(j).toBeDefined();
    expect(existsSync(join(a!.root, '.memtier/watch.json'))).toBe(false);
    const st = lstatSync(join(a!.root, 'memory/semantic/passwd.md'));
    expect(st.isSymbolicLink()).toBe(false);
    expect(readFileSync(join(a!.root, 'memory/semantic/passwd.md'), 'utf8')).toBe('/etc/passwd');
    // the memory still works here: a search does not ask the planted server
    const s = await a!.run(['search', 'laptop']);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/laptop entry/);
    // the next sync settles it: this machine's commit drops the planted state file and the link
    await syncOk(a!);
    expect(execFileSync('git', ['-C', a!.root, 'status', '--porcelain'], { encoding: 'utf8' })).toBe('');
    expect(g(a!.root, 'ls-files', '.memtier')).toBe('');
    expect(g(a!.root, 'ls-files', '-s', 'memory/semantic/passwd.md')).toMatch(/^100644 /);
    // a machine with nothing of its own to merge (a fast-forward) takes the cleaned tree too
    await syncOk(c!);
    expect(existsSync(join(c!.root, '.memtier/watch.json'))).toBe(false);
    expect(execFileSync('git', ['-C', c!.root, 'status', '--porcelain'], { encoding: 'utf8' })).toBe('');
  });

  it('a fast-forward to a tree holding another machine\'s .memtier/ is a merge that leaves it out', async () => {
    const { ms: [a, b] } = await machines(2);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(b!.root, '.memtier'), { recursive: true });
    writeFileSync(join(b!.root, '.memtier/watch.json'), '{"socket":"/tmp/x.sock"}');
    g(b!.root, 'add', '-f', '.memtier/watch.json');
    g(b!.root, 'commit', '-qm', 'hostile');
    g(b!.root, 'push', '-q', 'origin', 'main');
    await syncOk(a!); // a has nothing new: without the check this is a fast-forward
    expect(existsSync(join(a!.root, '.memtier/watch.json'))).toBe(false);
    expect(g(a!.root, 'ls-files', '.memtier')).toBe('');
    expect(execFileSync('git', ['-C', a!.root, 'status', '--porcelain'], { encoding: 'utf8' })).toBe('');
  });
});

describe('memtier sync: a day moved on one machine, changed in place and moved on the other', () => {
  // the three-machine chaos run, seed 3662316881: both machines archived a day; one of them later
  // got an entry of that day written back to episodic/ (a file of that entry alone); the merge took
  // the other's move of episodic/DAY.md for both and dropped the changed file, and the entry with it
  it('an entry in the old file one side changed and the other moved stays, once', async () => {
    const { ms: [a, b] } = await machines(2);
    const day = 'memory/episodic/2026-07-08.md';
    const arch = 'memory/archive/2026/07/2026-07-08.md';
    const line = (id: string, t: string): string => `- 09:00 [EVENT] ${t} ^${id}`;
    const { mkdirSync, rmSync } = await import('node:fs');
    writeFileSync(join(b!.root, day), `# 2026-07-08\n\n${line('dayentry01', 'first')}\n${line('dayentry02', 'second')}\n${line('lateentry9', 'the late one')}\n`);
    g(b!.root, 'add', day);
    g(b!.root, 'commit', '-qm', 'the day');
    g(b!.root, 'push', '-q', 'origin', 'main');
    await syncOk(a!);
    // a: archives the whole day (a move)
    mkdirSync(join(a!.root, 'memory/archive/2026/07'), { recursive: true });
    g(a!.root, 'mv', day, arch);
    g(a!.root, 'commit', '-qm', 'archive the day');
    // b: archived it before the late entry reached it, then got the entry back in episodic/
    mkdirSync(join(b!.root, 'memory/archive/2026/07'), { recursive: true });
    writeFileSync(join(b!.root, arch), `# 2026-07-08\n\n${line('dayentry01', 'first')}\n${line('dayentry02', 'second')}\n`);
    writeFileSync(join(b!.root, day), `${line('lateentry9', 'the late one')}\n`);
    g(b!.root, 'add', arch, day);
    g(b!.root, 'commit', '-qm', 'archive, then the late entry');
    g(b!.root, 'push', '-q', 'origin', 'main');
    rmSync(join(a!.root, '.memtier'), { recursive: true, force: true });
    await syncOk(a!);
    await syncOk(b!);
    for (const m of [a!, b!]) {
      for (const id of ['dayentry01', 'dayentry02', 'lateentry9']) expect(linesWith(m.root, id), `${m.name} ${id}`).toHaveLength(1);
    }
  });

  // chaos, seed 1012035210: both machines archived one day, one to DAY.md and the other to
  // DAY-2.md plus a DAY.md of its own (another entry of that day archived); the merge dropped that
  // DAY.md as the other's rename target
  it('a day both machines moved to different names, one of them also making a file at the other\'s name: every entry stays, once', async () => {
    const { ms: [a, b] } = await machines(2);
    const day = 'memory/episodic/2026-06-07.md';
    const arch = 'memory/archive/2026/06/2026-06-07.md';
    const arch2 = 'memory/archive/2026/06/2026-06-07-2.md';
    const line = (id: string, t: string): string => `- 08:00 [EVENT] ${t} ^${id}`;
    const { mkdirSync, rmSync } = await import('node:fs');
    writeFileSync(join(b!.root, day), `# 2026-06-07\n\n${line('sameday001', 'one')}\n${line('sameday002', 'two')}\n`);
    g(b!.root, 'add', day);
    g(b!.root, 'commit', '-qm', 'the day');
    g(b!.root, 'push', '-q', 'origin', 'main');
    await syncOk(a!);
    for (const m of [a!, b!]) mkdirSync(join(m.root, 'memory/archive/2026/06'), { recursive: true });
    // a: the day to DAY-2.md, and a DAY.md of its own holding a late entry of that day
    g(a!.root, 'mv', day, arch2);
    writeFileSync(join(a!.root, arch), `# 2026-06-07\n\n${line('latearch01', 'late')}\n`);
    g(a!.root, 'add', arch);
    g(a!.root, 'commit', '-qm', 'archive');
    // b: the day to DAY.md
    g(b!.root, 'mv', day, arch);
    g(b!.root, 'commit', '-qm', 'archive');
    g(b!.root, 'push', '-q', 'origin', 'main');
    rmSync(join(a!.root, '.memtier'), { recursive: true, force: true });
    await syncOk(a!);
    await syncOk(b!);
    for (const m of [a!, b!]) {
      for (const id of ['sameday001', 'sameday002', 'latearch01']) expect(linesWith(m.root, id), `${m.name} ${id}`).toHaveLength(1);
    }
  });

  // chaos, seed 1153474183: one machine archived a day (a move); the other still had the day in
  // episodic/, untouched, and a file of its own at the archive's name: its entries of the day were
  // read as removed by it (they were in no file of the merge's plan on its side) and lost
  it('a day one machine moved while the other kept it where it was and made a file at the move\'s target: every entry stays, once', async () => {
    const { ms: [a, b] } = await machines(2);
    const day = 'memory/episodic/2026-06-25.md';
    const arch = 'memory/archive/2026/06/2026-06-25.md';
    const line = (id: string, t: string): string => `- 10:00 [EVENT] ${t} ^${id}`;
    const { mkdirSync, rmSync } = await import('node:fs');
    writeFileSync(join(b!.root, day), `# 2026-06-25\n\n${line('keptday001', 'one')}\n${line('keptday002', 'two')}\n`);
    g(b!.root, 'add', day);
    g(b!.root, 'commit', '-qm', 'the day');
    g(b!.root, 'push', '-q', 'origin', 'main');
    await syncOk(a!);
    for (const m of [a!, b!]) mkdirSync(join(m.root, 'memory/archive/2026/06'), { recursive: true });
    g(a!.root, 'mv', day, arch);
    g(a!.root, 'commit', '-qm', 'archive');
    writeFileSync(join(b!.root, arch), `# 2026-06-25\n\n${line('ownarch001', 'archived apart')}\n`);
    g(b!.root, 'add', arch);
    g(b!.root, 'commit', '-qm', 'a file at the archive name');
    g(b!.root, 'push', '-q', 'origin', 'main');
    rmSync(join(a!.root, '.memtier'), { recursive: true, force: true });
    await syncOk(a!);
    await syncOk(b!);
    for (const m of [a!, b!]) {
      for (const id of ['keptday001', 'keptday002', 'ownarch001']) expect(linesWith(m.root, id), `${m.name} ${id}`).toHaveLength(1);
    }
  });
});
