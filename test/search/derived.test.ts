/**
 * Derived text does not compete with its source: a day's closure block, which repeats the day's
 * words, ranks below the entry it summarizes, unless the query names a time (then the day itself
 * is what is asked about).
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tmpTree } from '../helpers.js';

describe('closure blocks rank below their entries', () => {
  it('the entry with the answer comes first; with a time in the query the closure is not weighed down', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 10:00 [DECISION] raise the connection pool to 50 for the billing database ^pool0001\n\n## Closure\nUpdated: 2026-05-14\nDecisions: connection pool raised to 50 for billing database\nSignal: the billing database pool ran dry at peak\nOpen: none\n');
    const s = JSON.parse((await runCli(['search', '--root', root, 'billing database connection pool', '--json', '--explain'])).stdout);
    expect(s.results[0].id).toBe('pool0001');
    const closure = s.results.find((r: any) => /Updated: 2026-05-14/.test(r.text));
    expect(closure.explain.derived).toBe(0.6);
    const dated = JSON.parse((await runCli(['search', '--root', root, 'billing pool on 2026-05-14', '--json', '--explain'])).stdout);
    expect(dated.results.find((r: any) => /Updated: 2026-05-14/.test(r.text)).explain.derived).toBe(1);
  });
});
