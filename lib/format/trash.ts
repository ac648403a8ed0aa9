/**
 * The trash's layout (memory-skeleton/FORMAT.md, "memory/.trash/"): what the store and the
 * lifecycle put there, read back as items with their origin and the day they were trashed.
 *
 *   memory/.trash/STAMP[-N]/ORIGINAL-PATH   a whole file moved there (rotation's buffer copy, retention, leftovers)
 *   memory/.trash/torn/STAMP-PATH.txt       the torn tail of an interrupted append (PATH with "/" as "__")
 *   memory/.trash/forgotten/YYYY-MM-DD.md   the lines `forget` removed that day, each under its origin
 *
 * STAMP is the local time of the removal, `YYYY-MM-DDTHHMMSS`. Anything else found there (a
 * person put it there) is an item of kind `other`, dated by its modification time.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PATHS } from './layout.js';

export type TrashKind = 'file' | 'torn' | 'forgotten' | 'other';

export interface TrashItem {
  /** Its name inside the trash (`2026-05-15T143000/memory/working-buffer.md`): what `trash restore|purge` take. */
  name: string;
  /** Root-relative path (`memory/.trash/…`). */
  rel: string;
  kind: TrashKind;
  /** Where it was before (a `file`: the path it is restored to; a `torn` line: the file it was cut from). */
  origin?: string;
  /** The local day it was trashed, `YYYY-MM-DD` (from its name; else its modification time). */
  day: string;
  bytes: number;
}

const STAMP_DIR = /^(\d{4}-\d{2}-\d{2})T\d{6}(?:-\d+)?$/;
const TORN = /^(\d{4}-\d{2}-\d{2})T\d{6}-(.+?)(?:-\d+)?\.txt$/;
const FORGOTTEN = /^(\d{4}-\d{2}-\d{2})\.md$/;

/** Every regular file under `abs` (root-relative names below it); links and specials are listed as they are, never followed. */
function filesUnder(abs: string, rel = ''): { rel: string; bytes: number; mtimeMs: number }[] {
  let ents;
  try { ents = readdirSync(rel ? join(abs, rel) : abs, { withFileTypes: true }); } catch { return []; }
  const out: { rel: string; bytes: number; mtimeMs: number }[] = [];
  for (const d of ents) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) { out.push(...filesUnder(abs, r)); continue; }
    try {
      const st = lstatSync(join(abs, r));
      out.push({ rel: r, bytes: st.size, mtimeMs: st.mtimeMs });
    } catch { /* gone */ }
  }
  return out;
}

const dayOf = (mtimeMs: number, tzDay: (d: Date) => string): string => tzDay(new Date(mtimeMs));

/**
 * The trash's items, sorted by day then name. `tzDay` turns an instant into the local day
 * (the memory's zone) for items whose name carries no date.
 */
export function listTrash(root: string, tzDay: (d: Date) => string): TrashItem[] {
  const top = join(root, PATHS.trash);
  let st;
  try { st = lstatSync(top); } catch { return []; }
  if (!st.isDirectory()) return [];
  const items: TrashItem[] = [];
  for (const f of filesUnder(top)) {
    const [first, ...rest] = f.rel.split('/');
    const rel = `${PATHS.trash}/${f.rel}`;
    const base = { name: f.rel, rel, bytes: f.bytes };
    const stamp = STAMP_DIR.exec(first!);
    if (stamp && rest.length) { items.push({ ...base, kind: 'file', origin: rest.join('/'), day: stamp[1]! }); continue; }
    const torn = first === 'torn' && rest.length === 1 ? TORN.exec(rest[0]!) : null;
    if (torn) { items.push({ ...base, kind: 'torn', origin: torn[2]!.replace(/__/g, '/'), day: torn[1]! }); continue; }
    const forgotten = first === 'forgotten' && rest.length === 1 ? FORGOTTEN.exec(rest[0]!) : null;
    if (forgotten) { items.push({ ...base, kind: 'forgotten', day: forgotten[1]! }); continue; }
    items.push({ ...base, kind: 'other', day: dayOf(f.mtimeMs, tzDay) });
  }
  return items.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** An item name as a person may type it: `memory/.trash/X`, `.trash/X` or `X`. */
export function trashName(arg: string): string {
  let a = arg.trim().replace(/\\/g, '/').replace(/^\.\//, '');
  if (a.startsWith(`${PATHS.trash}/`)) a = a.slice(PATHS.trash.length + 1);
  else if (a.startsWith('.trash/')) a = a.slice('.trash/'.length);
  return a.replace(/\/+$/, '');
}

/** The trash's retention in days: `MEMTIER_TRASH_DAYS` (default 30); `off` keeps items forever (undefined). */
export const DEFAULT_TRASH_DAYS = 30;
export function trashDays(env: NodeJS.ProcessEnv): number | undefined | { error: string } {
  const v = env.MEMTIER_TRASH_DAYS;
  if (v === undefined || v.trim() === '') return DEFAULT_TRASH_DAYS;
  if (/^(?:off|never|no)$/i.test(v.trim())) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) return { error: `MEMTIER_TRASH_DAYS="${v.slice(0, 20)}" is not a number of days` };
  return n;
}
