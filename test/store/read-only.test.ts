/**
 * A read-only memory (issue 18): on a tmpfs remounted read-only (EROFS; root ignores permission
 * bits, a read-only mount it cannot), and without write permission (EACCES: the same memory,
 * chmod a-w, used by an unprivileged user). Reading commands work; every writing command fails
 * with one clear message and changes nothing; `health` says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, REPO } from '../helpers.js';
import { snapshotBytes } from './util.js';
import { mountTmpfs, type Tmpfs } from './mount.js';

const fs = mountTmpfs(4096);
const why = 'why' in fs ? fs.why : undefined;
const mount = fs as Tmpfs;
const ROOT = why ? '' : join(mount.dir, 'mem');

function run(args: string[], opts: { uid?: number } = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, '--root', ROOT, ...args], {
    env: { PATH: process.env.PATH, HOME: mount.dir, MEMTIER_NOW: '2026-05-15T14:30:00Z', MEMTIER_TZ: 'UTC' },
    encoding: 'utf8', cwd: '/', ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  return { code: r.status ?? 128, stdout: r.stdout, stderr: r.stderr };
}

const READS: string[][] = [['search', 'postgres'], ['get', 'MEMORY.md'], ['boot'], ['stats'], ['wal', 'get'], ['search', 'postgres', '--json']];
const WRITES: string[][] = [['wal', 'decide', 'use redis'], ['add', 'an event'], ['rotate', '--force'], ['forget', '^chaosro0001'], ['consolidate'], ['wal', 'context', 'k', 'v'], ['supersede', '^chaosro0001', '--by', 'new'], ['archive', '--now', '2027-01-01']];

/** One clear line: `memtier: FILE: MESSAGE` plus its fix, no stack trace, nothing written. */
function expectRefused(r: { code: number; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.split('\n').filter((l) => l.startsWith('memtier:'))).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr).toContain('nothing was written');
}

describe.skipIf(why)(`a read-only memory${why ? ` (skipped: ${why})` : ''}`, () => {
  beforeAll(() => {
    expect(run(['init', ROOT, '--git']).code).toBe(0);
    expect(run(['wal', 'decide', 'use postgres for billing']).code).toBe(0);
    expect(run(['add', '--id', 'chaosro0001', 'postgres runs on db1']).code).toBe(0);
    expect(run(['search', 'postgres']).code).toBe(0); // the index cache exists
  });
  afterAll(() => mount.unmount());

  it('EROFS: reads work, every write fails with one message and changes nothing, health says why', () => {
    const before = snapshotBytes(ROOT);
    mount.readOnly(true);
    try {
      for (const a of READS) {
        const r = run(a);
        expect(r.code, `${a.join(' ')}: ${r.stderr}`).toBe(0);
      }
      expect(run(['search', 'postgres']).stdout).toContain('use postgres for billing');
      for (const a of WRITES) expectRefused(run(a), /read-only filesystem \(EROFS\)/);
      const j = JSON.parse(run(['wal', 'decide', 'x', '--json']).stdout);
      expect(j.error.code).toBe('read-only');
      const h = run(['health', '--json']);
      expect(h.code).toBe(1);
      const fails = JSON.parse(h.stdout).findings.filter((f: { severity: string }) => f.severity === 'fail');
      expect(fails.map((f: { check: string; message: string }) => `${f.check}: ${f.message}`)).toEqual(['disk: the memory is on a read-only filesystem (EROFS): every writing command fails']);
    } finally {
      mount.readOnly(false);
    }
    expect(snapshotBytes(ROOT)).toEqual(before);
    // Writable again: the next write works and health no longer complains.
    expect(run(['wal', 'decide', 'after the remount']).code).toBe(0);
    expect(run(['health', '--only', 'disk', '--json']).stdout).not.toContain('read-only');
  });

  it('EACCES: a user without write permission reads, and is refused with one message', () => {
    // The memory must be readable by the unprivileged user (uid 65534), and so must node and the repo.
    const probe = spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(join(REPO, 'dist'))})`], { uid: 65534, gid: 65534 });
    if (probe.status !== 0) { console.log('skipped: uid 65534 cannot read the repository'); return; }
    const dirs: string[] = [];
    const walk = (d: string): void => { dirs.push(d); for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory() && e.name !== '.git') walk(join(d, e.name)); };
    walk(ROOT);
    const modes = new Map(dirs.map((d) => [d, statSync(d).mode & 0o7777]));
    for (const d of dirs) chmodSync(d, 0o555);
    const before = snapshotBytes(ROOT);
    try {
      for (const a of READS.slice(1, 4)) expect(run(a, { uid: 65534 }).code, a.join(' ')).toBe(0);
      for (const a of WRITES.slice(0, 3)) expectRefused(run(a, { uid: 65534 }), /no permission to write in the memory \(EACCES\)/);
      const fails = JSON.parse(run(['health', '--json'], { uid: 65534 }).stdout).findings.filter((f: { severity: string }) => f.severity === 'fail');
      expect(fails.map((f: { message: string }) => f.message)).toEqual(['no permission to write in the memory root (EACCES): every writing command fails']);
    } finally {
      for (const [d, m] of modes) chmodSync(d, m);
    }
    expect(snapshotBytes(ROOT)).toEqual(before);
  });
});
