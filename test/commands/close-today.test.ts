import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEntries } from '../../lib/format/entry.js';
import { runCli, tmpTree } from '../helpers.js';

describe('close-day for today', () => {
  it('rotates the WAL buffer into the day first, so the block lists what was decided today', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    await runCli(['wal', 'decide', 'use SQLite for the cache', '--root', root]);
    await runCli(['wal', 'pending', 'ask Ana for the NAS credentials', '--root', root]);
    expect(existsSync(join(root, 'memory/episodic/2026-05-15.md'))).toBe(false);
    const r = await runCli(['close-day', '--json', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ written: true, rotated: { moved: 2 } });
    const day = readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8');
    expect(day).toMatch(/^Decisions: use SQLite for the cache \(\^[a-z0-9]+\)$/m);
    expect(day).toMatch(/^Open: .*ask Ana for the NAS credentials/m);
    expect(parseEntries(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8'))).toEqual([]);
    // a second close changes nothing
    const again = await runCli(['close-day', '--json', '--root', root]);
    expect(JSON.parse(again.stdout).written).toBe(false);
    expect(readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8')).toBe(day);
  });

  it('does not rotate when closing another day', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n', 'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 09:00 [EVENT] x ^aaa0000001\n' });
    await runCli(['wal', 'decide', 'today only', '--root', root]);
    const r = await runCli(['close-day', '2026-05-14', '--json', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).rotated).toBeUndefined();
    expect(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8')).toContain('today only');
  });
});
