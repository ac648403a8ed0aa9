/**
 * Shared plumbing of the lifecycle commands (archive, review, verify, supersede, forget, palace,
 * consolidate, dream): plan first (read files, no lock), then apply the planned operations in one
 * short store mutation that first checks every file it rewrites is still what was read.
 *
 * A person editing a file while a command thinks wins: the mutation refuses with code
 * `conflict`, and `applyPlanned` plans again from the new content (at most 3 times).
 */
import { localDate } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { foldForCompare } from '../format/compare.js';
import { parseEntries, type LocatedEntry } from '../format/entry.js';
import { classify, listMemoryFiles, PATHS, type FileInfo } from '../format/layout.js';
import { finishPendingRotations, finishRotationTx } from '../wal/rotate.js';
import { openStore, type Tx } from '../store/store.js';
import { readOnce } from '../memory/reader.js';
import { noteDay } from '../search/units.js';

export type Op =
  /** Replace (or create) a whole file; `expected` is what was read (null: must not exist). */
  | { kind: 'write'; rel: string; content: string; expected: string | null }
  | { kind: 'append'; rel: string; text: string }
  | { kind: 'move'; from: string; to: string }
  | { kind: 'trash'; rel: string }
  /** Delete for real, inside memory/.trash/ only (the trash's retention). */
  | { kind: 'purge'; rel: string }
  /** A store operation owned by another module (e.g. buffer rotation), run in the same transaction. */
  | { kind: 'fn'; label: string; files: string[]; run: (tx: Tx) => void };

export function today(ctx: Ctx): string {
  return localDate(ctx.clock.now(), ctx.clock.tz);
}

/** Read a memory file strictly; undefined when missing. Once per command while it is unchanged (lib/memory/reader.ts). */
export function read(ctx: Ctx, rel: string): string | undefined {
  return readOnce(ctx.root, rel);
}

/** Files the ops change, in order, without duplicates. */
export function opFiles(ops: Op[]): string[] {
  const out = new Set<string>();
  for (const o of ops) {
    if (o.kind === 'move') { out.add(o.from); out.add(o.to); } else if (o.kind === 'fn') for (const f of o.files) out.add(f); else out.add(o.rel);
  }
  return [...out];
}

/** Apply ops inside an open transaction: every `expected` is checked before anything is written. */
export function applyOpsTx(tx: Tx, ops: Op[]): void {
  for (const o of ops) {
    if (o.kind !== 'write') continue;
    const now = tx.read(o.rel);
    if ((o.expected === null && now !== undefined) || (o.expected !== null && now !== o.expected)) {
      throw new MemtierError('changed on disk since it was read (someone edited it); nothing was written', {
        code: 'conflict', file: o.rel, hint: 'run the command again; it will start from the new content',
      });
    }
  }
  // save first, remove second: a trash that cannot take what is removed stops the run before any write
  if (ops.some((o) => o.kind === 'trash' || o.kind === 'purge')) tx.assertTrashUsable();
  for (const o of ops) {
    switch (o.kind) {
      case 'write': tx.write(o.rel, o.content, { expected: o.expected }); break;
      case 'append': tx.append(o.rel, o.text); break;
      case 'move': tx.move(o.from, o.to); break;
      case 'trash': tx.trash(o.rel); break;
      case 'purge': tx.purge(o.rel); break;
      case 'fn': o.run(tx); break;
    }
  }
}

/**
 * An op that checks, under the lock and before anything is written, that every entry a plan copies
 * elsewhere (a review's decision filed in its home, consolidate's MEMORY.md index line) is still in
 * its source file and not struck through: a `forget` or `supersede` that ran between the plan and
 * the write would otherwise be undone by the copy (found by the chaos run: a lesson forgotten while
 * a review was planning came back in lessons-learned.md). A conflict: the command plans again.
 * Undefined when there is nothing to check; put it first in the ops.
 */
