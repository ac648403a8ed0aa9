import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEntries } from '../../lib/format/entry.js';
import { runCli, tmpTree } from '../helpers.js';

const ASIDE = 'memory/.rotating/buffer-2026-05-15T140000.md';
const aside = '# Working buffer\n\n- 2026-05-15 13:58 [DECISION] in flight one ^f000000001\nhand-typed line\n';

describe('every writing command first finishes an interrupted rotation', () => {
  for (const args of [['add', '--type', 'EVENT', 'after the crash'], ['wal', 'decide', 'after the crash'], ['rotate']]) {
    it(`memtier ${args[0]}`, async () => {
      const root = tmpTree({ 'MEMORY.md': '# M\n', [ASIDE]: aside, 'memory/episodic/2026-05-15.md': '# 2026-05-15\n\n- 13:58 [DECISION] in flight one ^f000000001\n' });
      const r = await runCli([...args, '--root', root]);
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(join(root, 'memory/.rotating'))).toEqual([]);
      const day = parseEntries(readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8'));
      // the entry merged before the crash is not duplicated; the hand-typed line arrives once
      expect(day.filter((e) => e.id === 'f000000001')).toHaveLength(1);
      expect(day.filter((e) => e.text === 'hand-typed line')).toHaveLength(1);
      // running it again changes nothing about them
      await runCli(['rotate', '--root', root]);
      const again = parseEntries(readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8'));
      expect(again.filter((e) => e.text === 'hand-typed line')).toHaveLength(1);
    });
  }
});

describe('a WAL write that cannot update SESSION-STATE.md writes nothing', () => {
  it('invalid UTF-8 in SESSION-STATE.md: exit 2, buffer unchanged', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n', 'SESSION-STATE.md': Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]), 'memory/working-buffer.md': '# Working buffer\n\n' });
    const r = await runCli(['wal', 'decide', 'should not land', '--root', root]);
    expect(r.code).toBe(2);
    expect(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8')).toBe('# Working buffer\n\n');
  });

  it('a context KEY with ":" is refused before anything is written', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const r = await runCli(['wal', 'context', 'a:b', 'c', '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('holds ":" or "="');
  });
});

describe('a rotation that fails never fails the WAL write', () => {
  it('acknowledges every entry while the day file is blocked, and merges them exactly once when it is freed', async () => {
    const { mkdirSync, rmdirSync } = await import('node:fs');
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    mkdirSync(join(root, 'memory/episodic/2026-05-15.md'), { recursive: true }); // a folder where the day file goes
    const env = { MEMTIER_BUFFER_MAX_LINES: '4' };
    for (let i = 0; i < 6; i++) {
      const r = await runCli(['wal', 'decide', `blocked ${i}`, '--root', root], { env });
      expect(r.code, r.stderr).toBe(0);
      if (i >= 1) expect(r.stderr).toContain('the buffer rotation failed');
    }
    rmdirSync(join(root, 'memory/episodic/2026-05-15.md'));
    const r = await runCli(['wal', 'decide', 'freed', '--root', root], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(readdirSync(join(root, 'memory/.rotating'))).toEqual([]);
    const all = [
      ...parseEntries(readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8')),
      ...parseEntries(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8')),
    ].map((e) => e.text).sort();
    expect(all).toEqual(['blocked 0', 'blocked 1', 'blocked 2', 'blocked 3', 'blocked 4', 'blocked 5', 'freed']);
  });
});

describe('two different entries with the same id both survive rotation, exactly once', () => {
  it('keeps the newcomer under a derived id; a retried merge finds it', async () => {
    const { writeFileSync, mkdirSync } = await import('node:fs');
    const aside = '# Working buffer\n\n- 2026-05-15 14:00 [DECISION] alpha ^dup0000001\n- 2026-05-15 14:00 [DECISION] beta ^dup0000001\n- 2026-05-15 14:00 [DECISION] alpha ^dup0000001\n';
    const root = tmpTree({ 'MEMORY.md': '# M\n', [ASIDE]: aside, 'memory/episodic/2026-05-15.md': '# 2026-05-15\n\n- 14:00 [DECISION] alpha ^dup0000001\n' });
    expect((await runCli(['rotate', '--root', root])).code).toBe(0);
    const day1 = readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8');
    const texts = parseEntries(day1).map((e) => e.text).sort();
    expect(texts).toEqual(['alpha', 'beta']);
    expect(new Set(parseEntries(day1).map((e) => e.id)).size).toBe(2);
    // the same aside again (a crash before it was trashed): nothing changes
    mkdirSync(join(root, 'memory/.rotating'), { recursive: true });
    writeFileSync(join(root, ASIDE), aside);
    expect((await runCli(['rotate', '--root', root])).code).toBe(0);
    expect(readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8')).toBe(day1);
  });
});
