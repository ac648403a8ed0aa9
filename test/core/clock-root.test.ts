import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addDays, daysBetween, isoWeek, localDate, localTime, makeClock } from '../../lib/core/clock.js';
import { assertMemoryRoot, resolveRoot } from '../../lib/core/root.js';
import { tmpTree } from '../helpers.js';

describe('clock', () => {
  it('fixes the instant from MEMTIER_NOW and keeps it', () => {
    const c = makeClock({ now: '2026-05-15T14:30:00Z', tz: 'UTC' });
    expect(c.now().toISOString()).toBe('2026-05-15T14:30:00.000Z');
    expect(c.now().toISOString()).toBe('2026-05-15T14:30:00.000Z');
  });

  it('puts an instant on the local day of the configured zone', () => {
    const d = new Date('2026-05-15T23:30:00Z');
    expect(localDate(d, 'UTC')).toBe('2026-05-15');
    expect(localDate(d, 'Asia/Shanghai')).toBe('2026-05-16'); // UTC+8: already the next morning
    expect(localTime(d, 'Asia/Shanghai')).toBe('07:30');
    expect(localDate(d, 'America/Los_Angeles')).toBe('2026-05-15');
  });

  it('refuses a bad time and a bad zone with a usage error', () => {
    expect(() => makeClock({ now: 'yesterday-ish', tz: 'UTC' })).toThrow(/MEMTIER_NOW is not a valid date/);
    expect(() => makeClock({ tz: 'Mars/Olympus' })).toThrow(/unknown time zone/);
  });

  it('does calendar arithmetic and ISO weeks', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(daysBetween('2026-05-01', '2026-05-15')).toBe(14);
    expect(isoWeek('2026-05-15')).toBe('2026-W20');
    expect(isoWeek('2021-01-03')).toBe('2020-W53'); // Sunday belongs to the last week of 2020
    expect(isoWeek('2024-12-30')).toBe('2025-W01');
  });
});

describe('root resolution', () => {
  it('prefers --root, then MEMTIER_ROOT, then OPENCLAW_WORKSPACE, then an ancestor with MEMORY.md, then ~/.openclaw/workspace', () => {
    const t = tmpTree({ 'a/MEMORY.md': '# m\n', 'a/b/c/.keep': '' });
    const cwd = join(t, 'a/b/c');
    const env = { MEMTIER_ROOT: '/m1', OPENCLAW_WORKSPACE: '/m2' };
    expect(resolveRoot({ flag: 'x', env, cwd })).toEqual({ root: join(cwd, 'x'), source: 'flag' });
    expect(resolveRoot({ env, cwd })).toEqual({ root: '/m1', source: 'MEMTIER_ROOT' });
    expect(resolveRoot({ env: { OPENCLAW_WORKSPACE: '/m2' }, cwd })).toEqual({ root: '/m2', source: 'OPENCLAW_WORKSPACE' });
    expect(resolveRoot({ env: {}, cwd })).toEqual({ root: join(t, 'a'), source: 'ancestor' });
    expect(resolveRoot({ env: {}, cwd: '/', home: '/home/u' })).toEqual({ root: '/home/u/.openclaw/workspace', source: 'default' });
  });

  it('says "run memtier init" when no memory is there', () => {
    const t = tmpTree();
    expect(() => assertMemoryRoot({ root: t, source: 'flag' })).toThrow(/no memory found/);
    try { assertMemoryRoot({ root: t, source: 'flag' }); } catch (e) { expect((e as { hint: string }).hint).toMatch(/memtier init/); }
    mkdirSync(join(t, 'memory'));
    expect(() => assertMemoryRoot({ root: t, source: 'flag' })).not.toThrow();
    writeFileSync(join(t, 'MEMORY.md'), '# x\n');
    expect(() => assertMemoryRoot({ root: t, source: 'flag' })).not.toThrow();
  });
});

describe('clock zones without ICU', () => {
  it('"local" follows the machine zone and UTC the UTC getters, agreeing with Intl', () => {
    const d = new Date('2026-05-15T23:30:00Z');
    expect(makeClock({}).tz).toBe('local');
    const viaIntl = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
    expect(localDate(d, 'local')).toBe(viaIntl);
    expect(localDate(d, 'UTC')).toBe('2026-05-15');
    expect(localTime(d, 'UTC')).toBe('23:30');
    expect(localDate(d, 'Etc/UTC')).toBe('2026-05-15');
  });
});
