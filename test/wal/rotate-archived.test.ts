/**
 * A buffer line whose day is already archived with that very line (a merge of two machines kept the
 * buffer's copy while the other machine archived the day): rotation finds it there and does not
 * start a new day file for it, which the next archive would have moved to DAY-2.md, the entry twice.
 * Found by the three-machine chaos run (issue #28).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tmpTree, writeTree } from '../helpers.js';

describe('rotate and an archived day', () => {
  it('an entry already in its archived day is not written to a new day file', async () => {
    const root = join(tmpTree(), 'mem');
    const env = { MEMTIER_GIT: 'off', MEMTIER_TZ: 'UTC' };
    expect((await runCli(['init', root], { env })).code).toBe(0);
    writeTree(root, {
      'memory/archive/2026/05/2026-05-28.md': '# 2026-05-28\n\n- 18:00 [PROJ] pending: ask about backups ^arch0001\n',
      'memory/working-buffer.md': '# Working buffer\n\n- 2026-05-28 18:00 [PROJ] pending: ask about backups ^arch0001\n- 2026-05-28 18:05 [EVENT] a new line ^newl0001\n',
    });
    const r = await runCli(['rotate', '--force', '--root', root, '--now', '2026-06-30T10:00:00Z', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const day = join(root, 'memory/episodic/2026-05-28.md');
    expect(existsSync(day)).toBe(true);
    const text = readFileSync(day, 'utf8');
    expect(text).toContain('^newl0001');
    expect(text).not.toContain('^arch0001');
    expect(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8')).not.toContain('^arch0001');
    expect(readFileSync(join(root, 'memory/archive/2026/05/2026-05-28.md'), 'utf8')).toContain('^arch0001');
  });
});
