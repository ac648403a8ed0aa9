import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findEntry, forgetEntry, supersedeEntry } from '../../lib/lifecycle/entries.js';
import { parseEntries } from '../../lib/format/entry.js';
import { readTree, runCli, testCtx, tmpTree } from '../helpers.js';

const DAY = 'memory/episodic/2026-05-10.md';
const TODAY = 'memory/episodic/2026-05-15.md';

function memory(): string {
  return tmpTree({
    'MEMORY.md': '# Memory\n',
    [DAY]: '# 2026-05-10\n\n- 09:00 [TECH] the API lives at api.old.example #api ^apiold0001\n- 10:00 [EVENT] lunch with Ana ^lunch00001\n',
    'memory/semantic/infrastructure.md': '# Infrastructure\n\n- db: MySQL 8 ^dbmysql001\n- cache: redis\n',
    'memory/working-buffer.md': '# Working buffer\n\n- 2026-05-14 11:00 [PREF] likes tea ^dup0000001\n',
    'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 11:00 [PREF] likes green tea ^dup0000001\n',
  });
}

describe('findEntry', () => {
  it('finds by ^id, bare id, path:line and a citation; refuses missing and ambiguous with candidates', () => {
    const root = memory();
    const ctx = testCtx(root);
    expect(findEntry(ctx, '^apiold0001').line).toBe(3);
    expect(findEntry(ctx, 'apiold0001').path).toBe(DAY);
    expect(findEntry(ctx, `${DAY}:4`).entry.id).toBe('lunch00001');
    expect(findEntry(ctx, `${DAY}#L4`).entry.id).toBe('lunch00001');
    expect(findEntry(ctx, join(root, DAY) + ':3').entry.id).toBe('apiold0001');
    expect(() => findEntry(ctx, '^nothere001')).toThrow(/no entry has the id/);
    let err: any;
    try { findEntry(ctx, '^dup0000001'); } catch (e) { err = e; }
    expect(err.code).toBe('ambiguous');
    expect(err.hint).toContain('memory/working-buffer.md:3');
    expect(err.hint).toContain('memory/episodic/2026-05-14.md:3');
    try { findEntry(ctx, `${DAY}:1`); } catch (e) { err = e; }
    expect(err.code).toBe('not-found');
    expect(err.hint).toContain(`${DAY}:3`);
  });
});

