/**
 * The entry: one bullet line in a log (working buffer, episodic day, notes).
 *
 *   - [YYYY-MM-DD ]HH:MM [TYPE] text #tag #other ^id
 *
 * Every part but the bullet and the text is optional when a person writes it;
 * memtier always writes the time, the type tag and the id. The `^id` is an
 * Obsidian-style block reference: stable across moves (buffer → episodic →
 * archive), so a move can be deduplicated and a citation keeps resolving.
 * A superseded entry is struck through: `- ~~14:30 [DECISION] use MySQL~~ superseded by ^k2j3mx0a ^old1d2e3`.
 */
import { randomChars } from '../core/random.js';
import { sanitizeText } from './text.js';

export const ENTRY_TYPES = ['PREF', 'DECISION', 'PROJ', 'TECH', 'LESSON', 'PEOPLE', 'EVENT', 'TEMP'] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

/** The one file where each type's durable facts live. */
export const CANONICAL_HOME: Record<EntryType, string> = {
  PREF: 'memory/semantic/preferences.md',
  DECISION: 'memory/semantic/decisions.md',
  PROJ: 'memory/semantic/projects.md',
  TECH: 'memory/semantic/infrastructure.md',
  LESSON: 'memory/procedural/lessons-learned.md',
  PEOPLE: 'memory/semantic/people.md',
  EVENT: 'memory/episodic/',
  TEMP: 'memory/working-buffer.md',
};

export function isEntryType(s: string): s is EntryType {
  return (ENTRY_TYPES as readonly string[]).includes(s);
}

export interface Entry {
  /** Local date `YYYY-MM-DD` when written on the line (buffer entries), else undefined (the file's day). */
  date?: string;
  /** Local time `HH:MM` when present (a typed entry may give its day alone: `- 2026-11-24 [DECISION] …`). */
  time?: string;
  type?: EntryType;
  /** The text without time, type, id and strike-through; tags are kept in the text. */
  text: string;
  /** Inline `#tags`, lower-cased, without `#`. */
  tags: string[];
  id?: string;
  superseded?: boolean;
  /** Id of the entry that supersedes this one. */
  supersededBy?: string;
}

