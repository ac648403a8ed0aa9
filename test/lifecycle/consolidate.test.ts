import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runConsolidate } from '../../lib/lifecycle/consolidate.js';
import { readTree, runCli, testCtx, tmpTree } from '../helpers.js';

function history(entries: Record<string, { count: number; queries: string[]; days: string[]; last: string }>): string {
  return JSON.stringify({ version: 1, entries }) + '\n';
}

const MEMORY = [
  '# Memory',
  '',
  '## Key facts',
  '- My own line about the NAS ^mine0001',
  '- Old tool fact — [2026-02-01](memory/episodic/2026-02-01.md#^old00001) ^old00001',
  '- Vanished fact — [preferences](memory/semantic/preferences.md#^gone0001) ^gone0001',
  '',
  '## Open questions',
  '- which backup target?',
  '',
].join('\n');

function small(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'MEMORY.md': MEMORY,
    'TAGS.md': '# Tags\n\npreferences: style, rules\ninfrastructure: docker\n',
    'memory/episodic/2026-05-15.md': [
      '# 2026-05-15',
      '- 09:00 [DECISION] use Postgres for the event store ^dec00001',
      '- 09:10 [PREF] replies in British English #style ^prf00002',
      '- 09:20 [TECH] docker compose v2 on the NAS #docker ^tec00003',
      '- 09:30 [EVENT] TODO: renew the TLS certificate ^evt00004',
      '- 09:40 [TEMP] reading the logs ^tmp00005',
      '',
      'Updated: 2026-05-15',
      'Decisions: Postgres',
      'Signal: none',
      'Open: pick a backup target',
      '',
    ].join('\n'),
    'memory/episodic/2026-02-01.md': '# 2026-02-01\n- 10:00 [TECH] old tool fact ^old00001\n',
    'memory/episodic/2026-01-02.md': '# 2026-01-02\n- 10:00 [EVENT] a long forgotten meeting ^evt00000\n',
    'memory/semantic/preferences.md': '---\ntags: [style]\nlast_verified: 2026-05-10\n---\n# Preferences\n- 2026-05-10 08:00 [PREF] short answers first, detail after #style ^pref0001\n- 2026-05-10 08:05 [PREF] never recalled preference #style ^pref0002\n',
    '.memtier/recall-history.json': history({ pref0001: { count: 2, queries: ['aaaaaaaa', 'bbbbbbbb'], days: ['2026-05-14'], last: '2026-05-14T10:00:00.000Z' } }),
    ...extra,
  };
}

