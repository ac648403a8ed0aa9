/**
 * Issue #12: a command SIGKILLed between its writes and its git commit leaves its change
 * recorded (.memtier/commit-pending/), and the next memtier command finishes that commit as a
 * recovered commit. At every named crash point of a WAL write: after the next command the tree
 * is clean, nothing acknowledged is missing from HEAD, and where the killed command had changed
 * a file, HEAD's history holds a "memtier recover:" commit.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { runBin, tmpTree } from '../helpers.js';

const git = (root: string, ...args: string[]): string => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' });

/** Files of the memory (trash excluded) that contain `text`, or '' when none does. */
function grepFiles(root: string, text: string): string {
  try {
    return execFileSync('grep', ['-rl', '--exclude-dir=.trash', text, join(root, 'memory'), join(root, 'SESSION-STATE.md')], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

async function gitMemory(): Promise<string> {
  const root = join(tmpTree(), 'mem');
  const r = runBin(['init', root, '--git']);
  expect(r.code, r.stderr).toBe(0);
  return root;
}

/** Crash points a `wal decide` passes, and whether the killed command had changed a memory file by then. */
const POINTS: { at: string; env?: NodeJS.ProcessEnv; changed: boolean }[] = [
  { at: 'lock.acquired', changed: false },
  { at: 'append.before-write', changed: false },
  { at: 'append.partial-write', changed: true },
  { at: 'append.after-write', changed: true },
  { at: 'replace.temp-written', changed: true },
  { at: 'replace.before-rename', changed: true },
  { at: 'replace.after-rename', changed: true },
  { at: 'commit.before', changed: true },
  // a write that rotates the buffer (limit 3 lines: the header and one entry)
  { at: 'rotate.after-rename', env: { MEMTIER_BUFFER_MAX_LINES: '3' }, changed: true },
  { at: 'rotate.after-merge', env: { MEMTIER_BUFFER_MAX_LINES: '3' }, changed: true },
  { at: 'rotate.before-cleanup', env: { MEMTIER_BUFFER_MAX_LINES: '3' }, changed: true },
];

describe('a command killed before its commit: the next command commits it', () => {
  for (const p of POINTS) {
    it(p.at, async () => {
      const root = await gitMemory();
      expect(runBin(['wal', 'decide', 'first decision', '--root', root]).code).toBe(0);
      const killed = runBin(['wal', 'decide', 'second decision', '--root', root], { env: { MEMTIER_CRASH_AT: p.at, ...p.env } });
      expect(killed.code, `${p.at} did not crash: ${killed.stderr}`).toBe(128);
      if (p.changed) expect(readdirSync(join(root, '.memtier/commit-pending')).length).toBe(1);
      const next = runBin(['wal', 'decide', 'third decision', '--root', root], { env: p.env });
      expect(next.code, next.stderr).toBe(0);
      expect(git(root, 'status', '--porcelain'), 'tree clean after the next command').toBe('');
      const log = git(root, 'log', '--format=%s');
      if (p.changed && !p.at.startsWith('append.partial')) expect(log).toMatch(/^memtier recover: commit of an interrupted command \(pid \d+/m);
      expect(log.split('\n')[0]).toBe('memtier wal decide: [DECISION] third decision');
      for (const d of ['first decision', 'third decision']) expect(git(root, 'grep', '-c', d, 'HEAD', '--', 'memory', 'SESSION-STATE.md').length, d).toBeGreaterThan(0);
      // what the killed command acknowledged only if it got past its append; then it is in HEAD too
      if (grepFiles(root, 'second decision')) expect(git(root, 'grep', '-c', 'second decision', 'HEAD', '--', 'memory', 'SESSION-STATE.md').length).toBeGreaterThan(0);
      expect(existsSync(join(root, '.memtier/commit-pending')) ? readdirSync(join(root, '.memtier/commit-pending')) : []).toEqual([]);
    });
  }

  it('a read-only command finishes the commit too, and a live process\'s record is left alone', async () => {
    const root = await gitMemory();
    expect(runBin(['wal', 'decide', 'kept decision', '--root', root], { env: { MEMTIER_CRASH_AT: 'commit.before' } }).code).toBe(128);
    expect(git(root, 'status', '--porcelain')).not.toBe('');
    const s = runBin(['search', 'kept decision', '--root', root, '--json'], { env: { MEMTIER_WATCH: 'off' } });
    expect(s.code, s.stderr).toBe(0);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(git(root, 'log', '--format=%s', '-1')).toMatch(/^memtier recover:/);
    // a record whose process still runs (this test's) is not touched: that command may yet commit
    const live = join(root, '.memtier/commit-pending', `${process.pid}-livetest.txt`);
    writeFileSync(live, `${process.pid} ${hostname()} livetest ${new Date().toISOString()}\nMEMORY.md\n`);
    appendFileSync(join(root, 'MEMORY.md'), '- a line a live command is writing\n');
    expect(runBin(['search', 'anything', '--root', root], { env: { MEMTIER_WATCH: 'off' } }).code).toBe(0);
    expect(existsSync(live)).toBe(true);
    expect(git(root, 'status', '--porcelain')).toContain('M MEMORY.md');
  });
});