export const ID_RE = /^[A-Za-z0-9][A-Za-z0-9-]{2,63}$/;
/** The entry's id at the end of its text (at its start too: the text is only the id). */
const ID_TAIL = /(?:^|\s)\^([A-Za-z0-9][A-Za-z0-9-]{2,63})\s*$/;
export const TAG_RE = /(?:^|[\s(])[#＃]([\p{L}][\p{L}\p{N}_/-]*)/gu;
const HEAD = /^(?:(\d{4}-\d{2}-\d{2})[ T])?(\d{2}:\d{2})(?::\d{2})?\s+/;
/** A day without a time, before a type: `- 2026-11-24 [DECISION] …` (a sentence filed from a note that gave no time). */
const DAY_HEAD = /^(\d{4}-\d{2}-\d{2})\s+(?=\[[A-Z]+\])/;
const TYPE = /^\[([A-Z]+)\]\s*/;

/** Is this line a bullet entry (`- ` or `* ` at column 0)? */
export function isEntryLine(line: string): boolean {
  return /^[-*] \S/.test(line);
}

/** Parse one bullet line. Returns undefined for lines that are not bullets. */
export function parseEntryLine(line: string): Entry | undefined {
  if (!isEntryLine(line)) return undefined;
  return parseBullet(line, { date: undefined, time: undefined, type: undefined, text: '', tags: [], id: undefined, superseded: undefined, supersededBy: undefined });
}

/**
 * A bullet line parsed into `e`, made by the caller with every field, in one order (undefined
 * where the line has none): one shape for V8 (two with LocatedEntry's), so the code reading half
 * a million entries of a memory finds each field at one place in the object instead of looking
 * it up among a dozen shapes.
 */
function parseBullet<E extends Entry>(line: string, e: E): E {
  let rest = line.slice(2).trimEnd();
  // each pattern tried only when the text holds what it must start with, matched in the line itself
  // (no padded copy): every part of the entry stays a slice of the file's text
  const idm = rest.includes('^') ? ID_TAIL.exec(rest) : null;
  if (idm) {
    e.id = idm[1]!;
    rest = rest.slice(0, idm.index).trim();
  }
  const sup = rest.startsWith('~~') ? /^~~(.*)~~(?:\s+superseded by \^([A-Za-z0-9-]+))?\s*$/.exec(rest) : null;
  if (sup) {
    e.superseded = true;
    if (sup[2]) e.supersededBy = sup[2];
    rest = sup[1]!.trim();
  }
  const c0 = rest.charCodeAt(0);
  const hm = c0 >= 48 && c0 <= 57 ? HEAD.exec(rest) : null;
  let day: RegExpExecArray | null = null;
  if (hm) {
    if (hm[1]) e.date = hm[1];
    e.time = hm[2]!;
    rest = rest.slice(hm[0].length);
  } else if (c0 >= 48 && c0 <= 57 && (day = DAY_HEAD.exec(rest))) {
    rest = rest.slice(day[0].length);
  }
  const tm = rest.charCodeAt(0) === 91 ? TYPE.exec(rest) : null;
  if (tm && isEntryType(tm[1]!)) {
    e.type = tm[1] as EntryType;
    rest = rest.slice(tm[0].length);
    if (day) e.date = day[1]!;
  } else if (day) {
    // a day before a bracket that is no entry type: the text as written
    rest = `${day[0]}${rest}`;
  }
  e.text = rest.trim();
  e.tags = extractTags(e.text);
  return e;
}

export function extractTags(text: string): string[] {
  const out: string[] = [];
  forEachTag(text, (m) => {
    const c = m.charCodeAt(m.length - 1);
    const t = c === 47 || c === 45 ? m.toLowerCase().replace(/[/-]+$/, '') : m.toLowerCase();
    if (!out.includes(t)) out.push(t);
  });
  return out;
}

const TAG_BODY = /[\p{L}][\p{L}\p{N}_/-]*/uy;
const TAG_BEFORE = /[\s(]/;

/**
 * Each inline tag of `text` without its marker, in order: what matchAll(TAG_RE) gives as group 1
 * (a # or ＃ at the start or after a space or "(", then a letter and letters, digits, _ / -),
 * found from the markers (indexOf) instead of trying the pattern at every character, as an
 * index build does for every entry. (A tag's letters never include a marker, so the matches
 * cannot overlap differently; entry.test.ts compares the two.)
 */
export function forEachTag(text: string, f: (tag: string) => void): void {
  let hash = text.indexOf('#');
  let wide = text.indexOf('＃');
  while (hash >= 0 || wide >= 0) {
    const p = wide < 0 || (hash >= 0 && hash < wide) ? hash : wide;
    let next = p + 1;
    if (p === 0 || TAG_BEFORE.test(text[p - 1]!)) {
      TAG_BODY.lastIndex = p + 1;
      const m = TAG_BODY.exec(text);
      if (m) { f(m[0]); next = TAG_BODY.lastIndex; }
    }
    if (hash >= 0 && hash < next) hash = text.indexOf('#', next);
    if (wide >= 0 && wide < next) wide = text.indexOf('＃', next);
  }
}

/** Format an entry as one line (no trailing newline). Text must already be one line. */
export function formatEntryLine(e: Entry): string {
  // a day without a time only before a type (the parser reads `- DAY [TYPE] …`, never `- DAY text`)
  const when = e.date && e.time ? `${e.date} ${e.time}` : e.date && e.type ? e.date : e.time;
  const head = [when, e.type ? `[${e.type}]` : undefined, e.text]
    .filter(Boolean)
    .join(' ');
  const body = e.superseded ? `~~${head}~~${e.supersededBy ? ` superseded by ^${e.supersededBy}` : ''}` : head;
  // an entry that is only its id (`- ^abc123`) must stay a bullet: no space before a missing body
  return `- ${[body, e.id ? `^${e.id}` : ''].filter(Boolean).join(' ')}`;
}

const EPOCH_2020 = Date.UTC(2020, 0, 1);

/**
 * A new entry id: 6 base36 chars of seconds since 2020 (sortable by time) + 6 random.
 * 12 chars, lower-case, grep-friendly: `^3ljn1rc4u6k2`. Six random characters (36^6 ≈ 2.2e9 per
 * second) keep ids unique across the memory even in a backfill at one fixed instant, where
 * four collided within a few hundred ids.
 */
export function newEntryId(now: Date): string {
  const secs = Math.max(0, Math.floor((now.getTime() - EPOCH_2020) / 1000));
  const t = secs.toString(36).padStart(6, '0').slice(-6);
  return t + randomChars(6);
}

/** A word of the text shaped like an entry's `^id` (space or start before it, space or end after it). */
const FORGED_ID = /(^|\s)\^(?=[A-Za-z0-9][A-Za-z0-9-]{2,63}(?:\s|$))/g;

/**
 * Collapse a user-supplied text to one entry line: CRLF/CR/LF and other line separators → space,
 * trim; control, escape and bidi characters stripped as the store strips them (so the line a command
 * reports is the line stored). A line break cannot start a `---` fence, a heading or a closure line inside an entry, and
 * a word shaped like an entry id is escaped (`^abc123` → `\^abc123`, shown as `^abc123` by
 * markdown) so the text cannot carry a second, forged `^id`: the entry's own id is the only one.
 */
export function oneLine(text: string): string {
  return sanitizeText(text.replace(/\r\n?|[\n\v\f\u0085\u2028\u2029]/g, ' ')).replace(/[ \t]+/g, ' ').trim().replace(FORGED_ID, '$1\\^');
}

export interface LocatedEntry extends Entry {
  /** 1-based line number. */
  line: number;
  raw: string;
}

/** All bullet entries in a file's text, with their line numbers. */
export function parseEntries(text: string): LocatedEntry[] {
  const out: LocatedEntry[] = [];
  // line by line without splitting the text: only a line starting "- " or "* " is cut out and parsed
  const n = text.length;
  for (let at = 0, line = 1; at <= n; line++) {
    let nl = text.indexOf('\n', at);
    if (nl < 0) nl = n;
    const c = text.charCodeAt(at);
    if ((c === 45 || c === 42) && text.charCodeAt(at + 1) === 32) {
      const raw = text.slice(at, nl);
      if (isEntryLine(raw)) out.push(parseBullet(raw, { date: undefined, time: undefined, type: undefined, text: '', tags: [], id: undefined, superseded: undefined, supersededBy: undefined, line, raw }));
    }
    at = nl + 1;
  }
  return out;
}

/**
 * The recall-history key of an entry without an `^id`: a hash of its words plus its anchor — the
 * entry's day (its own date, else its file's) or, for undated files, its path. Moving the entry
 * (archive, adopt) or inserting lines above it keeps the key; changing its words makes a new one.
 * `text` may be the entry's parsed text or its line as written (a bullet's time, type, tags and id
 * are left out either way). FNV-1a: cheap, and unique enough within one day or one file.
 */
export function contentKey(text: string, anchor: string): string {
  const [first = '', ...rest] = text.split('\n');
  const e = /^[-*] \S/.test(first) ? parseEntryLine(first) : undefined;
  const t = (e ? [e.text, ...rest].join(' ') : text)
    .normalize('NFKC').toLowerCase()
    .replace(/(?:^|\s)\^[a-z0-9][a-z0-9-]{2,63}(?=\s|$)/g, ' ')
    .replace(/(?:^|\s)#[\p{L}][\p{L}\p{N}_/-]*/gu, ' ')
    .replace(/[\s\p{P}\p{S}]+/gu, ' ')
    .trim();
  let h = 0x811c9dc5;
  for (let i = 0; i < t.length; i++) { h ^= t.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return `~${(h >>> 0).toString(36)}@${anchor}`;
}

/**
 * The anchor of contentKey: the file's day for a dated file; in the working buffer (undated, and
 * rotated into the day's file) the entry's own date; else the file's path.
 */
export function keyAnchor(path: string, fileDate: string | undefined, ownDate: string | undefined): string {
  return fileDate ?? (path === 'memory/working-buffer.md' ? ownDate : undefined) ?? path;
}
