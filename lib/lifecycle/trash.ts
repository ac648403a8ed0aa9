/**
 * The trash's upkeep: retention (items older than MEMTIER_TRASH_DAYS leave it in consolidate's
 * clean step), `memtier trash restore|purge`, and `forget --purge` taking a line out of the
 * trash too. Deleting for real happens only here, through the store's `purge` (under the lock,
 * inside memory/.trash/ only).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { addDays, localDate } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { parseEntryLine } from '../format/entry.js';
import { PATHS } from '../format/layout.js';
import { listTrash, trashDays, trashName, type TrashItem } from '../format/trash.js';
import { openStore, type Tx } from '../store/store.js';
import { BUFFER_HEADER } from '../wal/rotate.js';
import type { Op } from './common.js';

export function trashItems(ctx: Ctx): TrashItem[] {
  return listTrash(ctx.root, (d) => localDate(d, ctx.clock.tz));
}

/** Items trashed more than `days` days before today (strictly older than the cutoff day). */
export function olderThan(ctx: Ctx, items: TrashItem[], days: number): TrashItem[] {
  const cutoff = addDays(localDate(ctx.clock.now(), ctx.clock.tz), -days);
  return items.filter((i) => i.day < cutoff);
}

/** The retention step's plan: purge ops for items past MEMTIER_TRASH_DAYS (none when it is `off`). */
export function planTrashRetention(ctx: Ctx): { ops: Op[]; days: number | undefined; items: TrashItem[] } {
  const days = trashDays(ctx.env);
  if (typeof days === 'object') throw new MemtierError(days.error, { code: 'usage', hint: 'give a whole number of days (default 30), or "off" to keep the trash forever' });
  if (days === undefined) return { ops: [], days, items: [] };
  const items = olderThan(ctx, trashItems(ctx), days);
  return { ops: items.map((i) => ({ kind: 'purge', rel: i.rel })), days, items };
}

/** Find one item by name; a folder name (a STAMP) stands for every item under it. */
export function findItems(ctx: Ctx, arg: string): TrashItem[] {
  const name = trashName(arg);
  const all = trashItems(ctx);
  const hit = all.filter((i) => i.name === name || i.name.startsWith(`${name}/`));
  if (hit.length === 0 || name === '' || name.split('/').includes('..')) {
    const near = all.filter((i) => i.name.includes(name.split('/').pop() ?? '')).slice(0, 8).map((i) => i.name);
    throw new MemtierError(`no item "${name.slice(0, 120)}" in ${PATHS.trash}/`, {
      code: 'not-found',
      hint: near.length ? `did you mean:\n  ${near.join('\n  ')}` : '"memtier trash list" shows every item with its name',
    });
  }
  return hit;
}

export interface RestoreResult { ok: true; restored: { from: string; to: string }[]; message: string }

/**
 * Put a whole-file item back where it came from (or at `to`). Never overwrites: a different file
 * at the destination refuses the restore (give --to); the same bytes there already: nothing to do.
 */
export function restoreItems(ctx: Ctx, arg: string, opts: { to?: string } = {}): RestoreResult {
  const items = findItems(ctx, arg);
  const bad = items.find((i) => i.kind !== 'file');
  if (bad) {
    throw new MemtierError(`${bad.name} is ${bad.kind === 'forgotten' ? 'the forgotten lines of a day' : bad.kind === 'torn' ? 'the torn tail of an interrupted write' : 'not something memtier put in the trash'}: it has no place to go back to`, {
      code: 'usage', file: bad.rel,
      hint: bad.kind === 'forgotten' ? 'restore its entries one by one: memtier trash restore ^ID (the ids are at the ends of its lines)' : bad.kind === 'torn' ? `read it (cat ${bad.rel}: memtier get never prints the trash) and add what you need again with "memtier add"` : `move it by hand (mv ${bad.rel} …)`,
    });
  }
  if (opts.to !== undefined && items.length !== 1) throw new MemtierError(`--to takes one item; "${arg}" names ${items.length}`, { code: 'usage', hint: 'restore the items one at a time' });
  const restored: RestoreResult['restored'] = [];
  const notes: string[] = [];
  openStore(ctx).mutate((tx) => {
    for (const i of items) {
      const to = opts.to ?? i.origin!;
      if (tx.exists(to)) {
        const same = (() => { try { return tx.read(to) === tx.read(i.rel); } catch { return false; } })();
        if (same) { notes.push(`${to} already holds the same content: nothing restored (${i.name} stays in the trash)`); continue; }
        throw new MemtierError(`cannot restore ${i.name}: ${to} exists and differs; nothing was overwritten`, {
          code: 'exists', file: to,
          hint: `restore it beside: memtier trash restore ${i.name} --to ${to.replace(/(\.[^./]+)?$/, (ext) => `.restored${ext}`)}`,
        });
      }
      tx.move(i.rel, to);
      restored.push({ from: i.rel, to });
    }
  });
  const message = [
    restored.length ? `restored ${restored.length} item${restored.length === 1 ? '' : 's'}: ${restored.map((r) => r.to).join(', ')}` : 'nothing restored',
    ...notes,
  ].join('\n');
  return { ok: true, restored, message };
}

