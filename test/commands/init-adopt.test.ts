import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { classify } from '../../lib/format/layout.js';
import { skeletonFiles, stampDates } from '../../lib/commands/init.js';
import { readTree, rmTree, runCli, SKELETON, tmpTree } from '../helpers.js';

const roots: string[] = [];
const tmp = (files: Record<string, string> = {}): string => { const r = tmpTree(files); roots.push(r); return r; };
afterAll(() => { for (const r of roots) rmTree(r); });

const json = (s: string): any => JSON.parse(s);

describe('the skeleton', () => {
  it('covers the file model, with WARM notes dated by the clock and tags on line 2', () => {
    const files = skeletonFiles('2026-05-15');
    const rels = files.map((f) => f.rel);
    for (const want of ['MEMORY.md', 'SESSION-STATE.md', 'todos.md', 'memory/working-buffer.md', 'TAGS.md', 'FORMAT.md',
      'memory/semantic/preferences.md', 'memory/semantic/decisions.md', 'memory/semantic/projects.md', 'memory/semantic/infrastructure.md',
      'memory/semantic/people.md', 'memory/semantic/references.md', 'memory/procedural/lessons-learned.md', 'knowledge/project-tracker.md',
      'memory/episodic/.gitkeep', 'memory/archive/.gitkeep', 'memory/scripts/wal']) expect(rels).toContain(want);
    // memtier's reference files sit at the root, beside MEMORY.md: memory indexers read memory/**
    expect(rels.filter((r) => r.startsWith('memory/') && /(?:^|\/)(?:TAGS|FORMAT)\.md$/.test(r))).toEqual([]);
    expect(files.find((f) => f.rel === 'FORMAT.md')!.content).toBe(readFileSync(join(SKELETON, 'FORMAT.md'), 'utf8'));
    for (const f of files) {
      const kind = classify(f.rel).kind;
      if (kind === 'semantic' || kind === 'procedural' || kind === 'knowledge') {
        const lines = f.content.split('\n');
        expect(lines[0], f.rel).toBe('---');
        expect(lines[1], f.rel).toMatch(/^tags: \[[a-z, -]+\]$/);
        expect(f.content, f.rel).toMatch(/^last_verified: 2026-05-15$/m);
        expect(f.content, f.rel).toMatch(/^created: 2026-05-15$/m);
        expect(f.content, f.rel).toMatch(/^type: \S+$/m);
      }
    }
    const memory = files.find((f) => f.rel === 'MEMORY.md')!.content;
    expect(memory.split('\n').length).toBeLessThanOrEqual(60);
    for (const l of memory.split('\n')) if (l.startsWith('- [')) expect([...l].length).toBeLessThan(150);
    expect(memory).toMatch(/^## Active decisions$/m);
    expect(memory).toMatch(/^## Open questions$/m);
    const state = files.find((f) => f.rel === 'SESSION-STATE.md')!.content;
    for (const s of ['Current Task', 'Key Context', 'Recent Decisions', 'Pending', 'Blockers', 'Done']) expect(state).toContain(`## ${s}\n`);
    expect(files.find((f) => f.rel === 'memory/working-buffer.md')!.content).toMatch(/^# Working buffer\n/);
    expect(files.find((f) => f.rel === 'memory/scripts/wal')!.executable).toBe(true);
  });

  it('stamps only frontmatter dates', () => {
    const t = '---\ntags: [x]\ncreated: 2026-01-01\nlast_verified: 2026-01-01\n---\nlast_verified: 2020-01-01\n';
    expect(stampDates(t, '2026-05-15')).toBe('---\ntags: [x]\ncreated: 2026-05-15\nlast_verified: 2026-05-15\n---\nlast_verified: 2020-01-01\n');
  });
});

describe('memtier init', () => {
  it('creates a memory, then keeps everything on a second run (idempotent)', async () => {
    const root = join(tmp(), 'mem');
    const r1 = await runCli(['init', root, '--json']);
    expect(r1.code, r1.stderr).toBe(0);
    const j1 = json(r1.stdout);
    expect(j1.kept).toEqual([]);
    expect(j1.created).toContain('MEMORY.md');
    expect(j1.created).toContain('FORMAT.md');
    expect(readFileSync(join(root, 'FORMAT.md'), 'utf8')).toBe(readFileSync(join(SKELETON, 'FORMAT.md'), 'utf8'));
    expect(statSync(join(root, 'memory/scripts/wal')).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(root, 'memory/semantic/people.md'), 'utf8')).toContain('last_verified: 2026-05-15');
    const before = readTree(root);
    const r2 = await runCli(['init', root, '--json']);
    expect(r2.code).toBe(0);
    const j2 = json(r2.stdout);
    expect(j2.created).toEqual([]);
    expect(j2.kept.sort()).toEqual(j1.created.sort());
    expect(readTree(root)).toEqual(before);
  });

  it('never overwrites an existing file (bytes identical) and fills in the rest', async () => {
    const mine = '# My memory\n\n- my own line, not the skeleton\n';
    const root = tmp({ 'MEMORY.md': mine, 'TAGS.md': '- mine: a, b\n' });
    const r = await runCli(['init', root, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = json(r.stdout);
    expect(j.kept.sort()).toEqual(['MEMORY.md', 'TAGS.md']);
    expect(j.created).toContain('SESSION-STATE.md');
    expect(readFileSync(join(root, 'MEMORY.md'), 'utf8')).toBe(mine);
    expect(readFileSync(join(root, 'TAGS.md'), 'utf8')).toBe('- mine: a, b\n');
  });

  it('on an empty folder puts TAGS.md and FORMAT.md at the root, and nothing of that name under memory/', async () => {
    const root = join(tmp(), 'mem');
    const r = await runCli(['init', root, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout).created).toEqual(expect.arrayContaining(['TAGS.md', 'FORMAT.md']));
    const tree = readTree(root);
    expect(tree['TAGS.md']).toBe(readFileSync(join(SKELETON, 'TAGS.md'), 'utf8'));
    expect(tree['FORMAT.md']).toBe(readFileSync(join(SKELETON, 'FORMAT.md'), 'utf8'));
    expect(Object.keys(tree).filter((k) => k.startsWith('memory/') && /\/(?:TAGS|FORMAT)\.md$/i.test(k))).toEqual([]);
    // MEMORY.md points at them where they are; health finds every link and nothing to move
    expect(tree['MEMORY.md']).toContain('- [Tags](TAGS.md) — the frozen tag vocabulary\n');
    expect(tree['MEMORY.md']).toContain('Format: FORMAT.md -->');
    const h = json((await runCli(['health', '--root', root, '--only', 'meta-files,decision-links', '--json'])).stdout);
    expect(h.findings).toEqual([]);
    // a memory file for get (its allow-list)
    const g = await runCli(['get', 'TAGS.md', '--root', root]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout).toContain('- tech: infrastructure');
  });

  it('on a memory made before TAGS.md and FORMAT.md moved keeps memory/TAGS.md and memory/FORMAT.md and adds no second copy at the root', async () => {
    const mine = '# Tags\n\n- mine: a, b\n';
    const root = tmp({ 'MEMORY.md': '# Memory\n', 'memory/TAGS.md': mine, 'memory/FORMAT.md': '# an older contract\n' });
    const j = json((await runCli(['init', root, '--json'])).stdout);
    expect(j.kept.sort()).toEqual(['MEMORY.md', 'memory/FORMAT.md', 'memory/TAGS.md']);
    expect(j.created).not.toContain('TAGS.md');
    expect(j.created).not.toContain('FORMAT.md');
    expect(existsSync(join(root, 'TAGS.md'))).toBe(false);
    expect(existsSync(join(root, 'FORMAT.md'))).toBe(false);
    expect(readFileSync(join(root, 'memory/TAGS.md'), 'utf8')).toBe(mine);
  });

  it('in an OpenClaw workspace keeps SOUL.md, USER.md and the daily files', async () => {
    const ws = { 'SOUL.md': '# Soul\nbe kind\n', 'USER.md': '# User\nAna\n', 'AGENTS.md': 'rules\n', 'memory/2026-05-14.md': '# 2026-05-14\n- talked to Ana about the NAS\n', 'MEMORY.md': '# Memory\n- Ana runs the NAS\n' };
    const root = tmp(ws);
    const r = await runCli(['init'], { env: { OPENCLAW_WORKSPACE: root } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('created');
    const tree = readTree(root);
    for (const [k, v] of Object.entries(ws)) expect(tree[k]).toBe(v);
    expect(tree['memory/working-buffer.md']).toBeDefined();
  });

  it('defaults to the resolved root and refuses a file as the folder', async () => {
    const base = tmp({ 'afile': 'x' });
    const r = await runCli(['init', join(base, 'afile')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a folder');
    const r2 = await runCli(['init', '--json'], { env: { MEMTIER_ROOT: join(base, 'viaenv') } });
    expect(r2.code, r2.stderr).toBe(0);
    expect(existsSync(join(base, 'viaenv', 'MEMORY.md'))).toBe(true);
  });

  const hasGit = !spawnSync('git', ['--version']).error;
  it.skipIf(!hasGit)('--git: a repository with .gitignore and the merge=memtier .gitattributes (never union: it brings back what one machine removed); existing files only completed', async () => {
    const root = tmp({ '.gitignore': 'node_modules/\n' });
    const r = await runCli(['init', root, '--git', '--json'], { env: { MEMTIER_GIT: 'off', PATH: process.env.PATH } });
    expect(r.code, r.stderr).toBe(0);
    const j = json(r.stdout);
    expect(j.git).toMatchObject({ initialized: true, gitignore: 'updated', gitattributes: 'created' });
    expect(existsSync(join(root, '.git'))).toBe(true);
    const gi = readFileSync(join(root, '.gitignore'), 'utf8');
    expect(gi.startsWith('node_modules/\n')).toBe(true);
    expect(gi).toContain('.memtier/');
    const ga = readFileSync(join(root, '.gitattributes'), 'utf8');
    expect(ga).toContain('memory/working-buffer.md merge=memtier');
    expect(ga).toContain('memory/episodic/*.md merge=memtier');
    expect(ga).toContain('memory/archive/**/*.md merge=memtier');
    expect(ga).toContain('SESSION-STATE.md merge=memtier');
    expect(ga).not.toContain('merge=union');
    expect(spawnSync('git', ['config', 'merge.memtier.driver'], { cwd: root, encoding: 'utf8' }).stdout).toMatch(/memtier\.js' merge-driver %O %A %B %P/);
    const check = spawnSync('git', ['check-attr', 'merge', 'memory/2026-05-14.md', 'memory/episodic/2026-05-14.md', 'TAGS.md'], { cwd: root, encoding: 'utf8' });
    // a person's dated note is prose: git's own merge, never union
    expect(check.stdout).toContain('memory/2026-05-14.md: merge: unspecified');
    expect(check.stdout).toContain('memory/episodic/2026-05-14.md: merge: memtier');
    expect(check.stdout).toContain('TAGS.md: merge: unspecified');
    const again = json((await runCli(['init', root, '--git', '--json'], { env: { MEMTIER_GIT: 'off', PATH: process.env.PATH } })).stdout);
    expect(again.git).toMatchObject({ initialized: false, already: true, gitignore: 'kept', gitattributes: 'kept' });
  });

  it('--git without git on PATH says so and changes nothing', async () => {
    const root = join(tmp(), 'm');
    const r = await runCli(['init', root, '--git'], { env: { PATH: '/nonexistent' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('git is not installed');
    expect(existsSync(join(root, 'MEMORY.md'))).toBe(false);
  });
});

describe('memtier adopt', () => {
  const day = '# 2026-05-14\n- talked to Ana about the NAS\n';
  it('moves OpenClaw daily files into memory/episodic/, keeping both on a collision', async () => {
    const root = tmp({
      'MEMORY.md': '# Memory\n',
      'memory/2026-05-14.md': day,
      'memory/2026-05-13-standup.md': '- standup notes\n',
      'memory/episodic/2026-05-14.md': '# 2026-05-14\n- 09:00 [EVENT] already here ^aaaaaaaaaa\n',
      'memory/ideas.md': 'loose note\n',
      'memory/semantic/nas.md': '# NAS\nno frontmatter\n',
      'memory/semantic/ok.md': '---\ntags: [samba]\n---\n# ok\n',
      // yesterday's note (the clock says 2026-05-20): the host may still write it, it stays
      'memory/2026-05-19.md': '- yesterday\n',
    });
    const NOW = ['--now', '2026-05-20T12:00:00Z'];
    const dry = await runCli(['adopt', '--dry-run', '--json', '--root', root, ...NOW]);
    expect(dry.code, dry.stderr).toBe(0);
    const jd = json(dry.stdout);
    expect(jd.dryRun).toBe(true);
    expect(jd.moves).toEqual([
      { from: 'memory/2026-05-13-standup.md', to: 'memory/episodic/2026-05-13-standup.md', renamed: false },
      { from: 'memory/2026-05-14.md', to: 'memory/episodic/2026-05-14-2.md', renamed: true },
    ]);
    expect(jd.left).toEqual(['memory/2026-05-19.md']);
    expect(existsSync(join(root, 'memory/2026-05-14.md'))).toBe(true);

    const r = await runCli(['adopt', '--root', root, ...NOW]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('memory/2026-05-14.md → memory/episodic/2026-05-14-2.md');
    expect(r.stdout).toContain('memory/ideas.md');
    const tree = readTree(root);
    expect(tree['memory/2026-05-14.md']).toBeUndefined();
    expect(tree['memory/episodic/2026-05-14-2.md']).toBe(day);
    expect(tree['memory/episodic/2026-05-14.md']).toContain('already here');
    expect(tree['memory/episodic/2026-05-13-standup.md']).toBe('- standup notes\n');
    expect(tree['memory/ideas.md']).toBe('loose note\n');
    expect(tree['memory/2026-05-19.md']).toBe('- yesterday\n');
    expect(tree['memory/semantic/nas.md']).toBe('# NAS\nno frontmatter\n');

    const again = json((await runCli(['adopt', '--json', '--root', root])).stdout);
    expect(again.moves).toEqual([]);
    expect(again.untyped).toEqual(['memory/ideas.md', 'memory/semantic/nas.md']);
  });

  it('with nothing to adopt says so', async () => {
    const root = tmp({ 'MEMORY.md': '# Memory\n' });
    const r = await runCli(['adopt', '--root', root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no OpenClaw daily files');
    expect(readdirSync(root)).toEqual(expect.arrayContaining(['MEMORY.md']));
  });

  it('never moves a symlinked daily file', async () => {
    const root = tmp({ 'MEMORY.md': '# M\n', 'outside.md': 'x\n' });
    const { symlinkSync, mkdirSync } = await import('node:fs');
    mkdirSync(join(root, 'memory'));
    symlinkSync(join(root, 'outside.md'), join(root, 'memory/2026-05-01.md'));
    const r = json((await runCli(['adopt', '--json', '--root', root])).stdout);
    expect(r.moves).toEqual([]);
    writeFileSync(join(root, 'keep'), '');
  });
});

describe('notes outside the memory (a folder of someone\'s own notes)', () => {
  const vault = (): string => tmp({
    'Daily/2026-05-12.md': '# 2026-05-12 Tuesday\n\nMet Priya about the blog.\nWe decided to go with Astro for the marketing site, static output.\n',
    'Daily/2026-05-13.md': '# 2026-05-13\n\n决定明天上线新版官网。\n',
    'People/Priya.md': '# Priya\n\nContent lead.\n',
    'Ideas.md': '# Ideas\n\nTry Bun.\n',
    'AGENTS.md': '# instructions for the agent\n',
    'README.md': '# my vault\n',
    'skills/x/SKILL.md': '# a skill\n',
  });

  it('init and adopt say which are not read and how to bring them in; host files, README and skills/ are not counted', async () => {
    const root = vault();
    const r = await runCli(['init', root, '--json']);
    expect(r.code).toBe(0);
    expect(json(r.stdout).outside).toEqual([
      { dir: '.', files: 1, example: 'Ideas.md' },
      { dir: 'Daily', files: 2, example: 'Daily/2026-05-12.md' },
      { dir: 'People', files: 1, example: 'People/Priya.md' },
    ]);
    const text = (await runCli(['init', root])).stdout;
    expect(text).toContain('4 markdown notes here are not part of the memory, so search, recall and health do not read them: the root (1), Daily/ (2), People/ (1)');
    expect(text).toContain('mv Daily People memory/');
    const a = await runCli(['adopt', '--dry-run', '--json'], { env: { MEMTIER_ROOT: root } });
    expect(json(a.stdout).outside.map((f: { dir: string }) => f.dir)).toEqual(['.', 'Daily', 'People']);
    // nothing of theirs moved or changed
    expect(readFileSync(join(root, 'Daily/2026-05-12.md'), 'utf8')).toContain('We decided to go with Astro');
  });

  it('moved into memory/, they are searched, and review reads a dated note as its day (relative dates against that day)', async () => {
    const root = vault();
    await runCli(['init', root]);
    spawnSync('mv', [join(root, 'Daily'), join(root, 'People'), join(root, 'memory') + '/']);
    expect(classify('memory/Daily/2026-05-12.md')).toMatchObject({ kind: 'note', tier: 'warm', date: '2026-05-12' });
    // named as daily-notes apps name them
    expect(classify('memory/Daily/2026-05-12 Tuesday.md')).toMatchObject({ kind: 'note', date: '2026-05-12' });
    expect(classify('memory/Journal/2026/05/2026-05-12_standup.md')).toMatchObject({ kind: 'note', date: '2026-05-12' });
    expect(classify('memory/Daily/Tuesday 2026-05-12.md').date).toBeUndefined();
    expect(classify('memory/Daily/2026-05-123.md').date).toBeUndefined();
    const init2 = json((await runCli(['init', root, '--json'])).stdout);
    expect(init2.outside).toEqual([{ dir: '.', files: 1, example: 'Ideas.md' }]);
    const s = json((await runCli(['search', 'astro marketing', '--json'], { env: { MEMTIER_ROOT: root } })).stdout);
    expect(s.results[0].path).toBe('memory/Daily/2026-05-12.md');
    const rv = json((await runCli(['review', '--dry-run', '--json'], { env: { MEMTIER_ROOT: root } })).stdout);
    const found = JSON.stringify(rv);
    expect(found).toContain('We decided to go with Astro for the marketing site');
    expect(found).toContain('决定明天 (2026-05-14)上线新版官网');
    expect(found).toContain('(from memory/Daily/2026-05-13.md#L3)');
  });
});
