/**
 * What a single-file reader (get, memory_get, memtier:/// resources) may print is exactly what
 * listMemoryFiles lists: one rule (format/layout.ts isMemoryPath), checked here against the walk
 * on a tree holding memory and everything else a memory root holds.
 */
import { describe, expect, it } from 'vitest';
import { isMemoryPath, listMemoryFiles } from '../../lib/format/layout.js';
import { memoryFileRel } from '../../lib/memory/memory-file.js';
import { tmpTree } from '../helpers.js';

const FILES = [
  'MEMORY.md', 'SESSION-STATE.md', 'todos.md', 'DREAMS.md', 'USER.md', 'TOOLS.md',
  'memory/working-buffer.md', 'memory/2026-05-14.md', 'memory/episodic/2026-05-14.md', 'memory/semantic/people.md',
  'memory/archive/2026/01/2026-01-02.md', 'memory/.hidden-note.md', 'knowledge/vendor.md', 'knowledge/deep/er/x.md',
  // not memory
  'AGENTS.md', 'SOUL.md', 'README.md', 'notes/a.md', '.env', '.git/config', '.git/x.md', '.ssh/id_ed25519', '.memtier/recall-cache.json',
  'memory/.trash/t/memory/semantic/a.md', 'memory/.snapshots/s.md', 'memory/.forgotten', 'memory/notes.txt', 'memory/x.MD',
  'memory/scripts/run.md', 'knowledge/node_modules/p/readme.md', 'knowledge/.obsidian/w.md', 'memory/semantic/.private/a.md',
];

describe('isMemoryPath', () => {
  it('admits exactly the files listMemoryFiles lists', () => {
    const root = tmpTree(Object.fromEntries(FILES.map((f) => [f, 'x\n'])));
    const listed = new Set(listMemoryFiles(root));
    expect(listed.size).toBeGreaterThan(10);
    for (const f of FILES) expect(isMemoryPath(f), f).toBe(listed.has(f));
  });

  it('never admits a path with an empty, . or .. part', () => {
    for (const p of ['memory//a.md', 'memory/./a.md', 'memory/../MEMORY.md', 'knowledge/a/../../.env.md', 'memory/']) expect(isMemoryPath(p), p).toBe(false);
  });
});

describe('memoryFileRel', () => {
  const root = tmpTree({ 'MEMORY.md': '# m\n', 'memory/semantic/a.md': 'a\n', '.env': 'k\n' });
  it('normalizes a memory path given as ./, //, an absolute path inside the root', () => {
    expect(memoryFileRel(root, './MEMORY.md')).toBe('MEMORY.md');
    expect(memoryFileRel(root, 'memory//semantic/./a.md')).toBe('memory/semantic/a.md');
    expect(memoryFileRel(root, `${root}/memory/semantic/a.md`)).toBe('memory/semantic/a.md');
  });
  it('refuses what is not memory (not-memory), and what leaves the root (path-containment)', () => {
    expect(() => memoryFileRel(root, '.env')).toThrow(expect.objectContaining({ code: 'not-memory', rule: 'memory-files-only', file: '.env' }));
    expect(() => memoryFileRel(root, 'memory/semantic/../../.env')).toThrow(expect.objectContaining({ code: 'not-memory' }));
    expect(() => memoryFileRel(root, '../x.md')).toThrow(expect.objectContaining({ rule: 'path-containment' }));
  });
});