describe('consolidate', () => {
  it('summarizes the day, prunes faded days, reconciles MEMORY.md, writes health.json; a second run changes nothing', async () => {
    const root = tmpTree(small());
    const r = await runConsolidate(testCtx(root));
    expect(r.changed).toBe(true);
    const t = readTree(root);
    // 1. summary with the four sections, each line citing its source
    const sum = t['memory/reviews/daily/2026-05-15.md']!;
    expect(sum).toContain('## Facts Learned\n- docker compose v2 on the NAS #docker — [memory/episodic/2026-05-15.md#^tec00003](../../episodic/2026-05-15.md)');
    expect(sum).toContain('## Decisions Made\n- use Postgres for the event store');
    expect(sum).toContain('## Preferences Noted\n- replies in British English');
    expect(sum).toMatch(/## Action Items\n- TODO: renew the TLS certificate[^\n]*\n- pick a backup target \(closure block\)/);
    expect(sum).not.toContain('reading the logs');
    expect(sum).toContain('## Notes');
    // 2. decay distribution covers every live entry
    expect(r.decay.entries).toBe(r.decay.hot + r.decay.warm + r.decay.faded + r.decay.prunable);
    // 4. the January EVENT day is below 0.05 and moves to the archive; February's TECH (0.09) stays
    expect(r.prune.moved).toEqual([{ from: 'memory/episodic/2026-01-02.md', to: 'memory/archive/2026/01/2026-01-02.md' }]);
    expect(t['memory/archive/2026/01/2026-01-02.md']).toContain('a long forgotten meeting');
    expect(t['memory/episodic/2026-02-01.md']).toBeDefined();
    // 5. MEMORY.md: recalled fact added as a clean index line; decayed and vanished managed lines removed; own line kept
    const mem = t['MEMORY.md']!;
    expect(mem).toContain('- My own line about the NAS ^mine0001');
    expect(mem).toContain('- Short answers first, detail after — [preferences](memory/semantic/preferences.md#^pref0001) ^pref0001');
    expect(mem).not.toContain('old00001');
    expect(mem).not.toContain('gone0001');
    expect(mem).not.toContain('never recalled');
    expect(mem).not.toMatch(/0\.\d\d|\[PREF\]|#style/);
    expect(r.reconcile.removed).toHaveLength(2);
    // 7. health.json
    expect(existsSync(join(root, '.memtier/health.json'))).toBe(true);

    const again = await runConsolidate(testCtx(root));
    expect(again.changed).toBe(false);
    expect(again.message).toMatch(/no changes to the memory files/);
    expect(readTree(root)).toEqual(t);
  });

  it('keeps prose under ## Notes when the summary is regenerated', async () => {
    const root = tmpTree(small());
    await runConsolidate(testCtx(root));
    const rel = join(root, 'memory/reviews/daily/2026-05-15.md');
    const { readFileSync, writeFileSync, appendFileSync } = await import('node:fs');
    writeFileSync(rel, readFileSync(rel, 'utf8') + 'A quiet day: Postgres chosen.\n');
    appendFileSync(join(root, 'memory/episodic/2026-05-15.md'), '- 10:00 [DECISION] keep nightly backups ^dec00006\n');
    await runConsolidate(testCtx(root));
    const sum = readFileSync(rel, 'utf8');
    expect(sum).toContain('keep nightly backups');
    expect(sum).toContain('## Notes\nA quiet day: Postgres chosen.\n');
  });

  it('stays within the MEMORY.md budget: a fact that does not fit is counted, not written', async () => {
    const full = ['# Memory', ...Array.from({ length: 9 }, (_, i) => `- line ${i}`)].join('\n') + '\n';
    const root = tmpTree(small({ 'MEMORY.md': full }));
    const r = await runConsolidate(testCtx(root, undefined, 'UTC', { MEMTIER_HEALTH_MEMORY_LINES: '10' }));
    expect(r.reconcile.added).toEqual([]);
    expect(r.reconcile.overflow).toBe(1);
    expect(readTree(root)['MEMORY.md']).toBe(full);
  });

  it('--dry-run and --json through the CLI write nothing', async () => {
    const root = tmpTree(small());
    const before = readTree(root);
    const r = await runCli(['consolidate', '--dry-run', '--json', '--root', root]);
    // the dry run leaves MEMORY.md's dead link (^gone0001) in place, so its health step FAILs: exit 1
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.health.ok).toBe(false);
    expect(j.dryRun).toBe(true);
    expect(j.summary.changed).toBe(true);
    expect(j.reconcile.added).toHaveLength(1);
    expect(readTree(root)).toEqual(before);
    const bad = await runCli(['consolidate', '--date', '2026-13-01', '--root', root]);
    expect(bad.code).toBe(2);
  });

  it('a managed line follows its fact when the day is archived or the fact is filed in its home', async () => {
    const mem = '# Memory\n\n## Active decisions\n- Keep the NAS on UPS — [2026-04-20](memory/episodic/2026-04-20.md#^arc00001) ^arc00001\n- Use Postgres — [2026-05-15](memory/episodic/2026-05-15.md#^dec00001) ^dec00001\n';
    const root = tmpTree(small({
      'MEMORY.md': mem,
      'memory/archive/2026/04/2026-04-20.md': '# 2026-04-20\n- 09:00 [DECISION] keep the NAS on UPS ^arc00001\n',
      'memory/semantic/decisions.md': '---\ntags: []\n---\n# Decisions\n- 2026-05-15 09:00 [DECISION] use Postgres for the event store ^dec00001\n',
    }));
    const r = await runConsolidate(testCtx(root));
    expect(r.reconcile.relinked.sort()).toEqual(['^arc00001: memory/episodic/2026-04-20.md → memory/archive/2026/04/2026-04-20.md', '^dec00001: memory/episodic/2026-05-15.md → memory/semantic/decisions.md']);
    const out = readTree(root)['MEMORY.md']!;
    expect(out).toContain('- Keep the NAS on UPS — [2026-04-20](memory/archive/2026/04/2026-04-20.md#^arc00001) ^arc00001');
    expect(out).toContain('- Use Postgres — [decisions](memory/semantic/decisions.md#^dec00001) ^dec00001');
    expect((await runConsolidate(testCtx(root))).reconcile.relinked).toEqual([]);
  });

  it('a person editing MEMORY.md while consolidate plans keeps their edit (the plan is redone)', async () => {
    const root = tmpTree(small());
    const { appendFileSync } = await import('node:fs');
    const r = await runConsolidate(testCtx(root), {
      beforeApply: (attempt) => { if (attempt === 0) appendFileSync(join(root, 'MEMORY.md'), '- which NAS disks to replace?\n'); },
    });
    expect(r.retries).toBe(1);
    const mem = readTree(root)['MEMORY.md']!;
    expect(mem).toContain('- which NAS disks to replace?');
    expect(mem).toContain('^pref0001');
    expect(mem).not.toContain('gone0001');
  });
});
