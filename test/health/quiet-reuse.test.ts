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
import { failingChecks } from '../../lib/health/run.js';
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
/** What a quiet run runs: the checks that can fail (a milder check's FAIL part too: disk's). */
const FAILING = failingChecks(CHECKS).map((c) => c.id);

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

  it('an agent that only ever runs --quiet reads each file once: the first quiet run keeps what it read, the next trusts it (issue #33)', async () => {
    const root = aged('clean');
    const path = join(root, '.memtier/health-files.json');
    await run(root, '--quiet');
    expect(existsSync(join(root, '.memtier/health.json'))).toBe(false); // no full run
    const kept = JSON.parse(readFileSync(path, 'utf8')) as { files: Record<string, [number, number, unknown[]]> };
    const rel = 'memory/semantic/decisions.md';
    expect(kept.files[rel]).toBeDefined();
    // planted in what the quiet run kept: the next quiet run takes it instead of reading the file again
    kept.files[rel]![2].push(['secrets', 'fail', 1, 'planted finding', null]);
    writeFileSync(path, JSON.stringify(kept));
    expect(fails(await run(root, '--quiet'))).toEqual([`secrets ${rel}:1 planted finding`]);
    // nothing read anew, nothing rewritten: the list stays byte for byte
    const before = readFileSync(path, 'utf8');
    await run(root, '--quiet');
    expect(readFileSync(path, 'utf8')).toBe(before);
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

  it('a full run trusts the kept findings of unchanged files too, and still checks superseded-by ids across files', async () => {
    const root = aged('syntax');
    const first = await run(root);
    const path = join(root, '.memtier/health-files.json');
    const kept = JSON.parse(readFileSync(path, 'utf8')) as { files: Record<string, [number, number, unknown[]]> };
    const rel = 'memory/semantic/decisions.md';
    kept.files[rel]![2].push(['secrets', 'fail', 1, 'planted finding', null]);
    writeFileSync(path, JSON.stringify(kept));
    const second = await run(root);
    const withoutPlanted = second.findings.filter((f) => f.message !== 'planted finding');
    expect(withoutPlanted).toEqual(first.findings);
    expect(second.findings.filter((f) => f.message === 'planted finding').map((f) => f.file)).toEqual([rel]);
    // an entry superseded by an id that a changed file no longer has: the unchanged file's finding appears
    const day = join(root, 'memory/episodic/2026-05-15.md');
    appendFileSync(join(root, rel), '- ~~old fact~~ superseded by ^gone1234 ^old12345\n');
    utimesSync(join(root, rel), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    await run(root);
    appendFileSync(day, '- 10:00 [EVENT] a new entry ^gone1234\n');
    const named = await run(root);
    expect(named.findings.filter((f) => f.message.includes('^gone1234'))).toEqual([]);
    writeFileSync(day, readFileSync(day, 'utf8').replace(' ^gone1234', ''));
    const dangling = await run(root);
    expect(dangling.findings.filter((f) => f.message.includes('^gone1234')).map((f) => `${f.file} ${f.severity} ${f.message}`))
      .toEqual([`${rel} warn superseded by ^gone1234, but no entry has that id`]);
  });

  it('keeps remark\'s reading of MEMORY.md and the torn last lines while their files are unchanged', async () => {
    for (const name of ['decision-links', 'wal-integrity-torn']) {
      const root = aged(name);
      const first = await run(root);
      const path = join(root, '.memtier/health-files.json');
      const kept = JSON.parse(readFileSync(path, 'utf8')) as { files: Record<string, [number, number, [string, string, number | null, string, string | null][]]>; checks?: Record<string, [string, number, number, [string, number][]]> };
      if (name === 'decision-links') {
        // the links remark found, one planted: the kept reading is what the next run checks
        const links = kept.checks!['decision-links']!;
        expect(links[0]).toBe('MEMORY.md');
        links[3].push(['memory/planted.md', 3]);
      } else {
        const torn = Object.entries(kept.files).filter(([, r]) => r[2].some((x) => x[0] === 'wal-integrity'));
        expect(torn.length).toBeGreaterThan(0);
        for (const [, r] of torn) for (const x of r[2]) if (x[0] === 'wal-integrity') x[3] += ' (kept)';
      }
      writeFileSync(path, JSON.stringify(kept));
      for (const args of [[], ['--quiet']]) {
        const again = await run(root, ...args);
        const changed = again.findings.filter((f) => f.message.includes('planted') || f.message.endsWith('(kept)'));
        expect(changed.length, `${name} ${args.join(' ')}`).toBeGreaterThan(0);
        if (!args.length) expect(again.findings.length, name).toBe(first.findings.length + (name === 'decision-links' ? 1 : 0));
      }
    }
  });
});
