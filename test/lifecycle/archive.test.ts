import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { addDays } from '../../lib/core/clock.js';
import { archiveDays, runArchive } from '../../lib/lifecycle/archive.js';
import { readTree, runCli, testCtx, tmpTree } from '../helpers.js';

const TODAY = '2026-05-15';

function fortyDays(): Record<string, string> {
  const files: Record<string, string> = { 'MEMORY.md': '# Memory\n' };
  for (let i = 0; i < 40; i++) {
    const d = addDays(TODAY, -i);
    files[`memory/episodic/${d}.md`] = `# ${d}\n- 09:00 [EVENT] day ${i} ^day${String(i).padStart(4, '0')}\n`;
  }
  files['memory/2026-04-01-openclaw-flush.md'] = '# flush\n- note from OpenClaw\n';
  files['memory/2026-05-10.md'] = '# recent legacy\n';
  files['memory/sessions/2026-03-01-abc.jsonl'] = '{}\n';
  files['memory/sessions/2026-05-01-def.jsonl'] = '{}\n';
  return files;
}

describe('archive', () => {
  it('moves exactly the episodic days older than 30 days, keeps content, and a second run changes nothing', async () => {
    const root = tmpTree(fortyDays());
    const before = readTree(root);
    const r = runArchive(testCtx(root));
    // days 31..39 are older than 30 days (day 30 = 2026-04-15 stays) + the legacy flush of 2026-04-01
    const moved = r.moved.map((m) => m.from).sort();
    const expected = [...Array.from({ length: 9 }, (_, k) => `memory/episodic/${addDays(TODAY, -(31 + k))}.md`), 'memory/2026-04-01-openclaw-flush.md'].sort();
    expect(moved).toEqual(expected);
    const after = readTree(root);
    for (const m of r.moved) {
      expect(after[m.from]).toBeUndefined();
      expect(after[m.to]).toBe(before[m.from]);
      expect(m.to).toMatch(/^memory\/archive\/2026\/0[34]\//);
    }
    expect(after['memory/episodic/2026-04-15.md']).toBeDefined();
    expect(after['memory/2026-05-10.md']).toBeDefined();
    expect(after['memory/archive/2026/04/2026-04-01-openclaw-flush.md']).toBe(before['memory/2026-04-01-openclaw-flush.md']);
    // retention: the old raw session file is trashed, the recent one kept
    expect(r.trashed.map((t) => t.rel)).toEqual(['memory/sessions/2026-03-01-abc.jsonl']);
    expect(existsSync(join(root, 'memory/sessions/2026-05-01-def.jsonl'))).toBe(true);
    expect(Object.keys(after).some((k) => k.startsWith('memory/.trash/') && k.endsWith('2026-03-01-abc.jsonl'))).toBe(true);

    const snapshot = readTree(root);
    const again = runArchive(testCtx(root));
    expect(again.changed).toBe(false);
    expect(again.message).toMatch(/nothing to archive/);
    expect(readTree(root)).toEqual(snapshot);
  });

  it('--dry-run lists the moves and writes nothing; --days changes the cutoff; --json reports', async () => {
    const root = tmpTree(fortyDays());
    const before = readTree(root);
    const dry = await runCli(['archive', '--root', root, '--dry-run', '--days', '35', '--json']);
    expect(dry.code).toBe(0);
    const j = JSON.parse(dry.stdout);
    expect(j.dryRun).toBe(true);
    expect(j.moved.length).toBe(5); // days 36..39 + the 2026-04-01 legacy flush (44 days)
    expect(readTree(root)).toEqual(before);
    const real = await runCli(['archive', '--root', root]);
    expect(real.code).toBe(0);
    expect(real.stdout).toMatch(/moved 10 episodic days/);
    // without --retention the CLI leaves raw session files alone; --retention trashes the old one
    expect(existsSync(join(root, 'memory/sessions/2026-03-01-abc.jsonl'))).toBe(true);
    const ret = await runCli(['archive', '--root', root, '--retention', '--json']);
    expect(JSON.parse(ret.stdout).trashed.map((t: { rel: string }) => t.rel)).toEqual(['memory/sessions/2026-03-01-abc.jsonl']);
    expect(existsSync(join(root, 'memory/sessions/2026-03-01-abc.jsonl'))).toBe(false);
  });

  it('never overwrites an archived day: an identical copy is trashed, a different one gets a new name', () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/episodic/2026-03-01.md': '# a\n',
      'memory/archive/2026/03/2026-03-01.md': '# a\n',
      'memory/episodic/2026-03-02.md': '# new\n',
      'memory/archive/2026/03/2026-03-02.md': '# old\n',
    });
    const r = runArchive(testCtx(root));
    expect(r.duplicates).toEqual(['memory/episodic/2026-03-01.md']);
    const t = readTree(root);
    expect(t['memory/archive/2026/03/2026-03-02.md']).toBe('# old\n');
    expect(t['memory/archive/2026/03/2026-03-02-2.md']).toBe('# new\n');
  });
});

describe('archiveDays (for health, review, consolidate)', () => {
  it('moves only episodic days, reports moved and kept, no retention; dry run writes nothing; second run moves nothing', () => {
    const root = tmpTree(fortyDays());
    const before = readTree(root);
    const dry = archiveDays(testCtx(root), { dryRun: true });
    expect(dry.moved).toHaveLength(10);
    expect(dry.kept).toBe(32); // 40 episodic days + 2 legacy days - 10 moved
    expect(readTree(root)).toEqual(before);
    const r = archiveDays(testCtx(root), { days: 30 });
    expect(r.moved.map((m) => m.to)).toContain('memory/archive/2026/04/2026-04-01-openclaw-flush.md');
    expect(r.kept).toBe(32);
    expect(existsSync(join(root, 'memory/sessions/2026-03-01-abc.jsonl'))).toBe(true);
    const again = archiveDays(testCtx(root));
    expect(again.moved).toEqual([]);
    expect(again.kept).toBe(32);
  });
});

describe('archived days stay searchable', () => {
  it('search finds an archived entry in the COLD tier at its new path', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n', 'memory/episodic/2026-03-01.md': '# 2026-03-01\n- 09:00 [EVENT] zebra migration finished ^zeb00001\n' });
    expect((await runCli(['archive', '--root', root])).code).toBe(0);
    const r = await runCli(['search', 'zebra migration', '--root', root, '--json']);
    const hit = JSON.parse(r.stdout).results[0];
    expect(hit.path).toBe('memory/archive/2026/03/2026-03-01.md');
    expect(hit.tier).toBe('cold');
    expect(hit.id).toBe('zeb00001');
  });
});
