/**
 * Three-way merge of memory files, by what each file is (the sync of many machines, lib/git/sync.ts,
 * and the `merge=memtier` driver a person's own `git merge` uses):
 *
 * - **log** (working buffer, episodic days, archive, DREAMS.md): a set of entries keyed by `^id`.
 *   Both sides' new entries are kept once each, in time order; an entry one side removed (forget,
 *   rotation, archive) stays removed; an entry one side changed (superseded: struck through) takes
 *   the change. Lines without an id are keyed by their text.
 * - **state** (SESSION-STATE.md): per `## ` section, by key: a `Key: value` bullet of Key Context by
 *   its key, the other lists by item, Current Task as one value; a value set on both sides takes
 *   the later write (the loser is still in the working buffer's log).
 * - **idset** (memory/.forgotten): a set of lines, union.
 * - **upkeep** (memory/.upkeep): the earlier claim of the upkeep role.
 * - **generated** (palace views, reviews): merged as prose; where both sides rewrote the same part,
 *   this side's version (it is generated again by the next run).
 * - **prose** (everything else: MEMORY.md, notes, a person's dated notes): a line-level three-way
 *   merge (diff3). Where both sides changed the same place, it still merges when the lines are
 *   entries with ids (two machines appending entries to the same note); where a person's text was
 *   changed on both sides it is a conflict: never union, never a conflict marker.
 *
 * Pure functions over strings: the callers read the three versions and write the result.
 */
import { diffArrays } from 'diff';
import { CONFLICT_MARKER_RE } from '../core/git-state.js';
import { classify, PATHS } from '../format/layout.js';
import { parseEntryLine } from '../format/entry.js';

export type MergeKind = 'log' | 'state' | 'idset' | 'upkeep' | 'generated' | 'prose';

/** Where removals of entries travel between machines: one `^id` a line, never the text. */
export const FORGOTTEN_PATH = PATHS.forgotten;
/** The upkeep role (lib/lifecycle/upkeep-role.ts). */
export const UPKEEP_PATH = PATHS.upkeep;

export function mergeKind(rel: string): MergeKind {
  if (rel === FORGOTTEN_PATH) return 'idset';
  if (rel === UPKEEP_PATH) return 'upkeep';
  const k = classify(rel).kind;
  if (k === 'buffer' || k === 'episodic' || k === 'archive' || k === 'dreams') return 'log';
  if (k === 'session-state') return 'state';
  if (k === 'palace' || k === 'review') return 'generated';
  return 'prose';
}

/** Ids each side has in any of its log files (of the files the merge looks at): moved is not removed. */
export interface Elsewhere { ours: ReadonlySet<string>; theirs: ReadonlySet<string> }

export interface MergeInput {
  rel: string;
  /** The three versions; undefined = the file does not exist there. */
  base?: string;
  ours?: string;
  theirs?: string;
  /** When each side last wrote the file (ms), for a value set on both sides (state). */
  oursTime?: number;
  theirsTime?: number;
  /** Ids removed on either side (memory/.forgotten of both): never in the result. */
  forgotten?: ReadonlySet<string>;
  /** For logs: the ids each side still has somewhere (an entry moved by a side is not removed by it). */
  elsewhere?: Elsewhere;
}

export interface MergeOutput {
  /** The merged text; undefined = the file is removed. */
  text?: string;
  /** A person's text changed on both sides: `text` holds this side's version where they overlap, the other side's whole version must be kept beside it. */
  conflict?: string;
  /** Said to the person, not a conflict (a file deleted on one side and changed on the other, kept). */
  note?: string;
}

// ---------------------------------------------------------------------------------------------
// lines and keys

