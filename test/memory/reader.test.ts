/** lib/memory/reader.ts: one read per file per command, never a stale one after a write. */
import { describe, expect, it } from 'vitest';
import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readOnce } from '../../lib/memory/reader.js';
import { openStore } from '../../lib/store/store.js';
import { testCtx, tmpTree } from '../helpers.js';

describe('readOnce', () => {
  it('serves an unchanged file from memory and sees every write: store replace and append, hand append, rename over it', () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n- one\n' });
    const ctx = testCtx(root);
    const a = readOnce(root, 'MEMORY.md');
    expect(a).toBe('# Memory\n- one\n');
    expect(readOnce(root, 'MEMORY.md')).toBe(a); // the same string: not read again
    openStore(ctx).mutate((tx) => tx.write('MEMORY.md', '# Memory\n- two\n'));
    expect(readOnce(root, 'MEMORY.md')).toBe('# Memory\n- two\n');
    openStore(ctx).mutate((tx) => tx.append('MEMORY.md', '- three'));
    expect(readOnce(root, 'MEMORY.md')).toBe('# Memory\n- two\n- three\n');
    appendFileSync(join(root, 'MEMORY.md'), '- four\n');
    expect(readOnce(root, 'MEMORY.md')).toBe('# Memory\n- two\n- three\n- four\n');
    // an editor's save: a new file renamed over the old one, same size
    writeFileSync(join(root, 'tmp.md'), '# Memory\n- TWO\n- THREE\n- FOUR\n');
    renameSync(join(root, 'tmp.md'), join(root, 'MEMORY.md'));
    expect(readOnce(root, 'MEMORY.md')).toBe('# Memory\n- TWO\n- THREE\n- FOUR\n');
    expect(readOnce(root, 'gone.md')).toBeUndefined();
  });

  it('reads strictly: invalid UTF-8 is an error naming the file, never cached text', () => {
    const root = tmpTree({ 'MEMORY.md': Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]) });
    expect(() => readOnce(root, 'MEMORY.md')).toThrow(/UTF-8/);
  });
});
