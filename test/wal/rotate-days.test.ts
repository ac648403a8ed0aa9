/**
 * A buffer left for weeks: rotation puts each entry into the day it was written, so close-day on a
 * late day neither moves April's decisions into May nor lists them in May's closure block, and
 * time filters keep their dates.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tmpTree } from '../helpers.js';

describe('rotation by day', () => {
  it('old buffer entries go to their own days; close-day on a late day lists only that day', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/working-buffer.md'), '# Working buffer\n\n- 2026-04-02 09:00 [DECISION] use MySQL for the ledger ^apr00001\n- 2026-04-03 10:00 [PROJ] task: migrate the ledger ^apr00002\n- 2026-05-15 11:00 [DECISION] keep the ledger in Postgres ^may00001\n- 12:00 [PROJ] a line typed by hand, without a date ^hand0001\n');
    const r = await runCli(['close-day', '2026-05-15', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    const apr = readFileSync(join(root, 'memory/episodic/2026-04-02.md'), 'utf8');
    expect(apr).toContain('- 09:00 [DECISION] use MySQL for the ledger ^apr00001');
    expect(readFileSync(join(root, 'memory/episodic/2026-04-03.md'), 'utf8')).toContain('^apr00002');
    const may = readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8');
    expect(may).toContain('- 11:00 [DECISION] keep the ledger in Postgres ^may00001');
    expect(may).toContain('^hand0001');
    expect(may).not.toContain('MySQL');
    const s = JSON.parse((await runCli(['search', 'ledger', '--since', '2026-04-01', '--until', '2026-04-30', '--root', root, '--json'])).stdout);
    expect(s.results.map((x: any) => x.id).sort()).toEqual(['apr00001', 'apr00002']);
  });
});