function splitLines(text: string | undefined): string[] {
  if (text === undefined || text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function joinLines(lines: string[], like: (string | undefined)[]): string {
  if (lines.length === 0) return '';
  // a file that ended without a newline on every side keeps it so; otherwise lines end in "\n"
  const noFinal = like.every((t) => t === undefined || t === '' || !t.endsWith('\n')) && like.some((t) => t);
  return lines.join('\n') + (noFinal ? '' : '\n');
}

/** The entry id of a line, if it is an entry with one. */
export function lineId(line: string): string | undefined {
  if (!line.includes('^')) return undefined;
  return parseEntryLine(line)?.id;
}

/** `YYYY-MM-DD HH:MM` (or `HH:MM`) of an entry line, for ordering concurrent appends. */
function lineTime(line: string): string | undefined {
  const e = parseEntryLine(line);
  if (!e?.time) return undefined;
  return e.date ? `${e.date} ${e.time}` : e.time;
}

function isStruck(line: string): boolean {
  return /^[-*] ~~/.test(line);
}

/** Keys of a list of lines: `^id` for an entry with an id, else the text and its occurrence. */
function keysOf(lines: string[], keyOf: (l: string) => string): string[] {
  const seen = new Map<string, number>();
  return lines.map((l) => {
    const k = keyOf(l);
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    return n === 1 ? k : `${k}#${n}`;
  });
}

const entryKey = (l: string): string => {
  const id = lineId(l);
  return id ? `^${id}` : `L:${l}`;
};

/** Of two changed versions of one entry, the one to keep: the struck (superseded) one, else `a`. */
function preferLine(a: string, b: string): string {
  if (isStruck(b) && !isStruck(a)) return b;
  return a;
}

/**
 * Merge three versions of a list of lines as a set of keyed items: kept where either side has it
 * and neither removed it; changed where one side changed it; this side's order, the other side's
 * new items placed after the item they followed there, among this side's new ones by time.
 */
export function keyedMerge(base: string[], ours: string[], theirs: string[], opts: { keyOf?: (l: string) => string; forgotten?: ReadonlySet<string>; prefer?: (a: string, b: string) => string; elsewhere?: Elsewhere } = {}): string[] {
  const keyOf = opts.keyOf ?? entryKey;
  const prefer = opts.prefer ?? preferLine;
  const bk = keysOf(base, keyOf);
  const ok = keysOf(ours, keyOf);
  const tk = keysOf(theirs, keyOf);
  const B = new Map(bk.map((k, i) => [k, base[i]!]));
  const O = new Map(ok.map((k, i) => [k, ours[i]!]));
  const T = new Map(tk.map((k, i) => [k, theirs[i]!]));
  const forgotten = (k: string): boolean => !!opts.forgotten && k.startsWith('^') && opts.forgotten.has(k.slice(1).replace(/#\d+$/, ''));
  // a side removed an entry when it has it nowhere: one that moved it to another log file (a
  // rotation, an archive) did not remove it (the memory-wide pass keeps it in one place)
  const ew = opts.elsewhere;
  const idOfKey = (k: string): string | undefined => (k.startsWith('^') ? k.slice(1).replace(/#\d+$/, '') : undefined);
  const removedBy = (side: Map<string, string>, which: 'ours' | 'theirs', k: string): boolean => {
    if (side.has(k)) return false;
    const id = idOfKey(k);
    return !(id && ew && ew[which].has(id));
  };
  const keep = (k: string): boolean => (O.has(k) || T.has(k) || (B.has(k) && !!ew)) && !(B.has(k) && (removedBy(O, 'ours', k) || removedBy(T, 'theirs', k))) && !forgotten(k);
  const content = (k: string): string => {
    const o = O.get(k), t = T.get(k), b = B.get(k);
    if (o !== undefined && t !== undefined) return o === t ? o : o === b ? t : t === b ? o : prefer(o, t);
    return (o ?? t ?? b)!;
  };
  const out: { k: string; line: string }[] = [];
  for (const k of ok) if (keep(k)) out.push({ k, line: content(k) });
  // base entries both sides moved out of this file's version while neither removed them: kept here
  // in base order until the memory-wide pass puts each in its one place
  if (ew) for (const k of bk) if (!O.has(k) && !T.has(k) && keep(k)) out.push({ k, line: content(k) });
  const pos = new Map(out.map((x, i) => [x.k, i]));
  // this side's new items (in neither base nor theirs): theirs' new ones are ordered among them by time
  const oursNew = (k: string): boolean => !B.has(k) && !T.has(k);
  let anchor = -1; // index in `out` after which the next of theirs' new items goes
  for (const k of tk) {
    if (O.has(k)) {
      const p = pos.get(k);
      if (p !== undefined) anchor = p;
      continue;
    }
    if (!keep(k)) continue;
    const line = content(k);
    const tt = lineTime(line);
    let at = anchor + 1;
    while (at < out.length && oursNew(out[at]!.k)) {
      const ot = lineTime(out[at]!.line);
      if (tt !== undefined && (ot === undefined || ot > tt)) break;
      at++;
    }
    out.splice(at, 0, { k, line });
    for (let i = at; i < out.length; i++) pos.set(out[i]!.k, i);
    anchor = at;
  }
  return out.map((x) => x.line);
}

// ---------------------------------------------------------------------------------------------
// diff3

interface Hunk { start: number; end: number; lines: string[] }

/** The changes from `base` to `side` as hunks over base's lines [start, end) replaced by `lines`. */
function hunks(base: string[], side: string[]): Hunk[] {
  const out: Hunk[] = [];
  let bi = 0;
  let cur: Hunk | undefined;
  for (const c of diffArrays(base, side)) {
    const n = c.count ?? c.value.length;
    if (!c.added && !c.removed) {
      if (cur) { out.push(cur); cur = undefined; }
      bi += n;
    } else if (c.removed) {
      cur ??= { start: bi, end: bi, lines: [] };
      cur.end += n;
      bi += n;
    } else {
      cur ??= { start: bi, end: bi, lines: [] };
      cur.lines.push(...(c.value as string[]));
    }
  }
  if (cur) out.push(cur);
  return out;
}

export type Region = { ok: string[] } | { base: string[]; ours: string[]; theirs: string[] };

/** A three-way merge of line lists: stable regions and conflicting ones (both sides changed the same base lines differently). */
export function diff3(base: string[], ours: string[], theirs: string[]): Region[] {
  const ho = hunks(base, ours).map((h) => ({ ...h, side: 0 as const }));
  const ht = hunks(base, theirs).map((h) => ({ ...h, side: 1 as const }));
  const all = [...ho, ...ht].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Region[] = [];
  let bi = 0;
  let i = 0;
  // the side's text for base lines [from, to), with its hunks inside applied
  const apply = (hs: Hunk[], from: number, to: number): string[] => {
    const r: string[] = [];
    let p = from;
    for (const h of hs) {
      r.push(...base.slice(p, h.start), ...h.lines);
      p = h.end;
    }
    r.push(...base.slice(p, to));
    return r;
  };
  while (i < all.length) {
    const first = all[i]!;
    let start = first.start;
    let end = first.end;
    const group = [first];
    i++;
    // hunks that overlap or touch the region (an insertion at the same place) join it
    while (i < all.length && (all[i]!.start < end || (all[i]!.start === end && (all[i]!.start === all[i]!.end || first.start === first.end || group.some((g) => g.side !== all[i]!.side))) || all[i]!.start === start)) {
      end = Math.max(end, all[i]!.end);
      group.push(all[i]!);
      i++;
    }
    start = Math.min(...group.map((g) => g.start));
    if (bi < start) out.push({ ok: base.slice(bi, start) });
    const os = group.filter((g) => g.side === 0);
    const ts = group.filter((g) => g.side === 1);
    const o = apply(os, start, end);
    const t = apply(ts, start, end);
    if (ts.length === 0) out.push({ ok: o });
    else if (os.length === 0) out.push({ ok: t });
    else if (o.length === t.length && o.every((l, j) => l === t[j])) out.push({ ok: o });
    else out.push({ base: base.slice(start, end), ours: o, theirs: t });
    bi = end;
  }
  if (bi < base.length) out.push({ ok: base.slice(bi) });
  return out;
}

/** Did this side change a person's text (a line that is not an entry with an id, not blank) in the region? */
function proseChanged(base: string[], side: string[]): boolean {
  const isProse = (l: string): boolean => l.trim() !== '' && lineId(l) === undefined;
  const b = base.filter(isProse);
  const s = side.filter(isProse);
  return b.length !== s.length || b.some((l, i) => l !== s[i]);
}

function mergeProse(base: string[], ours: string[], theirs: string[], kind: MergeKind, forgotten?: ReadonlySet<string>): { lines: string[]; conflict: boolean } {
  let conflict = false;
  const out: string[] = [];
  for (const r of diff3(base, ours, theirs)) {
    if ('ok' in r) { out.push(...r.ok); continue; }
    if (kind === 'log' || !proseChanged(r.base, r.ours) || !proseChanged(r.base, r.theirs)) {
      out.push(...keyedMerge(r.base, r.ours, r.theirs, forgotten ? { forgotten } : {}));
    } else if (kind === 'generated') {
      out.push(...r.ours);
    } else {
      conflict = true;
      out.push(...r.ours);
    }
  }
  return { lines: out, conflict };
}

// ---------------------------------------------------------------------------------------------
// SESSION-STATE.md

interface StateSection { head: string; body: string[] }

function sections(lines: string[]): StateSection[] {
  const out: StateSection[] = [{ head: '', body: [] }];
  for (const l of lines) {
    if (/^## +\S/.test(l)) out.push({ head: l, body: [] });
    else out[out.length - 1]!.body.push(l);
  }
  return out;
}

const sectionKey = (head: string): string => head.replace(/^##\s+/, '').toLowerCase().replace(/[^a-z]/g, '');
const SCALAR = new Set(['currenttask', 'currenttasks']);
const KEYED = new Set(['keycontext', 'context']);

function mergeState(input: MergeInput): string {
  const [b, o, t] = [input.base, input.ours, input.theirs].map((x) => sections(splitLines(x)));
  const find = (ss: StateSection[], k: string): StateSection | undefined => ss.find((s) => (s.head ? sectionKey(s.head) : '') === k);
  const theirsLater = (input.theirsTime ?? 0) > (input.oursTime ?? 0);
  const out: StateSection[] = [];
  const keys = [...o!.map((s) => (s.head ? sectionKey(s.head) : '')), ...t!.map((s) => (s.head ? sectionKey(s.head) : ''))].filter((k, i, a) => a.indexOf(k) === i);
  for (const k of keys) {
    const bs = find(b!, k), os = find(o!, k), ts = find(t!, k);
    // a section removed on one side and unchanged on the other stays removed
    if (!os || !ts) {
      const only = (os ?? ts)!;
      const same = bs && bs.body.join('\n') === only.body.join('\n');
      if (bs && same) continue;
      out.push(only);
      continue;
    }
    const bb = bs?.body ?? [];
    let body: string[];
    if (SCALAR.has(k)) {
      const [bj, oj, tj] = [bb, os.body, ts.body].map((x) => x.join('\n').trim());
      body = oj === tj ? os.body : oj === bj ? ts.body : tj === bj ? os.body : theirsLater ? ts.body : os.body;
    } else {
      const keyOf = KEYED.has(k)
        ? (l: string): string => { const m = /^[-*] +([^:=]+?)\s*[:=]/.exec(l); return m ? `K:${m[1]!.toLowerCase()}` : `L:${l}`; }
        : (l: string): string => `L:${l}`;
      const prefer = (a: string, c: string): string => (theirsLater ? c : a);
      // blank lines are layout, not items: merged around the items, one kept where both had one
      body = keyedMerge(bb.filter((l) => l.trim()), os.body.filter((l) => l.trim()), ts.body.filter((l) => l.trim()), { keyOf, prefer });
      // this side's layout around the items: its leading and trailing blank lines
      const first = os.body.findIndex((l) => l.trim() !== '');
      const lead = first < 0 ? 0 : first;
      let trail = 0;
      while (trail < os.body.length - lead && os.body[os.body.length - 1 - trail]!.trim() === '') trail++;
      body = [...os.body.slice(0, lead), ...body, ...os.body.slice(os.body.length - trail)];
    }
    out.push({ head: os.head, body });
  }
  const lines: string[] = [];
  for (const s of out) {
    if (s.head) lines.push(s.head);
    lines.push(...s.body);
  }
  return joinLines(lines, [input.ours, input.theirs]);
}

// ---------------------------------------------------------------------------------------------

function mergeUpkeep(ours: string, theirs: string): string {
  const since = (t: string): string => /^since:\s*(\S+)/m.exec(t)?.[1] ?? '9999';
  const machine = (t: string): string => /^machine:\s*(\S+)/m.exec(t)?.[1] ?? '';
  const a = [since(ours), machine(ours)].join(' ');
  const b = [since(theirs), machine(theirs)].join(' ');
  return b < a ? theirs : ours;
}

function hasNul(s: string | undefined): boolean {
  return s !== undefined && s.includes('\0');
}

/** Merge one file's three versions. */
export function mergeFile(input: MergeInput): MergeOutput {
  const { base, ours, theirs } = input;
  const kind = mergeKind(input.rel);
  if (ours === theirs) return { text: ours };
  // a log the other side did not touch is still merged entry by entry when the memory-wide view is
  // given: an entry can be in two logs at once (a rotation killed between its append and its cut),
  // and each side may have removed a different copy; taking one side's file whole would lose it
  const entryWise = kind === 'log' && input.elsewhere !== undefined;
  if (base === ours && !entryWise) return { text: theirs };
  if (base === theirs && !entryWise) return { text: ours };
  const logOpts = { ...(input.forgotten ? { forgotten: input.forgotten } : {}), ...(input.elsewhere ? { elsewhere: input.elsewhere } : {}) };
  // a file deleted on one side and changed on the other
  if (ours === undefined || theirs === undefined) {
    const kept = (ours ?? theirs)!;
    if (kind === 'log' || kind === 'state') {
      // the deleting side moved or removed what it had (an archive moves the whole day): each entry
      // is judged alone; a file left with no entry is removed
      const lines = keyedMerge(splitLines(base), splitLines(ours), splitLines(theirs), logOpts);
      if (!lines.some((l) => lineId(l))) return { text: undefined };
      return { text: joinLines(lines, [ours, theirs]) };
    }
    return { text: kept, note: `${input.rel} was deleted on one machine and changed on the other: the changed version is kept (delete it again if it should go)` };
  }
  if (hasNul(base) || hasNul(ours) || hasNul(theirs)) return { text: ours, conflict: 'a binary file changed on both machines' };
  if (kind === 'idset') {
    const seen = new Set<string>();
    const lines = [...splitLines(ours), ...splitLines(theirs)].filter((l) => (seen.has(l) ? false : (seen.add(l), true)));
    return { text: joinLines(lines, [ours, theirs]) };
  }
  if (kind === 'upkeep') return { text: mergeUpkeep(ours, theirs) };
  if (kind === 'state') return { text: mergeState(input) };
  const b = splitLines(base), o = splitLines(ours), t = splitLines(theirs);
  if (kind === 'log') return { text: joinLines(keyedMerge(b, o, t, logOpts), [ours, theirs]) };
  const m = mergeProse(b, o, t, kind, input.forgotten);
  const text = joinLines(m.lines, [ours, theirs]);
  if (m.conflict) return { text, conflict: 'changed on both machines in the same place' };
  return { text };
}

/** Does a merged text hold a conflict marker line (never written by a merge; a guard for the caller)? */
export function hasMarkerLine(text: string): boolean {
  return text.split('\n').some((l) => CONFLICT_MARKER_RE.test(l) && !/^={7}$/.test(l));
}

// ---------------------------------------------------------------------------------------------
// the memory as a whole: entries moved between log files, removals, changes made in another file

export interface TreeMerge {
  /** rel → merged text (undefined: removed), for every path the merge produced. */
  files: Map<string, string | undefined>;
}

/**
 * After each log file is merged alone: an entry is in one log file only (a rotation or an archive
 * on one side moved it while the other side kept it where it was: the later tier keeps it, buffer
 * → day → archive); a forgotten id is in none; an entry changed on one side (struck through) and
 * moved on the other carries the change. `all` is every log file of the result (merged or not);
 * `base`/`ours`/`theirs` map an id to its line on each side.
 */
export function settleEntries(all: Map<string, string | undefined>, sides: { base: Map<string, string>; ours: Map<string, string>; theirs: Map<string, string>; baseWhere?: Map<string, string> }, forgotten: ReadonlySet<string>): Map<string, string | undefined> {
  const tier = (rel: string): number => {
    const k = classify(rel).kind;
    return k === 'archive' ? 3 : k === 'episodic' || k === 'legacy-daily' ? 2 : k === 'buffer' ? 1 : 0;
  };
  const isLog = (rel: string): boolean => rel !== 'DREAMS.md' && (mergeKind(rel) === 'log' || classify(rel).kind === 'legacy-daily');
  const where = new Map<string, string[]>();
  for (const [rel, text] of all) {
    if (text === undefined || !isLog(rel)) continue;
    for (const l of splitLines(text)) {
      const id = lineId(l);
      if (id) (where.get(id) ?? where.set(id, []).get(id)!).push(rel);
    }
  }
  // superseded on a side (struck through, and by which entry), where base had it standing
  const struck = new Map<string, string | undefined>();
  const drop = new Map<string, Set<string>>(); // rel → ids to remove
  for (const [id, rels] of where) {
    if (forgotten.has(id)) { for (const r of rels) (drop.get(r) ?? drop.set(r, new Set()).get(r)!).add(id); continue; }
    if (rels.length > 1) {
      // where a side moved it (not its base file), the later tier first (buffer → day → archive)
      const from = sides.baseWhere?.get(id);
      const keepRel = [...rels].sort((a, b) => Number(a === from) - Number(b === from) || tier(b) - tier(a) || (a < b ? -1 : 1))[0]!;
      for (const r of rels) if (r !== keepRel) (drop.get(r) ?? drop.set(r, new Set()).get(r)!).add(id);
    }
    for (const side of [sides.ours, sides.theirs]) {
      const l = side.get(id);
      if (l !== undefined && isStruck(l)) struck.set(id, parseEntryLine(l)?.supersededBy);
    }
  }
  const out = new Map<string, string | undefined>();
  for (const [rel, text] of all) {
    if (text === undefined || !isLog(rel)) continue;
    const ids = drop.get(rel);
    let touched = false;
    const lines: string[] = [];
    const seen = new Set<string>();
    for (const l of splitLines(text)) {
      const id = lineId(l);
      if (id && (ids?.has(id) || seen.has(id))) { touched = true; continue; }
      if (id) seen.add(id);
      if (id && struck.has(id) && !isStruck(l)) { lines.push(strike(l, id, struck.get(id))); touched = true; continue; }
      lines.push(l);
    }
    if (touched) out.set(rel, joinLines(lines, [text]));
  }
  return out;
}

/** `- TEXT ^id` struck through as supersede writes it: `- ~~TEXT~~ superseded by ^by ^id`. */
function strike(line: string, id: string, by: string | undefined): string {
  const body = line.replace(/^[-*] +/, '').replace(new RegExp(`\\s*\\^${id}\\s*$`), '');
  return `${line.slice(0, 2)}~~${body}~~${by ? ` superseded by ^${by}` : ''} ^${id}`;
}

/** id → line of every entry with an id in the log files of one side. */
export function entriesOf(files: Iterable<[string, string | undefined]>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [rel, text] of files) {
    if (text === undefined || rel === 'DREAMS.md' || (mergeKind(rel) !== 'log' && classify(rel).kind !== 'legacy-daily')) continue;
    for (const l of splitLines(text)) {
      const id = lineId(l);
      if (id && !out.has(id)) out.set(id, l);
    }
  }
  return out;
}

/** The ids a memory/.forgotten text lists (`^id` at the start of a line). */
export function forgottenIds(text: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const l of splitLines(text)) {
    const m = /^\^([A-Za-z0-9][A-Za-z0-9-]{2,63})\b/.exec(l);
    if (m) out.add(m[1]!);
  }
  return out;
}
