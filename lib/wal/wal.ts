/**
 * The write-ahead log (seed 002 / seed 004 mechanism 1): each write appends a timestamped, typed
 * entry to memory/working-buffer.md AND updates SESSION-STATE.md, in one locked transaction,
 * before the agent answers. Interrupted rotations are finished first; the buffer is rotated
 * into today's episodic file once it reaches its line limit.
 */
import type { Ctx } from '../core/context.js';
import { localDate, localTime } from '../core/clock.js';
import { MemtierError } from '../core/errors.js';
import { formatEntryLine, newEntryId, oneLine, type EntryType } from '../format/entry.js';
import { PATHS } from '../format/layout.js';
import { emptyState, KEEP, parseSessionState, serializeSessionState, type SessionState } from '../format/session-state.js';
import { openStore, type Tx } from '../store/store.js';
import { quoteInput } from '../store/guards/secrets.js';
import { BUFFER_HEADER, finishRotationTx, rotateTx, type RotateResult } from './rotate.js';

export const WAL_KINDS = ['task', 'decide', 'context', 'pending', 'done', 'blocker'] as const;
export type WalKind = (typeof WAL_KINDS)[number];

export interface WalWrite {
  kind: WalKind;
  text: string;
  /** For `context`: the key (none: a keyless fact, `text` alone). */
  key?: string;
}

export interface WalResult {
  kind: WalKind;
  id: string;
  /** The line appended to the buffer. */
  entry: string;
  buffer: string;
  state: string;
  /** What the state change did, for the report (e.g. "pending item removed"). */
  note?: string;
  rotation?: RotateResult;
  /** A buffer rotation that failed after the entry was written (the entry is safe; health reports the rest). */
  rotationError?: string;
}

/** The type tag and text of the buffer entry for a WAL write (documented in FORMAT.md). */
export function walEntry(w: WalWrite): { type: EntryType; text: string } {
  switch (w.kind) {
    case 'task': return { type: 'PROJ', text: `task: ${w.text}` };
    case 'decide': return { type: 'DECISION', text: w.text };
    // a preference is a durable fact in plain words (filed to preferences.md by the review), not session context
    case 'context': return isPref(w) ? { type: 'PREF', text: w.text } : { type: 'TEMP', text: w.key === undefined ? `context: ${w.text}` : `context: ${w.key} = ${w.text}` };
    case 'pending': return { type: 'PROJ', text: `pending: ${w.text}` };
    case 'done': return { type: 'PROJ', text: `done: ${w.text}` };
    case 'blocker': return { type: 'PROJ', text: `blocker: ${w.text}` };
  }
}

const key = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
const isPref = (w: WalWrite): boolean => w.kind === 'context' && /^(?:pref|preference)$/i.test(w.key ?? '');

/** Apply a WAL write to the state. Returns a note about what changed. */
export function applyToState(st: SessionState, w: WalWrite, stamp: string): string | undefined {
  switch (w.kind) {
    case 'task': st.currentTask = w.text; return undefined;
    case 'decide':
      st.recentDecisions = [`${stamp} — ${w.text}`, ...st.recentDecisions].slice(0, KEEP.recentDecisions);
      return undefined;
    case 'context': {
      if (isPref(w)) return 'a preference: logged as [PREF], not session context';
      if (w.key === undefined) {
        // a keyless fact: one bullet of its own, once
        if (st.keyContext.some(([k, v]) => v === '' && key(k) === key(w.text))) return 'already in Key Context';
        st.keyContext.push([w.text, '']);
        return undefined;
      }
      const i = st.keyContext.findIndex(([k]) => key(k) === key(w.key!));
      if (i >= 0) st.keyContext[i] = [st.keyContext[i]![0], w.text];
      else st.keyContext.push([w.key, w.text]);
      return i >= 0 ? `updated ${w.key}` : undefined;
    }
    case 'pending':
      if (!st.pending.some((p) => key(p) === key(w.text))) st.pending.push(w.text);
      return undefined;
    case 'blocker':
      if (!st.blockers.some((p) => key(p) === key(w.text))) st.blockers.push(w.text);
      return undefined;
    case 'done': {
      const k = key(w.text);
      // an exact match wins; otherwise the text must pick out exactly one item (never guess between several)
      const find = (exact: boolean) => (['pending', 'blockers'] as const).flatMap((list) =>
        st[list].map((p, i) => ({ list, i, p })).filter(({ p }) => (exact ? key(p) === k : k.length >= 4 && key(p).includes(k))));
      const exact = find(true);
      const hits = exact.length ? exact.slice(0, 1) : find(false);
      let note: string;
      let item = w.text;
      if (hits.length === 1) {
        const { list, i, p } = hits[0]!;
        item = p;
        note = `moved from ${list === 'pending' ? 'Pending' : 'Blockers'} to Done: ${item}`;
        st[list].splice(i, 1);
      } else if (hits.length > 1) {
        note = `matches ${hits.length} items (${hits.map((h) => h.p).join('; ')}): none moved; give more of the text`;
      } else note = 'no matching pending item; recorded as done';
      st.done = [`${stamp} — ${item}`, ...st.done].slice(0, KEEP.done);
      return note;
    }
  }
}

