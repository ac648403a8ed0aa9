/**
 * memory_recent: what changed in the memory lately, day by day. No CLI command lists recent
 * activity, so this is read here, read-only, on the memory's own readers: the day logs
 * (memory/episodic/, OpenClaw's memory/DAY.md, the archive, a dated note) and the working buffer
 * parsed into entries (format/entry.ts), and every memory file (format/layout.ts listMemoryFiles)
 * by the local day of its last change. Nothing is written, not even the recall history.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { addDays, localDate } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { parseEntries } from '../format/entry.js';
import { classify, listMemoryFiles, PATHS } from '../format/layout.js';
import { readMemoryFile } from '../store/store.js';

export interface RecentArgs { days?: number | undefined; limit?: number | undefined }

export interface RecentEntry { time?: string; type?: string; text: string; id?: string; superseded?: true; cite: string }

export interface RecentDay {
  day: string;
  /** The day's entries, newest first (at most `limit`); `entryCount` counts them all. */
  entries: RecentEntry[];
  entryCount: number;
  /** Memory files last changed that day, the latest first (at most `limit`); `fileCount` counts them all. */
  files: string[];
  fileCount: number;
}

export const RECENT_DEFAULT_DAYS = 7;
export const RECENT_DEFAULT_LIMIT = 30;
/** An entry's text is cut here (the citation leads to the whole line). */
const TEXT_CHARS = 400;

/** Kinds of file whose entries are dated by the file's day (or their own): the logs. */
const LOG_KINDS = new Set(['episodic', 'legacy-daily', 'archive', 'note']);

export function recentActivity(ctx: Ctx, a: RecentArgs): { ok: true; today: string; since: string; days: RecentDay[] } {
  const { tz } = ctx.clock;
  const now = ctx.clock.now();
  const today = localDate(now, tz);
  const span = Math.max(1, Math.min(90, Math.trunc(a.days ?? RECENT_DEFAULT_DAYS)));
  const limit = Math.max(1, Math.min(200, Math.trunc(a.limit ?? RECENT_DEFAULT_LIMIT)));
  const since = addDays(today, -(span - 1));
  const inSpan = (d: string | undefined): d is string => d !== undefined && d >= since && d <= today;

  const entries = new Map<string, (RecentEntry & { key: string })[]>();
  const files = new Map<string, { rel: string; mtimeMs: number }[]>();
  const seen = new Set<string>();
  const addEntry = (day: string, e: RecentEntry, key: string): void => {
    // one entry logged in two places (the buffer and the day it was rotated into) is listed once
    if (seen.has(`${day}\u0000${key}`)) return;
    seen.add(`${day}\u0000${key}`);
    let list = entries.get(day);
    if (!list) entries.set(day, (list = []));
    list.push({ ...e, key });
  };

  const all = listMemoryFiles(ctx.root);
  // a file changed before the span's first day (a day and a margin for the zone) is not looked at
  const oldest = now.getTime() - (span + 1) * 86_400_000;
  for (const rel of all) {
    let mtimeMs: number;
    try { mtimeMs = lstatSync(join(ctx.root, rel)).mtimeMs; } catch { continue; }
    if (mtimeMs < oldest) continue;
    const day = localDate(new Date(mtimeMs), tz);
    if (!inSpan(day)) continue;
    let list = files.get(day);
    if (!list) files.set(day, (list = []));
    list.push({ rel, mtimeMs });
  }

  for (const rel of all) {
    const info = classify(rel);
    const log = LOG_KINDS.has(info.kind) && inSpan(info.date);
    if (!log && rel !== PATHS.buffer) continue;
    let text: string | undefined;
    try { text = readMemoryFile(ctx.root, rel); } catch { continue; /* unreadable: health reports it */ }
    if (!text) continue;
    for (const e of parseEntries(text)) {
      const day = e.date ?? info.date;
      if (!inSpan(day)) continue;
      const out: RecentEntry = {
        ...(e.time ? { time: e.time } : {}),
        ...(e.type ? { type: e.type } : {}),
        text: e.text.length > TEXT_CHARS ? `${e.text.slice(0, TEXT_CHARS)}…` : e.text,
        ...(e.id ? { id: e.id } : {}),
        ...(e.superseded ? { superseded: true as const } : {}),
        cite: `${rel}#L${e.line}`,
      };
      addEntry(day, out, e.id ?? `${e.type ?? ''} ${e.text}`);
    }
  }

  const days: RecentDay[] = [];
  for (let d = today; d >= since; d = addDays(d, -1)) {
    const es = (entries.get(d) ?? []).map((e, i) => ({ e, i }));
    // newest first: by time, then by place in the log (later lines were written later)
    es.sort((x, y) => (y.e.time ?? '').localeCompare(x.e.time ?? '') || y.i - x.i);
    const fs = (files.get(d) ?? []).sort((x, y) => y.mtimeMs - x.mtimeMs || (x.rel < y.rel ? -1 : 1));
    if (!es.length && !fs.length) continue;
    days.push({
      day: d,
      entries: es.slice(0, limit).map(({ e: { key: _k, ...rest } }) => rest),
      entryCount: es.length,
      files: fs.slice(0, limit).map((f) => f.rel),
      fileCount: fs.length,
    });
  }
  return { ok: true, today, since, days };
}
