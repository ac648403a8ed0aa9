import { contentKey } from '../../lib/format/entry.js';
import { writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { oneLineText, queryFromMessages, recall } from '../../lib/search/recall.js';
import { readRecallHistory, recordRecalls } from '../../lib/search/history.js';
import { rmTree, runCli, testCtx, tmpTree } from '../helpers.js';

const roots: string[] = [];
afterEach(() => { while (roots.length) rmTree(roots.pop()!); });

/** 12 fresh docker entries on 2026-05-14, one faded one, a preference and an index line. */
function memory(): string {
  const lines = Array.from({ length: 12 }, (_, i) => `- ${String(8 + (i >> 1)).padStart(2, '0')}:${i % 2 ? '30' : '00'} [TECH] docker host ${i} runs service number ${i * 7} ^dk${String(i).padStart(4, '0')}`);
  const root = tmpTree({
    'MEMORY.md': '# Memory\n- [Infra](memory/semantic/infrastructure.md) — hosts\n',
    'memory/episodic/2026-05-14.md': lines.join('\n') + '\n',
    'memory/episodic/2025-06-01.md': '- 10:00 [EVENT] docker meetup in Berlin ^old00001\n',
    'memory/semantic/preferences.md': '# Preferences\n- 09:00 [PREF] use pnpm, never npm ^pref0001\n',
  });
  roots.push(root);
  return root;
}

describe('recall', () => {
  it('fills the adaptive budget and cites path#Lline', async () => {
    const root = memory();
    const light = await recall(testCtx(root), 'docker host', { noCache: true, noRecord: true });
    expect(light.budget).toMatchObject({ limit: 10, zone: 'light' });
    expect(light.results).toHaveLength(10);
    expect(light.text.split('\n').slice(1).every((l) => /\(memory\/episodic\/2026-05-14\.md#L\d+\)$/.test(l))).toBe(true);
    const medium = await recall(testCtx(root), 'docker host', { contextUsed: 0.6, noCache: true, noRecord: true });
    expect(medium.results).toHaveLength(7);
    const critical = await recall(testCtx(root), 'docker host', { contextUsed: 0.95, noCache: true, noRecord: true });
    expect(critical.results).toHaveLength(2);
  });

  it('respects --max-chars', async () => {
    const root = memory();
    const b = await recall(testCtx(root), 'docker host', { maxChars: 200, noCache: true, noRecord: true });
    expect(b.results.length).toBeGreaterThan(0);
    expect(b.results.length).toBeLessThan(4);
    expect(b.results.reduce((s, r) => s + r.line_text.length + 1, 0)).toBeLessThanOrEqual(200);
  });

  it('leaves out faded entries (activation < 0.15) unless asked', async () => {
    const root = memory();
    // the 2025-06-01 meetup is an EVENT 348 days old: activation ≈ 0
    const auto = await recall(testCtx(root), 'docker meetup berlin', { noCache: true, noRecord: true });
    expect(auto.results.some((r) => r.id === 'old00001')).toBe(false);
    const all = await recall(testCtx(root), 'docker meetup berlin', { includeFaded: true, noCache: true, noRecord: true });
    expect(all.results[0]!.id).toBe('old00001');
  });

  it('shows a hot entry (recalled 5+ times) only when it matches, marked ★ in its place by score; without a question, the hot tier', async () => {
    const root = memory();
    const ctx = testCtx(root);
    // an entry without ^id is keyed by its words and its file (its day, for a dated file)
    const memKey = contentKey('- [Infra](memory/semantic/infrastructure.md) — hosts', 'MEMORY.md');
    for (let i = 0; i < 5; i++) recordRecalls(ctx, ['pref0001', memKey, 'dk0003', 'dk0004'], `warmup ${i}`);
    recordRecalls(ctx, ['dk0004'], 'one more'); // dk0004: 6 recalls, the most
    const b = await recall(ctx, 'docker host', { noCache: true, noRecord: true });
    const shown = [...b.hot, ...b.results];
    // the pnpm preference is hot but says nothing about docker hosts: not shown
    expect(shown.some((r) => r.key === 'pref0001')).toBe(false);
    expect(b.hot.map((h) => h.key).sort()).toEqual(['dk0003', 'dk0004']);
    for (const h of b.hot) expect(h.line_text).toMatch(/^- ★ /);
    expect(shown).toHaveLength(10);
    // the best match comes first, hot or not
    const best = [...shown].sort((x, y) => y.score - x.score)[0]!;
    expect(b.text.split('\n')[1]).toBe(best.line_text);
    // a tight budget keeps the best match
    const tight = await recall(ctx, 'docker host 11', { maxChars: 160, noCache: true, noRecord: true });
    expect(tight.text.split('\n')[1]).toContain('docker host 11');
    // no question (a session's start): the hot tier, by count
    const start = await recall(ctx, '', { noCache: true, noRecord: true });
    expect(start.hot.map((h) => h.key).slice(0, 3)).toEqual(['dk0004', 'dk0003', 'pref0001']);
    expect(start.text.split('\n')[1]).toMatch(/^- ★ /);
  });

  it('keeps an untyped entry\'s history through a line inserted above it, and reads an older history\'s path#Lline keys', async () => {
    const root = memory();
    const ctx = testCtx(root);
    const memKey = contentKey('- [Infra](memory/semantic/infrastructure.md) — hosts', 'MEMORY.md');
    for (let i = 0; i < 5; i++) recordRecalls(ctx, [memKey], `q ${i}`);
    writeFileSync(join(root, 'MEMORY.md'), '# Memory\nLast reviewed: 2026-05-15\n- [Infra](memory/semantic/infrastructure.md) — hosts\n');
    const b = await recall(ctx, '', { noCache: true, noRecord: true });
    expect(b.hot.map((h) => [h.key, h.line])).toEqual([[memKey, 3]]);
    // a dated entry keeps its history when its day moves to the archive
    mkdirSync(join(root, 'memory/archive/2025/06'), { recursive: true });
    const meetup = contentKey('- 10:00 [EVENT] docker meetup in Berlin', '2025-06-01');
    writeFileSync(join(root, 'memory/episodic/2025-06-01.md'), '- 10:00 [EVENT] docker meetup in Berlin\n');
    for (let i = 0; i < 6; i++) recordRecalls(ctx, [meetup], `m ${i}`);
    renameSync(join(root, 'memory/episodic/2025-06-01.md'), join(root, 'memory/archive/2025/06/2025-06-01.md'));
    const moved = await recall(ctx, '', { noCache: true, noRecord: true });
    expect(moved.hot.map((h) => [h.key, h.path])).toContainEqual([meetup, 'memory/archive/2025/06/2025-06-01.md']);
    const old = memory();
    for (let i = 0; i < 5; i++) recordRecalls(testCtx(old), ['MEMORY.md#L2'], `q ${i}`);
    const o = await recall(testCtx(old), '', { noCache: true, noRecord: true });
    expect(o.hot.map((h) => h.path)).toEqual(['MEMORY.md']);
  });

  it('records every entry shown in the history', async () => {
    const root = memory();
    const b = await recall(testCtx(root), 'pnpm', { noCache: true });
    expect(b.results[0]!.id).toBe('pref0001');
    expect(readRecallHistory(root).get('pref0001')!.count).toBe(1);
  });

  it('serves an identical query on an unchanged memory within 15 s from the cache, and recomputes after', async () => {
    const root = memory();
    const first = await recall(testCtx(root, '2026-05-15T14:30:00Z'), 'pnpm');
    expect(first.cached).toBe(false);
    const again = await recall(testCtx(root, '2026-05-15T14:30:10Z'), 'pnpm');
    expect(again.cached).toBe(true);
    expect(again.text).toBe(first.text);
    const other = await recall(testCtx(root, '2026-05-15T14:30:10Z'), 'pnpm', { contextUsed: 0.9 });
    expect(other.cached).toBe(false); // different options, different entry
    // a new matching entry appears: within 15 s, the cache does not answer for the changed memory
    writeFileSync(join(root, 'memory/semantic/tools.md'), '# Tools\n- 10:00 [PREF] pnpm workspaces for monorepos ^pnpm0002\n');
    const changed = await recall(testCtx(root, '2026-05-15T14:30:11Z'), 'pnpm');
    expect(changed.cached).toBe(false);
    expect(changed.text).toContain('pnpm workspaces');
    const later = await recall(testCtx(root, '2026-05-15T14:30:30Z'), 'pnpm');
    expect(later.cached).toBe(false);
    expect(readRecallHistory(root).get('pref0001')!.count).toBe(4); // cached serves do not count twice
  });

  it('builds the query from messages: message, recent (2 user + 1 assistant, 220/180 chars), full', () => {
    const long = 'x'.repeat(300);
    const msgs = [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: [{ type: 'text', text: 'second question' }] },
      { role: 'assistant', content: long },
      { role: 'system', content: 'ignored' },
      { role: 'user', content: 'third question' },
    ];
    expect(queryFromMessages(msgs, 'message')).toBe('third question');
    expect(queryFromMessages(msgs, 'recent')).toBe(`second question\n${'x'.repeat(180)}\nthird question`);
    expect(queryFromMessages(msgs, 'full').split('\n')).toHaveLength(5);
    expect(queryFromMessages([{ role: 'user', content: long }], 'message')).toHaveLength(220);
  });

  it('the command reads --messages and prints the block (JSON too)', async () => {
    const root = memory();
    const file = join(root, 'turn.json');
    writeFileSync(file, JSON.stringify([{ role: 'user', content: 'which package manager do we use? pnpm?' }]));
    const r = await runCli(['recall', '--root', root, '--messages', file, '--query-mode', 'message', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.results[0].cite).toBe('memory/semantic/preferences.md#L2');
    expect(j.budget.limit).toBe(10);
    const bad = await runCli(['recall', '--root', root, '--context-used', '1.5', '--query', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--context-used');
  });
});

describe('recall and MEMORY.md index lines', () => {
  it('leaves out an index line whose file holds nothing yet, and keeps it once the file holds an entry; search lists it either way', async () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n\n## Where things live\n- [Decisions](memory/semantic/decisions.md) — final decisions with why\n',
      'memory/semantic/decisions.md': '---\ntags: [decisions]\n---\n# Decisions\n\n<!-- [DECISION] entries, with why -->\n',
      'memory/episodic/2026-05-14.md': '- 10:00 [EVENT] we talked about the analytics vendor and what to decide next week ^ev000001\n',
    });
    roots.push(root);
    const before = await recall(testCtx(root), 'what did we decide', { noCache: true, noRecord: true });
    expect(before.text).not.toContain('[Decisions](memory/semantic/decisions.md)');
    expect(before.text).toContain('analytics vendor');
    const s = JSON.parse((await runCli(['search', '--root', root, 'what did we decide', '--json'])).stdout);
    expect(s.results.map((r: { path: string }) => r.path)).toContain('MEMORY.md');
    writeFileSync(join(root, 'memory/semantic/decisions.md'), '---\ntags: [decisions]\n---\n# Decisions\n\n- 2026-05-14 [DECISION] Plausible for analytics, three months ^dc000001\n');
    const after = await recall(testCtx(root), 'what did we decide', { noCache: true, noRecord: true });
    expect(after.text).toContain('[Decisions](memory/semantic/decisions.md)');
  });
});

describe('recall lines of notes', () => {
  it('carry the note\'s title where the text does not name it, and a day\'s heading never repeats the date', async () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n',
      'memory/People/Priya.md': '# Priya Shah\r\n\r\nRole: content lead. Prefers async updates over meetings.\r\n',
      'memory/Daily/2026-05-13.md': '# 2026-05-13 Wednesday\n\nPriya asked for async updates on the blog migration.\n',
    });
    roots.push(root);
    const b = await recall(testCtx(root), 'how does Priya like her updates', { noCache: true, noRecord: true });
    expect(b.text).toContain('- Priya Shah — Role: content lead. Prefers async updates over meetings. (memory/People/Priya.md#L1-L3)');
    expect(b.text).toContain('- 2026-05-13 Priya asked for async updates on the blog migration. (memory/Daily/2026-05-13.md#L1-L3)');
  });

  it('keep a section\'s list items apart with "; " instead of a run of " - "', async () => {
    expect(oneLineText('- Head of marketing\n- Prefers async updates\n* Allergic to shellfish')).toBe('Head of marketing; Prefers async updates; Allergic to shellfish');
    expect(oneLineText('- owner [[Priya]]\n\nLaunch target: 2026-12-15.\nStack: Astro.')).toBe('owner [[Priya]]; Launch target: 2026-12-15. Stack: Astro.');
    // inline fields (Dataview, Logseq) are items of their own
    expect(oneLineText('role:: CMS vendor contact\ncompany:: [[Acme CMS]]\n\n- Prefers email over chat')).toBe('role:: CMS vendor contact; company:: [[Acme CMS]]; Prefers email over chat');
    expect(oneLineText('1. ship it.\n2) then rest')).toBe('ship it. then rest'); // ends in a full stop: no "; " added
    expect(oneLineText('- 09:00 [EVENT] one line   with  spaces')).toBe('- 09:00 [EVENT] one line with spaces'); // one line: as written
    const root = tmpTree({ 'MEMORY.md': '# Memory\n', 'memory/People/Priya.md': '---\ntags: [people]\n---\n# Priya\n\n- Head of marketing\n- Allergic to shellfish (team dinner!)\n' });
    roots.push(root);
    const b = await recall(testCtx(root), 'Priya allergies', { noCache: true, noRecord: true });
    expect(b.text).toContain('- Priya — Head of marketing; Allergic to shellfish (team dinner!) (memory/People/Priya.md#L4-L7)');
  });
});
