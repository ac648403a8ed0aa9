/**
 * A rotation merged again after a crash (its aside file still in memory/.rotating/) adds nothing:
 * regressions found by the rotation property (test/property/rotation.test.ts).
 */
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEntries } from '../../lib/format/entry.js';
import { BUFFER_HEADER, finishRotation, rotate, ROTATING_DIR } from '../../lib/wal/rotate.js';
import { testCtx, tmpTree } from '../helpers.js';

describe('rotation replayed', () => {
  it('a buffer line that is only an id ("- ^abcdef123456") lands as an entry, once, however often the merge runs', () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n', 'memory/working-buffer.md': `${BUFFER_HEADER}\n- ^abcdef123456\n` });
    const ctx = testCtx(root);
    expect(rotate(ctx, { force: true }).moved).toBe(1);
    const day = join(root, 'memory/episodic/2026-05-15.md');
    const after = readFileSync(day, 'utf8');
    expect(parseEntries(after).map((e) => e.raw)).toEqual(['- ^abcdef123456']);
    // the crash case: the aside file is merged a second time
    const trash = join(root, 'memory/.trash');
    const stamp = readdirSync(trash)[0]!;
    const aside = readdirSync(join(trash, stamp, ROTATING_DIR))[0]!;
    mkdirSync(join(root, ROTATING_DIR), { recursive: true });
    cpSync(join(trash, stamp, ROTATING_DIR, aside), join(root, ROTATING_DIR, aside));
    const again = finishRotation(ctx);
    expect(again).toMatchObject({ recovered: 1, moved: 0, skipped: 1 });
    expect(readFileSync(day, 'utf8')).toBe(after);
  });

  it('a typed line holding a control character is moved without it, and a second merge finds it (was appended twice)', () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n', 'memory/working-buffer.md': `${BUFFER_HEADER}\n- 09:15 [EVENT] bell\u0007 rang\n` });
    const ctx = testCtx(root);
    expect(rotate(ctx, { force: true }).moved).toBe(1);
    const day = join(root, 'memory/episodic/2026-05-15.md');
    const after = readFileSync(day, 'utf8');
    expect(parseEntries(after).map((e) => e.raw.replace(/ \^r[0-9a-f]{9}$/, ''))).toEqual(['- 09:15 [EVENT] bell rang']);
    const trash = join(root, 'memory/.trash');
    const stamp = readdirSync(trash)[0]!;
    const aside = readdirSync(join(trash, stamp, ROTATING_DIR))[0]!;
    mkdirSync(join(root, ROTATING_DIR), { recursive: true });
    cpSync(join(trash, stamp, ROTATING_DIR, aside), join(root, ROTATING_DIR, aside));
    expect(finishRotation(ctx)).toMatchObject({ recovered: 1, moved: 0, skipped: 1 });
    expect(readFileSync(day, 'utf8')).toBe(after);
  });
});
