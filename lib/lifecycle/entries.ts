/**
 * Finding one entry across the memory by reference: `^id`, `id`, or `path:line`.
 *
 * Used by `supersede` and `forget` (and by anything that must point at one exact line). The
 * lookup reads files strictly (no lock), returns the file text it read so the caller can
 * compare-before-replace, and refuses ambiguous or missing references with the candidates.
 * Trash, `.memtier/` and generated views (palace, reviews, DREAMS.md) are never searched: they
 * hold copies, not the entry itself.
 */
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { localDate, localStamp, localTime } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { formatEntryLine, ID_RE, newEntryId, oneLine, parseEntries, parseEntryLine, type Entry, type EntryType } from '../format/entry.js';
import { classify, dayFile, episodicPath, listMemoryFiles, PATHS, type FileInfo } from '../format/layout.js';
import { parseSessionState, serializeSessionState } from '../format/session-state.js';
import { gitEnabled, openStore, readMemoryFile, type Tx } from '../store/store.js';
import { crashPoint } from '../store/crash.js';
import { gitHistoryHint, purgeLinesTx, type LinesPurged } from './trash.js';
import { clearRecallCache } from '../search/recall-cache.js';
import { addEntriesTx, entryText } from '../wal/episodic.js';
import { removeEntryFromState } from '../wal/wal.js';
import { finishPendingRotations, finishRotationTx } from '../wal/rotate.js';

export interface FoundEntry {
  /** Root-relative file path. */
  path: string;
  /** 1-based line number. */
  line: number;
  /** The line as it is in the file. */
  raw: string;
  entry: Entry;
  /** The whole file as read (pass as `expected` when rewriting it). */
  fileText: string;
  info: FileInfo;
}

export type EntryRef = { kind: 'id'; id: string } | { kind: 'line'; path: string; line: number };

/** Kinds of files that hold copies or derived views, never an entry's own line. */
const DERIVED: ReadonlySet<FileInfo['kind']> = new Set(['palace', 'review', 'dreams']);

