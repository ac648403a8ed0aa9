/**
 * Episodic TTL (seed 004 mechanism 6) and retention of derived material (seed 000 step 6).
 *
 * - Episodic days (memory/episodic/YYYY-MM-DD.md and OpenClaw's memory/YYYY-MM-DD[-slug].md)
 *   older than `days` (default 30) move to memory/archive/YYYY/MM/ under their own file name:
 *   moved, never deleted, still searchable as COLD.
 * - Raw session material under memory/sessions/ (files named with a date) older than
 *   `sessionDays` (30) and daily summaries memory/reviews/daily/YYYY-MM-DD.md older than
 *   `summaryDays` (365) go to memory/.trash/ (trash, never rm).
 * "Older than N days" means more than N whole local days before today.
 */
import { addDays, daysBetween } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { PATHS } from '../format/layout.js';
import { applyPlanned, dayFiles, plural, read, today, type Op } from './common.js';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const DEFAULT_ARCHIVE_DAYS = 30;
export const SESSIONS_DIR = 'memory/sessions';
export const DAILY_SUMMARY_DIR = 'memory/reviews/daily';

export interface ArchiveOptions {
  days?: number;
  /** Apply retention (raw sessions, daily summaries → trash). Default true here; the CLI asks for it with --retention. */
  retention?: boolean;
  sessionDays?: number;
  summaryDays?: number;
  dryRun?: boolean;
}

export interface ArchiveResult {
  ok: true;
  dryRun: boolean;
  changed: boolean;
  cutoff: string;
  moved: { from: string; to: string }[];
  trashed: { rel: string; why: string }[];
  /** Identical copies already in the archive: the duplicate is trashed instead of moved. */
  duplicates: string[];
  message: string;
}

/** Days from env (MEMTIER_ARCHIVE_DAYS etc.) or flag or default. */
export function numberSetting(flag: number | undefined, env: string | undefined, dflt: number): number {
  const v = flag ?? (env !== undefined && env !== '' ? Number(env) : dflt);
  return Number.isFinite(v) && v >= 0 ? Math.floor(v) : dflt;
}

function datedFiles(root: string, dir: string): { rel: string; date: string }[] {
  const out: { rel: string; date: string }[] = [];
  const walk = (rel: string): void => {
    let ents;
    try { ents = readdirSync(join(root, rel), { withFileTypes: true }); } catch { return; }
    for (const d of ents) {
      const r = `${rel}/${d.name}`;
      if (d.isDirectory() && !d.name.startsWith('.')) walk(r);
      else if (d.isFile()) {
        const m = /(\d{4}-\d{2}-\d{2})/.exec(d.name);
        if (m) out.push({ rel: r, date: m[1]! });
      }
    }
  };
  walk(dir);
  return out.sort((a, b) => (a.rel < b.rel ? -1 : 1));
}

/** Plan the archive moves and retention clean-up (reads only). */
export function planArchive(ctx: Ctx, opts: ArchiveOptions = {}): { ops: Op[]; result: ArchiveResult } {
  const days = numberSetting(opts.days, ctx.env.MEMTIER_ARCHIVE_DAYS, DEFAULT_ARCHIVE_DAYS);
  const sessionDays = numberSetting(opts.sessionDays, ctx.env.MEMTIER_SESSION_RETENTION_DAYS, 30);
  const summaryDays = numberSetting(opts.summaryDays, ctx.env.MEMTIER_SUMMARY_RETENTION_DAYS, 365);
  const t = today(ctx);
  const ops: Op[] = [];
  const res: ArchiveResult = { ok: true, dryRun: !!opts.dryRun, changed: false, cutoff: addDays(t, -days), moved: [], trashed: [], duplicates: [], message: '' };
  const taken = new Set<string>();
  for (const f of dayFiles(ctx.root)) {
    if (daysBetween(f.date, t) <= days) continue;
    const name = f.rel.slice(f.rel.lastIndexOf('/') + 1);
    const dir = `${PATHS.archive}/${f.date.slice(0, 4)}/${f.date.slice(5, 7)}`;
    let to = `${dir}/${name}`;
    if (existsSync(join(ctx.root, to)) || taken.has(to)) {
      const here = read(ctx, f.rel);
      if (!taken.has(to) && here !== undefined && here === read(ctx, to)) {
        ops.push({ kind: 'trash', rel: f.rel });
        res.duplicates.push(f.rel);
        res.trashed.push({ rel: f.rel, why: `identical copy already in ${to}` });
        continue;
      }
      const base = name.replace(/\.md$/, '');
      for (let i = 2; existsSync(join(ctx.root, to)) || taken.has(to); i++) to = `${dir}/${base}-${i}.md`;
    }
    taken.add(to);
    ops.push({ kind: 'move', from: f.rel, to });
    res.moved.push({ from: f.rel, to });
  }
  for (const f of opts.retention === false ? [] : datedFiles(ctx.root, SESSIONS_DIR)) {
    if (daysBetween(f.date, t) > sessionDays) {
      ops.push({ kind: 'trash', rel: f.rel });
      res.trashed.push({ rel: f.rel, why: `raw session material older than ${sessionDays} days` });
    }
  }
  for (const f of opts.retention === false ? [] : datedFiles(ctx.root, DAILY_SUMMARY_DIR)) {
    if (daysBetween(f.date, t) > summaryDays) {
      ops.push({ kind: 'trash', rel: f.rel });
      res.trashed.push({ rel: f.rel, why: `daily summary older than ${summaryDays} days` });
    }
  }
  res.changed = ops.length > 0;
  const verb = opts.dryRun ? 'would move' : 'moved';
  res.message = ops.length === 0
    ? `nothing to archive: no episodic day older than ${days} days (before ${res.cutoff} is archived)`
    : [
        res.moved.length ? `${verb} ${plural(res.moved.length, 'episodic day')} older than ${days} days to ${PATHS.archive}/` : '',
        res.trashed.length ? `${opts.dryRun ? 'would trash' : 'trashed'} ${plural(res.trashed.length, 'file')} past retention (${PATHS.trash}/)` : '',
      ].filter(Boolean).join('; ');
  return { ops, result: res };
}

export function runArchive(ctx: Ctx, opts: ArchiveOptions = {}): ArchiveResult {
  const r = applyPlanned(ctx, () => planArchive(ctx, opts), { dryRun: !!opts.dryRun });
  return r.result;
}

/**
 * Archive episodic days only (no retention clean-up): what health, the weekly review and the
 * nightly pipeline call. `kept` counts the episodic days left in place.
 */
export function archiveDays(ctx: Ctx, opts: { days?: number; dryRun?: boolean } = {}): { moved: { from: string; to: string }[]; kept: number; message: string } {
  const before = dayFiles(ctx.root).length;
  const r = runArchive(ctx, { ...opts, retention: false });
  return { moved: r.moved, kept: before - r.moved.length - r.duplicates.length, message: r.message };
}