/** Read and parse SESSION-STATE.md inside a transaction. */
export function readState(tx: Tx): { text: string | undefined; parsed: ReturnType<typeof parseSessionState> } {
  const text = tx.read(PATHS.sessionState);
  const parsed = text === undefined ? { state: emptyState(), preamble: [], sections: [] } : parseSessionState(text);
  return { text, parsed };
}

/** Run a rotation step; a failure other than losing the lock is recorded instead of thrown. */
function tryRotation<T>(fn: () => T, problems: string[]): T | undefined {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof MemtierError) || e.code.startsWith('lock')) throw e;
    problems.push(`${e.file ? `${e.file}: ` : ''}${e.message}`);
    return undefined;
  }
}

export function walWriteTx(tx: Tx, ctx: Ctx, w: WalWrite): WalResult {
  const text = oneLine(w.text);
  if (!text) throw new MemtierError(`wal ${w.kind} needs a text`, { code: 'usage', hint: `e.g. memtier wal ${w.kind} "…"` });
  if (w.kind === 'context' && w.key !== undefined && !oneLine(w.key)) throw new MemtierError('wal context needs a KEY and a VALUE', { code: 'usage', hint: 'e.g. memtier wal context deadline 2026-06-01' });
  if (w.kind === 'context' && w.key !== undefined && /[:=]/.test(w.key)) throw new MemtierError(`wal context KEY "${quoteInput(oneLine(w.key!), 60)}" holds ":" or "="`, { code: 'usage', hint: 'SESSION-STATE.md writes "- KEY: VALUE"; use a key without ":" and "=", e.g. memtier wal context deadline 2026-06-01' });
  if (w.kind === 'context' && w.key === undefined && /[:=]/.test(text)) throw new MemtierError(`a keyless context fact "${quoteInput(text, 60)}" holds ":" or "="`, { code: 'usage', hint: 'SESSION-STATE.md would read it back as "KEY: VALUE": give it as memtier wal context KEY VALUE' });
  const wk: WalWrite = { ...w, text, ...(w.key ? { key: oneLine(w.key) } : {}) };
  const problems: string[] = [];
  // a torn entry at the buffer's end (a writer killed mid-append whose repair did not happen) is
  // cut off first, as the append below would, so that reading the buffer does not refuse the write
  tx.settleTail(PATHS.buffer);
  tryRotation(() => finishRotationTx(tx, ctx), problems);
  const now = ctx.clock.now();
  const { tz } = ctx.clock;
  // ids carry 6 random characters per second; still, never reuse one the buffer already holds
  // (every ^word of the buffer counts: a superset of its entries' ids, without parsing them)
  const taken = new Set(Array.from((tx.read(PATHS.buffer) ?? '').matchAll(/\^([A-Za-z0-9][A-Za-z0-9-]{2,63})/g), (m) => m[1]));
  let id = newEntryId(now);
  while (taken.has(id)) id = newEntryId(now);
  const { type, text: entryText } = walEntry(wk);
  const line = formatEntryLine({ date: localDate(now, tz), time: localTime(now, tz), type, text: entryText, tags: [], id });
  // Read and update the state first: a SESSION-STATE.md that cannot be read fails the write
  // before anything is appended (an unacknowledged entry must not be left in the buffer).
  const { text: before, parsed } = readState(tx);
  const note = applyToState(parsed.state, wk, `${localDate(now, tz)} ${localTime(now, tz)}`);
  const after = serializeSessionState(parsed, parsed.state);
  if (!tx.exists(PATHS.buffer)) {
    tx.checkAppend(PATHS.buffer, line + '\n'); // a refused line leaves no new buffer file
    tx.write(PATHS.buffer, BUFFER_HEADER, { expected: null });
  }
  const appended = tx.append(PATHS.buffer, line + '\n');
  try {
    tx.write(PATHS.sessionState, after, { expected: before ?? null });
  } catch (e) {
    // All or nothing: the buffer line goes again when the state cannot follow it (a full disk,
    // an immutable or hand-broken SESSION-STATE.md), so a retry never logs the entry twice.
    try {
      tx.undoAppend(appended);
    } catch (undo) {
      const why = e instanceof Error ? e.message : String(e);
      throw new MemtierError(`SESSION-STATE.md was not updated (${why}), and the entry ^${id} could not be taken back out of ${PATHS.buffer}: it was kept there`, { code: 'partial-write', file: PATHS.sessionState, hint: `do not retry: the entry is logged; fix SESSION-STATE.md by hand (${(undo as Error).message})`, cause: e });
    }
    throw e;
  }
  // The entry is durable now: a rotation that fails (a day file at its size limit, a hand-made
  // folder in the way, …) must not turn the acknowledged write into an error.
  const rotation = tryRotation(() => rotateTx(tx, ctx), problems);
  const res: WalResult = { kind: w.kind, id, entry: line, buffer: PATHS.buffer, state: PATHS.sessionState };
  if (note) res.note = note;
  if (rotation && (rotation.rotated || rotation.recovered)) res.rotation = rotation;
  if (problems.length) res.rotationError = problems.join('; ');
  return res;
}

