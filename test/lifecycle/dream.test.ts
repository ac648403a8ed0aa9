import { describe, expect, it } from 'vitest';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runDream, stagingPool, type Candidate } from '../../lib/lifecycle/dream.js';
import { collectEntries, historyKey } from '../../lib/lifecycle/pipeline.js';
import { readRecallHistory } from '../../lib/search/history-read.js';
import { clearReads, readOnce } from '../../lib/memory/reader.js';
import { readTree, runCli, testCtx, tmpTree } from '../helpers.js';

type Rec = { count: number; queries: string[]; days: string[]; last: string };
const rec = (count: number, queries: number, days: string[], q0 = 'q'): Rec => ({
  count, queries: Array.from({ length: queries }, (_, i) => `${q0}${i}`.padEnd(8, '0')), days, last: `${days[days.length - 1]}T10:00:00.000Z`,
});

const MEMORY = '# Memory\n\n## Active decisions\n\n## Key facts\n- [Infrastructure](memory/semantic/infrastructure.md) — NAS, ports\n\n## Open questions\n- which backup target?\n';

function fixture(extra: Record<string, string> = {}, history: Record<string, Rec> = {}): Record<string, string> {
  return {
    'MEMORY.md': MEMORY,
    'memory/episodic/2026-05-12.md': [
      '# 2026-05-12',
      '- 09:00 [DECISION] use Postgres for the event store because replays need SQL #projects ^dpass001',
      '- 09:10 [PREF] replies in British English #style ^frare001',
      '- 09:20 [TECH] the NAS answers on port 5001 #networking ^fqry0001',
      '- 09:30 [PREF] Ana prefers short status reports on Fridays #style ^nd000001',
      '- 09:40 [PREF] Ana prefers short status reports on Friday #style ^nd000002',
      '- 09:50 [TEMP] reading logs ^temp0001',
      '',
    ].join('\n'),
    'memory/episodic/2026-04-01.md': '# 2026-04-01\n- 09:00 [DECISION] deploy on Fridays is forbidden #rules ^fold0001\n',
    'memory/episodic/2026-04-19.md': '# 2026-04-19\n- 09:00 [EVENT] met the auditors ^fscr0001\n',
    '.memtier/recall-history.json': JSON.stringify({
      version: 1,
      entries: {
        dpass001: rec(4, 3, ['2026-05-13', '2026-05-14']),
        frare001: rec(2, 2, ['2026-05-14']),
        fqry0001: rec(5, 1, ['2026-05-13', '2026-05-14']),
        fold0001: rec(4, 3, ['2026-05-10', '2026-05-14']),
        fscr0001: rec(3, 3, ['2026-04-20']),
        nd000001: rec(2, 2, ['2026-05-13'], 'a'),
        nd000002: rec(1, 1, ['2026-05-14'], 'b'),
        temp0001: rec(9, 9, ['2026-05-14']),
        ...history,
      },
    }) + '\n',
    ...extra,
  };
}

const byId = (cs: Candidate[], id: string): Candidate => cs.find((c) => c.id === id || c.sources.some((s) => s.endsWith(`^${id}`)))!;

