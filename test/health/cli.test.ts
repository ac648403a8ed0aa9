/**
 * `memtier health` through the CLI core (in-process): exit codes, --quiet, --json, --only,
 * --list, --explain and health.json. One table of cases, as markdownlint-cli2 keeps them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { capFindings, MAX_PER_CHECK, runHealth } from '../../lib/health/run.js';
import { CHECKS } from '../../lib/health/checks/index.js';
import type { Check } from '../../lib/health/types.js';
import { FIXED_NOW, REPO, rmTree, runBin, runCli, testCtx, tmpTree } from '../helpers.js';
import { copyFixture } from './fixture-kit.js';

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmTree(r); });
const fixture = (name: string): string => { const r = name === 'empty' ? tmpTree() : copyFixture(name); roots.push(r); return r; };

interface Case { name: string; fixture: string; args: string[]; code: number; out?: RegExp; notOut?: RegExp }
const CASES: Case[] = [
  { name: 'a clean memory passes', fixture: 'clean', args: [], code: 0, out: /memtier health: ok: 0 failures, 0 warnings; \d+ of \d+ checks passed, 3 skipped/ },
  { name: 'a mixed OpenClaw memory passes (a hand-written hashtag only warns)', fixture: 'mixed-openclaw', args: [], code: 0, out: /info unadopted +memory\/2026-05-10\.md: 2 OpenClaw daily files/ },
  { name: 'a failing check exits 1 and says what to do', fixture: 'syntax', args: [], code: 1, out: /FAIL syntax +memory\/episodic\/2026-05-15\.md:4: impossible time 25:10[\s\S]*Memory integrity check failed/ },
  { name: 'upkeep that is due only warns (exit 0): a day without its closure block', fixture: 'closure-block', args: [], code: 0, out: /WARN closure-block +memory\/episodic\/2026-05-12\.md: closure block lacks Signal, Open/, notOut: /FAIL|integrity check failed/ },
  { name: 'warnings alone exit 0', fixture: 'near-duplicates', args: [], code: 0, out: /WARN near-duplicates/ },
  { name: '--quiet prints failures only', fixture: 'syntax', args: ['--quiet'], code: 1, out: /^FAIL syntax/, notOut: /skip|WARN|info/ },
  { name: '--quiet prints nothing when all pass', fixture: 'near-duplicates', args: ['--quiet'], code: 0, notOut: /\S/ },
  { name: '--only runs the named checks', fixture: 'closure-block', args: ['--only', 'buffer-size,open-questions'], code: 0, out: /2 of 2 checks passed/ },
  { name: '--only with an unknown id is a usage error', fixture: 'clean', args: ['--only', 'nope'], code: 2 },
  { name: '--list names every check', fixture: 'clean', args: ['--list'], code: 0, out: new RegExp(CHECKS.map((c) => c.id).join('[\\s\\S]*')) },
  { name: '--list --markdown prints the README table', fixture: 'clean', args: ['--list', '--markdown'], code: 0, out: /^<!-- health-checks:start -->\n\| check \|/ },
  { name: '--explain prints a doc entry', fixture: 'clean', args: ['--explain', 'closure-block'], code: 0, out: /Triggers:[\s\S]*Failing:[\s\S]*Fixed:[\s\S]*Why:/ },
  { name: '--markdown without --list is a usage error', fixture: 'clean', args: ['--markdown'], code: 2 },
  { name: 'a folder without a memory cannot be checked (exit 2)', fixture: 'empty', args: [], code: 2 },
  { name: '--list works without a memory', fixture: 'empty', args: ['--list'], code: 0, out: /^warm-tags-line/ },
];

describe('memtier health (CLI)', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const root = fixture(c.fixture);
      const r = await runCli(['health', '--root', root, ...c.args]);
      expect(r.code, r.stdout + r.stderr).toBe(c.code);
      if (c.out) expect(r.stdout).toMatch(c.out);
      if (c.notOut) expect(r.stdout).not.toMatch(c.notOut);
    });
  }

  it('--json gives every finding as {check, severity, file, line, message, fix} and writes .memtier/health.json', async () => {
    const root = fixture('decision-links');
    const r = await runCli(['health', '--root', root, '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { ok: boolean; time: string; findings: Record<string, unknown>[]; results: { id: string; status: string }[]; figures: Record<string, unknown> };
    expect(doc.ok).toBe(false);
    expect(doc.time).toBe(new Date(FIXED_NOW).toISOString());
    expect(doc.findings[0]).toEqual({
      check: 'decision-links', severity: 'fail', file: 'MEMORY.md', line: 5,
      message: 'link "memory/semantic/cache.md" does not resolve: no such file',
      fix: 'fix the path or remove the index line (the decision may have been archived or renamed)', fixable: false,
    });
    expect(doc.results.map((x) => x.id)).toEqual(CHECKS.map((c) => c.id));
    expect(doc.results.find((x) => x.id === 'index-fresh')!.status).toBe('skipped');
    expect(Object.keys(doc.figures)).toEqual(expect.arrayContaining(['memory', 'memory-budget', 'disk']));
    expect(doc.figures.memory).toMatchObject({ files: 7, hotTokens: expect.any(Number), tokens: expect.any(Number) });
    const file = join(root, '.memtier/health.json');
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(doc);
  });

  it('the same files and clock give the same report', async () => {
    const a = await runCli(['health', '--root', fixture('syntax'), '--json']);
    const b = await runCli(['health', '--root', fixture('syntax'), '--json']);
    const strip = (s: string) => s.replace(/"(freeBytes|fsBytes)": \d+/g, '');
    expect(strip(a.stdout)).toBe(strip(b.stdout));
  });
});

describe('through the real binary', () => {
  it.skipIf(!existsSync(join(REPO, 'dist/lib/commands/health.js')))('exits 1 with the FAIL lines on stdout, 0 when clean (needs the build: npm test runs it)', () => {
    const bad = runBin(['health', '--quiet', '--root', fixture('syntax')]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^FAIL syntax/);
    const good = runBin(['health', '--quiet', '--root', fixture('clean')]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toBe('');
  });
});

describe('long reports', () => {
  it('list at most MAX_PER_CHECK findings per check in text and health.json, keep complete counts; --json and --all list every one', async () => {
    const many: Check = { ...CHECKS[0]!, id: 'many', run: () => Array.from({ length: MAX_PER_CHECK + 7 }, (_, i) => ({ check: 'many', severity: 'fail' as const, file: 'MEMORY.md', line: i + 1, message: `n${i}` })) };
    const root = fixture('clean');
    const r = await runHealth(testCtx(root), { checks: [many] });
    expect(r.counts.fail).toBe(MAX_PER_CHECK + 7);
    expect(r.findings).toHaveLength(MAX_PER_CHECK + 7);
    const cut = capFindings(r);
    expect(cut.counts).toEqual(r.counts);
    expect(cut.findings).toHaveLength(MAX_PER_CHECK + 1);
    expect(cut.findings.at(-1)).toMatchObject({ check: 'many', severity: 'fail', message: '7 more findings of this check not listed' });
  });
});

describe('a check that throws', () => {
  it('becomes a finding and the other checks still run', async () => {
    const boom: Check = { ...CHECKS[0]!, id: 'boom', run() { throw new Error('kaboom'); } };
    const root = fixture('clean');
    const r = await runHealth(testCtx(root), { checks: [boom, ...CHECKS.slice(1, 3)] });
    expect(r.findings).toEqual([{ check: 'boom', severity: 'fail', message: 'check boom threw: kaboom', fix: expect.any(String), fixable: false }]);
    expect(r.results.map((x) => [x.id, x.status])).toEqual([['boom', 'fail'], [CHECKS[1]!.id, 'pass'], [CHECKS[2]!.id, 'pass']]);
    expect(r.exitCode).toBe(1);
  });
});

describe('limits', () => {
  it('follow the WAL\'s and the archive\'s settings unless health\'s own are set', async () => {
    const { limitsFrom } = await import('../../lib/memory/limits.js');
    expect(limitsFrom({}).bufferLines).toBe(80);
    expect(limitsFrom({ MEMTIER_BUFFER_MAX_LINES: '120' }).bufferLines).toBe(120);
    expect(limitsFrom({ MEMTIER_BUFFER_MAX_LINES: '120', MEMTIER_HEALTH_BUFFER_LINES: '90' }).bufferLines).toBe(90);
    expect(limitsFrom({ MEMTIER_ARCHIVE_DAYS: '60' }).episodicTtlDays).toBe(60);
    expect(limitsFrom({ MEMTIER_HEALTH_HOST_MAX_CHARS: '30000' }).hostMaxChars).toBe(30000);
  });
});
