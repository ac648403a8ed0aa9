/**
 * A small tmpfs for the full-disk and read-only suites: a real filesystem that fills up (ENOSPC)
 * and can be remounted read-only (EROFS). Needs root and mount(2) (a container without
 * CAP_SYS_ADMIN cannot); `why` says why not, and the suites print it as "skipped: why".
 */
import { spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, fstatSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs { dir: string; readOnly(on: boolean): void; unmount(): void }

function sh(cmd: string, args: string[]): { ok: boolean; err: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return { ok: r.status === 0, err: (r.stderr || r.error?.message || '').trim() };
}

/** Mount a tmpfs of `kib` KiB, or return why it cannot be done here. */
export function mountTmpfs(kib: number): Tmpfs | { why: string } {
  if (process.platform !== 'linux') return { why: `tmpfs mounts need Linux (this is ${process.platform})` };
  if (process.getuid?.() !== 0) return { why: 'mounting a tmpfs needs root (the ulimit -f cases in processes.test.ts still run)' };
  const dir = mkdtempSync(join(tmpdir(), 'memtier-tmpfs-'));
  const m = sh('mount', ['-t', 'tmpfs', '-o', `size=${kib}k,mode=0755`, 'tmpfs', dir]);
  if (!m.ok) { rmSync(dir, { recursive: true, force: true }); return { why: `mount -t tmpfs failed: ${m.err}` }; }
  return {
    dir,
    readOnly(on) {
      const r = sh('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, dir]);
      if (!r.ok) throw new Error(`remount ${on ? 'ro' : 'rw'}: ${r.err}`);
    },
    unmount() {
      sh('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fill the filesystem holding `file` until ENOSPC; returns the fd-less path's size in bytes. */
export function fillDisk(file: string): number {
  const fd = openSync(file, 'a');
  const chunk = Buffer.alloc(4096, 0x2e);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
  const fd2 = openSync(file, 'r');
  try { return fstatSync(fd2).size; } finally { closeSync(fd2); }
}

/** Give `bytes` back to the filesystem by cutting the filler file. */
export function freeBytes(file: string, bytes: number): void {
  const fd = openSync(file, 'r+');
  try { ftruncateSync(fd, Math.max(0, fstatSync(fd).size - bytes)); } finally { closeSync(fd); }
}