export function sourcesLive(sources: readonly { path: string; id?: string | undefined }[]): Op | undefined {
  const byPath = new Map<string, Set<string>>();
  for (const s of sources) {
    if (!s.id) continue;
    let ids = byPath.get(s.path);
    if (!ids) byPath.set(s.path, (ids = new Set()));
    ids.add(s.id);
  }
  if (byPath.size === 0) return undefined;
  return {
    kind: 'fn', label: 'copied entries still live', files: [],
    run: (tx) => {
      for (const [path, ids] of byPath) {
        const live = new Set(parseEntries(tx.read(path) ?? '').filter((e) => e.id && !e.superseded).map((e) => e.id!));
        for (const id of ids) {
          if (!live.has(id)) {
            throw new MemtierError(`^${id} was forgotten, struck through or moved since it was read; nothing was written`, {
              code: 'conflict', file: path, hint: 'run the command again; it will start from the new content',
            });
          }
        }
      }
    },
  };
}

export interface Planned<R> { ops: Op[]; result: R }

/**
 * Plan (no lock), then apply under the lock. On a conflict (a file changed between the plan and
 * the write) plan again from the new content, up to `attempts` times; `beforeApply` is a test hook
 * that runs between planning and applying. Returns the last plan's result and whether it was applied.
 */
export function applyPlanned<R>(
  ctx: Ctx,
  plan: () => Planned<R>,
  opts: { dryRun?: boolean; attempts?: number; beforeApply?: (attempt: number) => void } = {},
): { result: R; ops: Op[]; applied: boolean; retries: number } {
  const attempts = opts.attempts ?? 3;
  for (let i = 0; ; i++) {
    // the plan must see every entry where it will stay (rotate.ts, finishPendingRotations)
    if (!opts.dryRun) finishPendingRotations(ctx);
    const p = plan();
    if (opts.dryRun || p.ops.length === 0) return { result: p.result, ops: p.ops, applied: false, retries: i };
    opts.beforeApply?.(i);
    try {
      openStore(ctx).mutate((tx) => {
        // a rotation interrupted since the plan: finished, then planned again (a day file the plan
        // moves or trashes may have just taken its entries)
        if (finishRotationTx(tx, ctx).recovered) {
          throw new MemtierError('a buffer rotation a crash interrupted was finished while this ran; nothing else was written', {
            code: 'conflict', file: PATHS.buffer, hint: 'run the command again; it will start from the new content',
          });
        }
        applyOpsTx(tx, p.ops);
      });
      return { result: p.result, ops: p.ops, applied: true, retries: i };
    } catch (e) {
      if (e instanceof MemtierError && e.code === 'conflict' && i + 1 < attempts) continue;
      throw e;
    }
  }
}

export interface DayFile extends FileInfo { date: string }

/**
 * The files whose text is a day's, for review and consolidate: episodic days, OpenClaw's daily
 * files, archived days (archiving moves a day's file, not what happened: a review of an old week
 * or a consolidate of an old day reads memory/archive/), and a person's dated notes
 * (memory/Daily/2026-11-20.md: kind note, dated by its name; never archived, which dayFiles'
 * default kinds are for).
 */
export const DAY_KINDS: FileInfo['kind'][] = ['episodic', 'legacy-daily', 'archive', 'note'];

/**
 * The days review and consolidate read: the files of DAY_KINDS named by their day, and a person's
 * notes dated by what they say instead (a frontmatter `date:` or `created:`, a Notion page's
 * Created or Date property: search/units.ts noteDay), sorted by date then path.
 */
export function readingDays(ctx: Ctx): DayFile[] {
  const out = dayFiles(ctx.root, DAY_KINDS);
  for (const rel of listMemoryFiles(ctx.root)) {
    const info = classify(rel);
    if (info.kind !== 'note' || info.date) continue;
    const text = read(ctx, rel);
    const date = text === undefined ? undefined : noteDay(text);
    if (date) out.push({ ...info, date });
  }
  return out.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.rel < b.rel ? -1 : 1));
}

/** Episodic days (memory/episodic/ and OpenClaw's memory/YYYY-MM-DD*.md), sorted by date then path. */
export function dayFiles(root: string, kinds: FileInfo['kind'][] = ['episodic', 'legacy-daily']): DayFile[] {
  const out: DayFile[] = [];
  for (const rel of listMemoryFiles(root)) {
    const info = classify(rel);
    if (info.date && kinds.includes(info.kind)) out.push(info as DayFile);
  }
  return out.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.rel < b.rel ? -1 : 1));
}