describe('dream', () => {
  it('stages from one file at a time: the pool is what the whole read would stage, compact, and the texts are not kept', () => {
    const root = tmpTree(fixture({ 'memory/2026-05-13.md': '# 2026-05-13\n\nA paragraph OpenClaw wrote about the backup target.\n\n- untyped bullet about the NAS ^free0001\n' }));
    const ctx = testCtx(root);
    const history = readRecallHistory(root);
    clearReads();
    const pool = stagingPool(ctx, history, '2026-05-15', 30);
    // what filtering every entry of the memory gives, in the same order
    const all = collectEntries(ctx, undefined, { freeForm: true }).entries
      .filter((e) => !e.superseded && e.type !== 'TEMP' && ((['buffer', 'episodic', 'legacy-daily'].includes(e.kind) && e.day! >= '2026-04-15' && e.day! <= '2026-05-15') || history.has(historyKey(e))));
    expect(pool.map((p) => `${p.path}:${p.line}`)).toEqual(all.map((e) => `${e.path}:${e.line}`));
    expect(pool.map((p) => p.hk)).toEqual(all.map((e) => historyKey(e)));
    expect(pool.map((p) => p.text)).toEqual(all.map((e) => e.text));
    expect(pool.some((p) => p.path === 'memory/episodic/2026-04-01.md')).toBe(true); // old, but recalled
    expect(pool.some((p) => p.id === 'temp0001')).toBe(false);
    for (const p of pool) expect(Object.keys(p).every((k) => ['path', 'line', 'kind', 'text', 'tags', 'hk', 'id', 'type', 'day', 'time'].includes(k))).toBe(true);
    // nothing kept for later reads: an edit that keeps the file's size, inode and mtime is seen
    // (a kept text would be served, as readOnce serves unchanged files)
    const rel = 'memory/episodic/2026-05-12.md';
    const at = new Date('2026-05-14T10:00:00Z');
    utimesSync(join(root, rel), at, at);
    clearReads();
    stagingPool(ctx, history, '2026-05-15', 30);
    writeFileSync(join(root, rel), readFileSync(join(root, rel), 'utf8').replace('Postgres', 'Postgrez'));
    utimesSync(join(root, rel), at, at);
    expect(readOnce(root, rel)).toContain('Postgrez');
  });


  it('a day after today is not of the last days: its entries are staged only when recalled', () => {
    const root = tmpTree(fixture({
      'memory/episodic/2026-05-20.md': '# 2026-05-20\n- 09:00 [EVENT] dentist at 10, planned ahead ^ahead001\n- 10:00 [EVENT] team offsite planned ^ahead002\n',
    }, { ahead002: rec(3, 3, ['2026-05-14']) }));
    const pool = stagingPool(testCtx(root), readRecallHistory(root), '2026-05-15', 30);
    expect(pool.some((p) => p.id === 'ahead001')).toBe(false);
    expect(pool.some((p) => p.id === 'ahead002')).toBe(true); // recalled: staged like any entry
    expect(pool.some((p) => p.id === 'dpass001')).toBe(true); // three days ago: staged
  });

  it('deep phase: candidates pass or fail each gate, and --explain says which', () => {
    const root = tmpTree(fixture());
    const before = readTree(root);
    const r = runDream(testCtx(root));
    expect(r.applied).toBe(false);
    expect(readTree(root)).toEqual(before); // without --apply nothing is written
    const c = r.candidates;
    expect(byId(c, 'dpass001').failed).toEqual([]);
    expect(byId(c, 'dpass001').score!).toBeGreaterThan(0.5);
    expect(byId(c, 'frare001').failed).toEqual(expect.arrayContaining(['recalls', 'queries']));
    expect(byId(c, 'fqry0001').failed).toEqual(['queries']);
    expect(byId(c, 'fold0001').failed).toEqual(['age']);
    expect(byId(c, 'fscr0001').failed).toEqual(['score']);
    expect(byId(c, 'fscr0001').score!).toBeLessThan(0.5);
    // near-duplicates merged: 2 + 1 recalls, 2 + 1 queries → passes
    const nd = byId(c, 'nd000001');
    expect(nd.sources).toHaveLength(2);
    expect(nd.recallCount).toBe(3);
    expect(nd.uniqueQueries).toBe(3);
    expect(nd.failed).toEqual([]);
    // TEMP is never staged
    expect(c.some((x) => x.id === 'temp0001')).toBe(false);
    expect(r.promoted.map((p) => p.id).sort()).toEqual(['dpass001', nd.id].sort());
    expect(r.message).toMatch(/would promote 2; run with --apply/);
  });

  it('--apply writes clean cited lines in MEMORY.md and a diary in DREAMS.md; a second run changes nothing', () => {
    const root = tmpTree(fixture());
    const r = runDream(testCtx(root), { apply: true });
    expect(r.applied).toBe(true);
    const t = readTree(root);
    const mem = t['MEMORY.md']!;
    // the line links the fact in its canonical home, where it is filed now (a log path breaks when the day is archived)
    expect(mem).toContain('## Active decisions\n- Use Postgres for the event store because replays need SQL — [decisions](memory/semantic/decisions.md#^dpass001) ^dpass001\n');
    expect(t['memory/semantic/decisions.md']).toContain('- 2026-05-12 09:00 [DECISION] use Postgres for the event store because replays need SQL #projects ^dpass001\n');
    expect(t['memory/semantic/preferences.md']).toContain('^nd000001');
    expect(r.promoted.map((c) => c.promoted)).toContain('MEMORY.md (filed in memory/semantic/decisions.md)');
    expect(mem).toMatch(/## Key facts\n- \[Infrastructure\][^\n]*\n- Ana prefers short status reports on Friday/);
    expect(mem).not.toMatch(/\[DECISION\]|\[PREF\]|#projects|#style|score|0\.\d{2}/);
    expect(mem).toContain('- which backup target?');
    const dreams = t['DREAMS.md']!;
    expect(dreams).toContain('# Dream diary');
    expect(dreams).toContain('use Postgres for the event store because replays need SQL → MEMORY.md (filed in memory/semantic/decisions.md): recalled 4 times for 3 different questions over 3 days');
    expect(dreams).toMatch(/Held back: .*on age/);
    const again = runDream(testCtx(root), { apply: true });
    expect(again.applied).toBe(false);
    expect(again.promoted).toEqual([]);
    expect(byId(again.candidates, 'dpass001').failed).toEqual(['promoted']);
    expect(readTree(root)).toEqual(t);
  });

  it('a MEMORY.md at its budget: the promotion overflows to the canonical home with one index line', () => {
    const filler = Array.from({ length: 49 }, (_, i) => `- person line ${i}`).join('\n');
    const mem = `# Memory\n\n## Active decisions\n\n## Key facts\n${filler}\n\n## Open questions\n- which backup target?\n`;
    const root = tmpTree(fixture({ 'MEMORY.md': mem }));
    const ctx = testCtx(root, undefined, 'UTC', { MEMTIER_HEALTH_MEMORY_LINES: '58', MEMTIER_DREAM_LIMIT: '1' });
    expect(mem.split('\n').length - 1).toBe(57);
    const r = runDream(ctx, { apply: true });
    expect(r.promoted.map((p) => p.id)).toEqual(['dpass001']);
    expect(r.overflow[0]).toMatch(/→ memory\/semantic\/decisions\.md \(index line for memory\/semantic\/decisions\.md added to MEMORY\.md\)/);
    const t = readTree(root);
    expect(t['MEMORY.md']!.split('\n').length - 1).toBe(58);
    expect(t['MEMORY.md']).toContain('- [Decisions](memory/semantic/decisions.md) — promoted facts, see the file');
    expect(t['MEMORY.md']).not.toContain('dpass001');
    expect(t['memory/semantic/decisions.md']).toMatch(/^---\ntags: \[projects\]\nlast_verified: 2026-05-15\n---\n# Decisions\n/);
    expect(t['memory/semantic/decisions.md']).toContain('- 2026-05-12 09:00 [DECISION] use Postgres for the event store because replays need SQL #projects ^dpass001');
    // limit 1: the next run promotes the next best (never dpass001 again); then nothing is left
    const next = runDream(ctx, { apply: true });
    expect(next.promoted.map((p) => p.id)).toEqual(['nd000001']);
    expect(next.overflow[0]).toMatch(/memory\/semantic\/preferences\.md \(no room for an index line\)/);
    const t2 = readTree(root);
    expect(t2['memory/semantic/decisions.md']).toBe(t['memory/semantic/decisions.md']);
    expect(t2['MEMORY.md']).toBe(t['MEMORY.md']);
    const last = runDream(ctx, { apply: true });
    expect(last.applied).toBe(false);
    expect(readTree(root)).toEqual(t2);
  });

  it('a source deleted after it was recalled is not promoted, also when it vanishes between plan and write', () => {
    const root = tmpTree(fixture());
    const file = join(root, 'memory/episodic/2026-05-12.md');
    const r = runDream(testCtx(root, undefined, 'UTC', { MEMTIER_DREAM_LIMIT: '1' }), {
      apply: true,
      beforeApply: (attempt) => {
        if (attempt === 0) writeFileSync(file, readFileSync(file, 'utf8').replace(/^.*\^dpass001\n/m, ''));
      },
    });
    expect(r.retries).toBe(1);
    expect(r.promoted.map((p) => p.id)).not.toContain('dpass001');
    expect(readFileSync(join(root, 'MEMORY.md'), 'utf8')).not.toContain('Postgres');
  });

  it('light and rem phases only report; --explain through the CLI names each gate', async () => {
    const root = tmpTree(fixture({ 'memory/episodic/2026-05-13.md': '# 2026-05-13\n- 10:00 [TECH] docker on the NAS #docker ^x1aaaaaa\n- 11:00 [TECH] docker compose file moved #docker ^x2aaaaaa\n' }));
    const l = runDream(testCtx(root), { phase: 'light' });
    expect(l.staged).toBeGreaterThan(5);
    expect(l.themes).toEqual([]);
    const rm = runDream(testCtx(root), { phase: 'rem' });
    expect(rm.themes.map((t) => t.theme)).toEqual(expect.arrayContaining(['#style', '#docker']));
    expect(() => runDream(testCtx(root), { phase: 'rem', apply: true })).toThrow(/deep/);
    const cli = await runCli(['dream', '--explain', '--root', root]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/\^fold0001[^\n]*\n[^\n]*relevance[^\n]*\n\s+held: age/);
    const j = JSON.parse((await runCli(['dream', '--json', '--root', root])).stdout);
    expect(j.applied).toBe(false);
    expect(j.config.minScore).toBe(0.5);
  });

  it('rem finds Chinese themes (words of 2+ characters shared by 3 candidates)', () => {
    const root = tmpTree(fixture({
      'memory/episodic/2026-05-13.md': '# 2026-05-13\n- 10:00 [TECH] 轨迹服务写入 Kafka 之后再批量写 ES ^zh000001\n- 11:00 [DECISION] 轨迹查询走 ClickHouse，不再查 ES ^zh000002\n- 12:00 [LESSON] 轨迹点太多时 ES 写入被拒绝 ^zh000003\n',
    }, { zh000001: rec(3, 2, ['2026-05-14']), zh000002: rec(3, 2, ['2026-05-14']), zh000003: rec(3, 2, ['2026-05-14']) }));
    const rm = runDream(testCtx(root), { phase: 'rem' });
    expect(rm.themes.map((t) => t.theme)).toContain('轨迹');
  });

  it('a fact already filed in its home (by the weekly review) is promoted with a link to the home, once', () => {
    const root = tmpTree(fixture({
      'memory/semantic/decisions.md': '---\ntags: [projects]\nlast_verified: 2026-05-14\n---\n# Decisions\n- 2026-05-12 09:00 [DECISION] use Postgres for the event store because replays need SQL #projects ^dpass001\n',
      'MEMORY.md': MEMORY.replace('## Key facts\n', '## Key facts\n- [Decisions](memory/semantic/decisions.md) — final decisions with why\n'),
    }));
    const r = runDream(testCtx(root, undefined, 'UTC', { MEMTIER_DREAM_LIMIT: '1' }), { apply: true });
    expect(r.promoted.map((c) => c.id)).toEqual(['dpass001']);
    // one candidate for the two lines sharing the id, its recalls counted once
    expect(r.promoted[0]!.recallCount).toBe(4);
    const mem = readTree(root)['MEMORY.md']!;
    expect(mem).toContain('- Use Postgres for the event store because replays need SQL — [decisions](memory/semantic/decisions.md#^dpass001) ^dpass001');
    expect(mem.match(/dpass001/g)).toHaveLength(2);
  });
});
