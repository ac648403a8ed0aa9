/**
 * Appending typed entries to episodic days: `memory/episodic/YYYY-MM-DD.md`, one bullet line per
 * entry (`- HH:MM [TYPE] text #tags ^id`). Used by `memtier add`, rotation and the LoCoMo ingest.
 */
import type { Ctx } from '../core/context.js';
import { localDate, localTime } from '../core/clock.js';
import { MemtierError } from '../core/errors.js';
import { formatEntryLine, ID_RE, newEntryId, oneLine, parseEntries, type EntryType } from '../format/entry.js';
import { dayFile, listMemoryFiles } from '../format/layout.js';
import { openStore, type Tx } from '../store/store.js';

export interface NewEntry {
  type?: EntryType;
  text: string;
  tags?: string[];
  /** Stable id; generated when missing. */
  id?: string;
  /** When it happened; decides the day file. Default: now. */
  at?: Date;
}

export interface AddedEntry { path: string; id: string; line: number }

/** The entry's text with its tags appended as `#tag` (those not already in the text). */
export function entryText(text: string, tags: string[] = []): string {
  let t = oneLine(text);
  if (t.length === 0) throw new MemtierError('the entry text is empty', { code: 'usage', hint: 'give the text to remember, e.g. memtier add "prefers tabs over spaces"' });
  for (const raw of tags) {
    const tag = raw.replace(/^#/, '').trim();
    if (!tag) continue;
    if (!/^[\p{L}][\p{L}\p{N}_/-]*$/u.test(tag)) {
      throw new MemtierError(`invalid tag "${tag}"`, { code: 'usage', hint: 'a tag starts with a letter and holds letters, digits, "_", "-" or "/" (see TAGS.md)' });
    }
    if (!new RegExp(`(^|\\s)#${tag.replace(/[/-]/g, '\\$&')}(\\s|$)`, 'iu').test(t)) t += ` #${tag.toLowerCase()}`;
  }
  return t;
}

/** Ids already present in a file's text. */
export function idsIn(text: string | undefined): Set<string> {
  const out = new Set<string>();
  if (!text) return out;
  for (const e of parseEntries(text)) if (e.id) out.add(e.id);
  return out;
}

/**
 * The live memory file holding an entry with this id (the buffer, any day, the archive, a home,
 * MEMORY.md), or undefined. Files that cannot be read are skipped (health reports them).
 */
export function fileHoldingId(tx: Tx, root: string, id: string): string | undefined {
  const mark = `^${id}`;
  for (const rel of listMemoryFiles(root)) {
    let text: string | undefined;
    try { text = tx.read(rel); } catch { continue; }
    if (text?.includes(mark) && idsIn(text).has(id)) return rel;
  }
  return undefined;
}

/**
 * Append entries within an open transaction (the caller holds the lock). With
 * `uniqueIds`, an id given by the caller that any live entry already holds is refused (not
 * only in its own day file): rotation would otherwise give one of the two a new id.
 */
export function addEntriesTx(tx: Tx, ctx: Ctx, entries: NewEntry[], opts: { uniqueIds?: boolean } = {}): AddedEntry[] {
  if (opts.uniqueIds) {
    for (const e of entries) {
      if (e.id === undefined || !ID_RE.test(e.id)) continue;
      const holder = fileHoldingId(tx, ctx.root, e.id);
      if (holder) throw new MemtierError(`an entry with id ^${e.id} already exists (in ${holder}); nothing was written`, { code: 'duplicate-id', file: holder, hint: 'ids are unique across the memory; leave --id out to get a fresh one' });
    }
  }
  const byFile = new Map<string, { lines: string[]; added: { id: string; generated: boolean; e: NewEntry; at: Date }[] }>();
  const { tz } = ctx.clock;
  const now = ctx.clock.now();
  for (const e of entries) {
    const at = e.at ?? now;
    const day = localDate(at, tz);
    const rel = dayFile(ctx.root, day);
    const id = e.id ?? newEntryId(at);
    if (!ID_RE.test(id)) throw new MemtierError(`invalid entry id "${id.slice(0, 70)}"`, { code: 'usage', hint: 'an id is 3-64 letters, digits and "-", starting with a letter or digit' });
    const line = formatEntryLine({ time: localTime(at, tz), ...(e.type ? { type: e.type } : {}), text: entryText(e.text, e.tags), tags: [], id });
    let f = byFile.get(rel);
    if (!f) byFile.set(rel, (f = { lines: [], added: [] }));
    f.lines.push(line);
    f.added.push({ id, generated: e.id === undefined, e, at });
  }
  const out: AddedEntry[] = [];
  for (const [rel, f] of byFile) {
    const cur = tx.read(rel);
    const have = idsIn(cur);
    const mine = new Set<string>();
    f.added.forEach((a, i) => {
      if (have.has(a.id) || mine.has(a.id)) {
        if (!a.generated) throw new MemtierError(`an entry with id ^${a.id} already exists`, { code: 'duplicate-id', file: rel, hint: 'ids are unique; leave --id out to get a fresh one' });
        // a generated id met another one (rare: 6 random characters per second): draw again
        while (have.has(a.id) || mine.has(a.id)) a.id = newEntryId(a.at);
        f.lines[i] = formatEntryLine({ time: localTime(a.at, tz), ...(a.e.type ? { type: a.e.type } : {}), text: entryText(a.e.text, a.e.tags), tags: [], id: a.id });
      }
      mine.add(a.id);
    });
    // a new day file is created only for lines that pass the append guards (a refused one leaves no file)
    if (cur === undefined) for (const line of f.lines) tx.checkAppend(rel, line + '\n');
    if (cur === undefined) tx.write(rel, `# ${rel.slice(-13, -3)}\n\n`, { expected: null });
    // one append per ≤16 KiB chunk; each chunk is durable on its own
    let chunk = '';
    const flush = () => { if (chunk) { tx.append(rel, chunk); chunk = ''; } };
    for (const line of f.lines) {
      if (Buffer.byteLength(chunk + line + '\n') > 15 * 1024) flush();
      chunk += line + '\n';
    }
    flush();
    const lineOf = new Map(parseEntries(tx.read(rel) ?? '').filter((e) => e.id).map((e) => [e.id!, e.line]));
    for (const { id } of f.added) out.push({ path: rel, id, line: lineOf.get(id) ?? 0 });
  }
  return out;
}

/** Append entries to their episodic days in one locked transaction. */
export function addEntries(ctx: Ctx, entries: NewEntry[]): AddedEntry[] {
  if (entries.length === 0) return [];
  return openStore(ctx).mutate((tx) => addEntriesTx(tx, ctx, entries));
}
