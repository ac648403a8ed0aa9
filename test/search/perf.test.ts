/**
 * bench perf on a tiny synthetic memory (spawns the COMPILED binary: run `npx tsc -p .` first).
 * No timing assertions: only that every figure is measured and the generator is deterministic.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMemory, runPerf } from '../../lib/bench/perf.js';
import { measureScale, renderScale, SCALE_COMMANDS } from '../../lib/bench/perf-scale.js';
import { CHECKS } from '../../lib/health/checks/index.js';
import { BIN } from '../helpers.js';
import { rmTree, testCtx } from '../helpers.js';

const dirs: string[] = [];
const mk = () => { const d = mkdtempSync(join(tmpdir(), 'memtier-perf-test-')); dirs.push(d); return d; };
afterAll(() => { for (const d of dirs) rmTree(d); });

describe('bench perf', () => {
  it('generates the same memory for the same size: days, notes with frontmatter, ~10 % Chinese', () => {
    const a = mk();
    const b = mk();
    const sa = generateMemory(a, 200);
    expect(generateMemory(b, 200)).toEqual(sa);
    expect(readFileSync(join(a, 'memory/semantic/note-1.md'), 'utf8')).toBe(readFileSync(join(b, 'memory/semantic/note-1.md'), 'utf8'));
    expect(readdirSync(join(a, 'memory/episodic'))).toHaveLength(60);
    const note = readFileSync(join(a, 'memory/semantic/note-1.md'), 'utf8');
    expect(note.split('\n')[1]).toMatch(/^tags: \[/);
    const all = readdirSync(join(a, 'memory/episodic')).map((f) => readFileSync(join(a, 'memory/episodic', f), 'utf8')).join('');
    const cjkLines = all.split('\n').filter((l) => /\p{Script=Han}/u.test(l)).length;
    const lines = all.split('\n').filter((l) => l.startsWith('- ')).length;
    expect(cjkLines / lines).toBeGreaterThan(0.03);
    expect(cjkLines / lines).toBeLessThan(0.2);
  });

  it('the log-heavy shape: years of hand-typed daily logs without ids or types ending the day before the clock, and notes; the same for the same seed (issue #33)', () => {
    const a = mk();
    const b = mk();
    const sa = generateMemory(a, 100, 42, 'logs');
    expect(generateMemory(b, 100, 42, 'logs')).toEqual(sa);
    const days = readdirSync(join(a, 'memory')).filter((f) => /^\d{4}-\d{2}-\d{2}\.md$/.test(f)).sort();
    expect(days).toHaveLength(80);
    expect(days.at(-1)).toBe('2026-05-14.md');
    expect(readFileSync(join(a, 'memory', days[0]!), 'utf8')).toBe(readFileSync(join(b, 'memory', days[0]!), 'utf8'));
    const texts = days.map((f) => readFileSync(join(a, 'memory', f), 'utf8'));
    const all = texts.join('');
    expect(all).not.toMatch(/\^[a-z0-9]{6,}/); // no ids
    expect(all).not.toMatch(/^- (?:\d{2}:\d{2} )?\[(?:EVENT|DECISION|TECH|PREF|LESSON|PROJ|PEOPLE)\]/m); // no types
    expect(all).toMatch(/^- \d{2}:\d{2} [^[]/m); // some timed lines
    expect(all).toMatch(/^- \[[ x]\] /m); // checklists
    expect(all).toMatch(/^[^-#\n].{80,}$/m); // free-form paragraphs
    const kb = texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / texts.length / 1024;
    expect(kb).toBeGreaterThan(3);
    expect(kb).toBeLessThan(10);
    expect(existsSync(join(a, 'memory/episodic'))).toBe(false);
    expect(readdirSync(join(a, 'memory/semantic')).length).toBeGreaterThan(10);
  });

  it('measures every figure on a small memory', async () => {
    const dir = mk();
    const rep = await runPerf(testCtx(dir), { notes: 60, runs: 1, dir: join(dir, 'mem') });
    for (const k of ['bareNodeMs', 'buildMs', 'buildPeakRssMb', 'coldSearchMs', 'coldPeakRssMb', 'warmQueryMs', 'warmSearchMs', 'editReflectMs'] as const) {
      expect(rep[k], k).toBeGreaterThan(0);
    }
    expect(rep.files).toBe(61);
    for (const k of ['startMs', 'bareNodeMs', 'coldSearchMs', 'editReflectMs', 'serverPeakRssMb'] as const) {
      expect(rep.watch[k], `watch.${k}`).toBeGreaterThan(0);
    }
    expect(existsSync(join(dir, 'mem', '.memtier', 'watch.json'))).toBe(false); // the server was stopped
  });

  it('times every health check and every upkeep command at each size (scale part)', async () => {
    const dir = mk();
    const sizes = await measureScale(testCtx(dir), BIN, { sizes: [30], shapes: ['bench'], timeoutSec: 120, dir: join(dir, 'scale') });
    expect(sizes).toHaveLength(1);
    const [run] = sizes[0]!.runs;
    expect(run!.memtier).toBe('current');
    expect(run!.snapshotMs).toBeGreaterThan(0);
    expect(Object.keys(run!.checks)).toEqual(CHECKS.map((c) => c.id));
    for (const [id, ms] of Object.entries(run!.checks)) expect(ms, id).toBeGreaterThanOrEqual(0);
    for (const [label] of SCALE_COMMANDS) {
      const c = run!.commands[label]!;
      expect(c.timedOut, label).toBe(false);
      expect([0, 1], label).toContain(c.exitCode); // 1: a check failed on the synthetic memory, not a crash
      expect(c.ms, label).toBeGreaterThan(0);
      expect(c.peakRssMb, label).toBeGreaterThan(10);
      expect(c.cpuMs, label).toBeGreaterThan(0);
    }
    expect(renderScale(sizes)).toMatch(/near-duplicates .* ms\n[\s\S]*dream .* MB/);
  });
});