describe('supersede', () => {
  it('strikes the old line, appends the new entry of the same type to today, and a second run changes nothing', async () => {
    const root = memory();
    const r = await runCli(['supersede', '^apiold0001', '--by', 'the API moved to api.new.example', '--root', root, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    const t = readTree(root);
    const newId = j.by.id as string;
    expect(t[DAY]!.split('\n')[2]).toBe(`- ~~09:00 [TECH] the API lives at api.old.example #api~~ superseded by ^${newId} ^apiold0001`);
    const added = parseEntries(t[TODAY]!).find((e) => e.id === newId)!;
    expect(added.type).toBe('TECH');
    expect(added.text).toBe('the API moved to api.new.example');
    expect(added.time).toBe('14:30');
    const old = parseEntries(t[DAY]!).find((e) => e.id === 'apiold0001')!;
    expect(old.superseded).toBe(true);
    expect(old.supersededBy).toBe(newId);

    const again = await runCli(['supersede', '^apiold0001', '--by', 'the API moved to api.new.example', '--root', root]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already superseded by \^/);
    expect(readTree(root)).toEqual(t);
    const other = await runCli(['supersede', '^apiold0001', '--by', 'something else', '--root', root]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`supersede ^${newId}`);
  });

  it('in a durable note the new line goes right below the old one (the fact keeps its home); --type overrides', () => {
    const root = memory();
    const r = supersedeEntry(testCtx(root), 'memory/semantic/infrastructure.md:3', { by: 'db: PostgreSQL 16', type: 'TECH' });
    const lines = readTree(root)['memory/semantic/infrastructure.md']!.split('\n');
    expect(lines[2]).toBe(`- ~~db: MySQL 8~~ superseded by ^${r.by.id} ^dbmysql001`);
    expect(lines[3]).toBe(`- 2026-05-15 14:30 [TECH] db: PostgreSQL 16 ^${r.by.id}`);
    expect(lines[4]).toBe('- cache: redis');
    expect(readTree(root)[TODAY]).toBeUndefined();
  });

  it('an entry without an id gets one; --by ^ID marks against an existing entry; --dry-run writes nothing', () => {
    const root = memory();
    const ctx = testCtx(root);
    const before = readTree(root);
    const dry = supersedeEntry(ctx, 'memory/semantic/infrastructure.md:4', { by: '^lunch00001', dryRun: true });
    expect(dry.changed).toBe(true);
    expect(readTree(root)).toEqual(before);
    const r = supersedeEntry(ctx, 'memory/semantic/infrastructure.md:4', { by: '^lunch00001' });
    expect(r.by.created).toBe(false);
    const line = readTree(root)['memory/semantic/infrastructure.md']!.split('\n')[3]!;
    expect(line).toMatch(/^- ~~cache: redis~~ superseded by \^lunch00001 \^[a-z0-9]{12}$/);
    expect(() => supersedeEntry(ctx, '^apiold0001', { by: '^apiold0001' })).toThrow(/itself/);
  });

  it('a hand edit between reading and writing is a conflict and the file stays as the person left it', async () => {
    const root = memory();
    const ctx = testCtx(root);
    // Simulate the edit landing after the lookup: the store refuses because the text changed.
    const store = await import('../../lib/store/store.js');
    const orig = store.Store.prototype.mutate;
    const edited = '# 2026-05-10\n\n- 09:00 [TECH] the API lives at api.old.example #api ^apiold0001\n- 10:00 [EVENT] lunch with Ana and Bo ^lunch00001\n';
    store.Store.prototype.mutate = function (this: any, fn: any) {
      writeFileSync(join(root, DAY), edited);
      return orig.call(this, fn);
    };
    let err: any;
    try { supersedeEntry(ctx, '^apiold0001', { by: 'new api' }); } catch (e) { err = e; } finally { store.Store.prototype.mutate = orig; }
    expect(err?.code).toBe('conflict');
    const t = readTree(root);
    expect(t[DAY]).toBe(edited);
    expect(t[TODAY]).toBeUndefined();
  });
});

describe('forget', () => {
  it('removes the line, saves it with its origin in .trash/forgotten, and a second run says it is already forgotten', async () => {
    const root = memory();
    const r = await runCli(['forget', '^lunch00001', '--root', root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/forgot memory\/episodic\/2026-05-10.md:4/);
    const t = readTree(root);
    expect(t[DAY]).toBe('# 2026-05-10\n\n- 09:00 [TECH] the API lives at api.old.example #api ^apiold0001\n');
    const saved = t['memory/.trash/forgotten/2026-05-15.md']!;
    expect(saved).toContain('## 14:30 from memory/episodic/2026-05-10.md:4\n- 10:00 [EVENT] lunch with Ana ^lunch00001\n');
    const again = await runCli(['forget', '^lunch00001', '--root', root, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).changed).toBe(false);
    expect(readTree(root)).toEqual(t);
  });

  it('refuses an ambiguous id and a missing one; --dry-run writes nothing; a concurrent edit is a conflict', async () => {
    const root = memory();
    const before = readTree(root);
    // one id on two lines that say different things is not one entry: refused with the places
    const amb = await runCli(['forget', '^dup0000001', '--root', root]);
    expect(amb.code).toBe(2);
    expect(amb.stderr).toContain('memory/working-buffer.md:3');
    const miss = await runCli(['forget', '^nope000001', '--root', root]);
    expect(miss.code).toBe(2);
    const dry = await runCli(['forget', 'memory/episodic/2026-05-14.md:3', '--dry-run', '--root', root]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/would forget/);
    expect(readTree(root)).toEqual(before);

    const store = await import('../../lib/store/store.js');
    const orig = store.Store.prototype.mutate;
    const edited = before[DAY]! + '- 12:00 [EVENT] added by hand\n';
    store.Store.prototype.mutate = function (this: any, fn: any) {
      writeFileSync(join(root, DAY), edited);
      return orig.call(this, fn);
    };
    let err: any;
    try { forgetEntry(testCtx(root), '^lunch00001'); } catch (e) { err = e; } finally { store.Store.prototype.mutate = orig; }
    expect(err?.code).toBe('conflict');
    expect(readTree(root)[DAY]).toBe(edited);
    expect(readTree(root)['memory/.trash/forgotten/2026-05-15.md']).toBeUndefined();
  });

  it('says which superseded lines still point at a forgotten entry', () => {
    const root = memory();
    const ctx = testCtx(root);
    const r = supersedeEntry(ctx, '^apiold0001', { by: 'the API moved to api.new.example' });
    const f = forgetEntry(ctx, `^${r.by.id}`);
    expect(f.pointedFrom).toEqual([`${DAY}:3`]);
    expect(f.message).toContain(`still say "superseded by ^${r.by.id}"`);
  });
});
