/**
 * `health --fix`: each repair on its fixture, the person's text byte-identical afterwards,
 * and a second --fix with nothing left to fix.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHealth } from '../../lib/health/run.js';
import { REPO, readTree, rmTree, testCtx } from '../helpers.js';
import { copyFixture, expectations, fixtureNames } from './fixture-kit.js';

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmTree(r); });

async function fixTwice(name: string) {
  const root = copyFixture(name);
  roots.push(root);
  const { env } = expectations(name);
  const ctx = testCtx(root, undefined, undefined, env);
  const before = readTree(root);
  const first = await runHealth(ctx, { fix: true });
  const after = readTree(root);
  const second = await runHealth(ctx, { fix: true });
  return { root, before, after, first, second };
}

describe('health --fix', () => {
  it('appends the closure block close-day would write, from the day\'s entries, and leaves the day\'s text as it was', async () => {
    const { before, after, first, second } = await fixTwice('closure-block');
    const days = ['memory/episodic/2026-05-10.md', 'memory/episodic/2026-05-12.md', 'memory/episodic/2026-05-13.md'];
    expect(first.fixed).toEqual(days.map((d) => `closure-block: appended a closure block to ${d} (from its entries: review the values)`));
    for (const rel of days) expect(after[rel]!.startsWith(before[rel]!), rel).toBe(true);
    const added = (rel: string): string => after[rel]!.slice(before[rel]!.length);
    expect(added('memory/episodic/2026-05-10.md')).toBe('\n## Closure\nUpdated: 2026-05-10\nDecisions: keep backups for 90 days (^c3l4o5s6)\nSignal: restic prune needs a lock timeout (^c7l8o9s0)\nOpen: none\n');
    expect(added('memory/episodic/2026-05-13.md')).toBe('\n## Closure\nUpdated: 2026-05-13\nDecisions: none\nSignal: none\nOpen: none\n');
    // the partly closed day gets only what it lacks
    expect(added('memory/episodic/2026-05-12.md').trim()).toBe('Signal: none\nOpen: none');
    // a day closed with bullets is complete (its bullets are not entries)
    expect(after['memory/episodic/2026-05-11.md']).toBe(before['memory/episodic/2026-05-11.md']);
    expect(first.findings.filter((f) => f.check === 'closure-block')).toEqual([]);
    expect(second.fixed).toEqual([]);
  });

  it('archives an overdue day by moving it unchanged to memory/archive/YYYY/MM/', async () => {
    const { before, after, first, second } = await fixTwice('episodic-count');
    expect(first.fixed).toEqual(['episodic-count: archived memory/episodic/2026-04-01.md → memory/archive/2026/04/2026-04-01.md']);
    expect(after['memory/episodic/2026-04-01.md']).toBeUndefined();
    expect(after['memory/archive/2026/04/2026-04-01.md']).toBe(before['memory/episodic/2026-04-01.md']);
    expect(first.ok).toBe(true);
    expect(second.fixed).toEqual([]);
  });

  it('quarantines a torn last line and keeps every complete line byte for byte', async () => {
    const { root, before, after, first, second } = await fixTwice('wal-integrity-torn');
    const buf = before['memory/working-buffer.md']!;
    const cut = buf.lastIndexOf('\n') + 1;
    expect(after['memory/working-buffer.md']).toBe(buf.slice(0, cut));
    const torn = readdirSync(join(root, 'memory/.trash/torn'));
    expect(torn).toHaveLength(1);
    expect(readFileSync(join(root, 'memory/.trash/torn', torn[0]!), 'utf8')).toBe(buf.slice(cut) + '\n');
    expect(first.fixed[0]).toMatch(/^wal-integrity: quarantined the torn last line of memory\/working-buffer\.md to memory\/\.trash\/torn\//);
    expect(first.ok).toBe(true);
    expect(second.fixed).toEqual([]);
  });

  it('removes orphan temp files and moves a stale git lock to the trash', async () => {
    const { root, first, second } = await fixTwice('leftovers');
    for (const rel of ['memory/semantic/.people.md.memtier-tmp-3f9a1c0b2d4e', '.MEMORY.md.memtier-tmp-0011aabbccdd']) {
      expect(existsSync(join(root, rel)), rel).toBe(false);
      expect(first.fixed).toContain(`leftovers: removed the orphan temp file ${rel}`);
    }
    expect(existsSync(join(root, '.git/index.lock'))).toBe(false);
    expect(readFileSync(join(root, 'memory/.trash/2026-05-15T143000/.git/index.lock'), 'utf8')).toBe('<!-- expect: leftovers -->\n');
    expect(first.fixed).toContain('leftovers: moved .git/index.lock to memory/.trash/2026-05-15T143000/.git/index.lock');
    expect(first.findings.filter((f) => f.check === 'leftovers')).toEqual([]);
    expect(second.fixed).toEqual([]);
  });

  it('lets the store break a stale lock and sweep its holder\'s temp files first, and says so', async () => {
    const { root, first, second } = await fixTwice('leftovers-stale-lock');
    expect(first.fixed).toEqual([
      'store: broke the stale lock .memtier/lock (its holder is gone)',
      'store: removed the lock leftover .memtier/lock.stale-1a2b3c4d',
      'store: removed the orphan temp file memory/semantic/.decisions.md.memtier-tmp-a1b2c3d4e5f6',
    ]);
    expect(existsSync(join(root, '.memtier/lock'))).toBe(false);
    expect(existsSync(join(root, 'memory/semantic/.decisions.md.memtier-tmp-a1b2c3d4e5f6'))).toBe(false);
    expect(existsSync(join(root, '.memtier/lock.stale-1a2b3c4d'))).toBe(false);
    expect(first.findings.filter((f) => f.check === 'leftovers')).toEqual([]);
    expect(second.fixed).toEqual([]);
  });

  it('moves memory/TAGS.md and memory/FORMAT.md to the root unchanged and rewrites only the links to them', async () => {
    const { before, after, first, second } = await fixTwice('meta-files');
    expect(first.fixed).toEqual([
      'meta-files: moved memory/TAGS.md → TAGS.md',
      'meta-files: moved memory/FORMAT.md → FORMAT.md',
      'meta-files: rewrote 2 links in MEMORY.md to TAGS.md and FORMAT.md',
    ]);
    expect(after['TAGS.md']).toBe(before['memory/TAGS.md']);
    expect(after['FORMAT.md']).toBe(before['memory/FORMAT.md']);
    expect(after['memory/TAGS.md']).toBeUndefined();
    expect(after['memory/FORMAT.md']).toBeUndefined();
    // MEMORY.md: the index line's target and the comment's, nothing else
    expect(before['MEMORY.md']).toContain('- [Tags](memory/TAGS.md) — the frozen tag vocabulary\n');
    expect(after['MEMORY.md']).toBe(before['MEMORY.md']!
      .replace('- [Tags](memory/TAGS.md) — the frozen tag vocabulary', '- [Tags](TAGS.md) — the frozen tag vocabulary')
      .replace('(under 150 characters). Format: memory/FORMAT.md -->', '(under 150 characters). Format: FORMAT.md -->'));
    for (const [rel, text] of Object.entries(before)) if (!['MEMORY.md', 'memory/TAGS.md', 'memory/FORMAT.md'].includes(rel)) expect(after[rel], rel).toBe(text);
    // the moved vocabulary is the one read, and the rewritten link resolves
    expect(first.findings.filter((f) => ['meta-files', 'decision-links', 'tag-vocabulary'].includes(f.check))).toEqual([]);
    expect(first.ok).toBe(true);
    expect(second.fixed).toEqual([]);
    expect(second.findings.filter((f) => f.check === 'meta-files')).toEqual([]);
  });

  it('leaves memory/TAGS.md where it is when the root TAGS.md holds other content, and says so', async () => {
    const { before, after, first, second } = await fixTwice('meta-files-clash');
    expect(first.fixed).toEqual([]);
    expect(after).toEqual(before);
    const left = first.findings.filter((f) => f.check === 'meta-files');
    expect(left).toEqual([expect.objectContaining({ file: 'memory/TAGS.md', severity: 'warn', fixable: false, message: expect.stringMatching(/TAGS\.md already exists with other content, so it is not moved \(memtier reads TAGS\.md\)$/) })]);
    expect(second.fixed).toEqual([]);
  });

  const hasWal = existsSync(join(REPO, 'lib/wal/rotate.ts'));

  it.skipIf(!hasWal)('rotates an oversized buffer through the WAL module: every entry lands in today\'s episodic file once', async () => {
    const { before, after, first, second } = await fixTwice('buffer-size');
    expect(first.fixed).toEqual(['buffer-size: moved 84 entries to memory/episodic/2026-05-15.md']);
    const ids = [...before['memory/working-buffer.md']!.matchAll(/\^(buf\d{4}x)$/gm)].map((m) => m[1]!);
    expect(ids).toHaveLength(84);
    const day = after['memory/episodic/2026-05-15.md']!;
    for (const id of ids) expect(day.split(`^${id}\n`).length - 1, id).toBe(1);
    expect(day.startsWith(before['memory/episodic/2026-05-15.md']!)).toBe(true);
    expect(after['memory/working-buffer.md']).not.toMatch(/\^buf/);
    expect(first.findings.filter((f) => f.check === 'buffer-size')).toEqual([]);
    expect(second.fixed).toEqual([]);
  });

  it.skipIf(!hasWal)('finishes an interrupted rotation and clears entries left behind in the buffer', async () => {
    const { after, first, second } = await fixTwice('wal-integrity-rotation');
    expect(first.fixed).toHaveLength(1);
    expect(first.fixed[0]).toMatch(/^wal-integrity: finished 1 interrupted rotation; moved \d+ entr(y|ies) to memory\/episodic\/2026-05-15\.md; 1 already there$/);
    const day = after['memory/episodic/2026-05-15.md']!;
    for (const id of ['r0t4t3d1', 'm1n2b3v4', 'p9o8i7u6']) expect(day.split(`^${id}\n`).length - 1, id).toBe(1);
    expect(Object.keys(after).filter((k) => k.startsWith('memory/.rotating/'))).toEqual([]);
    expect(first.findings.filter((f) => f.check === 'wal-integrity')).toEqual([]);
    expect(second.fixed).toEqual([]);
  });

  describe('on every fixture: a second --fix finds nothing to fix, and no person-written file loses a byte', () => {
    for (const name of fixtureNames()) {
      it(name, async () => {
        const { before, after, second } = await fixTwice(name);
        expect(second.fixed).toEqual([]);
        expect(second.findings.filter((f) => f.fixable)).toEqual([]);
        for (const [rel, text] of Object.entries(before)) {
          if (rel.includes('.memtier-tmp-') || rel.startsWith('.git/')) continue; // not memory: moved to the trash
          const kept = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1); // a torn tail goes to the trash
          // in place (maybe appended to), archived, or (a rotated buffer) its bytes in the trash
          // memtier's reference files moved to the root (meta-files), and the links to them rewritten
          const relinked = kept.replaceAll('](memory/TAGS.md)', '](TAGS.md)').replaceAll('Format: memory/FORMAT.md', 'Format: FORMAT.md');
          const moved = /^memory\/(?:TAGS|FORMAT)\.md$/.test(rel) ? after[rel.slice('memory/'.length)] : undefined;
          const home = [after[rel], moved, ...Object.entries(after).filter(([k]) => k.startsWith('memory/archive/') || k.startsWith('memory/.trash/')).map(([, v]) => v)];
          expect(home.some((t) => t !== undefined && (t.startsWith(kept) || t.startsWith(relinked))), `${rel} keeps its text`).toBe(true);
        }
      });
    }
  });
});
