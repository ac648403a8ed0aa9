/**
 * `memtier stats`: counts, sizes, token estimates, activation and growth over a small memory
 * whose numbers are worked out by hand below; fixed clock (2026-05-15, UTC).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { command } from '../../lib/commands/stats.js';
import { collectStats } from '../../lib/stats/collect.js';
import { bar, human, renderStats } from '../../lib/stats/render.js';
import { estimateTokens } from '../../lib/memory/tokens.js';
import { loadSnapshot } from '../../lib/memory/snapshot.js';
import { REPO, rmTree, runCli, testCtx, tmpTree, writeTree } from '../helpers.js';

const MEMORY = '# MEMORY\n- [Decisions](memory/semantic/decisions.md) — cache in SQLite\n';
const STATE = '# Session state\nCurrent task: 記憶の整理\n';
const FILES: Record<string, string> = {
  'MEMORY.md': MEMORY,
  'SESSION-STATE.md': STATE,
  'memory/working-buffer.md': '# Working buffer\n- 2026-05-15 14:00 [TEMP] reading the seeds ^p9o8i7u6\n',
  'memory/episodic/2026-05-14.md': '# 2026-05-14\n- 09:10 [DECISION] cache in SQLite #review ^k2j3mx0a\n- 10:00 talked to Ana\n- ~~11:00 [DECISION] use Redis~~ superseded by ^k2j3mx0a ^r3d1s0ld\n',
  'memory/episodic/2026-03-01.md': '# 2026-03-01\n- 09:00 [EVENT] set up the NAS #backup ^n4s5e6t7\n',
  'memory/semantic/decisions.md': '---\ntags: [review]\nlast_verified: 2026-05-10\n---\n# Decisions\n- 2026-05-14 09:10 [DECISION] cache in SQLite #review ^k2j3mx0a\n',
  'memory/2026-04-20.md': '- an OpenClaw daily line\n',
  'FORMAT.md': '# Format\n- [YYYY-MM-DD ]HH:MM [TYPE] text #tag #other ^id\n',
};

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmTree(r); });
const mem = (): string => { const r = tmpTree(FILES); roots.push(r); return r; };

describe('token estimate', () => {
  it('counts ~4 Latin characters per token and 1 per CJK character', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('記憶')).toBe(2);
    expect(estimateTokens('ab 記憶 한국')).toBe(4 + 1); // 4 CJK + ceil(3 other / 4)
  });
  it('counts what the regexp definition counts (characters, not UTF-16 units; lone surrogates one each)', () => {
    const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff66-\uff9f]/gu;
    const byRegexp = (t: string): number => { const cjk = t.match(CJK)?.length ?? 0; return t.length ? cjk + Math.ceil(([...t].length - cjk) / 4) : 0; };
    let seed = 7;
    const unit = (): number => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % 0x10000; };
    for (const t of ['😀😀x', '\ud800y\udc00z', 'ｱｲ｡ヲ\uff65\uffa0', 'ぁゟ゠ヿ가힣']) expect(estimateTokens(t), t).toBe(byRegexp(t));
    for (let k = 0; k < 500; k++) {
      const t = String.fromCharCode(...Array.from({ length: 40 }, unit));
      expect(estimateTokens(t)).toBe(byRegexp(t));
    }
  });
});

describe('collectStats', () => {
  it('a tag named like an Object.prototype member is counted like any other', async () => {
    const r = tmpTree({ ...FILES, 'memory/episodic/2026-05-13.md': '# 2026-05-13\n- 09:00 [EVENT] odd tags #constructor #toString ^t4g5o6d7\n' });
    roots.push(r);
    const s = await collectStats(testCtx(r));
    expect(Object.entries(s.entries.byTag).filter(([t]) => ['constructor', '__proto__', 'tostring'].includes(t)).sort()).toEqual([['constructor', 1], ['tostring', 1]]);
  });

  it('counts files, entries, types, tags, months and orphans', async () => {
    const s = await collectStats(testCtx(mem()));
    expect(s.files.total).toBe(8);
    expect(s.files.byTier).toEqual({ buffer: 1, cold: 3, hot: 2, meta: 1, warm: 1 });
    expect(s.bytes.total).toBe(Object.values(FILES).reduce((n, t) => n + Buffer.byteLength(t), 0));
    // 1 MEMORY index line, 1 buffer, 3 on 05-14 (1 superseded), 1 on 03-01, 1 decision note, 1 OpenClaw line;
    // FORMAT.md's example line is not an entry of the memory
    expect(s.entries.total).toBe(8);
    expect(s.entries.superseded).toBe(1);
    expect(s.entries.byType).toEqual({ DECISION: 3, untyped: 3, EVENT: 1, TEMP: 1 });
    expect(s.entries.byTag).toEqual({ review: 2, backup: 1 });
    expect(s.entries.byMonth).toEqual({ '2026-03': 1, '2026-04': 1, '2026-05': 5 });
    // orphans are log entries only: "talked to Ana" and the OpenClaw line, not MEMORY.md's index line
    expect(s.entries.orphans).toBe(2);
  });

  it('estimates the HOT tier (loaded every session) and the whole memory', async () => {
    const s = await collectStats(testCtx(mem()));
    expect(s.tokens.hotFiles).toEqual({ 'MEMORY.md': estimateTokens(MEMORY), 'SESSION-STATE.md': estimateTokens(STATE) });
    expect(s.tokens.hot).toBe(estimateTokens(MEMORY) + estimateTokens(STATE));
    expect(s.tokens.total).toBe(Object.values(FILES).reduce((n, t) => n + estimateTokens(t), 0));
  });

  it('counts growth by the day a dated file is about', async () => {
    const s = await collectStats(testCtx(mem()));
    expect(s.growth.entriesByMonth).toEqual({ '2026-03': 1, '2026-04': 1, '2026-05': 5 });
    expect(s.growth.bytesByWeek['2026-W09']).toBe(Buffer.byteLength(FILES['memory/episodic/2026-03-01.md']!));
  });

  it.skipIf(!existsSync(join(REPO, 'lib/search/activation.ts')))('distributes activation: a 75-day-old event (half-life 14 days) is due for pruning', async () => {
    const s = await collectStats(testCtx(mem()));
    expect(s.activation.source).toBe('lib/search/activation.ts');
    const counts = Object.fromEntries(s.activation.buckets.map((b) => [b.label.split(' ')[0], b.count]));
    expect(counts.prune).toBe(1);
    expect(s.activation.buckets.reduce((n, b) => n + b.count, 0)).toBe(s.entries.total - s.entries.superseded);
  });

  it.skipIf(!existsSync(join(REPO, 'lib/search/activation.ts')))('counts recalls: the same event recalled 3 times yesterday is hot again', async () => {
    const root = mem();
    writeTree(root, { '.memtier/recall-history.json': JSON.stringify({ version: 1, entries: { n4s5e6t7: { count: 3, queries: ['a1b2c3d4'], days: ['2026-05-14'], last: '2026-05-14T10:00:00.000Z' } } }) });
    const s = await collectStats(testCtx(root));
    const counts = Object.fromEntries(s.activation.buckets.map((b) => [b.label.split(' ')[0], b.count]));
    expect(counts.prune).toBe(0);
  });
});

describe('collectStats over its own read', () => {
  it('counts the entries a snapshot parses, line for line (first and last lines, no final newline, near-bullets)', async () => {
    const root = tmpTree({
      ...FILES,
      'memory/episodic/2026-05-12.md': '- 08:00 [PREF] first line #a\n-not an entry\n-  two spaces #b\n*  \n* 09:00 [LESSON] star bullet #c ^st4r0001\n- \n\n- ~~10:00 [DECISION] old~~ superseded by ^k2j3mx0a\n- 11:00 last line, no newline #d',
      'memory/semantic/tagged.md': '---\ntags: [x]\n---\n# Tagged\n- #constructor #__proto__ #2024 first\n- [WORD] untyped #x\n',
    });
    roots.push(root);
    const own = await collectStats(testCtx(root));
    const shared = await collectStats(testCtx(root), loadSnapshot(root));
    expect(own).toEqual(shared);
    expect(own.entries.total).toBe(8 + 6);
    expect(own.entries.byTag).toMatchObject({ a: 1, c: 1, d: 1, constructor: 1, x: 1 });
  });
});

describe('rendering', () => {
  it('draws bars in eighth-cell steps', () => {
    expect(bar(10, 10, 20)).toBe('█'.repeat(20));
    expect(bar(1, 16, 2)).toBe('▏');
    expect(bar(0, 10)).toBe('');
    expect(human(1536)).toBe('1.5 KiB');
  });

  it('shows bar charts on a terminal only', async () => {
    const root = mem();
    const plain = await command.run(testCtx(root), { flags: {}, positionals: [], json: false, quiet: false }, { stdout: { write: () => true }, stderr: { write: () => true } });
    expect(plain.text).toContain('Tokens     HOT tier (loaded every session)');
    expect(plain.text).not.toContain('█');
    const tty = await command.run({ ...testCtx(root), interactive: true }, { flags: {}, positionals: [], json: false, quiet: false }, { stdout: { write: () => true }, stderr: { write: () => true } });
    expect(tty.text).toContain('█');
    const s = await collectStats(testCtx(root));
    expect(renderStats(s, { charts: false })).toBe(plain.text);
  });

  it('prints the same numbers as JSON through the CLI', async () => {
    const root = mem();
    const r = await runCli(['stats', '--root', root, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { entries: { total: number }; time: string };
    expect(doc.entries.total).toBe(8);
    expect(doc.time).toBe('2026-05-15T14:30:00.000Z');
  });
});