export interface PurgeResult { ok: true; dryRun: boolean; purged: { name: string; bytes: number }[]; message: string }

/** Delete items for real: one (ITEM), those older than `olderThanDays`, or both filters together. */
export function purgeItems(ctx: Ctx, opts: { item?: string; olderThanDays?: number; dryRun?: boolean }): PurgeResult {
  if (opts.item === undefined && opts.olderThanDays === undefined) {
    throw new MemtierError('trash purge needs an ITEM or --older-than', { code: 'usage', hint: 'e.g. memtier trash purge --older-than 30d, or memtier trash purge 2026-05-15T143000' });
  }
  let items = opts.item !== undefined ? findItems(ctx, opts.item) : trashItems(ctx);
  if (opts.olderThanDays !== undefined) items = olderThan(ctx, items, opts.olderThanDays);
  const dryRun = !!opts.dryRun;
  if (!dryRun && items.length) openStore(ctx).mutate((tx) => { for (const i of items) tx.purge(i.rel); });
  const bytes = items.reduce((n, i) => n + i.bytes, 0);
  const message = items.length
    ? `${dryRun ? 'would delete' : 'deleted'} ${items.length} item${items.length === 1 ? '' : 's'} (${bytes} bytes) from ${PATHS.trash}/ for good`
    : `nothing to delete in ${PATHS.trash}/`;
  return { ok: true, dryRun, purged: items.map((i) => ({ name: i.name, bytes: i.bytes })), message };
}

export interface LinesPurged { files: string[]; lines: number; /** Trash files holding a match that could not be read or written back: left as they are. */ unreadable: string[] }

/**
 * `forget --purge`: rewrite every text file of the trash without the lines `drop` matches (a
 * forgotten-file heading left with nothing under it goes too). Files that cannot be read as
 * memory text are left and listed.
 */
export function purgeLinesTx(tx: Tx, ctx: Ctx, drop: (line: string) => boolean, quick: string[]): LinesPurged {
  const out: LinesPurged = { files: [], lines: 0, unreadable: [] };
  tx.assertTrashUsable();
  for (const i of trashItems(ctx)) {
    let text: string | undefined;
    try { text = tx.read(i.rel); } catch { out.unreadable.push(i.rel); continue; }
    if (text === undefined || !quick.some((q) => text!.includes(q))) continue;
    const { kept, n } = i.kind === 'forgotten' ? withoutForgotten(text, drop) : withoutLines(text, drop);
    if (n === 0) continue;
    try {
      tx.write(i.rel, kept.join('\n'), { expected: text });
    } catch (e) {
      // a file the guards refuse to write back (content they did not check when it was trashed)
      if (!(e instanceof MemtierError) || e.code.startsWith('lock')) throw e;
      out.unreadable.push(i.rel);
      continue;
    }
    out.files.push(i.rel);
    out.lines += n;
  }
  return out;
}

function withoutLines(text: string, drop: (line: string) => boolean): { kept: string[]; n: number } {
  const lines = text.split('\n');
  const kept = lines.filter((l) => !drop(l));
  return { kept, n: lines.length - kept.length };
}

/**
 * A forgotten file without the matching lines, block by block (`## HH:MM from ORIGIN` and its
 * lines): the SESSION-STATE.md block right after a block of the entry is its state copy (one
 * forget writes them together) and goes with it; a block left with no line goes too.
 */
function withoutForgotten(text: string, drop: (line: string) => boolean): { kept: string[]; n: number } {
  const lines = text.split('\n');
  const head = (l: string): boolean => /^## /.test(l);
  const first = lines.findIndex(head);
  if (first < 0) return withoutLines(text, drop);
  const kept = lines.slice(0, first);
  let n = 0;
  let prevHit = false;
  for (let k = first; k < lines.length;) {
    let end = k + 1;
    while (end < lines.length && !head(lines[end]!)) end++;
    const body = lines.slice(k + 1, end);
    const isState = /^## \d{2}:\d{2} from SESSION-STATE\.md\s*$/.test(lines[k]!);
    const rest: string[] = isState && prevHit ? [] : body.filter((l: string) => !drop(l));
    const removed: number = body.filter((l: string) => l.trim() !== '').length - rest.filter((l: string) => l.trim() !== '').length;
    n += removed;
    prevHit = removed > 0 && !isState;
    if (removed === 0) kept.push(lines[k]!, ...body);
    else if (rest.some((l: string) => l.trim() !== '')) kept.push(lines[k]!, ...rest);
    k = end;
  }
  if (text.endsWith('\n') && kept[kept.length - 1] !== '') kept.push('');
  return { kept, n };
}