export interface SourcedEntry extends LocatedEntry {
  path: string;
  /** The entry's own date, else its file's day. */
  day?: string;
}

/** Entries of a file with their source path and day. */
export function entriesOf(rel: string, text: string, fileDate?: string): SourcedEntry[] {
  return parseEntries(text).map((e) => {
    const day = e.date ?? fileDate;
    return day ? { ...e, path: rel, day } : { ...e, path: rel };
  });
}

const ASCII = /^[\x00-\x7f]*$/;

/** Text compared for duplicates: case, spacing, punctuation, tags and ids ignored. */
export function normalizeText(s: string): string {
  // ASCII text (most of a memory): the same replacements without Unicode property classes, which
  // cost several times more. On ASCII, NFKC and the CJK fold change nothing, a letter after
  // lower-casing is [a-z], a number [0-9], and every punctuation or symbol character is one of
  // !-/ :-@ [-` {-~ (the test holds the Unicode expressions as the reference).
  if (ASCII.test(s)) {
    return s.toLowerCase()
      .replace(/\s\^[a-z0-9-]+\s*$/, '')
      .replace(/(?:^|\s)#[a-z][a-z0-9_/-]*/g, ' ')
      .replace(/[\s!-/:-@[-`{-~]+/g, ' ')
      .trim();
  }
  return foldForCompare(s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s\^[a-z0-9-]+\s*$/i, '')
    .replace(/(?:^|\s)[#＃][\p{L}][\p{L}\p{N}_/-]*/gu, ' ')
    .replace(/[\s\p{P}\p{S}]+/gu, ' ')
    .trim());
}

/** A citation of an entry: `path#^id` when it has an id, else `path#Lline`. */
export function cite(e: { path: string; id?: string | undefined; line: number }): string {
  return e.id ? `${e.path}#^${e.id}` : `${e.path}#L${e.line}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Insert `lines` at the end of the section whose heading matches, creating the section at the end if missing. */
export function upsertSection(text: string, heading: string, newLines: string[], replace = false): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  const h = lines.findIndex((l) => l.trim().toLowerCase() === heading.toLowerCase());
  if (h < 0) return `${lines.join('\n')}\n\n${heading}\n${newLines.join('\n')}\n`;
  let end = h + 1;
  while (end < lines.length && !/^#{1,6}\s/.test(lines[end]!)) end++;
  let body = lines.slice(h + 1, end);
  if (replace) body = newLines;
  else {
    while (body.length && body[body.length - 1]!.trim() === '') body.pop();
    body = [...body, ...newLines];
  }
  const tail = lines.slice(end);
  const out = [...lines.slice(0, h + 1), ...body, ...(tail.length ? ['', ...tail] : [])];
  return out.join('\n').replace(/\n{3,}/g, '\n\n') + '\n';
}

/** Lines of the section under `heading` (exact match, case-insensitive), or undefined. */
export function sectionLines(text: string, headingRe: RegExp): { start: number; end: number; lines: string[] } | undefined {
  const lines = text.split('\n');
  const h = lines.findIndex((l) => /^#{1,6}\s/.test(l) && headingRe.test(l.replace(/^#{1,6}\s+/, '').trim()));
  if (h < 0) return undefined;
  let end = h + 1;
  while (end < lines.length && !/^#{1,6}\s/.test(lines[end]!)) end++;
  return { start: h, end, lines: lines.slice(h + 1, end) };
}

/** The result every lifecycle command returns for --json. */
export interface LifecycleReport {
  ok: boolean;
  dryRun: boolean;
  changed: boolean;
  files: string[];
  message: string;
}

/**
 * A path as a markdown link destination: spaces, parentheses and "%" percent-encoded. A bare
 * destination ends at a space, so "memory/Daily/2026-11-20 Friday.md" would not link; GitHub,
 * Obsidian and memtier's own link checks decode it.
 */
export function linkDest(path: string): string {
  return path.replace(/[ ()%]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A link destination back to its path (linkDest undone; a destination that does not decode is kept as written). */
export function linkPath(dest: string): string {
  try { return decodeURIComponent(dest); } catch { return dest; }
}
