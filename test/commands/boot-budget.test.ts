import { describe, expect, it } from 'vitest';
import { boot } from '../../lib/commands/boot.js';
import { testCtx, tmpTree } from '../helpers.js';

const lines = (n: number, what: string): string => Array.from({ length: n }, (_, i) => `- 10:${String(i % 60).padStart(2, '0')} [EVENT] ${what} ${i} ${'x'.repeat(40)} ^${what.slice(0, 1)}${String(i).padStart(9, '0')}`).join('\n') + '\n';

function memory(): string {
  return tmpTree({
    'MEMORY.md': '# Memory\n\n## Key facts\n- the user is Ana\n',
    'SESSION-STATE.md': '# Session State\n\n## Current Task\nship v1\n\n## Pending\n' + lines(20, 'pending'),
    'memory/working-buffer.md': '# Working buffer\n\n' + lines(30, 'buffer'),
    'memory/episodic/2026-05-15.md': '# 2026-05-15\n\n' + lines(40, 'today'),
    'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n' + lines(60, 'yesterday'),
    'memory/2026-05-14-flush.md': 'an OpenClaw flush\n- talked to Ana\n',
  });
}

describe('boot budget', () => {
  it('never exceeds --max-chars, and MEMORY.md is the last thing to go', () => {
    const root = memory();
    const ctx = testCtx(root);
    for (let max = 200; max <= 12000; max += 97) {
      const r = boot(ctx, max);
      expect(r.text.length, `budget ${max}`).toBeLessThanOrEqual(max);
      expect(r.chars).toBe(r.text.length);
      const idx = r.files.find((f) => f.path === 'MEMORY.md')!;
      if (max >= 300) expect(idx.omitted, `budget ${max}`).toBe(false);
      // a lower-priority part is never whole while a higher-priority one is cut or left out
      const rank = { index: 0, state: 1, buffer: 2, today: 3, yesterday: 4 } as const;
      for (const a of r.files) for (const b of r.files) {
        if (rank[a.role] < rank[b.role] && a.omitted && !b.truncated && b.fileChars > 0) {
          // allowed only when b is small enough to fit where a did not
          expect(b.chars, `${max}: ${b.path} whole while ${a.path} left out`).toBeLessThan(a.fileChars);
        }
      }
    }
  });

  it('a cut log keeps its newest lines and says how to read the rest', () => {
    const r = boot(testCtx(memory()), 3000);
    const y = r.files.find((f) => f.path === 'memory/episodic/2026-05-14.md')!;
    expect(y.truncated).toBe(true);
    if (!y.omitted) {
      expect(r.text).toContain('yesterday 59 ');
      expect(y.read).toMatch(/^memtier get memory\/episodic\/2026-05-14\.md:1-\d+$/);
    }
    expect(r.text).toMatch(/cut to fit the boot budget; read them: memtier get /);
  });

  it('shows the entries of an interrupted rotation (acknowledged, in no log yet) and changes nothing', () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n', 'memory/.rotating/buffer-2026-05-15T140000.md': '# Working buffer\n\n- 2026-05-15 13:59 [DECISION] in flight ^f000000001\n' });
    const r = boot(testCtx(root));
    expect(r.rotating).toEqual(['memory/.rotating/buffer-2026-05-15T140000.md']);
    expect(r.text).toContain('==> memory/.rotating/buffer-2026-05-15T140000.md <==');
    expect(r.text).toContain('in flight ^f000000001');
    expect(r.text).toMatch(/^warning: a buffer rotation was interrupted/);
  });
});
