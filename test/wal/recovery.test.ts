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
