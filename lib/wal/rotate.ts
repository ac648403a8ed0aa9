/**
 * Buffer rotation, crash-safe and idempotent (seed 004 mechanism 7):
 *
 *   1. rename memory/working-buffer.md aside to memory/.rotating/buffer-STAMP.md   (crash: rotate.after-rename)
 *   2. write a fresh buffer holding only its header
 *   3. merge the aside file's entries into their days' episodic files, skipping ids (crash: rotate.after-merge)
 *      already there (lines without an id get one derived from their position
 *      and text, so a retry derives the same id)
 *   4. move the aside file to the trash                                             (crash: rotate.before-cleanup)
 *
 * Every writing WAL command first finishes a rotation a crash interrupted, so after the next
 * command each acknowledged entry is present exactly once. Measured alternative that lost
 * entries: read-append-truncate of the buffer in place.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Ctx } from '../core/context.js';
import { localDate, localStamp } from '../core/clock.js';
import { formatEntryLine, parseEntries, parseEntryLine, type Entry } from '../format/entry.js';
import { archivePath, dayFile, PATHS } from '../format/layout.js';
import { lineCount } from '../format/lines.js';
import { crashPoint } from '../store/crash.js';
import { sanitizeText } from '../store/guards/text.js';
import { openStore, type Tx } from '../store/store.js';

export const ROTATING_DIR = 'memory/.rotating';
export const DEFAULT_MAX_LINES = 80;
export const BUFFER_HEADER = '# Working buffer\n\n<!-- WAL: one entry per line, written before the agent answers; rotated into memory/episodic/ past the line limit. -->\n';

export interface RotateResult {
  /** Entries appended to episodic files. */
  moved: number;
  /** Entries already present there (a retry after a crash). */
  skipped: number;
  /** Interrupted rotations finished first. */
  recovered: number;
  /** Episodic files that received entries. */
  files: string[];
  rotated: boolean;
  message: string;
}

export function maxBufferLines(env: NodeJS.ProcessEnv, flag?: number): number {
  const v = flag ?? Number(env.MEMTIER_BUFFER_MAX_LINES ?? DEFAULT_MAX_LINES);
  return Number.isFinite(v) && v >= 2 ? Math.floor(v) : DEFAULT_MAX_LINES;
}


/** Is this buffer line part of the header (heading, comment, blank) rather than content? */
function isHeaderLine(line: string): boolean {
  const t = line.trim();
  return t === '' || /^#{1,6} /.test(t) || (t.startsWith('<!--') && t.endsWith('-->'));
}

const derivedId = (seed: string): string => 'r' + (process.getBuiltinModule('node:crypto') as typeof import('node:crypto')).createHash('sha256').update(seed).digest('hex').slice(0, 9);

/**
 * Content lines of a buffer file as entries, each with a seed (its file, position and bytes) from
 * which ids are derived: id-less lines get one, so a retried merge derives the same id.
 */
function bufferEntries(text: string, asideName: string): { e: Entry; seed: string }[] {
  const out: { e: Entry; seed: string }[] = [];
  text.split('\n').forEach((line, i) => {
    if (isHeaderLine(line)) return;
    // read as the store will write it (control characters a person typed are stripped on write):
    // a retried merge must find the very line it wrote, or it appends the entry a second time
    const clean = sanitizeText(line);
    const e: Entry = parseEntryLine(clean) ?? { text: clean.trim(), tags: [] };
    const seed = `${asideName}\n${i}\n${line}`;
    if (!e.id) e.id = derivedId(seed);
    out.push({ e, seed });
  });
  return out;
}

/** The entry lines of a file by id (a person may have written the same id twice). */
/** The entry lines by id of a day's archive files (DAY.md and DAY-N.md), empty when none. */
function archivedLines(tx: Tx, ctx: Ctx, day: string): Map<string, Set<string>> {
  const dir = archivePath(day).replace(/\/[^/]+$/, '');
  let names: string[];
  try { names = readdirSync(join(ctx.root, dir)); } catch { return new Map(); }
  const out = new Map<string, Set<string>>();
  for (const n of names) {
    if (!n.startsWith(day) || !/^\d{4}-\d{2}-\d{2}(?:-\d+)?\.md$/.test(n)) continue;
    let text: string | undefined;
    try { text = tx.read(`${dir}/${n}`); } catch { continue; }
    for (const [id, lines] of linesById(text)) {
      const set = out.get(id);
      if (set) for (const l of lines) set.add(l); else out.set(id, lines);
    }
  }
  return out;
}

