import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEntries } from '../../lib/format/entry.js';
import { addEntries } from '../../lib/wal/episodic.js';
import { testCtx, tmpTree } from '../helpers.js';

describe('addEntries with generated ids', () => {
  it('3,000 entries at one instant (a backfill with a fixed clock) all land, each with its own id', () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const ctx = testCtx(root);
    const at = new Date('2026-05-15T10:00:00Z');
    // 3,000 ids at one instant: every one must be distinct and every entry land (a collision is redrawn)
    for (let batch = 0; batch < 3; batch++) {
      addEntries(ctx, Array.from({ length: 1000 }, (_, i) => ({ type: 'EVENT' as const, text: `event ${batch}-${i}`, at })));
    }
    const day = parseEntries(readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8'));
    expect(day).toHaveLength(3000);
    expect(new Set(day.map((e) => e.id)).size).toBe(3000);
    expect(new Set(day.map((e) => e.text)).size).toBe(3000);
  });

  it('a given id that exists is still refused', () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const ctx = testCtx(root);
    addEntries(ctx, [{ text: 'one', id: 'given-1' }]);
    expect(() => addEntries(ctx, [{ text: 'two', id: 'given-1' }])).toThrow(/already exists/);
  });
});
