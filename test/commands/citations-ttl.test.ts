import { describe, expect, it } from 'vitest';
import { parseGetSpec } from '../../lib/commands/get.js';
import { parseTtl } from '../../lib/commands/cache.js';
import { runCli, tmpTree } from '../helpers.js';

const json = (s: string) => JSON.parse(s);

describe('memtier get with the citations search prints', () => {
  it('parses PATH#L12, PATH#L12-L20 and PATH#^id', () => {
    expect(parseGetSpec('memory/episodic/2026-05-15.md#L7')).toEqual({ path: 'memory/episodic/2026-05-15.md', from: 7, to: 7 });
    expect(parseGetSpec('MEMORY.md#L3-L4')).toEqual({ path: 'MEMORY.md', from: 3, to: 4 });
    expect(parseGetSpec('MEMORY.md#L3-4')).toEqual({ path: 'MEMORY.md', from: 3, to: 4 });
    expect(parseGetSpec('a.md#^k2j3mx0a1b')).toEqual({ path: 'a.md', id: 'k2j3mx0a1b' });
    expect(parseGetSpec('odd#name.md')).toEqual({ path: 'odd#name.md' });
  });

  it('prints the cited line range and the line of an entry id', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n', 'memory/episodic/2026-05-15.md': '# 2026-05-15\n\n- 09:00 [EVENT] one ^aaa0000001\n- 09:10 [DECISION] two ^bbb0000002\n' });
    const r = json((await runCli(['get', 'memory/episodic/2026-05-15.md#L3-L4', '--json', '--root', root])).stdout);
    expect(r).toMatchObject({ from: 3, to: 4, text: '- 09:00 [EVENT] one ^aaa0000001\n- 09:10 [DECISION] two ^bbb0000002\n' });
    const byId = await runCli(['get', 'memory/episodic/2026-05-15.md#^bbb0000002', '--root', root]);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toBe('- 09:10 [DECISION] two ^bbb0000002\n');
    const missing = await runCli(['get', 'memory/episodic/2026-05-15.md#^zzz0000009', '--root', root]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no entry ^zzz0000009 in memory/episodic/2026-05-15.md');
    const escape = await runCli(['get', '../outside.md#L1', '--root', root]);
    expect(escape.code).toBe(2);
    expect(escape.stderr).toMatch(/leaves the memory root/);
  });
});

describe('memtier cache --ttl durations', () => {
  it('reads seconds and s/m/h/d/w units; refuses anything else', async () => {
    expect(parseTtl(undefined)).toBe(3600);
    expect(parseTtl('600')).toBe(600);
    expect(parseTtl('90s')).toBe(90);
    expect(parseTtl('30m')).toBe(1800);
    expect(parseTtl('2h')).toBe(7200);
    expect(parseTtl('1.5d')).toBe(129600);
    expect(parseTtl('1w')).toBe(604800);
    expect(parseTtl('0')).toBe(0);
    expect(() => parseTtl('10x')).toThrow(/not a duration/);
    expect(() => parseTtl('-5')).toThrow(/--ttl takes a duration, 0 or more, got -5/);
  });

  it('a key set with --ttl 30m is live after 29 minutes and gone after 31', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const set = await runCli(['cache', 'set', 'k', 'v', '--ttl', '30m', '--root', root], { env: { MEMTIER_NOW: '2026-05-15T14:00:00Z' } });
    expect(set.code, set.stderr).toBe(0);
    const live = await runCli(['cache', 'get', 'k', '--root', root], { env: { MEMTIER_NOW: '2026-05-15T14:29:00Z' } });
    expect(live.stdout.trim()).toBe('v');
    const gone = await runCli(['cache', 'get', 'k', '--root', root], { env: { MEMTIER_NOW: '2026-05-15T14:31:00Z' } });
    expect(gone.code).toBe(1);
  });
});