export function walWrite(ctx: Ctx, w: WalWrite): WalResult {
  return openStore(ctx).mutate((tx) => walWriteTx(tx, ctx, w));
}

/** An item's words, to tell whether a SESSION-STATE.md item is an entry: no #tags, no stamp, no case. */
const words = (s: string): string => s
  .replace(/^\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})? — /, '')
  .replace(/(?:^|\s)#[\p{L}][\p{L}\p{N}_/-]*/gu, ' ')
  .replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * Remove from the state the items that materialize one log entry (the inverse of walEntry and
 * applyToState, what `forget` needs): a [DECISION] → its Recent Decisions item; `task: …` → the
 * current task; `pending: …`, `blocker: …` → that item; `done: …` → its Done item (the item a
 * `done` moved, when the text picked out one); `context: KEY = VALUE` / `context: FACT` → that
 * Key Context bullet. Only the entry's own section is touched: a pending item that says the same
 * words as a forgotten decision stays. Returns what was removed, as `Section: item`.
 */
export function removeEntryFromState(st: SessionState, entry: { type?: EntryType | undefined; text: string }): string[] {
  const text = words(entry.text);
  const prefixed = /^(task|pending|blocker|done|context)\s*:\s*(.+)$/.exec(text);
  const removed: string[] = [];
  // one item per entry: two identical items are two entries, and only this one is forgotten
  const drop = (list: 'recentDecisions' | 'pending' | 'blockers' | 'done', title: string, same: (item: string) => boolean): void => {
    const i = st[list].findIndex(same);
    if (i < 0) return;
    removed.push(`${title}: ${st[list][i]}`);
    st[list] = st[list].filter((_, j) => j !== i);
  };
  if (entry.type === 'DECISION') {
    drop('recentDecisions', 'Recent Decisions', (i) => words(i) === text);
    return removed;
  }
  if (!prefixed || (entry.type !== undefined && entry.type !== 'PROJ' && entry.type !== 'TEMP')) return removed;
  const [, kind, rest] = prefixed as unknown as [string, string, string];
  if (kind === 'task') {
    if (words(st.currentTask) === rest) { removed.push(`Current Task: ${st.currentTask}`); st.currentTask = ''; }
  } else if (kind === 'pending') drop('pending', 'Pending', (i) => words(i) === rest);
  else if (kind === 'blocker') drop('blockers', 'Blockers', (i) => words(i) === rest);
  else if (kind === 'done') {
    // `done` records the pending item it moved (its full text) when its words picked out one
    const exact = st.done.filter((i) => words(i) === rest);
    const partial = rest.length >= 4 ? st.done.filter((i) => words(i).includes(rest)) : [];
    const one = exact[0] ?? (partial.length === 1 ? partial[0] : undefined);
    if (one !== undefined) drop('done', 'Done', (i) => i === one);
  } else {
    const kv = /^(.+?) = (.*)$/.exec(rest);
    const same = ([k, v]: [string, string]): boolean => (kv ? words(k) === kv[1] && words(v) === kv[2] : v === '' && words(k) === rest);
    const i = st.keyContext.findIndex(same);
    if (i >= 0) {
      const [k, v] = st.keyContext[i]!;
      removed.push(`Key Context: ${v === '' ? k : `${k}: ${v}`}`);
      st.keyContext = st.keyContext.filter((_, j) => j !== i);
    }
  }
  return removed;
}
