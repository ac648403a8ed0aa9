/**
 * The trash (issue 18): save first, remove second (a trash that is a file or a link stops every
 * removal with nothing removed, a SIGKILL between the save and the removal loses nothing),
 * `memtier trash list|restore|purge`, the retention step of `consolidate`, and `forget --purge`.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTree, runBin, runCli, testCtx, tmpTree, writeTree } from '../helpers.js';
import { openStore } from '../../lib/store/store.js';

const cli = (root: string, args: string[], env: NodeJS.ProcessEnv = {}) => runCli([...args, '--root', root], { env: { MEMTIER_WATCH: 'off', MEMTIER_GIT: 'off', ...env } });
const idOf = (stdout: string): string => JSON.parse(stdout).id as string;
const read = (root: string, rel: string): string => readFileSync(join(root, rel), 'utf8');
const notTrash = (t: Record<string, string>) => Object.fromEntries(Object.entries(t).filter(([p]) => !p.startsWith('memory/.trash/')));

async function fresh(): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root])).code).toBe(0);
  return root;
}

describe('save first, remove second', () => {
  it('forget with memory/.trash a file or a link: a clear error, nothing removed, nothing written through the link; health says why', async () => {
    for (const kind of ['file', 'link'] as const) {
      const root = await fresh();
      const id = idOf((await cli(root, ['wal', 'decide', 'use Caddy instead of nginx', '--json'])).stdout);
      const outside = tmpTree();
      if (kind === 'file') writeFileSync(join(root, 'memory/.trash'), 'not a folder\n');
      else symlinkSync(outside, join(root, 'memory/.trash'));
      const before = readTree(root);

      const r = await cli(root, ['forget', `^${id}`]);
      expect(r.code, kind).toBe(2);
      expect(r.stderr).toContain(`memory/.trash is ${kind === 'file' ? 'a file' : 'a symbolic link'}, not a folder`);
      expect(r.stderr).toContain('nothing was removed');
      expect(readTree(root)).toEqual(before);
      expect(readTree(outside)).toEqual({});

      const list = await cli(root, ['trash', 'list']);
      expect(list.code).toBe(2);
      expect(list.stderr).toContain('there is no trash to list');
      const h = await cli(root, ['health', '--json']);
      expect(h.code).toBe(1);
      expect(JSON.parse(h.stdout).findings).toContainEqual(expect.objectContaining({ check: 'trash', severity: 'fail', file: 'memory/.trash' }));
    }
  });

  it('fact forget and rotation refuse the same way; a WAL write still lands and says why the buffer did not rotate', async () => {
    const root = await fresh();
    const fact = JSON.parse((await cli(root, ['fact', 'add', 'Ana', 'owns', 'budget', '--json'])).stdout).fact.id as string;
    await cli(root, ['wal', 'decide', 'first decision']);
    writeFileSync(join(root, 'memory/.trash'), 'not a folder\n');
    const before = readTree(root);
    expect((await cli(root, ['fact', 'forget', `^${fact}`])).code).toBe(2);
    expect((await cli(root, ['rotate', '--force'])).code).toBe(2);
    expect(readTree(root)).toEqual(before);

    const w = await cli(root, ['wal', 'decide', 'second decision', '--json'], { MEMTIER_BUFFER_MAX_LINES: '2' });
    expect(w.code, w.stderr).toBe(0);
    expect(JSON.parse(w.stdout).rotationError).toContain('memory/.trash is a file');
    const buffer = read(root, 'memory/working-buffer.md');
    expect(buffer).toContain('first decision');
    expect(buffer).toContain('second decision');
    expect(existsSync(join(root, 'memory/.rotating'))).toBe(false);
  });

  it('SIGKILL between the save and the removal (crash point forget.after-save): the line is in both places; forget again finishes, one copy in the trash', async () => {
    const root = await fresh();
    const id = idOf((await cli(root, ['wal', 'decide', 'keep backups on the NAS', '--json'])).stdout);
    const env = { MEMTIER_WATCH: 'off', MEMTIER_GIT: 'off' };
    const killed = runBin(['forget', `^${id}`, '--root', root], { env: { ...env, MEMTIER_CRASH_AT: 'forget.after-save' } });
    expect(killed.code).toBe(128);
    const trashFile = 'memory/.trash/forgotten/2026-05-15.md';
    expect(read(root, trashFile)).toContain(`^${id}`);
    expect(read(root, 'memory/working-buffer.md')).toContain(`^${id}`);

    const again = await cli(root, ['forget', `^${id}`]);
    expect(again.code, again.stderr).toBe(0);
    expect(read(root, 'memory/working-buffer.md')).not.toContain(`^${id}`);
    expect(read(root, 'SESSION-STATE.md')).not.toContain('keep backups on the NAS');
    const kept = read(root, trashFile);
    expect(kept.split(`^${id}`).length - 1).toBe(1);
    expect(kept.split('- Recent Decisions: 2026-05-15 14:30 — keep backups on the NAS').length - 1).toBe(1);
  });

  it('the store deletes only inside memory/.trash/', () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n', 'memory/.trash/x/a.md': 'a\n' });
    const store = openStore(testCtx(root));
    expect(() => store.mutate((tx) => tx.purge('MEMORY.md'))).toThrow(/only what is inside memory\/\.trash\/ can be deleted/);
    expect(() => store.mutate((tx) => tx.purge('memory/.trash/../../MEMORY.md'))).toThrow(/only what is inside/);
    expect(store.mutate((tx) => tx.purge('memory/.trash/x/a.md'))).toBe(true);
    expect(existsSync(join(root, 'memory/.trash/x'))).toBe(false);
    expect(existsSync(join(root, 'memory/.trash'))).toBe(true);
    expect(read(root, 'MEMORY.md')).toBe('# M\n');
  });
});

describe('health: other tools\' leftovers', () => {
  it('--fix moves swap, backup and temp files to the trash; day files and lone NAME.<digits> files stay', async () => {
    const root = await fresh();
    const stale = { 'memory/semantic/.decisions.md.swp': 'vim', 'memory/semantic/decisions.md~': 'old', 'memory/semantic/decisions.md.48213': 'tmp', 'memory/.MEMORY.md.tmp': 'x', 'MEMORY.md.991': 'tmp' };
    const keep = { 'memory/2026-05-01.md': '# 2026-05-01\n\n- 09:00 a day file ^k2j3mx0a1b\n', 'memory/semantic/budget.2026': 'a file of its own\n', 'README.md~': 'not memtier\'s\n' };
    writeTree(root, { ...stale, ...keep });
    const old = new Date(Date.parse('2026-05-15T14:30:00Z') - 3_600_000);
    for (const p of Object.keys({ ...stale, ...keep })) utimesSync(join(root, p), old, old);

    const h = JSON.parse((await cli(root, ['health', '--json'])).stdout).findings as { check: string; file: string; severity: string }[];
    expect(h.filter((f) => f.check === 'leftovers').map((f) => f.file).sort()).toEqual(Object.keys(stale).sort());
    const fix = await cli(root, ['health', '--fix']);
    expect(fix.stdout).toContain('moved memory/semantic/.decisions.md.swp to memory/.trash/');
    const tree = readTree(root);
    for (const p of Object.keys(stale)) {
      expect(tree[p], p).toBeUndefined();
      expect(Object.keys(tree).some((t) => t.startsWith('memory/.trash/') && t.endsWith(`/${p}`)), p).toBe(true);
    }
    for (const [p, text] of Object.entries(keep)) expect(tree[p]).toBe(text);
  });
});

describe('memtier trash list|restore|purge and the retention of consolidate', () => {
  const items = {
    'memory/.trash/2026-04-01T120000/memory/semantic/old.md': '# Old\n',
    'memory/.trash/2026-05-10T120000/memory/semantic/recent.md': '# Recent\n',
    'memory/.trash/forgotten/2026-04-02.md': '# Forgotten 2026-04-02\n\n## 10:00 from memory/working-buffer.md:5\n- 2026-04-02 10:00 a line ^k2j3mx0a1b\n',
    'memory/.trash/torn/2026-04-03T010203-memory__working-buffer.md.txt': '- 2026-04-03 01:02 half a li\n',
  };

  it('list: every item with its kind, day and origin', async () => {
    const root = await fresh();
    writeTree(root, items);
    const r = await cli(root, ['trash', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.items.map((i: { name: string; kind: string; day: string; origin?: string }) => [i.name, i.kind, i.day, i.origin])).toEqual([
      ['2026-04-01T120000/memory/semantic/old.md', 'file', '2026-04-01', 'memory/semantic/old.md'],
      ['forgotten/2026-04-02.md', 'forgotten', '2026-04-02', undefined],
      ['torn/2026-04-03T010203-memory__working-buffer.md.txt', 'torn', '2026-04-03', 'memory/working-buffer.md'],
      ['2026-05-10T120000/memory/semantic/recent.md', 'file', '2026-05-10', 'memory/semantic/recent.md'],
    ]);
    expect(j.retentionDays).toBe(30);
    expect(j.due).toBe(3);
    expect((await cli(root, ['trash', 'list'])).stdout).toMatch(/4 items, \d+ bytes; retention 30 days: 3 past it/);
  });

  it('restore: back where it came from, never over a different file (--to restores beside); forgotten lines are refused with what to do', async () => {
    const root = await fresh();
    writeTree(root, { ...items, 'memory/semantic/old.md': '# Old, rewritten since\n' });
    const back = await cli(root, ['trash', 'restore', 'memory/.trash/2026-05-10T120000/memory/semantic/recent.md']);
    expect(back.code, back.stderr).toBe(0);
    expect(read(root, 'memory/semantic/recent.md')).toBe('# Recent\n');
    expect(existsSync(join(root, 'memory/.trash/2026-05-10T120000'))).toBe(true);

    const clash = await cli(root, ['trash', 'restore', '2026-04-01T120000/memory/semantic/old.md']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('memory/semantic/old.md exists and differs; nothing was overwritten');
    expect(clash.stderr).toContain('--to memory/semantic/old.restored.md');
    expect(read(root, 'memory/semantic/old.md')).toBe('# Old, rewritten since\n');
    expect((await cli(root, ['trash', 'restore', '2026-04-01T120000/memory/semantic/old.md', '--to', 'memory/semantic/old.restored.md'])).code).toBe(0);
    expect(read(root, 'memory/semantic/old.restored.md')).toBe('# Old\n');

    const forgotten = await cli(root, ['trash', 'restore', 'forgotten/2026-04-02.md']);
    expect(forgotten.code).toBe(2);
    expect(forgotten.stderr).toContain('memtier trash restore ^ID');
    const missing = await cli(root, ['trash', 'restore', '../MEMORY.md']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no item');
  });

  it('restore ^ID: a forgotten entry goes back to its file at its old line and leaves the trash; the WAL\'s state copy stays; a file holding it already is left alone', async () => {
    const root = await fresh();
    const ids = [];
    for (const t of ['first note about caddy', 'second note about caddy', 'third note']) ids.push(idOf((await cli(root, ['add', t, '--json'])).stdout));
    const decided = idOf((await cli(root, ['wal', 'decide', 'use Caddy instead of nginx', '--json'])).stdout);
    const before = notTrash(readTree(root));
    for (const id of [ids[1], decided]) expect((await cli(root, ['forget', `^${id}`])).code).toBe(0);
    expect(notTrash(readTree(root))).not.toEqual(before);

    const r = await cli(root, ['trash', 'restore', `^${ids[1]}`, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const day = Object.keys(before).find((p) => /^memory\/episodic\/\d{4}-\d{2}-\d{2}\.md$/.test(p))!;
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, id: ids[1], restored: [{ to: day, line: before[day]!.split('\n').findIndex((l) => l.endsWith(`^${ids[1]}`)) + 1 }] });
    expect(read(root, day)).toBe(before[day]);
    expect((await cli(root, ['trash', 'restore', `^${decided}`])).code).toBe(0);
    expect(read(root, 'memory/working-buffer.md')).toBe(before['memory/working-buffer.md']);
    const trash = Object.entries(readTree(root)).filter(([p]) => p.startsWith('memory/.trash/forgotten/')).map(([, t]) => t).join('\n');
    expect(trash).not.toContain(`^${ids[1]}`);
    expect(trash).not.toContain(`^${decided}`);
    expect(trash).toContain('from SESSION-STATE.md');

    const again = await cli(root, ['trash', 'restore', `^${ids[1]}`]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`no forgotten entry ^${ids[1]}`);

    // forgotten, then written again by hand: the file keeps its line, the trash its copy
    expect((await cli(root, ['forget', `^${ids[2]}`])).code).toBe(0);
    writeFileSync(join(root, day), read(root, day) + `- 09:00 third note, typed again ^${ids[2]}\n`);
    const kept = readTree(root);
    const left = await cli(root, ['trash', 'restore', `^${ids[2]}`, '--json']);
    expect(left.code, left.stderr).toBe(0);
    expect(JSON.parse(left.stdout)).toMatchObject({ restored: [], already: [day] });
    expect(readTree(root)).toEqual(kept);
  });

  it('purge: --older-than (dry run first), one ITEM; empty folders go, younger items stay', async () => {
    const root = await fresh();
    writeTree(root, items);
    const before = readTree(root);
    const dry = await cli(root, ['trash', 'purge', '--older-than', '30d', '--dry-run', '--json']);
    expect(JSON.parse(dry.stdout).purged.map((p: { name: string }) => p.name)).toEqual(['2026-04-01T120000/memory/semantic/old.md', 'forgotten/2026-04-02.md', 'torn/2026-04-03T010203-memory__working-buffer.md.txt']);
    expect(readTree(root)).toEqual(before);
    expect((await cli(root, ['trash', 'purge', '--older-than', '30d'])).code).toBe(0);
    expect(Object.keys(readTree(root)).filter((p) => p.startsWith('memory/.trash/'))).toEqual(['memory/.trash/2026-05-10T120000/memory/semantic/recent.md']);
    expect(existsSync(join(root, 'memory/.trash/2026-04-01T120000'))).toBe(false);
    expect((await cli(root, ['trash', 'purge', '2026-05-10T120000'])).code).toBe(0);
    expect(readdirSync(join(root, 'memory/.trash'))).toEqual([]);
    expect(notTrash(readTree(root))).toEqual(notTrash(before));
    expect((await cli(root, ['trash', 'purge'])).code).toBe(2);
  });

  it('consolidate deletes items past MEMTIER_TRASH_DAYS (reported), keeps them with "off", refuses a garbage value', async () => {
    const root = await fresh();
    writeTree(root, items);
    const off = await cli(root, ['consolidate', '--json'], { MEMTIER_TRASH_DAYS: 'off' });
    expect(JSON.parse(off.stdout).clean).toMatchObject({ purged: [], trashDays: null });
    const bad = await cli(root, ['consolidate'], { MEMTIER_TRASH_DAYS: 'soon' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('MEMTIER_TRASH_DAYS="soon" is not a number of days');
    const r = await cli(root, ['consolidate'], { MEMTIER_TRASH_DAYS: '43' });
    expect(r.stdout).toContain('6 clean: nothing past retention; delete 1 trash item older than 43 days');
    expect(existsSync(join(root, 'memory/.trash/2026-04-01T120000'))).toBe(false);
    expect(existsSync(join(root, 'memory/.trash/forgotten/2026-04-02.md'))).toBe(true);
    const again = await cli(root, ['consolidate']);
    expect(again.stdout).toContain('delete 2 trash items older than 30 days');
    expect(Object.keys(readTree(root)).filter((p) => p.startsWith('memory/.trash/'))).toEqual(['memory/.trash/2026-05-10T120000/memory/semantic/recent.md']);
  });
});

describe('forget --purge', () => {
  it('takes the line out of the memory and of the trash (the buffer copy rotation left there), keeps the other entries, and prints the git-history hint', async () => {
    const root = await fresh();
    mkdirSync(join(root, '.git'));
    const id = idOf((await cli(root, ['wal', 'decide', 'the staging password rotates monthly', '--json'])).stdout);
    const other = idOf((await cli(root, ['wal', 'decide', 'deploys on Tuesdays', '--json'])).stdout);
    expect((await cli(root, ['rotate', '--force'])).code).toBe(0);
    const trashed = () => Object.entries(readTree(root)).filter(([p]) => p.startsWith('memory/.trash/'));
    expect(trashed().some(([, t]) => t.includes(`^${id}`))).toBe(true);

    const r = await cli(root, ['forget', `^${id}`, '--purge']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('taken out of memory/.trash/ too');
    expect(r.stdout).toMatch(/removed 1 line from memory\/\.trash\/\d{4}-\d{2}-\d{2}T\d{6}\/memory\/\.rotating\/buffer-/);
    expect(r.stdout).toContain('git history still holds the line');
    expect(r.stdout).toContain(`git filter-repo --replace-text`);
    expect(r.stdout).toContain(`regex:[^\\n]*\\^${id}[^\\n]*\\n==>`);
    const all = Object.entries(readTree(root));
    expect(all.filter(([, t]) => t.includes(`^${id}`)).map(([p]) => p)).toEqual([]);
    expect(all.some(([p, t]) => p.startsWith('memory/.trash/') && t.includes(`^${other}`))).toBe(true);
    expect(existsSync(join(root, 'memory/.trash/forgotten'))).toBe(false);
  });

  it('of an entry already forgotten: its lines and state item leave the forgotten file; the other blocks stay', async () => {
    const root = await fresh();
    const id = idOf((await cli(root, ['wal', 'decide', 'drop the old VPN', '--json'])).stdout);
    const other = idOf((await cli(root, ['wal', 'decide', 'keep the new VPN', '--json'])).stdout);
    expect((await cli(root, ['forget', `^${id}`])).code).toBe(0);
    expect((await cli(root, ['forget', `^${other}`])).code).toBe(0);
    const r = await cli(root, ['forget', `^${id}`, '--purge']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('already forgotten');
    expect(r.stdout).not.toContain('git history');
    const kept = read(root, 'memory/.trash/forgotten/2026-05-15.md');
    expect(kept).not.toContain(`^${id}`);
    expect(kept).not.toContain('drop the old VPN');
    expect(kept).toContain(`^${other}`);
    expect(kept).toContain('- Recent Decisions: 2026-05-15 14:30 — keep the new VPN');
    expect(kept.match(/^## /gm)!.length).toBe(2);
  });
});