function linesById(text: string | undefined): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of parseEntries(text ?? '')) {
    if (!e.id) continue;
    let set = out.get(e.id);
    if (!set) out.set(e.id, (set = new Set()));
    set.add(e.raw.trimEnd());
  }
  return out;
}

/**
 * Merge one aside file into the episodic days its entries were written on (an undated line: the
 * day in the aside file's name, so a rotation recovered after midnight still lands in the same
 * file), then trash it.
 *
 * Exactly once: an entry is skipped only when the day already holds the very same line (a merge
 * a crash interrupted). Two different entries that share an id (ids carry 6 random characters
 * per second: a backfill with a fixed --now, or many writers in one second, can collide) are
 * both kept: the newcomer gets an id derived from its position in the aside file, so a retry
 * derives the same one and finds it.
 */
function mergeAside(tx: Tx, ctx: Ctx, asideRel: string, fallbackDay: string, res: RotateResult): void {
  const today = /buffer-(\d{4}-\d{2}-\d{2})T/.exec(asideRel)?.[1] ?? fallbackDay;
  const text = tx.read(asideRel) ?? '';
  const entries = bufferEntries(text, asideRel.split('/').pop()!);
  // each entry goes to the day it was written (the date on its buffer line): a buffer left for
  // weeks does not pour April's decisions into a day in May; an undated line goes to the
  // rotation's day
  const byDay = new Map<string, { e: Entry; seed: string }[]>();
  for (const x of entries) {
    const day = x.e.date ?? today;
    byDay.set(day, [...(byDay.get(day) ?? []), x]);
  }
  for (const [day, list] of [...byDay].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const target = dayFile(ctx.root, day);
    const cur = tx.read(target);
    const have = linesById(cur);
    // the day already archived (memory/archive/YYYY/MM/DAY*.md) holding the very same line: there
    // already (a buffer copy a merge of two machines kept while the other archived the day); a new
    // day file for it would be archived again as DAY-2.md, the entry twice
    const archived = archivedLines(tx, ctx, day);
    const lines: string[] = [];
    for (const { e, seed } of list) {
      // the day file gives the date
      const { date: _date, ...base } = e;
      let line = formatEntryLine(base);
      for (let n = 1; have.has(base.id!) && !have.get(base.id!)!.has(line); n++) {
        base.id = derivedId(`${seed}\n${n}`);
        line = formatEntryLine(base);
      }
      if (have.get(base.id!)?.has(line) || archived.get(base.id!)?.has(line)) { res.skipped++; continue; }
      have.set(base.id!, new Set([line]));
      lines.push(line);
    }
    if (!lines.length) continue;
    if (cur === undefined) tx.write(target, `# ${day}\n\n`, { expected: null });
    let chunk = '';
    for (const l of lines) {
      if (Buffer.byteLength(chunk + l + '\n') > 15 * 1024) { tx.append(target, chunk); chunk = ''; }
      chunk += l + '\n';
    }
    if (chunk) tx.append(target, chunk);
    res.moved += lines.length;
    if (!res.files.includes(target)) res.files.push(target);
  }
  crashPoint(ctx.env, 'rotate.after-merge');
  crashPoint(ctx.env, 'rotate.before-cleanup');
  tx.trash(asideRel);
}

function pendingAside(ctx: Ctx): string[] {
  try {
    return readdirSync(join(ctx.root, ROTATING_DIR)).filter((n) => n.endsWith('.md')).sort().map((n) => `${ROTATING_DIR}/${n}`);
  } catch {
    return [];
  }
}

function emptyResult(): RotateResult {
  return { moved: 0, skipped: 0, recovered: 0, files: [], rotated: false, message: '' };
}

