/**
 * `health --quiet` runs the checks that can fail and takes syntax's and secrets' findings from
 * .memtier/health-files.json for files whose size and mtime are what the last full run saw: the
 * failures it reports are the full run's, whether it reuses them or reads the files afresh, and a
 * changed file is read again.
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../../lib/health/checks/index.js';
import { rmTree, runCli } from '../helpers.js';
import { copyFixture } from './fixture-kit.js';

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmTree(r); });

/** A fixture copy whose files are an hour old (a change within 2 s of a run is not trusted to show in the stats). */
function aged(name: string): string {
  const root = copyFixture(name);
  roots.push(root);
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p); else utimesSync(p, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    }
  };
  walk(root);
  return root;
}

interface Doc { exitCode: number; findings: { check: string; severity: string; file: string | null; line: number | null; message: string }[]; results: { id: string }[] }
const run = async (root: string, ...args: string[]): Promise<Doc> => JSON.parse((await runCli(['health', '--root', root, '--json', ...args])).stdout) as Doc;
const fails = (d: Doc): string[] => d.findings.filter((f) => f.severity === 'fail').map((f) => `${f.check} ${f.file}:${f.line} ${f.message}`).sort();
const FAILING = CHECKS.filter((c) => c.severity === 'fail').map((c) => c.id);

describe('health --quiet', () => {
  it('reports the full run\'s failures, afresh and from the kept findings, and leaves health.json alone', async () => {
    for (const name of ['syntax', 'secrets', 'decision-links', 'wal-integrity-torn', 'clean']) {
      const root = aged(name);
      const afresh = await run(root, '--quiet'); // no kept findings yet: every file read
      expect(existsSync(join(root, '.memtier/health.json')), name).toBe(false);
      const full = await run(root);
      expect(afresh.results.map((r) => r.id), name).toEqual(FAILING);
      expect(fails(afresh), name).toEqual(fails(full));
      const kept = JSON.parse(readFileSync(join(root, '.memtier/health-files.json'), 'utf8')) as { files: Record<string, unknown> };
      expect(Object.keys(kept.files).length, name).toBeGreaterThan(3);
      const report = readFileSync(join(root, '.memtier/health.json'), 'utf8');
      const reused = await run(root, '--quiet');
      expect(fails(reused), name).toEqual(fails(full));
      expect(reused.exitCode, name).toBe(full.exitCode);
      expect(readFileSync(join(root, '.memtier/health.json'), 'utf8'), name).toBe(report);
    }
  });

  it('takes an unchanged file\'s findings from health-files.json and reads a changed file again', async () => {
    const root = aged('clean');
    await run(root);
    const path = join(root, '.memtier/health-files.json');
    const kept = JSON.parse(readFileSync(path, 'utf8')) as { files: Record<string, [number, number, unknown[]]> };
    // a finding planted in the kept list of two unchanged files: --quiet trusts the list for both
    const [a, b] = ['memory/semantic/decisions.md', 'memory/episodic/2026-05-14.md'];
    for (const rel of [a, b]) kept.files[rel]![2].push(['secrets', 'fail', 1, 'planted finding', null]);
    writeFileSync(path, JSON.stringify(kept));
    expect(fails(await run(root, '--quiet'))).toEqual([`secrets ${a}:1 planted finding`, `secrets ${b}:1 planted finding`].sort());
    // b changes (its size): read again, its planted finding is gone and its new error is found
    appendFileSync(join(root, b), '- 25:99 [EVENT] a broken time ^zz9x8w7v\n');
    expect(statSync(join(root, b)).size).not.toBe(kept.files[b]![0]);
    const after = fails(await run(root, '--quiet'));
    expect(after).toContain(`secrets ${a}:1 planted finding`);
    expect(after.filter((f) => f.includes(b))).toEqual([expect.stringMatching(/^syntax memory\/episodic\/2026-05-14\.md:\d+ impossible time 25:99$/)]);
    // another memtier version's list is not used
    writeFileSync(path, JSON.stringify({ ...kept, version: '0.0.0-other' }));
    expect(fails(await run(root, '--quiet')).filter((f) => f.includes('planted'))).toEqual([]);
  });
});
