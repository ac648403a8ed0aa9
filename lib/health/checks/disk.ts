import { accessSync, constants, existsSync, readFileSync, realpathSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { isoWeek, localDate } from '../../core/clock.js';
import type { Check, Finding } from '../types.js';
import type { Snapshot } from '../../memory/snapshot.js';

/** Filesystem types where locks, fsync or rename atomicity cannot be trusted. */
export const NETWORK_FS = new Set(['nfs', 'nfs4', 'cifs', 'smb3', 'smbfs', 'fuse.sshfs', 'sshfs', '9p', 'afs', 'glusterfs', 'fuse.glusterfs', 'ceph', 'fuse.ceph', 'davfs', 'fuse.rclone', 'fuse.s3fs', 'lustre', 'gpfs', 'fuse.gcsfuse', 'virtiofs', 'vboxsf']);

/** The mount holding `path` according to /proc/mounts (Linux): its mount point and type. */
export function mountOf(path: string, mounts = readMounts()): { point: string; type: string } | undefined {
  let real = path;
  try { real = realpathSync(path); } catch { /* keep */ }
  let best: { point: string; type: string } | undefined;
  for (const m of mounts) {
    const inside = real === m.point || real.startsWith(m.point.endsWith('/') ? m.point : m.point + '/');
    if (inside && (!best || m.point.length >= best.point.length)) best = m;
  }
  return best;
}

function readMounts(): { point: string; type: string }[] {
  try {
    return readFileSync('/proc/mounts', 'utf8').split('\n').filter(Boolean).map((l) => {
      const p = l.split(' ');
      return { point: (p[1] ?? '').replace(/\\040/g, ' '), type: p[2] ?? '' };
    });
  } catch {
    return [];
  }
}

/** Bytes written per ISO week: dated files count on their day, others on their last change (never after today). */
export function growthByWeek(snap: Snapshot, tz: string, today: string): Map<string, number> {
  const weeks = new Map<string, number>();
  for (const f of snap.files) {
    const changed = localDate(new Date(f.mtimeMs), tz);
    const day = f.date ?? (changed > today ? today : changed);
    const w = isoWeek(day);
    weeks.set(w, (weeks.get(w) ?? 0) + f.size);
  }
  return new Map([...weeks].sort(([a], [b]) => (a < b ? -1 : 1)));
}

export function totalBytes(snap: Snapshot): number {
  return snap.files.reduce((s, f) => s + f.size, 0) + snap.otherFiles.reduce((s, f) => s + f.size, 0);
}

/**
 * Why writing commands would fail before they start: the root (or .memtier/, where the lock goes)
 * on a read-only filesystem, or without write permission. access(W_OK) reports EROFS even to root.
 */
export function notWritable(root: string): { file: string; message: string; fix: string } | undefined {
  for (const rel of ['.', '.memtier', 'memory']) {
    const abs = rel === '.' ? root : join(root, rel);
    if (rel !== '.' && !existsSync(abs)) continue;
    try {
      accessSync(abs, constants.W_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EROFS') return { file: rel, message: 'the memory is on a read-only filesystem (EROFS): every writing command fails', fix: 'remount it read-write, or copy the memory somewhere writable' };
      if (code === 'EACCES' || code === 'EPERM') return { file: rel, message: `no permission to write ${rel === '.' ? 'in the memory root' : rel} (${code}): every writing command fails`, fix: 'check its owner and mode (ls -ld), or run memtier as the user who owns the memory' };
    }
  }
  return undefined;
}

/** Seed 000's disk-health monitoring. */
export const check: Check = {
  id: 'disk',
  description: 'free space on the memory\'s filesystem, total size, largest files, growth per week; warns on a network filesystem; fails when the memory cannot be written (read-only, no permission)',
  severity: 'warn',
  fixable: false,
  source: 'seed 000 disk health',
  doc: {
    trigger: 'a memory that cannot be written (read-only filesystem or no write permission: FAIL), less than 100 MiB free on the memory\'s filesystem, growth that fills it within a year, or a root on NFS/SMB/sshfs/9p and similar',
    failing: 'root on an nfs4 mount with 40 MiB free',
    fixed: 'root on a local disk with room to grow (git syncs it between machines)',
    why: 'a full disk or a read-only memory fails every write; on network filesystems file locks and fsync are not reliable, so two agents can corrupt the WAL',
  },
  run(snap, env) {
    const out: Finding[] = [];
    const total = totalBytes(snap);
    const largest = [...snap.files, ...snap.otherFiles].sort((a, b) => b.size - a.size || (a.rel < b.rel ? -1 : 1)).slice(0, 5).map((f) => ({ file: f.rel, bytes: f.size }));
    const weeks = growthByWeek(snap, env.ctx.clock.tz, env.today);
    const thisWeek = isoWeek(env.today);
    const recent = [...weeks].filter(([w]) => w <= thisWeek).slice(-4);
    const perWeek = recent.length ? Math.round(recent.reduce((s, [, b]) => s + b, 0) / recent.length) : 0;
    const figures: Record<string, unknown> = {
      totalBytes: total,
      files: snap.files.length,
      trashBytes: snap.trashBytes,
      stateBytes: snap.stateBytes,
      largest,
      growthBytesPerWeek: perWeek,
      weeks: Object.fromEntries([...weeks].slice(-8)),
    };
    try {
      const st = statfsSync(snap.root);
      const free = st.bavail * st.bsize;
      const size = st.blocks * st.bsize;
      figures.freeBytes = free;
      figures.fsBytes = size;
      if (free < env.limits.minFreeBytes) out.push({ check: 'disk', severity: 'warn', file: '.', message: `only ${(free / 1048576).toFixed(1)} MiB free on the memory's filesystem`, fix: 'free space (memory/.trash can be emptied after review) before writes start failing' });
      else if (perWeek > 0 && free / perWeek < 52) out.push({ check: 'disk', severity: 'warn', file: '.', message: `at ${perWeek} bytes a week the filesystem is full in ${Math.floor(free / perWeek)} weeks`, fix: 'archive or move the memory to a larger disk' });
    } catch (e) {
      out.push({ check: 'disk', severity: 'info', file: '.', message: `free space unknown: ${(e as Error).message}` });
    }
    out.push(...unwritable(snap));
    const m = mountOf(snap.root);
    if (m) figures.filesystem = m.type;
    if (m && NETWORK_FS.has(m.type)) {
      out.push({ check: 'disk', severity: 'warn', file: '.', message: `the memory is on a network filesystem (${m.type} at ${m.point}): locks and fsync are not reliable there`, fix: 'keep the memory on a local disk and use "memtier sync" (git) to share it' });
    }
    return { findings: out, figures };
  },
  // what `health --quiet` runs: a memory that cannot be written fails there too
  failures: (snap) => unwritable(snap),
};

/** The FAIL of the disk check: the memory cannot be written. */
function unwritable(snap: Snapshot): Finding[] {
  const ro = notWritable(snap.root);
  return ro ? [{ check: 'disk', severity: 'fail', file: ro.file, message: ro.message, fix: ro.fix }] : [];
}