/** Finish interrupted rotations inside an open transaction. */
export function finishRotationTx(tx: Tx, ctx: Ctx, res: RotateResult = emptyResult()): RotateResult {
  const today = localDate(ctx.clock.now(), ctx.clock.tz);
  const pending = pendingAside(ctx);
  // the aside file ends in the trash: check it can before merging (save first, remove second)
  if (pending.length) tx.assertTrashUsable();
  for (const aside of pending) {
    mergeAside(tx, ctx, aside, today, res);
    res.recovered++;
  }
  return res;
}

/**
 * Rotate inside an open transaction: finish interrupted rotations, then rotate the buffer when it
 * has reached `maxLines` lines (or when `force` and it holds any entry).
 */
export function rotateTx(tx: Tx, ctx: Ctx, opts: { maxLines?: number; force?: boolean } = {}): RotateResult {
  // a torn entry at the buffer's end is cut off (to the trash) before the buffer is read (Tx.settleTail)
  tx.settleTail(PATHS.buffer);
  const res = finishRotationTx(tx, ctx);
  const max = maxBufferLines(ctx.env, opts.maxLines);
  const buf = tx.read(PATHS.buffer);
  if (buf === undefined) {
    tx.write(PATHS.buffer, BUFFER_HEADER, { expected: null });
  } else {
    const hasContent = buf.split('\n').some((l) => !isHeaderLine(l));
    if (hasContent && (lineCount(buf) >= max || opts.force)) {
      const stamp = localStamp(ctx.clock.now(), ctx.clock.tz).replace(/:/g, '');
      let aside = `${ROTATING_DIR}/buffer-${stamp}.md`;
      for (let i = 1; tx.exists(aside); i++) aside = `${ROTATING_DIR}/buffer-${stamp}-${i}.md`;
      // a trash that cannot take the aside file leaves the buffer as it is
      tx.assertTrashUsable();
      tx.move(PATHS.buffer, aside);
      crashPoint(ctx.env, 'rotate.after-rename');
      tx.write(PATHS.buffer, headerOf(buf), { expected: null });
      mergeAside(tx, ctx, aside, localDate(ctx.clock.now(), ctx.clock.tz), res);
      res.rotated = true;
    }
  }
  res.message = describe(res);
  return res;
}

/** The buffer's own header lines (kept when it is emptied), or the default header. */
function headerOf(buf: string): string {
  const head: string[] = [];
  for (const l of buf.split('\n')) {
    if (!isHeaderLine(l)) break;
    head.push(l);
  }
  while (head.length && head[head.length - 1]!.trim() === '') head.pop();
  return head.length ? head.join('\n') + '\n\n' : BUFFER_HEADER;
}

function describe(r: RotateResult): string {
  const parts: string[] = [];
  if (r.recovered) parts.push(`finished ${r.recovered} interrupted rotation${r.recovered > 1 ? 's' : ''}`);
  if (r.rotated || r.moved) parts.push(`moved ${r.moved} entr${r.moved === 1 ? 'y' : 'ies'} to ${r.files.join(', ') || 'the episodic log'}`);
  if (r.skipped) parts.push(`${r.skipped} already there`);
  return parts.length ? parts.join('; ') : 'nothing to rotate';
}

/** `memtier rotate` / health --fix: rotate the buffer (force: whatever its length). */
export function rotate(ctx: Ctx, opts: { maxLines?: number; force?: boolean } = {}): RotateResult {
  return openStore(ctx).mutate((tx) => rotateTx(tx, ctx, opts));
}

/**
 * Before a command that edits or moves log lines plans its change (forget, supersede, archive,
 * review/dream/consolidate --apply, trash restore): finish a rotation a crash interrupted, so
 * the plan sees every entry where it will stay. Otherwise the aside copy outlives the change and
 * its merge brings back a forgotten line, an un-struck copy of a superseded one, or a day already
 * archived (found by the chaos run under load). One readdir when there is none.
 */
export function finishPendingRotations(ctx: Ctx): RotateResult | undefined {
  return pendingAside(ctx).length ? finishRotation(ctx) : undefined;
}

/** health --fix: finish a rotation a crash interrupted. */
export function finishRotation(ctx: Ctx): RotateResult {
  return openStore(ctx).mutate((tx) => {
    const r = finishRotationTx(tx, ctx);
    r.message = describe(r);
    return r;
  });
}