/** How to take a line out of git history too, when the memory is a repository. */
export function gitHistoryHint(root: string, what: { id?: string | undefined; raw: string }): string[] {
  if (!existsSync(join(root, '.git'))) return [];
  const rule = what.id ? `regex:[^\\n]*\\^${what.id}[^\\n]*\\n==>` : `literal:${what.raw}==>`;
  return [
    'git history still holds the line (every commit made before this one). To remove it from there too, rewrite the history',
    `(needs git-filter-repo; every other clone must be cloned again): find it with  git log --oneline -S '${what.id ? `^${what.id}` : what.raw.slice(0, 60).replace(/'/g, "'\\''")}'`,
    `  printf '%s\\n' '${rule.replace(/'/g, "'\\''")}' > /tmp/memtier-purge.txt && git filter-repo --replace-text /tmp/memtier-purge.txt`,
  ];
}

export interface EntryRestoreResult { ok: true; id: string; restored: { from: string; to: string; line: number }[]; already: string[]; message: string }

const FORGOTTEN_HEAD = /^## \d{2}:\d{2} from (.+):(\d+)\s*$/;

/**
 * Put a forgotten entry (`^id`) back: every line `forget` saved for it in memory/.trash/forgotten/
 * goes back to the file it came from, at its old line number (or the end, when the file is now
 * shorter; a missing file is made again), and leaves the trash. A file that already holds the id
 * is left alone. The SESSION-STATE.md item the WAL had made of it stays in the trash: the entry
 * is in its log again, the open-items list is the agent's to rebuild.
 */
export function restoreEntry(ctx: Ctx, id: string): EntryRestoreResult {
  const restored: EntryRestoreResult['restored'] = [];
  const already: string[] = [];
  const hasId = (l: string): boolean => parseEntryLine(l)?.id === id;
  openStore(ctx).mutate((tx) => {
    for (const item of trashItems(ctx).filter((i) => i.kind === 'forgotten')) {
      const text = tx.read(item.rel);
      if (text === undefined || !text.includes(`^${id}`)) continue;
      const lines = text.split('\n');
      const keep: boolean[] = lines.map(() => true);
      for (let k = 0; k < lines.length; k++) {
        const head = FORGOTTEN_HEAD.exec(lines[k]!);
        if (!head) continue;
        let end = k + 1;
        while (end < lines.length && !/^## /.test(lines[end]!)) end++;
        const hits = lines.slice(k + 1, end).map((l, j) => ({ l, at: k + 1 + j })).filter((x) => hasId(x.l));
        if (!hits.length) continue;
        const to = head[1]!;
        const cur = tx.read(to);
        const curLines = cur === undefined ? [] : cur.replace(/\n$/, '').split('\n');
        if (curLines.some(hasId)) { already.push(to); continue; } // the trash keeps its copy
        {
          const at = Math.min(Math.max(Number(head[2]) - 1, 0), curLines.length);
          const base = cur === undefined && to === PATHS.buffer ? BUFFER_HEADER.replace(/\n$/, '').split('\n') : curLines;
          const pos = cur === undefined ? base.length : at;
          const next = [...base.slice(0, pos), ...hits.map((h) => h.l), ...base.slice(pos)];
          tx.write(to, next.join('\n') + '\n', { expected: cur ?? null });
          restored.push({ from: item.rel, to, line: pos + 1 });
        }
        for (const h of hits) keep[h.at] = false;
        // the block's heading goes too when nothing else is under it
        if (lines.slice(k + 1, end).every((l, j) => !keep[k + 1 + j] || l.trim() === '')) keep[k] = false;
      }
      tx.write(item.rel, lines.filter((_, k) => keep[k]).join('\n'), { expected: text });
    }
  });
  if (!restored.length && !already.length) {
    throw new MemtierError(`no forgotten entry ^${id} in ${PATHS.trash}/forgotten/`, { code: 'not-found', hint: '"memtier trash list" shows what the trash holds; a rotation\'s buffer copy is restored by its item name' });
  }
  const message = [
    ...restored.map((r) => `restored ^${id} to ${r.to}:${r.line}`),
    ...already.map((a) => `${a} already holds ^${id}: left as it is`),
  ].join('\n');
  return { ok: true, id, restored, already, message };
}
