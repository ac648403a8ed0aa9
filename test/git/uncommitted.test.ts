/** Issue #12: `memtier health` warns about memory files a git memory has not committed. */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { appendFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tmpTree } from '../helpers.js';

const git = (root: string, ...args: string[]): string => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' });

describe('the uncommitted check', () => {
  it('names modified and untracked memory files, skips what is being edited, and is silent on a clean tree', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root, '--git'])).code).toBe(0);
    const clean = JSON.parse((await runCli(['health', '--only', 'uncommitted', '--json', '--root', root])).stdout);
    expect(clean.results[0]).toMatchObject({ id: 'uncommitted', status: 'pass' });

    appendFileSync(join(root, 'MEMORY.md'), '- a line written by hand\n');
    writeFileSync(join(root, 'memory/semantic/vendors.md'), '---\ntags: [work]\n---\n# Vendors\n');
    writeFileSync(join(root, 'notes.txt'), 'not a memory path\n');
    // the clock says it is a day after the edits: nobody is editing them any more
    const later = new Date(statSync(join(root, 'MEMORY.md')).mtimeMs + 86_400_000).toISOString();
    const r = await runCli(['health', '--only', 'uncommitted', '--json', '--root', root, '--now', later]);
    expect(r.code, r.stderr).toBe(0); // a warning, never a failure
    const j = JSON.parse(r.stdout);
    const files = j.findings.map((f: { file: string; severity: string; fix: string }) => { expect(f.severity).toBe('warn'); expect(f.fix).toMatch(/memtier sync/); return f.file; });
    expect(files.sort()).toEqual(['MEMORY.md', 'memory/semantic/vendors.md']);

    // edited two minutes ago: a person is at it, not reported
    const soon = new Date(statSync(join(root, 'MEMORY.md')).mtimeMs + 120_000).toISOString();
    const e = JSON.parse((await runCli(['health', '--only', 'uncommitted', '--json', '--root', root, '--now', soon])).stdout);
    expect(e.findings).toEqual([]);

    git(root, 'add', '-A');
    git(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'hand edits');
    const after = JSON.parse((await runCli(['health', '--only', 'uncommitted', '--json', '--root', root, '--now', later])).stdout);
    expect(after.findings).toEqual([]);
  });

  it('is skipped when the memory is not a git repository or MEMTIER_GIT=off', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    const j = JSON.parse((await runCli(['health', '--only', 'uncommitted', '--json', '--root', root])).stdout);
    expect(j.results[0]).toMatchObject({ id: 'uncommitted', status: 'skipped' });
  });

  // issue #31 finding 4
  it('health --fix reports no uncommitted warning for what its own repairs changed (committed when it ends); --dry-run speaks in the conditional', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root, '--git'])).code).toBe(0);
    // two days long past the 30-day TTL, committed, with file times of their own day
    for (const d of ['2026-01-05', '2026-01-06']) {
      const f = join(root, `memory/episodic/${d}.md`);
      writeFileSync(f, `# ${d}\n\n- 09:00 [EVENT] worked on the migration ^mig${d.replace(/-/g, '')}\n`);
      const t = new Date(`${d}T20:00:00Z`);
      utimesSync(f, t, t);
    }
    git(root, 'add', '-A');
    git(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'days');
    const now = '2026-03-01T10:00:00Z';
    const dry = await runCli(['health', '--fix', '--dry-run', '--root', root, '--now', now]);
    expect(dry.code, dry.stderr).toBeLessThan(2);
    expect(dry.stdout).toMatch(/on a copy of the memory, --fix:\n(?:.*\n)*\s+episodic-count: archived memory\/episodic\/2026-01-05\.md/);
    expect(dry.stdout).toMatch(/^would remove: memory\/episodic\/2026-01-05\.md$/m);
    expect(dry.stdout).not.toMatch(/^(?:moved|removed): |would: /m);
    const r = await runCli(['health', '--fix', '--json', '--root', root, '--now', now]);
    const j = JSON.parse(r.stdout);
    expect(j.fixed.join('\n')).toMatch(/archive/);
    expect(j.findings.filter((f: { check: string }) => f.check === 'uncommitted')).toEqual([]);
    // and it did commit them when it ended
    expect(git(root, 'status', '--porcelain', '--', 'memory')).toBe('');
  });
});
