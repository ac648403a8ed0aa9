/**
 * A memory file → search units.
 *
 * - A bullet entry of a log or list (lib/format/entry.ts grammar) is one unit; indented lines
 *   under it belong to it. In logs (buffer, episodic, archive, OpenClaw dailies, SESSION-STATE,
 *   todos) and MEMORY.md (index lines) every bullet is a unit.
 * - In notes (semantic, procedural, knowledge, graph, …) a bullet is its own unit only when it
 *   is a memtier entry (has a time, a `[TYPE]` or a `^id`); everything else under a heading —
 *   prose, plain bullets — forms one heading-section unit.
 * - Frontmatter (tags on line 2, type, created, last_verified, name/title) applies to every unit
 *   of the note. It is read by a tiny YAML-subset reader (keys this index needs only); the strict
 *   parser (lib/format/frontmatter.ts, gray-matter) is loaded only for a block the subset reader
 *   cannot read.
 */
import { classify, type FileKind, type Tier } from '../format/layout.js';
import { forEachTag, isEntryType, parseEntryLine, type EntryType } from '../format/entry.js';
import { parseFrontmatter } from '../format/frontmatter.js';

export interface Unit {
  path: string;
  /** 1-based first and last line. */
  line: number;
  endLine: number;
  id?: string;
  type?: EntryType;
  tags: string[];
  /** `YYYY-MM-DD` of the entry (its own date, else the file's day, else frontmatter last_verified/created). */
  date?: string;
  time?: string;
  tier: Tier;
  kind: FileKind;
  /** Note title and heading path, e.g. "Infrastructure › Servers". */
  heading: string;
  /** The unit's text as written (bullet line(s) or section body), trimmed. */
  text: string;
  superseded?: boolean;
  /** Names the unit declares for one another (search/aliases.ts: its text's declarations, its note's `aliases:` frontmatter). */
  aliases?: [string, string][];
}

export interface MiniFrontmatter {
  tags: string[];
  /** `aliases:` of a note: other names of its title. */
  aliases?: string[];
  type?: string;
  created?: string;
  lastVerified?: string;
  title?: string;
  /** Lines the frontmatter block occupies (0 when none). */
  lines: number;
}

const LOG_KINDS = new Set<FileKind>(['memory-index', 'buffer', 'episodic', 'archive', 'legacy-daily', 'session-state', 'todos', 'dreams']);

function unquote(v: string): string {
  const t = v.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1);
  return t;
}

