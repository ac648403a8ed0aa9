import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { FIXED_NOW, tmpTree } from '../helpers.js';

async function withStdin(argv: string[], input: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main({
    argv, env: { MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC' }, cwd: '/',
    stdin: Readable.from([Buffer.from(input)]),
    stdout: { write: (s: string) => { out += s; return true; } },
    stderr: { write: (s: string) => { err += s; return true; } },
  });
  return { code, out, err };
}

describe('TEXT "-" reads standard input', () => {
  it('add and wal take the text from stdin, newlines collapsed', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const a = await withStdin(['add', '--type', 'TECH', '-', '--root', root], 'the NAS runs\non port 5001\n');
    expect(a.code, a.err).toBe(0);
    expect(readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8')).toMatch(/^- 14:30 \[TECH\] the NAS runs on port 5001 \^[a-z0-9]+$/m);
    const w = await withStdin(['wal', 'decide', '-', '--root', root], 'keep the NAS\n');
    expect(w.code, w.err).toBe(0);
    expect(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8')).toMatch(/\[DECISION\] keep the NAS \^/);
    const empty = await withStdin(['add', '-', '--root', root], '\n');
    expect(empty.code).toBe(2);
  });
});
