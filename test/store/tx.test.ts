/** The Tx API in-process: replace, append, move, trash, re-entrant mutate, temp-file discovery. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { MemtierError } from '../../lib/core/errors.js';
import { readTree, rmTree, tmpTree, writeTree } from '../helpers.js';
import { store, thrown } from './util.js';
import { findOrphanTemps, isTornEntry } from '../../lib/store/store.js';

let root: string;
beforeEach(() => {
  root = tmpTree({ 'MEMORY.md': '# Memory\n', 'memory/working-buffer.md': '# Buffer\n\n' });
});
afterEach(() => rmTree(root));

describe('Tx', () => {
  it('write creates folders, replaces atomically and keeps the file mode', () => {
    store(root).mutate((tx) => tx.write('memory/semantic/a.md', '# A\n'));
    chmodSync(join(root, 'memory/semantic/a.md'), 0o600);
    store(root).mutate((tx) => tx.write('memory/semantic/a.md', '# A2\n', { expected: '# A\n' }));
    expect(readFileSync(join(root, 'memory/semantic/a.md'), 'utf8')).toBe('# A2\n');
    expect(statSync(join(root, 'memory/semantic/a.md')).mode & 0o777).toBe(0o600);
    expect(findOrphanTemps(root)).toEqual([]);
  });

  it('move refuses to overwrite; trash never deletes and never collides', () => {
    store(root).mutate((tx) => {
      tx.write('memory/semantic/a.md', 'a\n');
      expect(thrown(() => tx.move('memory/semantic/a.md', 'MEMORY.md')).code).toBe('exists');
      expect(thrown(() => tx.move('memory/semantic/missing.md', 'memory/x.md')).code).toBe('missing');
      const t1 = tx.trash('memory/semantic/a.md');
      tx.write('memory/semantic/a.md', 'a again\n');
      const t2 = tx.trash('memory/semantic/a.md');
      expect(t1).toBe('memory/.trash/2026-05-15T143000/memory/semantic/a.md');
      expect(t2).toBe('memory/.trash/2026-05-15T143000-1/memory/semantic/a.md');
      expect(tx.exists('memory/semantic/a.md')).toBe(false);
    });
    const tree = readTree(root);
    expect(tree['memory/.trash/2026-05-15T143000/memory/semantic/a.md']).toBe('a\n');
    expect(tree['memory/.trash/2026-05-15T143000-1/memory/semantic/a.md']).toBe('a again\n');
  });

  it('mutate is re-entrant on the same root and always releases the lock', () => {
    const s = store(root);
    s.mutate((tx) => {
      s.mutate((inner) => inner.append('memory/working-buffer.md', '- 14:30 [EVENT] inner ^inner00001\n'));
      tx.append('memory/working-buffer.md', '- 14:31 [EVENT] outer ^outer00001\n');
    });
    expect(existsSync(join(root, '.memtier/lock'))).toBe(false);
    expect(thrown(() => s.mutate(() => { throw new MemtierError('boom', { code: 'test' }); })).code).toBe('test');
    expect(existsSync(join(root, '.memtier/lock'))).toBe(false);
    expect(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8')).toBe('# Buffer\n\n- 14:30 [EVENT] inner ^inner00001\n- 14:31 [EVENT] outer ^outer00001\n');
  });

  it('a missing root is a clear error', () => {
    expect(thrown(() => store(join(root, 'nope')).mutate(() => 1)).code).toBe('no-memory');
  });
});


describe('orphan temp files', () => {
  it('findOrphanTemps lists .NAME.memtier-tmp-* anywhere but .git, node_modules and the trash (except trash/torn)', () => {
    writeTree(root, {
      'memory/semantic/.people.md.memtier-tmp-0123456789ab': 'x',
      '.MEMORY.md.memtier-tmp-abcdefabcdef': 'x',
      '.git/.config.memtier-tmp-0123456789ab': 'x',
      'node_modules/.a.memtier-tmp-0123456789ab': 'x',
      'memory/.trash/s/.b.md.memtier-tmp-0123456789ab': 'x',
      'memory/.trash/.c.md.memtier-tmp-0123456789ab': 'x',
      'memory/.trash/torn/.t.txt.memtier-tmp-0123456789ab': 'x',
      'memory/not-a-temp.memtier-tmp-0123456789ab': 'x',
    });
    expect(findOrphanTemps(root)).toEqual(['.MEMORY.md.memtier-tmp-abcdefabcdef', 'memory/.trash/torn/.t.txt.memtier-tmp-0123456789ab', 'memory/semantic/.people.md.memtier-tmp-0123456789ab']);
  });

  it('are swept when a dead holder\'s lock is broken, and only then', () => {
    writeTree(root, { 'memory/.buf.md.memtier-tmp-0123456789ab': 'partial' });
    store(root).mutate((tx) => tx.append('memory/working-buffer.md', '- 14:30 [EVENT] a ^aaaa000001\n'));
    expect(findOrphanTemps(root)).toHaveLength(1); // no crash seen: not ours to judge
    writeFileSync(join(root, '.memtier/lock'), '999999999 ' + hostname() + ' deadbeefdeadbeef 2026-05-15T14:00:00Z\n');
    const s = store(root);
    s.mutate((tx) => tx.append('memory/working-buffer.md', '- 14:31 [EVENT] b ^bbbb000001\n'));
    expect(findOrphanTemps(root)).toEqual([]);
    expect(s.lastRepair.temps).toEqual(['memory/.buf.md.memtier-tmp-0123456789ab']);
  });
});


describe('isTornEntry (fallback when no lock intent is left)', () => {
  it.each([
    ['- 14:30 [EVENT] half', true],
    ['- 2026-05-15 14:30 [DECISION] use pg', true],
    ['-', true],
    ['- ', true],
    ['- 14:3', true],
    ['- 2026-05', true],
    ['- 14:30 [EVENT] complete ^r7k2mf9x1a', false],
    ['written by hand', false],
    ['- a hand-written bullet', false],
    ['## Heading', false],
  ])('%j → %s', (line, torn) => {
    expect(isTornEntry(line)).toBe(torn);
  });
});
