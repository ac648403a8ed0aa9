/**
 * lineReader (lib/watch/protocol.ts), the framing of the watch socket, its client and the MCP
 * server's standard input: lines whole across chunks (a character split between two stays one),
 * a line over the limit reported at once and skipped to its newline, the lines after it read.
 */
import { describe, expect, it } from 'vitest';
import { lineReader } from '../../lib/watch/protocol.js';

describe('lineReader', () => {
  it('joins a line across chunks, a multi-byte character split between two included', () => {
    const push = lineReader(100);
    const bytes = Buffer.from('héllo 数据\nnext\n', 'utf8');
    const out: string[] = [];
    for (let i = 0; i < bytes.length; i++) out.push(...push(bytes.subarray(i, i + 1)));
    expect(out).toEqual(['héllo 数据', 'next']);
    expect(push(Buffer.from('a\nb\nc'))).toEqual(['a', 'b']);
    expect(push(Buffer.from('d\n'))).toEqual(['cd']);
  });

  it('reports a line over the limit as soon as it passes it, skips it, and reads the next', () => {
    const heads: string[] = [];
    const push = lineReader(10, (h) => heads.push(h.toString()));
    expect(push(Buffer.from('ok\n0123456'))).toEqual(['ok']);
    expect(heads).toEqual([]);
    expect(push(Buffer.from('789abc'))).toEqual([]);
    expect(heads).toEqual(['0123456789abc']);
    expect(push(Buffer.from('x'.repeat(1000)))).toEqual([]);
    expect(push(Buffer.from('yyy\nafter\n'))).toEqual(['after']);
    expect(heads).toHaveLength(1);
    expect(push(Buffer.from(`${'z'.repeat(20)}\nlast\n`))).toEqual(['last']);
    expect(heads).toHaveLength(2);
  });

  it('looks at each byte a bounded number of times: 16 MiB in 4 KiB chunks is quick', () => {
    const push = lineReader(Infinity);
    const chunk = Buffer.alloc(4096, 'a');
    const t0 = performance.now();
    for (let i = 0; i < 4096; i++) push(chunk);
    expect(push(Buffer.from('\n'))[0]).toHaveLength(16 * 1024 * 1024);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});
