/**
 * Recall credits what answered, not the whole block (issue 32). Recording every line shown made a
 * long paragraph that was never the answer hot (★) after 120 recalls, and it then outranked the
 * answer to another question. The clock is FIXED_NOW, 2026-05-15.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recall } from '../../lib/search/recall.js';
import { creditedKeys, readRecallHistory } from '../../lib/search/history.js';
import { rmTree, runCli, testCtx, tmpTree } from '../helpers.js';

const roots: string[] = [];
afterEach(() => { while (roots.length) rmTree(roots.pop()!); });

// a long paragraph of 2026-03-01 (75 days old: activation ≈ 0.18, still shown) that touches everything
const PARAGRAPH = 'Notes from the staging review, a long day. We went through the staging environment end to end: how the staging database is backed up every night, which port the payments gateway answers on and which port each other service answers on, how the payments gateway health checks and the payments alerts work, where logs are shipped, who gets paged, how certificates are renewed, and what still has to be documented before the audit. Most of it is fine; the runbook needs an owner and the dashboards need cleaning up.';

function memory(): string {
  const root = tmpTree({
    'MEMORY.md': '# Memory\n',
    'memory/episodic/2026-05-14.md': '# 2026-05-14\n- 09:00 [DECISION] staging runs PostgreSQL 16 as its database, on db-staging-2 ^ans00001\n- 10:00 [TECH] staging deploys go out at 18:00 from the release branch ^fil00001\n- 11:00 [TECH] staging has its own Grafana board ^fil00002\n- 12:00 [TECH] staging secrets live in the vault under app/staging ^fil00003\n',
    'memory/episodic/2026-03-02.md': '# 2026-03-02\n- 10:00 [TECH] the payments gateway answers on port 8443, behind the internal proxy ^ans00002\n',
    'memory/episodic/2026-03-01.md': `# 2026-03-01\n\n${PARAGRAPH}\n`,
  });
  roots.push(root);
  return root;
}

describe('recall credit', () => {
  it('120 recalls answered by one entry: the paragraph shown below it gains no heat, and stays below another question\'s answer', async () => {
    const root = memory();
    const questions = ['which database does staging use', 'staging uses which database'];
    for (let i = 0; i < 120; i++) {
      const at = new Date(Date.parse('2026-05-15T08:00:00Z') + i * 60_000).toISOString();
      const b = await recall(testCtx(root, at), questions[i % 2]!, { noCache: true });
      expect(b.text.split('\n')[1]).toContain('staging runs PostgreSQL 16'); // the answer first (★ once hot)
      if (i === 0) expect(b.text).toContain('Notes from the staging review'); // shown, further down
    }
    const history = readRecallHistory(root);
    expect(history.get('ans00001')!.count).toBe(120);
    // the paragraph was shown 120 times and never answered: no record, no ★
    expect([...history.keys()].filter((k) => k.endsWith('@2026-03-01'))).toEqual([]);
    const other = await recall(testCtx(root), 'which port does the payments gateway answer on', { noCache: true, noRecord: true });
    const lines = other.text.split('\n').slice(1);
    expect(lines[0]).toContain('port 8443');
    expect(lines[1]).toMatch(/^- 2026-03-01 Notes from the staging review/); // not "- ★ …"
  });

  it('credits the first result and those of the next two scoring at least half the best; a block without a question, nothing', async () => {
    expect(creditedKeys([{ key: 'a', score: 10 }, { key: 'b', score: 6 }, { key: 'c', score: 4 }, { key: 'd', score: 9 }])).toEqual(['a', 'b']);
    expect(creditedKeys([{ key: 'a', score: 1 }, { key: 'b', score: 3 }])).toEqual(['a', 'b']); // the first always (a time's entry may lead)
    expect(creditedKeys([])).toEqual([]);
    const root = memory();
    for (let i = 0; i < 5; i++) await recall(testCtx(root, `2026-05-15T1${i}:00:00Z`), 'staging runs PostgreSQL 16', { noCache: true });
    const before = readRecallHistory(root).get('ans00001')!.count;
    const start = await recall(testCtx(root, '2026-05-15T16:00:00Z'), '', { noCache: true });
    expect(start.hot.map((h) => h.id)).toContain('ans00001'); // the hot tier at a session's start
    expect(readRecallHistory(root).get('ans00001')!.count).toBe(before); // shown, not credited
  });

  it('search --record credits the same way', async () => {
    const root = memory();
    const r = await runCli(['search', '--root', root, 'staging database', '--record', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).results.length).toBeGreaterThan(3);
    expect([...readRecallHistory(root).keys()].length).toBeLessThanOrEqual(3);
    expect([...readRecallHistory(root).keys()].some((k) => k.endsWith('@2026-03-01'))).toBe(false);
  });
});