function listValue(v: string): string[] {
  const t = v.trim();
  const inner = t.startsWith('[') && t.endsWith(']') ? t.slice(1, -1) : t;
  return inner.split(',').map((s) => unquote(s).replace(/^#/, '').trim().toLowerCase()).filter(Boolean);
}

/** A list of names, case kept (aliases are names, not tags). */
function aliasValue(v: string): string[] {
  const t = v.trim();
  const inner = t.startsWith('[') && t.endsWith(']') ? t.slice(1, -1) : t;
  return inner.split(',').map((s) => unquote(s).trim()).filter(Boolean);
}

/** A Logseq page property: `tags:: people, marketing`, `alias:: Priya Shah`. */
const PROPERTY = /^([A-Za-z][\w-]*):: ?(.*)$/;

/** A property's list: `a, b`, `[[a]], [[b c]]`, `#a #b` (Logseq writes all three). */
function propertyList(v: string): string[] {
  return v.replace(/\[\[|\]\]/g, '').split(/,|\s+(?=#)/).map((s) => unquote(s).replace(/^#/, '').trim()).filter(Boolean);
}

/**
 * A Logseq page's properties (its first lines, `key:: value`, before its first bullet), read as
 * frontmatter: tags (lower-cased, a space in one a hyphen), alias, title, type, created/date,
 * updated. `lines` is the block's length.
 */
function readProperties(lines: string[]): MiniFrontmatter {
  const fm: MiniFrontmatter = { tags: [], lines: 0 };
  let i = 0;
  for (; i < lines.length && i < 100; i++) {
    const kv = PROPERTY.exec(lines[i]!);
    if (!kv) break;
    const key = kv[1]!.toLowerCase();
    const val = kv[2]!.trim();
    if (key === 'tags' || key === 'tag') fm.tags.push(...propertyList(val).map((t) => t.toLowerCase().replace(/\s+/g, '-')));
    else if (key === 'alias' || key === 'aliases') (fm.aliases ??= []).push(...propertyList(val));
    else if (key === 'type') fm.type = unquote(val);
    else if (key === 'created' || key === 'date') fm.created ??= unquote(val).slice(0, 10);
    else if (key === 'updated' || key === 'last_verified') fm.lastVerified = unquote(val).slice(0, 10);
    else if (key === 'title') fm.title ??= unquote(val);
  }
  fm.lines = i;
  return fm;
}

/** A property line under a page's title, as Notion exports them ("Owner: Priya Shah", "Created time: …"): a capitalized key of one to three words. */
export const TITLE_PROPERTY = /^([A-Z][A-Za-z0-9_-]*(?: [A-Za-z0-9_-]+){0,2}): (\S.*)$/;
const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** A property's day: "2026-11-20…", or as Notion writes it, "November 20, 2026 10:00 AM" / "Nov 20, 2026". */
function propertyDay(v: string): string | undefined {
  if (DATE.test(v.slice(0, 10))) return v.slice(0, 10);
  const m = /^([A-Za-z]{3})[a-z]*\.? (\d{1,2}), (\d{4})\b/.exec(v);
  const month = m ? MONTH_NAMES.indexOf(m[1]!.toLowerCase()) + 1 : 0;
  return m && month ? `${m[3]}-${String(month).padStart(2, '0')}-${m[2]!.padStart(2, '0')}` : undefined;
}

/**
 * A Notion page's properties, as its export writes them: "Key: Value" lines right under the page's
 * "# Title" (Owner: Priya Shah, Status: In progress, Tags: web, marketing, Created: November 20,
 * 2026 10:00 AM). Two or more such lines make the block, or one "Tags:". They stay the note's
 * text (they say things: who owns it, when it is due); its tags and its day are read from them
 * (Tags; Created, Created time or Date). `from`..`to`: the block's lines (1-based).
 */
export function titleProperties(lines: string[]): { tags: string[]; created?: string; from: number; to: number } | undefined {
  let i = 0;
  while (i < lines.length && i < 3 && !lines[i]!.trim()) i++;
  if (!/^# \S/.test(lines[i] ?? '')) return undefined;
  i++;
  if (i < lines.length && !lines[i]!.trim()) i++;
  const from = i + 1;
  const props: [string, string][] = [];
  for (; i < lines.length; i++) {
    const m = TITLE_PROPERTY.exec(lines[i]!);
    if (!m) break;
    props.push([m[1]!.toLowerCase(), m[2]!.trim()]);
  }
  if (props.length < 2 && props[0]?.[0] !== 'tags') return undefined;
  const out: { tags: string[]; created?: string; from: number; to: number } = { tags: [], from, to: i };
  for (const [key, val] of props) {
    if (key === 'tags' || key === 'tag') out.tags.push(...propertyList(val).map((t) => t.toLowerCase().replace(/\s+/g, '-')));
    else if (key === 'created' || key === 'created time' || key === 'created at' || key === 'date') out.created ??= propertyDay(val);
  }
  return out;
}

/** The YAML subset reader (or a Logseq page's `key:: value` properties). Returns undefined when the block needs the strict parser. */
export function readMiniFrontmatter(lines: string[]): MiniFrontmatter | undefined {
  const fm: MiniFrontmatter = { tags: [], lines: 0 };
  if (lines[0]?.trim() !== '---' && lines[0]?.trim() !== '---yaml') return lines[0]?.includes(':: ') || lines[0]?.endsWith('::') ? readProperties(lines) : fm;
  let end = -1;
  for (let i = 1; i < lines.length && i < 200; i++) if (lines[i]!.trim() === '---' || lines[i]!.trim() === '...') { end = i; break; }
  if (end < 0) return fm; // not closed: treat as text (health reports it)
  fm.lines = end + 1;
  let listKey: string | undefined;
  for (let i = 1; i < end; i++) {
    const l = lines[i]!;
    if (!l.trim() || l.trimStart().startsWith('#')) continue;
    const item = /^\s+-\s+(.*)$/.exec(l) ?? /^-\s+(.*)$/.exec(l);
    if (item) {
      if (listKey === 'tags') fm.tags.push(...listValue(item[1]!));
      else if (listKey === 'aliases') (fm.aliases ??= []).push(...aliasValue(item[1]!));
      continue;
    }
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(l);
    if (!kv) { if (/^\s/.test(l)) continue; return undefined; }
    const key = kv[1]!.toLowerCase();
    const val = kv[2]!.trim();
    listKey = val === '' ? key : undefined;
    if (/^[|>]/.test(val) && ['tags', 'type', 'created', 'last_verified', 'title', 'name', 'aliases'].includes(key)) return undefined;
    if (key === 'tags' || key === 'tag') { if (val) fm.tags.push(...listValue(val)); else listKey = 'tags'; }
    else if (key === 'aliases' || key === 'alias') { if (val) (fm.aliases ??= []).push(...aliasValue(val)); else listKey = 'aliases'; }
    else if (key === 'type') fm.type = unquote(val);
    else if (key === 'created' || key === 'date') fm.created ??= unquote(val).slice(0, 10);
    else if (key === 'last_verified' || key === 'updated') fm.lastVerified = unquote(val).slice(0, 10);
    else if (key === 'title' || key === 'name') fm.title ??= unquote(val);
  }
  return fm;
}

function strictFrontmatter(text: string, rel: string): MiniFrontmatter {
  const fm: MiniFrontmatter = { tags: [], lines: 0 };
  try {
    // gray-matter loads inside parseFrontmatter, on the first note that needs it (rare)
    const r = parseFrontmatter(text, rel);
    const d = r.data;
    const tags = d.tags;
    if (Array.isArray(tags)) fm.tags = tags.map((t) => String(t).replace(/^#/, '').toLowerCase());
    else if (typeof tags === 'string') fm.tags = listValue(tags);
    if (typeof d.type === 'string') fm.type = d.type;
    const s = (v: unknown): string | undefined => (v instanceof Date ? v.toISOString().slice(0, 10) : typeof v === 'string' ? v.slice(0, 10) : undefined);
    const created = s(d.created) ?? s(d.date);
    if (created) fm.created = created;
    const lv = s(d.last_verified) ?? s(d.updated);
    if (lv) fm.lastVerified = lv;
    const title = typeof d.title === 'string' ? d.title : typeof d.name === 'string' ? d.name : undefined;
    if (title) fm.title = title;
    const al = d.aliases ?? d.alias;
    if (Array.isArray(al)) fm.aliases = al.map(String).filter(Boolean);
    else if (typeof al === 'string') fm.aliases = aliasValue(al);
    fm.lines = r.bodyLine - 1;
  } catch { /* unreadable frontmatter: index the text as is; health reports the file */ }
  return fm;
}

const FM_TYPES: Record<string, EntryType> = { user: 'PEOPLE', feedback: 'LESSON', project: 'PROJ', reference: 'TECH', preference: 'PREF', decision: 'DECISION', lesson: 'LESSON', event: 'EVENT', tech: 'TECH', people: 'PEOPLE' };

function fmType(t: string | undefined): EntryType | undefined {
  if (!t) return undefined;
  const u = t.toUpperCase();
  if (isEntryType(u)) return u;
  return FM_TYPES[t.toLowerCase()];
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * HTML comments (template guidance such as `<!-- At most 5. … -->`) are not memory: blank them,
 * keeping every newline so line numbers and citations stay exact.
 */
export function blankComments(text: string): string {
  return text.includes('<!--') ? text.replace(/<!--[\s\S]*?-->/g, (m) => m.replace(/[^\n]/g, ' ')) : text;
}

const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/**
 * A section holding nothing but a table's header and delimiter rows, e.g. a template's
 * `| project | status | next step | updated |` before any project is in it: column names are not
 * memory (the skeleton's project tracker matched "updates" on a new memory).
 */
export function isEmptyTable(lines: readonly string[]): boolean {
  const rows = lines.filter((l) => l.trim());
  return rows.length > 0 && rows.length <= 2 && TABLE_DELIMITER.test(rows[rows.length - 1]!) && rows.slice(0, -1).every((l) => TABLE_ROW.test(l));
}

/** A Logseq block's own settings, indented under it: its id (for block references), folding, heading style, colour. */
const BLOCK_SETTING = /^\s+(?:id|collapsed|heading|background-color|logseq\.[\w.-]+)::(?:\s|$)/;

/** Is the text after the frontmatter (or properties) an outline: its first line a bullet, every line a bullet at column 0, indented or blank? */
function outliner(lines: string[], from: number): boolean {
  let bullets = 0;
  for (let i = from; i < lines.length; i++) {
    const l = lines[i]!;
    const c0 = l.charCodeAt(0);
    if (c0 === 45 || c0 === 42) { if (l.charCodeAt(1) !== 32) return false; bullets++; continue; }
    if (l === '' || c0 === 32 || c0 === 9) { if (bullets === 0 && l.trim() !== '') return false; continue; }
    return false;
  }
  return bullets > 0;
}

/** A note's name: its file's name without the folder and ".md" ("memory/pages/Website Redesign.md" → "Website Redesign"). */
const noteName = (rel: string): string => rel.slice(rel.lastIndexOf('/') + 1).replace(/\.md$/i, '');

/**
 * The day a note says it is of (not its name): its frontmatter's `date:` or `created:` (Obsidian's
 * templates write one), or a Notion page's `Created`, `Created time` or `Date` property.
 */
export function noteDay(text: string): string | undefined {
  const day = noteFrontmatter(text, text.split('\n', 200), '', true).created;
  return day && DATE.test(day) ? day : undefined;
}

/**
 * A note's frontmatter: its YAML block or Logseq properties, else (`titled`: a note, not a log) a
 * Notion page's properties under its title, for its tags and its day (titleProperties).
 */
function noteFrontmatter(text: string, lines: string[], rel: string, titled: boolean): MiniFrontmatter {
  const fm = readMiniFrontmatter(lines) ?? strictFrontmatter(text, rel);
  const props = titled && fm.lines === 0 && !fm.tags.length ? titleProperties(lines) : undefined;
  return props ? { ...fm, tags: props.tags, ...(props.created && !fm.created ? { created: props.created } : {}) } : fm;
}

/** Split one file's text into units. The vocabulary and the format contract (meta) and the palace views (copies of entries) have none. */
export function fileUnits(rel: string, text: string): Unit[] {
  const info = classify(rel);
  if (info.tier === 'meta' || info.kind === 'palace') return [];
  // MEMORY.md's "Last reviewed:" / "Updated:" line is metadata, not memory ("last time we …" found
  // it first): left out, its line kept empty so every other line keeps its number
  const lines = (info.kind === 'memory-index' ? blankComments(text).replace(/^[ \t]*(?:last reviewed|updated):.*$/gim, '') : blankComments(text)).split('\n');
  const fm = noteFrontmatter(text, lines, rel, !LOG_KINDS.has(info.kind));
  const fileType = fmType(fm.type);
  const fileDate = info.date ?? (fm.lastVerified && DATE.test(fm.lastVerified) ? fm.lastVerified : fm.created && DATE.test(fm.created) ? fm.created : undefined);
  // an outliner's page (Logseq: every line a bullet or indented under one): each top-level bullet
  // with what is indented under it is a unit, as a log's entry is, not the whole page one section
  const outline = !LOG_KINDS.has(info.kind) && outliner(lines, fm.lines);
  const isLog = LOG_KINDS.has(info.kind) || outline;
  const out: Unit[] = [];
  const headings: string[] = [];
  // a person's note with no title of its own (a Logseq or Obsidian page, "pages/Priya.md": the
  // app shows its name as its title) is titled by its name until a "# heading" gives one
  let title = fm.title ?? '';
  const named = info.kind === 'note' && !info.date && !fm.title ? noteName(info.rel) : '';
  let section: { start: number; end: number; lines: string[] } | undefined;
  let entry: Unit | undefined;
  /** The headings met (outside code fences): a note of headings alone is found by them. */
  const headingLines: { line: number; text: string }[] = [];
  /** The heading path (headingPath()), kept until a heading changes it. */
  let heading: string | undefined;

  const base = (line: number): Unit => {
    const u: Unit = { path: info.rel, line, endLine: line, tags: [...fm!.tags], tier: info.tier, kind: info.kind, heading: heading ??= headingPath(), text: '' };
    if (fileDate) u.date = fileDate;
    if (fileType) u.type = fileType;
    if (fm!.aliases?.length && (title || named)) u.aliases = fm!.aliases.map((a): [string, string] => [title || named, a]);
    return u;
  };
  const headingPath = (): string => [title || named, ...headings.filter(Boolean)].filter((h, i, a) => h && a.indexOf(h) === i).join(' › ');
  const flushSection = (): void => {
    if (section && section.lines.some((l) => l.trim()) && !isEmptyTable(section.lines)) {
      const u = base(section.start);
      u.endLine = section.end;
      u.text = section.lines.join('\n').trim();
      forEachTag(u.text, (m) => {
        const t = m.toLowerCase();
        if (!u.tags.includes(t)) u.tags.push(t);
      });
      out.push(u);
    }
    section = undefined;
  };
  const addToSection = (i: number, l: string): void => {
    if (!section) section = { start: i + 1, end: i + 1, lines: [] };
    section.lines.push(l);
    if (l.trim()) section.end = i + 1;
  };

  let inFence = false;
  for (let i = fm.lines; i < lines.length; i++) {
    const l = lines[i]!;
    // (each pattern tried only when the line's first character can start it)
    const c0 = l.charCodeAt(0);
    const space = c0 === 32 || c0 === 9 || (c0 >= 10 && c0 <= 13) || c0 >= 0xa0;
    if ((space || c0 === 96 || c0 === 126) && /^\s*(```|~~~)/.test(l)) inFence = !inFence;
    if (!inFence) {
      const h = c0 === 35 ? HEADING.exec(l) : null;
      if (h) {
        flushSection();
        entry = undefined;
        const level = h[1]!.length;
        const textH = h[2]!.trim();
        if (textH) headingLines.push({ line: i + 1, text: textH });
        if (level === 1 && !title) title = textH;
        headings.length = Math.max(0, level - 1);
        headings[level - 1] = level === 1 && textH === title ? '' : textH;
        heading = undefined;
        // a section is cited from its heading line
        section = { start: i + 1, end: i + 1, lines: [] };
        continue;
      }
      if (entry && space && /^\s+\S/.test(l)) {
        // an outliner's block settings ("id:: 6565…", "collapsed:: true") say nothing
        if (outline && BLOCK_SETTING.test(l)) continue;
        entry.text += '\n' + l.trim();
        entry.endLine = i + 1;
        continue;
      }
      entry = undefined;
      const e = (c0 === 45 || c0 === 42) && /^[-*] \S/.test(l) ? parseEntryLine(l) : undefined;
      if (e && (isLog || e.time || e.type || e.id)) {
        flushSection();
        const u = base(i + 1);
        u.text = e.text;
        if (e.id) u.id = e.id;
        if (e.type) u.type = e.type;
        if (e.date) u.date = e.date;
        if (e.time) u.time = e.time;
        if (e.superseded) u.superseded = true;
        for (const t of e.tags) if (!u.tags.includes(t)) u.tags.push(t);
        out.push(u);
        entry = u;
        continue;
      }
    }
    addToSection(i, l);
  }
  flushSection();
  if (out.length === 0 && !isLog) {
    const only = titleOnly(text, lines, fm.lines, fm.title, headingLines);
    if (only) {
      headings.length = 0;
      heading = undefined;
      const u = base(only.line);
      u.endLine = only.endLine;
      u.text = only.text;
      out.push(u);
    }
  }
  return out;
}

/**
 * A note that is its title alone (a heading, a few headings, or a frontmatter `title:` with no
 * body): one unit whose text is that title, so a page a person started ("# Kubernetes migration
 * plan") is found by its words. A note whose only body is an HTML comment is a template waiting
 * for its content (the skeleton's "# Decisions" and its instructions) and stays out.
 */
function titleOnly(text: string, lines: string[], fmLines: number, fmTitle: string | undefined, headingLines: { line: number; text: string }[]): { line: number; endLine: number; text: string } | undefined {
  if (text.includes('<!--')) return undefined;
  const texts = [...new Set([...(fmTitle ? [fmTitle.trim()] : []), ...headingLines.map((h) => h.text)])].filter(Boolean);
  if (texts.length === 0) return undefined;
  if (headingLines.length) return { line: headingLines[0]!.line, endLine: headingLines[headingLines.length - 1]!.line, text: texts.join('\n') };
  // the frontmatter's title line (YAML `title:`/`name:`, Logseq `title::`), else the first line
  let at = lines.slice(0, fmLines).findIndex((l) => /^(?:title|name)::?\s/.test(l));
  if (at < 0) at = 0;
  return { line: at + 1, endLine: at + 1, text: texts.join('\n') };
}