/** Parse an ENTRY argument: `^id`, `id`, `path:line` or `path#Lline` (a citation). */
export function parseEntryRef(ctx: Pick<Ctx, 'root' | 'cwd'>, ref: string): EntryRef {
  const r = ref.trim();
  const cite = /^(.+?\.md)(?::|#L)(\d+)$/.exec(r);
  if (cite) return { kind: 'line', path: toRel(ctx, cite[1]!), line: Number(cite[2]) };
  const citeId = /^(.+?\.md)#\^([A-Za-z0-9-]+)$/.exec(r);
  if (citeId) return { kind: 'id', id: citeId[2]! };
  const id = r.startsWith('^') ? r.slice(1) : r;
  if (ID_RE.test(id)) return { kind: 'id', id };
  throw new MemtierError(`"${r.slice(0, 80)}" is not an entry reference`, {
    code: 'usage',
    hint: 'name the entry by its id (^k2j3mx0a1b) or by file and line (memory/episodic/2026-05-14.md:12)',
  });
}

function toRel(ctx: Pick<Ctx, 'root' | 'cwd'>, p: string): string {
  if (!isAbsolute(p)) return p.replace(/\\/g, '/').replace(/^\.\//, '');
  const rel = relative(resolve(ctx.root), p);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    throw new MemtierError(`${p} is outside the memory root ${ctx.root}`, { code: 'usage', hint: 'give a path inside the memory (relative to its root)' });
  }
  return rel.replace(/\\/g, '/');
}

/** Files searched for entries: every memory file except generated views. */
export function entryFiles(root: string): FileInfo[] {
  return listMemoryFiles(root).map(classify).filter((f) => !DERIVED.has(f.kind));
}

/** Every entry carrying `id` (normally one). Cheap: a substring test before parsing a file. */
export function findById(ctx: Pick<Ctx, 'root'>, id: string): FoundEntry[] {
  const out: FoundEntry[] = [];
  const needle = `^${id}`;
  for (const info of entryFiles(ctx.root)) {
    let text: string | undefined;
    try { text = readMemoryFile(ctx.root, info.rel); } catch { continue; /* unreadable: health reports it */ }
    if (text === undefined || !text.includes(needle)) continue;
    for (const e of parseEntries(text)) {
      if (e.id !== id) continue;
      const { line, raw, ...entry } = e;
      out.push({ path: info.rel, line, raw, entry, fileText: text, info });
    }
  }
  return out;
}

/** The entry on `path:line`, or a clear error. */
export function findByLine(ctx: Pick<Ctx, 'root'>, rel: string, line: number): FoundEntry {
  const text = readMemoryFile(ctx.root, rel);
  if (text === undefined) {
    throw new MemtierError(`${rel} does not exist`, { code: 'not-found', file: rel, hint: 'give the path relative to the memory root, e.g. memory/episodic/2026-05-14.md:12' });
  }
  const lines = text.split('\n');
  const raw = lines[line - 1];
  const entry = raw === undefined ? undefined : parseEntryLine(raw);
  if (!entry) {
    const near = parseEntries(text).filter((e) => Math.abs(e.line - line) <= 3).map((e) => `${rel}:${e.line}  ${e.raw.slice(0, 100)}`);
    throw new MemtierError(`line ${line} of ${rel} is not an entry (a "- " bullet line)`, {
      code: 'not-found', file: rel, line,
      hint: near.length ? `entries nearby:\n  ${near.join('\n  ')}` : 'use "memtier search" to find the entry and its id',
    });
  }
  return { path: rel, line, raw: raw!, entry, fileText: text, info: classify(rel) };
}

/**
 * Resolve an ENTRY argument to exactly one entry. Missing → code `not-found`; the same id on
 * several lines → code `ambiguous`, listing every candidate as `path:line`.
 */
export function findEntry(ctx: Pick<Ctx, 'root' | 'cwd'>, ref: string): FoundEntry {
  const r = parseEntryRef(ctx, ref);
  if (r.kind === 'line') return findByLine(ctx, r.path, r.line);
  const found = findById(ctx, r.id);
  if (found.length === 1) return found[0]!;
  if (found.length === 0) {
    throw new MemtierError(`no entry has the id ^${r.id}`, {
      code: 'not-found',
      hint: `find it with "memtier search" or "grep -rn '\\^${r.id.slice(0, 4)}' memory/", then pass its ^id or path:line`,
    });
  }
  throw new MemtierError(`the id ^${r.id} is on ${found.length} lines; say which one`, {
    code: 'ambiguous',
    hint: `pass one of these as path:line:\n  ${found.map((f) => `${f.path}:${f.line}  ${f.raw.slice(0, 100)}`).join('\n  ')}`,
  });
}

/** Replace line `line` (1-based) of `text` with `lines` (none = delete the line). */
export function replaceLine(text: string, line: number, lines: string[]): string {
  const all = text.split('\n');
  all.splice(line - 1, 1, ...lines);
  return all.join('\n');
}

// ---------------------------------------------------------------------------------------------
// supersede and forget
// ---------------------------------------------------------------------------------------------

/** Files whose entries are a log (a superseding entry goes to today's episodic day). */
const LOG_KINDS: ReadonlySet<FileInfo['kind']> = new Set(['episodic', 'legacy-daily', 'archive', 'buffer']);

export const FORGOTTEN_DIR = `${PATHS.trash}/forgotten`;

export interface SupersedeOptions {
  /** The new entry's text, or `^id` of an entry that already says it. */
  by: string;
  type?: EntryType;
  dryRun?: boolean;
}

export interface SupersedeResult {
  ok: true;
  dryRun: boolean;
  changed: boolean;
  old: { path: string; line: number; id: string; before: string; after: string };
  /** The superseding entry (created, or the existing one named by --by ^id). */
  by: { path: string; id: string; line: string; created: boolean };
  message: string;
}

function todayOf(ctx: Ctx): string {
  return localDate(ctx.clock.now(), ctx.clock.tz);
}

const sameText = (a: string, b: string): boolean => oneLine(a).toLowerCase() === oneLine(b).toLowerCase();

function freshId(ctx: Ctx, avoid: Set<string>): string {
  for (;;) {
    const id = newEntryId(ctx.clock.now());
    if (!avoid.has(id) && findById(ctx, id).length === 0) return id;
  }
}

/**
 * Mark an entry superseded. Its line becomes `- ~~<old content>~~ superseded by ^new ^old` (kept,
 * ranked down in search, left out of recall) and the new entry is written: in today's episodic day when the old
 * one is in a log (buffer, episodic day, archive), else on the line right below the old one, so a
 * durable note keeps the current fact in its one home. Compare-before-replace: a file edited
 * meanwhile is left as it is (code `conflict`).
 */
export function supersedeEntry(ctx: Ctx, ref: string, opts: SupersedeOptions): SupersedeResult {
  const dryRun = !!opts.dryRun;
  if (!dryRun) finishPendingRotations(ctx);
  const old = findEntry(ctx, ref);
  const byRef = /^\^[A-Za-z0-9][A-Za-z0-9-]{2,63}$/.test(opts.by.trim()) ? opts.by.trim().slice(1) : undefined;
  if (!byRef && oneLine(opts.by) === '') throw new MemtierError('--by is empty', { code: 'usage', hint: 'give the new text: memtier supersede ^id --by "uses PostgreSQL 16 now"' });

  if (old.entry.superseded) {
    const cur = old.entry.supersededBy;
    const curEntry = cur ? findById(ctx, cur)[0] : undefined;
    if (cur && (byRef === cur || (!byRef && curEntry && sameText(curEntry.entry.text, opts.by)))) {
      return {
        ok: true, dryRun, changed: false,
        old: { path: old.path, line: old.line, id: old.entry.id ?? '', before: old.raw, after: old.raw },
        by: { path: curEntry?.path ?? '', id: cur, line: curEntry?.raw ?? '', created: false },
        message: `already superseded by ^${cur}; nothing changed`,
      };
    }
    throw new MemtierError(`${old.path}:${old.line} is already superseded${cur ? ` by ^${cur}` : ''}`, {
      code: 'already-superseded', file: old.path, line: old.line,
      hint: cur ? `supersede the current entry instead: memtier supersede ^${cur} --by "…"` : 'edit the line by hand or forget it',
    });
  }

  const now = ctx.clock.now();
  const { tz } = ctx.clock;
  const type = opts.type ?? old.entry.type;
  let by: SupersedeResult['by'];
  let newLine: string | undefined;
  const inLog = LOG_KINDS.has(old.info.kind);
  if (byRef) {
    if (byRef === old.entry.id) throw new MemtierError('an entry cannot supersede itself', { code: 'usage' });
    const target = findEntry(ctx, `^${byRef}`);
    by = { path: target.path, id: byRef, line: target.raw, created: false };
  } else {
    const id = freshId(ctx, new Set(old.entry.id ? [old.entry.id] : []));
    const text = entryText(opts.by);
    newLine = formatEntryLine({ ...(inLog ? {} : { date: localDate(now, tz) }), time: localTime(now, tz), ...(type ? { type } : {}), text, tags: [], id });
    by = { path: inLog ? dayFile(ctx.root, localDate(now, tz)) : old.path, id, line: newLine, created: true };
  }
  const oldId = old.entry.id ?? freshId(ctx, new Set([by.id]));
  const struck = formatEntryLine({ ...old.entry, superseded: true, supersededBy: by.id, id: oldId });
  const rewritten = replaceLine(old.fileText, old.line, inLog || !newLine ? [struck] : [struck, newLine]);
  const result: SupersedeResult = {
    ok: true, dryRun, changed: true,
    old: { path: old.path, line: old.line, id: oldId, before: old.raw, after: struck },
    by,
    message: `${dryRun ? 'would mark' : 'marked'} ${old.path}:${old.line} (^${oldId}) superseded by ^${by.id}${by.created ? ` (new entry in ${by.path})` : ''}`,
  };
  if (dryRun) return result;
  openStore(ctx).mutate((tx) => {
    // one interrupted since the plan: finished first (a change to the file is a conflict below)
    finishRotationTx(tx, ctx);
    tx.write(old.path, rewritten, { expected: old.fileText });
    if (newLine && inLog) {
      addEntriesTx(tx, ctx, [{ ...(type ? { type } : {}), text: opts.by, id: by.id, at: now }]);
    }
  });
  return result;
}

export interface ForgetResult {
  ok: true;
  dryRun: boolean;
  changed: boolean;
  from?: { path: string; line: number; raw: string };
  /** Where the line was saved. */
  savedTo: string;
  /** Superseded lines (`path:line`) whose "superseded by ^id" names the forgotten entry. */
  pointedFrom: string[];
  /** Other places the entry was materialized and was removed from too (`path:line`, SESSION-STATE.md). */
  also: string[];
  /** The SESSION-STATE.md items that were the entry (`Section: item`), kept in the trash too. */
  state?: string[];
  /** --purge: what was taken out of the trash too (nothing is kept there). */
  purged?: LinesPurged;
  /** --purge in a git memory: how to remove the line from git history too. */
  gitHint?: string[];
  message: string;
}

export interface ForgetOptions {
  dryRun?: boolean;
  /** Keep nothing: take the entry's lines out of the trash too (and say how to take them out of git history). */
  purge?: boolean;
}

function forgottenHeader(day: string): string {
  return `# Forgotten ${day}\n\nEntries removed with "memtier forget", each under the place it was.\n\n`;
}

/** The file is still what was read, else the code `conflict` error (checked before anything is written). */
function assertUnchanged(tx: Tx, rel: string, expected: string): void {
  if (tx.read(rel) !== expected) {
    throw new MemtierError('changed on disk since it was read (someone edited it); nothing was written', { code: 'conflict', file: rel, hint: 'run the command again; it will start from the new content' });
  }
}

/**
 * Save first, remove second: append `blocks` to the forgotten trash file before the caller removes
 * anything (a trash that cannot take them stops the command with nothing removed). A block
 * already there (a forget a crash cut between its save and its removal, run again) is not
 * written twice.
 */
export function saveForgottenTx(tx: Tx, savedTo: string, day: string, blocks: string[]): void {
  tx.assertTrashUsable();
  const cur = tx.read(savedTo);
  if (cur === undefined) tx.write(savedTo, forgottenHeader(day), { expected: null });
  for (const b of blocks) {
    const key = b.replace(/^## \d{2}:\d{2} /, '');
    if (cur !== undefined && cur.includes(key)) continue;
    tx.append(savedTo, b);
  }
}

/** Lines that say "superseded by ^id". */
function supersededBy(ctx: Ctx, id: string): string[] {
  const out: string[] = [];
  const needle = `superseded by ^${id}`;
  for (const info of entryFiles(ctx.root)) {
    let text: string | undefined;
    try { text = readMemoryFile(ctx.root, info.rel); } catch { continue; }
    if (!text || !text.includes(needle)) continue;
    for (const e of parseEntries(text)) if (e.supersededBy === id) out.push(`${info.rel}:${e.line}`);
  }
  return out;
}

/** Lines of the forgotten-file block for one entry. */
function forgottenBlock(ctx: Ctx, f: FoundEntry): string {
  return `## ${localTime(ctx.clock.now(), ctx.clock.tz)} from ${f.path}:${f.line}\n${f.raw}\n`;
}

/**
 * Remove an entry's line from its file and keep it in memory/.trash/forgotten/YYYY-MM-DD.md
 * under a heading naming its origin (`path:line`); git history is the undo. Forgetting an id
 * that is already only in the forgotten trash changes nothing and says so.
 */
export function forgetEntry(ctx: Ctx, ref: string, opts: ForgetOptions = {}): ForgetResult {
  const dryRun = !!opts.dryRun;
  if (!dryRun) finishPendingRotations(ctx);
  const purge = !!opts.purge;
  const savedTo = `${FORGOTTEN_DIR}/${todayOf(ctx)}.md`;
  const r = (() => { try { return parseEntryRef(ctx, ref); } catch { return undefined; } })();
  // an id names one entry, wherever it is materialized (the buffer, an episodic day, its home):
  // every line carrying it is forgotten; a path:line names exactly that line
  let places: FoundEntry[];
  if (r?.kind === 'id') {
    places = findById(ctx, r.id);
    // the same id on lines that say different things is not one entry: say which (path:line)
    if (new Set(places.map((p) => stateKey(p.entry.text))).size > 1) places = [findEntry(ctx, ref)];
    if (places.length === 0) {
      const where = forgottenWhere(ctx, r.id);
      if (where) return forgetStateCopy(ctx, r.id, where, savedTo, dryRun, purge);
      places = [findEntry(ctx, ref)]; // throws not-found with its hint
    }
  } else {
    places = [findEntry(ctx, ref)];
  }
  const f = places[0]!;
  const pointedFrom = f.entry.id ? supersededBy(ctx, f.entry.id) : [];
  // the WAL's materialized state: SESSION-STATE.md items that are this entry (decision, pending, …)
  const stateText = readMemoryFile(ctx.root, PATHS.sessionState);
  const stateAfter = stateText === undefined ? undefined : sessionStateWithout(stateText, f.entry);
  const also = [...places.slice(1).map((p) => `${p.path}:${p.line}`), ...(stateAfter !== undefined ? [PATHS.sessionState] : [])];
  const kept = purge ? `; ${dryRun ? 'it would be' : 'it is'} taken out of ${PATHS.trash}/ too` : `; the line ${dryRun ? 'would be' : 'is'} kept in ${savedTo}`;
  const result: ForgetResult = {
    ok: true, dryRun, changed: true, from: { path: f.path, line: f.line, raw: f.raw }, savedTo: purge ? '' : savedTo, pointedFrom, also, ...(stateAfter ? { state: stateAfter.removed } : {}),
    message: `${dryRun ? 'would forget' : 'forgot'} ${f.path}:${f.line}${f.entry.id ? ` (^${f.entry.id})` : ''}${also.length ? ` and its ${also.length === 1 ? 'copy' : 'copies'} in ${also.join(', ')}` : ''}${kept}`
      + (pointedFrom.length ? `; note: ${pointedFrom.join(', ')} still say "superseded by ^${f.entry.id}"` : ''),
  };
  if (purge) result.gitHint = gitHistoryHint(ctx.root, { id: f.entry.id, raw: f.raw });
  if (dryRun) return result;
  // per file, lines removed from the bottom up so the line numbers above stay right
  const byFile = new Map<string, FoundEntry[]>();
  for (const p of places) byFile.set(p.path, [...(byFile.get(p.path) ?? []), p]);
  openStore(ctx).mutate((tx) => {
    // a rotation interrupted since the plan: finished first (its aside copy would bring the line
    // back); a file it changed is a conflict below
    finishRotationTx(tx, ctx);
    // nothing is written unless every file is still what was read
    for (const [path, ps] of byFile) assertUnchanged(tx, path, ps[0]!.fileText);
    if (stateAfter !== undefined) assertUnchanged(tx, PATHS.sessionState, stateText!);
    if (!purge) {
      // save first, remove second: the state's copy goes to the trash too (as "Section: item")
      saveForgottenTx(tx, savedTo, todayOf(ctx), [...places.map((p) => forgottenBlock(ctx, p)), ...(stateAfter !== undefined ? [stateBlock(ctx, stateAfter.removed)] : [])]);
      crashPoint(ctx.env, 'forget.after-save');
    }
    for (const [path, ps] of byFile) {
      let text = ps[0]!.fileText;
      for (const p of [...ps].sort((a, b) => b.line - a.line)) text = replaceLine(text, p.line, []);
      tx.write(path, text, { expected: ps[0]!.fileText });
    }
    if (stateAfter !== undefined) tx.write(PATHS.sessionState, stateAfter.text, { expected: stateText! });
    // in a git memory the removal travels to the other machines as a committed record of the id
    // alone (never the text): sync's merge keeps it removed there (lib/git/merge.ts)
    if (f.entry.id && gitEnabled(ctx.env) && existsSync(join(ctx.root, '.git'))) tx.append(PATHS.forgotten, `^${f.entry.id} forgotten ${localStamp(ctx.clock.now(), ctx.clock.tz)}\n`);
    if (purge) result.purged = purgeEverywhereTx(tx, ctx, f.entry, lineMatcher(f, stateAfter?.removed ?? []), quickNeedles(f));
  });
  if (result.purged) result.message += `; ${purgedNote(result.purged)}`;
  return result;
}

/**
 * --purge: keep nothing of the entry. Its lines leave the trash (purgeLinesTx), its SESSION-STATE.md
 * item and any line carrying its id leave every snapshot of the state (memory/.snapshots/, which
 * `wal restore` would bring back and git keeps), and the recall cache (whose blocks may quote it)
 * is emptied.
 */
function purgeEverywhereTx(tx: Tx, ctx: Ctx, entry: { id?: string | undefined; type?: EntryType | undefined; text: string }, drop: (line: string) => boolean, quick: string[]): LinesPurged {
  const trash = purgeLinesTx(tx, ctx, drop, quick);
  const snaps = purgeSnapshotsTx(tx, ctx, entry);
  clearRecallCache(ctx.root);
  return { files: [...trash.files, ...snaps.files], lines: trash.lines + snaps.lines, unreadable: [...trash.unreadable, ...snaps.unreadable] };
}

/**
 * The entry out of every snapshot of SESSION-STATE.md: the item the WAL made of it (one, as
 * forget takes it out of SESSION-STATE.md) and any line that carries its id. A snapshot that
 * cannot be read or written back is left and listed in `unreadable`.
 */
function purgeSnapshotsTx(tx: Tx, ctx: Ctx, entry: { id?: string | undefined; type?: EntryType | undefined; text: string }): LinesPurged {
  const out: LinesPurged = { files: [], lines: 0, unreadable: [] };
  let names: string[];
  try { names = readdirSync(join(ctx.root, PATHS.snapshots)).filter((n) => n.endsWith('.md')).sort(); } catch { return out; }
  const idRe = entry.id ? new RegExp(`\\s\\^${entry.id}\\s*$`) : undefined;
  for (const name of names) {
    const rel = `${PATHS.snapshots}/${name}`;
    let text: string | undefined;
    try { text = tx.read(rel); } catch { out.unreadable.push(rel); continue; }
    if (text === undefined) continue;
    let next = text;
    let n = 0;
    const without = entry.text ? sessionStateWithout(next, entry) : undefined;
    if (without) { next = without.text; n += without.removed.length; }
    if (idRe && next.includes(`^${entry.id}`)) {
      const lines = next.split('\n');
      const kept = lines.filter((l) => !idRe.test(l));
      n += lines.length - kept.length;
      next = kept.join('\n');
    }
    if (n === 0) continue;
    try {
      tx.write(rel, next, { expected: text });
    } catch (e) {
      if (!(e instanceof MemtierError) || e.code.startsWith('lock')) throw e;
      out.unreadable.push(rel);
      continue;
    }
    out.files.push(rel);
    out.lines += n;
  }
  return out;
}

/** Lines of the trash that are this entry: any line carrying its id (else its exact line), and its SESSION-STATE.md items as the forgotten file keeps them. */
function lineMatcher(f: Pick<FoundEntry, 'raw' | 'entry'>, stateItems: string[]): (line: string) => boolean {
  const idRe = f.entry.id ? new RegExp(`\\s\\^${f.entry.id}\\s*$`) : undefined;
  const items = new Set(stateItems.map((s) => `- ${s}`));
  const raw = f.raw.trimEnd();
  return (l) => (idRe ? idRe.test(l) : l.trimEnd() === raw) || items.has(l.trimEnd());
}

const quickNeedles = (f: Pick<FoundEntry, 'raw' | 'entry'>): string[] => [f.entry.id ? `^${f.entry.id}` : f.raw.trim()];

function purgedNote(p: LinesPurged): string {
  return `${p.lines ? `removed ${p.lines} line${p.lines === 1 ? '' : 's'} from ${p.files.join(', ')}` : `nothing of it was in ${PATHS.trash}/ or a snapshot`}${p.unreadable.length ? `; left ${p.unreadable.join(', ')} (not readable as memory text: look by hand)` : ''}`;
}

/** An entry's words, to tell two lines carrying one id apart: no tags, no case. */
function stateKey(text: string): string {
  return text.replace(/(?:^|\s)#[\p{L}][\p{L}\p{N}_/-]*/gu, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * SESSION-STATE.md without the item that materializes `entry` (its decision, pending item, key
 * fact, …: removeEntryFromState), and the items removed; undefined when it holds none.
 */
export function sessionStateWithout(text: string, entry: { type?: EntryType | undefined; text: string }): { text: string; removed: string[] } | undefined {
  const p = parseSessionState(text);
  const st = { ...p.state };
  const removed = removeEntryFromState(st, entry);
  return removed.length ? { text: serializeSessionState(p, st), removed } : undefined;
}

/**
 * `forget ^id` of an entry already in the forgotten trash: its lines are gone, but SESSION-STATE.md
 * may still hold its item (a forget from before forget cleaned the state, or a hand edit that put
 * it back). That item is removed (and kept in the trash); otherwise nothing changes.
 */
function forgetStateCopy(ctx: Ctx, id: string, where: string, savedTo: string, dryRun: boolean, purge: boolean): ForgetResult {
  const entry = parseEntries(readMemoryFile(ctx.root, where) ?? '').find((e) => e.id === id);
  const stateText = readMemoryFile(ctx.root, PATHS.sessionState);
  const after = entry && stateText !== undefined ? sessionStateWithout(stateText, entry) : undefined;
  const hint = purge && entry ? gitHistoryHint(ctx.root, { id, raw: entry.raw }) : [];
  if (!after && !purge) return { ok: true, dryRun, changed: false, savedTo: where, pointedFrom: [], also: [], message: `^${id} is already forgotten (saved in ${where}); nothing changed` };
  const result: ForgetResult = after
    ? {
      ok: true, dryRun, changed: true, savedTo: purge ? '' : savedTo, pointedFrom: [], also: [PATHS.sessionState], state: after.removed,
      message: `^${id} is already forgotten (saved in ${where}), but ${PATHS.sessionState} still held it: ${dryRun ? 'would remove' : 'removed'} ${after.removed.join('; ')}${purge ? '' : `; ${dryRun ? 'it would be' : 'it is'} kept in ${savedTo}`}`,
    }
    : { ok: true, dryRun, changed: true, savedTo: '', pointedFrom: [], also: [], message: `^${id} is already forgotten (saved in ${where}): ${dryRun ? 'would take' : 'took'} it out of ${PATHS.trash}/` };
  if (purge) result.gitHint = hint;
  if (dryRun) return result;
  openStore(ctx).mutate((tx) => {
    if (after) {
      assertUnchanged(tx, PATHS.sessionState, stateText!);
      if (!purge) saveForgottenTx(tx, savedTo, todayOf(ctx), [stateBlock(ctx, after.removed)]);
      tx.write(PATHS.sessionState, after.text, { expected: stateText! });
    }
    if (purge) result.purged = purgeEverywhereTx(tx, ctx, entry ?? { id, text: '' }, lineMatcher({ raw: entry?.raw ?? `^${id}`, entry: { id, text: '', tags: [] } }, after?.removed ?? []), [`^${id}`]);
  });
  if (result.purged) {
    result.changed = result.purged.lines > 0 || after !== undefined;
    result.message += `; ${purgedNote(result.purged)}`;
  }
  return result;
}

/** The forgotten-file block for the SESSION-STATE.md items of an entry (`- Section: item`). */
function stateBlock(ctx: Ctx, removed: string[]): string {
  return `## ${localTime(ctx.clock.now(), ctx.clock.tz)} from ${PATHS.sessionState}\n${removed.map((r) => `- ${r}\n`).join('')}`;
}

/** The forgotten-trash file holding `^id`, if any. */
function forgottenWhere(ctx: Ctx, id: string): string | undefined {
  let names: string[];
  try { names = readdirSync(join(ctx.root, FORGOTTEN_DIR)).filter((n) => n.endsWith('.md')).sort().reverse(); } catch { return undefined; }
  for (const n of names) {
    const rel = `${FORGOTTEN_DIR}/${n}`;
    let text: string | undefined;
    try { text = readMemoryFile(ctx.root, rel); } catch { continue; }
    if (text && parseEntries(text).some((e) => e.id === id)) return rel;
  }
  return undefined;
}
