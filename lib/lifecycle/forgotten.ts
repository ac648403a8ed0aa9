/**
 * What the memory knows it forgot, for `wal restore`: a snapshot of SESSION-STATE.md taken
 * before a `forget` still holds the item the WAL made of the entry (a decision, a pending item),
 * and restoring it would bring the forgotten entry back without a word.
 *
 * The forgotten entries are found where `forget` leaves them:
 * - memory/.trash/forgotten/DAY.md: the entry's lines, with their type and id (every memory);
 * - memory/.forgotten: the ids alone (a git memory); an id whose lines are no longer in the trash
 *   (`forget --purge`, the trash's retention) is looked up in git history, the one place its
 *   text is left, in one `git log` over the memory's paths.
 * An id a memory file carries again (`trash restore ^id`) is not forgotten.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ctx } from '../core/context.js';
import { parseEntries, parseEntryLine, type EntryType } from '../format/entry.js';
import { PATHS } from '../format/layout.js';
import { parseSessionState, serializeSessionState } from '../format/session-state.js';
import { git, isGitRepo, MEMORY_PATHSPECS } from '../git/index.js';
import { gitEnabled, readMemoryFile } from '../store/store.js';
import { removeEntryFromState } from '../wal/wal.js';
import { entryFiles, FORGOTTEN_DIR } from './entries.js';

export interface ForgottenEntry { id?: string; type?: EntryType; text: string }

/** Ids memory/.forgotten lists (`^id forgotten STAMP` lines). */
export function listedForgottenIds(root: string): Set<string> {
  let text = '';
  try { text = readFileSync(join(root, PATHS.forgotten), 'utf8'); } catch { /* none */ }
  const out = new Set<string>();
  for (const l of text.split('\n')) {
    const m = /^\^([A-Za-z0-9][A-Za-z0-9-]{2,63})\b/.exec(l);
    if (m) out.add(m[1]!);
  }
  return out;
}

/** The entries of the trash's forgotten files (not their SESSION-STATE.md blocks: those are copies of the same entries). */
function trashForgotten(root: string): ForgottenEntry[] {
  let names: string[];
  try { names = readdirSync(join(root, FORGOTTEN_DIR)).filter((n) => n.endsWith('.md')).sort(); } catch { return []; }
  const out: ForgottenEntry[] = [];
  for (const n of names) {
    let text: string | undefined;
    try { text = readMemoryFile(root, `${FORGOTTEN_DIR}/${n}`); } catch { continue; }
    if (!text) continue;
    let stateBlock = false;
    for (const l of text.split('\n')) {
      if (l.startsWith('## ')) { stateBlock = /^## \d{2}:\d{2} from SESSION-STATE\.md\s*$/.test(l); continue; }
      if (stateBlock) continue;
      const e = parseEntryLine(l);
      if (e && (e.id || e.type) && e.text) out.push({ ...(e.id ? { id: e.id } : {}), ...(e.type ? { type: e.type } : {}), text: e.text });
    }
  }
  return out;
}

/** Entry lines carrying `ids` in the memory's git history (added or removed by some commit). */
function historyForgotten(ctx: Pick<Ctx, 'root' | 'env'>, ids: string[]): ForgottenEntry[] {
  const out: ForgottenEntry[] = [];
  const want = new Set(ids);
  for (let i = 0; i < ids.length; i += 200) {
    const chunk = ids.slice(i, i + 200);
    let r;
    try {
      r = git(ctx, ['log', '-p', '--no-color', '--no-ext-diff', '--no-renames', '--format=', '-G', `\\^(${chunk.join('|')})([[:space:]]|$)`, '--', ...MEMORY_PATHSPECS]);
    } catch { return out; }
    if (r.code !== 0) return out;
    for (const l of r.stdout.split('\n')) {
      if (!(l.startsWith('-') || l.startsWith('+')) || l.startsWith('---') || l.startsWith('+++')) continue;
      const e = parseEntryLine(l.slice(1));
      if (e?.id && want.has(e.id) && e.text) { out.push({ id: e.id, ...(e.type ? { type: e.type } : {}), text: e.text }); want.delete(e.id); }
    }
  }
  return out;
}

/** Ids of `ids` that a memory file (not the trash) carries on an entry line: brought back, not forgotten. */
function liveIds(root: string, ids: Set<string>): Set<string> {
  const live = new Set<string>();
  if (ids.size === 0) return live;
  for (const info of entryFiles(root)) {
    let text: string | undefined;
    try { text = readMemoryFile(root, info.rel); } catch { continue; }
    if (!text || !text.includes('^')) continue;
    if (![...ids].some((id) => !live.has(id) && text!.includes(`^${id}`))) continue;
    for (const e of parseEntries(text)) if (e.id && ids.has(e.id)) live.add(e.id);
  }
  return live;
}

/** Every forgotten entry whose text the memory still knows (the trash, or git history for an id memory/.forgotten lists). */
export function forgottenEntries(ctx: Pick<Ctx, 'root' | 'env'>): ForgottenEntry[] {
  const fromTrash = trashForgotten(ctx.root);
  const known = new Set(fromTrash.flatMap((e) => (e.id ? [e.id] : [])));
  const listed = [...listedForgottenIds(ctx.root)].filter((id) => !known.has(id));
  const fromHistory = listed.length && gitEnabled(ctx.env) && isGitRepo(ctx.root) ? historyForgotten(ctx, listed) : [];
  const all = [...fromTrash, ...fromHistory];
  const live = liveIds(ctx.root, new Set(all.flatMap((e) => (e.id ? [e.id] : []))));
  return all.filter((e) => !e.id || !live.has(e.id));
}

/** An item left out of a restored state: its section and text, and the forgotten entry's id. */
export interface LeftOut { id?: string; item: string }

/**
 * `stateText` (a snapshot of SESSION-STATE.md) without the items of `forgotten` entries (the item
 * the WAL made of each: removeEntryFromState), and what was left out. The rest is kept as it is.
 */
export function stateWithoutForgotten(stateText: string, forgotten: ForgottenEntry[]): { text: string; left: LeftOut[] } {
  if (forgotten.length === 0) return { text: stateText, left: [] };
  const p = parseSessionState(stateText);
  const st = { ...p.state };
  const left: LeftOut[] = [];
  for (const e of forgotten) {
    for (const item of removeEntryFromState(st, e)) left.push({ ...(e.id ? { id: e.id } : {}), item });
  }
  return left.length ? { text: serializeSessionState(p, st), left } : { text: stateText, left };
}
