/**
 * Shared pieces of review, palace, consolidate and dream: reading every entry with its source,
 * the two line forms memtier writes on behalf of a person, and MEMORY.md's budget.
 *
 * 1. A copy in a canonical home (review, dream overflow) keeps the entry's date, time, type,
 *    text, tags and `^id`:
 *
 *      - 2026-05-12 10:00 [DECISION] use Postgres for events #projects ^k2j3mx0a
 *
 *    The shared `^id` is the citation (an Obsidian block reference that survives the archive
 *    move, where a path would break): `grep -rn '\^k2j3mx0a' memory/` finds the log line and its
 *    copy, and a second run finds the id and copies nothing. An entry without an id is copied
 *    with ` (from PATH)` instead.
 *
 * 2. A line memtier adds to MEMORY.md (consolidate, dream) is an index line whose link points
 *    at the fact and whose trailing `^id` repeats the link's block id:
 *
 *      - Use Postgres for events — [decisions](memory/semantic/decisions.md#^k2j3mx0a) ^k2j3mx0a
 *
 *    That pair (link `#^X` + trailing `^X`) is the only mark of a memtier-managed line: such a
 *    line may be removed again when its fact decays or disappears; every other line of
 *    MEMORY.md belongs to a person and is never touched.
 */
import { addDays, localDate } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { fileProgress } from '../core/progress.js';
import { contentKey, extractTags, keyAnchor, type EntryType } from '../format/entry.js';
import { fileUnits, titleProperties } from '../search/units.js';
import { classify, listMemoryFiles, PATHS, type FileInfo } from '../format/layout.js';
import { entriesOf, linkDest, linkPath, normalizeText, read, type SourcedEntry } from './common.js';

export { linkDest, linkPath };
import { readPassing } from '../memory/reader.js';

export interface MemEntry extends SourcedEntry {
  kind: FileInfo['kind'];
  tier: FileInfo['tier'];
}

/** Kinds whose entries are memory (generated views, reviews and the dream diary are not). */
export const SOURCE_KINDS = new Set<FileInfo['kind']>([
  'buffer', 'episodic', 'legacy-daily', 'archive', 'semantic', 'procedural', 'graph', 'knowledge', 'note', 'session-state', 'todos',
]);

/** Dated logs whose prose a person wrote (headings and paragraphs) holds memory as much as their bullets. */
const DAY_KINDS = new Set<FileInfo['kind']>(['episodic', 'legacy-daily', 'archive']);

/**
 * The paragraphs and heading sections of a day a person wrote, as untyped entries: the units search
 * makes of them (lib/search/units.ts), so dream, palace and recall see one entry with one key.
 */
export function freeFormEntries(rel: string, text: string, info: FileInfo): MemEntry[] {
  const out: MemEntry[] = [];
  const lines = text.split('\n');
  // a Notion page's properties under its title ("Date: …", "Owner: …") are its metadata, not its text
  const props = info.kind === 'note' ? titleProperties(lines) : undefined;
  const isProperty = (line: number): boolean => props !== undefined && line >= props.from && line <= props.to;
  for (const u of fileUnits(rel, text)) {
    nestedBullets(lines, u.line, u.endLine, (line, t) => {
      const day = u.date ?? info.date;
      out.push({ text: t, tags: extractTags(t), line, raw: lines[line - 1]!, path: rel, ...(day ? { day } : {}), kind: info.kind, tier: info.tier });
    });
    if (/^[-*] \S/.test(lines[u.line - 1] ?? '') || !u.text.trim()) continue; // bullets are entries already
    // a section's own bullets too (a "## Todo" list under a heading): they are entries already, and
    // run into the paragraph they would read as one sentence
    let body = u.text.includes('\n- ') || u.text.includes('\n* ') || /^[-*] \S/.test(u.text) ? u.text.split('\n').filter((l) => !/^\s*[-*] \S/.test(l)).join('\n') : u.text;
    if (props && u.line <= props.to && u.endLine >= props.from) {
      const own = new Set(lines.slice(props.from - 1, props.to).map((l) => l.trim()));
      body = body.split('\n').filter((l) => !own.has(l.trim())).join('\n');
    }
    if (!body.trim()) continue;
    const day = u.date ?? info.date;
    const flat = body.replace(/\s+/g, ' ').trim();
    // cited from its first line of text, not its heading's
    let line = u.line;
    for (let i = u.line - 1; i < u.endLine; i++) {
      const l = lines[i] ?? '';
      if (l.trim() && !isProperty(i + 1) && !/^#{1,6}\s/.test(l) && !/^\s*[-*] \S/.test(l) && !l.trimStart().startsWith('<!--')) { line = i + 1; break; }
    }
    out.push({ text: flat, tags: u.tags, line, raw: u.text.split('\n', 1)[0] ?? '', path: rel, ...(day ? { day } : {}), kind: info.kind, tier: info.tier });
  }
  return out;
}

/**
 * An outliner's nested bullet (Logseq, Obsidian, Workflowy: "\t- Decided to go with Astro" under
 * "- Met with Priya"): no entry (an entry is a bullet at column 0), but a line of the person's own
 * text, read like one. Calls `visit` with each one's line (1-based) and its text, of lines
 * [from, to] (1-based, inclusive).
 */
function nestedBullets(lines: string[], from: number, to: number, visit: (line: number, text: string) => void): void {
  for (let i = from - 1; i < to && i < lines.length; i++) {
    const m = /^[ \t]+[-*+] (\S.*)$/.exec(lines[i]!);
    if (m) visit(i + 1, m[1]!.trim());
  }
}

/**
 * A task on the person's own list: a checklist item ("[ ] ask Marco for the CMS export", "[x]
 * booked the room") or an outliner's task marker (Logseq and org-mode: "TODO …", "LATER …",
 * "DONE …"). Not a fact to file.
 */
export const CHECKBOX = /^(?:\[[ xX]\]|(?:TODO|DOING|NOW|LATER|WAITING|DONE|CANCELED|CANCELLED)(?=\s))\s/;

/** Is the task (CHECKBOX) still to do: an open box, or TODO, DOING, NOW, LATER, WAITING? */
export const openTask = (text: string): boolean => /^(?:\[ \]|TODO|DOING|NOW|LATER|WAITING)\s/.test(text);

/**
 * The line a paragraph's sentence starts on: the first line from the paragraph's own (`from`, its
 * heading's) to the next heading holding the sentence's first words; `from` when none does (a
 * sentence wrapped across lines, or its words rewritten, e.g. a relative date made absolute).
 */
export function sentenceLine(lines: string[] | undefined, from: number, sentence: string): number {
  if (!lines) return from;
  const probe = sentence.replace(/\s+/g, ' ').trim().slice(0, 24);
  if (probe.length < 4) return from;
  for (let i = from - 1; i < lines.length; i++) {
    const l = lines[i]!;
    if (i > from - 1 && /^#{1,6}\s/.test(l)) break;
    if (l.replace(/\s+/g, ' ').includes(probe)) return i + 1;
  }
  return from;
}

/**
 * Each file of the given kinds with its entries, in path order, each file's in line order; with
 * `freeForm`, dated logs' paragraphs too (freeFormEntries: dream and palace). `visit` sees one
 * file's entries at a time, so a pass that keeps only what it needs never holds the whole memory.
 * With `keepText: false` the files' texts are not kept for the command's later reads (readPassing:
 * nothing else in the command reads them again). Unreadable files are skipped and named.
 */
export function eachFileEntries(ctx: Ctx, kinds: Set<FileInfo['kind']>, opts: { freeForm?: boolean; keepText?: boolean }, visit: (entries: MemEntry[], info: FileInfo) => void): { skipped: string[] } {
  const skipped: string[] = [];
  const folders = new Set<string>();
  const files = listMemoryFiles(ctx.root);
  // a pass over years of daily logs takes seconds: said on a terminal (core/progress.ts)
  const progress = fileProgress(ctx.log.progress, files.length, { doing: 'reading memory', did: 'read memory' }, ctx.env);
  let seen = 0;
  for (const rel of files) {
    progress.tick(++seen);
    const info = classify(rel);
    if (!kinds.has(info.kind)) continue;
    let text: string | undefined;
    try { text = opts.keepText === false ? readPassing(ctx.root, rel, folders) : read(ctx, rel); } catch { skipped.push(rel); continue; }
    if (text === undefined) continue;
    const own: MemEntry[] = entriesOf(rel, text, info.date).map((e) => ({ ...e, kind: info.kind, tier: info.tier }));
    // a log's prose, and a person's daily note's (a note dated by its name, memory/Daily/2026-11-20.md)
    const prose = opts.freeForm && (DAY_KINDS.has(info.kind) || (info.kind === 'note' && info.date !== undefined));
    visit(prose ? [...own, ...freeFormEntries(rel, text, info)].sort((a, b) => a.line - b.line) : own, info);
  }
  progress.done();
  return { skipped };
}

/** Every entry of the memory's files of the given kinds, in path then line order (eachFileEntries, all kept). */
export function collectEntries(ctx: Ctx, kinds: Set<FileInfo['kind']> = SOURCE_KINDS, opts: { freeForm?: boolean } = {}): { entries: MemEntry[]; skipped: string[] } {
  const entries: MemEntry[] = [];
  const { skipped } = eachFileEntries(ctx, kinds, opts, (es) => { for (const e of es) entries.push(e); });
  return { entries, skipped };
}

/**
 * A string that holds only its own characters: a slice of a file's text (V8 keeps slices of 13
 * characters or more as a view of their parent) would keep the whole text alive.
 */
export function own(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/** Text without `#tags`, one space between words. */
export function plainText(text: string): string {
  return text.replace(/(?:^|\s)#[\p{L}][\p{L}\p{N}_/-]*:?/gu, ' ').replace(/\s+/g, ' ').trim();
}

/** ` (from path)` citation written on copied lines. */
const FROM_RE = /\s*\(from [^()\s]+\)\s*$/;

/** Text of an entry without the `(from …)` citation memtier adds to copies. */
export function withoutCitation(text: string): string {
  return text.replace(FROM_RE, '');
}

/** Key for "the same fact": normalized text without tags, ids and citation. */
export function factKey(text: string): string {
  return normalizeText(withoutCitation(text));
}

/** The line a canonical home receives (form 1 in the module comment). */
export function homeLine(e: Pick<SourcedEntry, 'day' | 'time' | 'type' | 'text' | 'id' | 'path'>, type: EntryType | undefined = e.type): string {
  const day = e.day;
  const head = [day && e.time ? `${day} ${e.time}` : day ?? e.time, type ? `[${type}]` : undefined].filter(Boolean).join(' ');
  const text = withoutCitation(e.text);
  return `- ${head ? head + ' ' : ''}${text}${e.id ? ` ^${e.id}` : ` (from ${e.path})`}`;
}

const TITLES: Record<string, string> = {
  'memory/semantic/decisions.md': 'Decisions',
  'memory/semantic/preferences.md': 'Preferences',
  'memory/semantic/projects.md': 'Projects',
  'memory/semantic/infrastructure.md': 'Infrastructure',
  'memory/semantic/people.md': 'People',
  'memory/procedural/lessons-learned.md': 'Lessons learned',
  'knowledge/project-tracker.md': 'Project tracker',
};

export function titleOf(rel: string): string {
  return TITLES[rel] ?? rel.replace(/^.*\//, '').replace(/\.md$/, '').replace(/[-_]+/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

/**
 * Append lines to a home file's text; a missing file is created with its tags on line 2 (the
 * tags of what it receives that the vocabulary allows, `friction` aside) and `last_verified`.
 */
export function appendLines(current: string | undefined, rel: string, lines: string[], tags: string[], today: string): string {
  if (current === undefined) {
    const t = [...new Set(tags.filter((x) => x !== 'friction'))].sort();
    return `---\ntags: [${t.join(', ')}]\nlast_verified: ${today}\n---\n# ${titleOf(rel)}\n\n${lines.join('\n')}\n`;
  }
  const base = current.length === 0 || current.endsWith('\n') ? current : current + '\n';
  return base + lines.join('\n') + '\n';
}

/** Ids (`^id` at a line's end) in a text. */
export function idSet(text: string | undefined): Set<string> {
  const out = new Set<string>();
  if (!text) return out;
  for (const m of text.matchAll(/\s\^([A-Za-z0-9][A-Za-z0-9-]{2,63})[ \t]*$/gm)) out.add(m[1]!);
  return out;
}

// ---- MEMORY.md ------------------------------------------------------------------------------

const MANAGED_RE = /\]\(([^)\s#]+)#\^([A-Za-z0-9][A-Za-z0-9-]{2,63})\)\s+\^([A-Za-z0-9][A-Za-z0-9-]{2,63})\s*$/;

export interface ManagedLine { line: number; raw: string; id: string; target: string }

/** Lines memtier added to MEMORY.md (form 2 in the module comment). */
export function managedLines(text: string): ManagedLine[] {
  const out: ManagedLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const m = MANAGED_RE.exec(raw);
    if (m && m[2] === m[3] && /^[-*] /.test(raw)) out.push({ line: i + 1, raw, id: m[2]!, target: linkPath(m[1]!) });
  });
  return out;
}


/** Short label of a link target: the day for dated files, the file name otherwise. */
export function linkLabel(rel: string): string {
  return /(\d{4}-\d{2}-\d{2})/.exec(rel.replace(/^.*\//, ''))?.[1] ?? rel.replace(/^.*\//, '').replace(/\.md$/, '');
}

export const INDEX_TEXT_MAX = 90;

/** A clean MEMORY.md index line for an entry at `target` (form 2): no time, type, tags, scores. */
export function indexLine(text: string, target: string, id: string): string {
  let t = plainText(withoutCitation(text)).replace(/\s*[—–]\s*$/, '');
  if ([...t].length > INDEX_TEXT_MAX) t = [...t].slice(0, INDEX_TEXT_MAX - 1).join('').replace(/\s+\S*$/, '') + '…';
  t = t.replace(/^./, (c) => c.toUpperCase());
  return `- ${t} — [${linkLabel(target)}](${linkDest(target)}#^${id}) ^${id}`;
}

/** The section a managed line of this type goes to. */
export function indexSection(type: EntryType | undefined): string {
  return type === 'DECISION' ? '## Active decisions' : '## Key facts';
}

/** Remove 1-based line numbers from a text. */
export function removeLines(text: string, lineNos: number[]): string {
  const drop = new Set(lineNos);
  return text.split('\n').filter((_, i) => !drop.has(i + 1)).join('\n');
}

/** Today and a window start `days` back (inclusive). */
export function windowDays(ctx: Ctx, days: number): { today: string; from: string } {
  const today = localDate(ctx.clock.now(), ctx.clock.tz);
  return { today, from: addDays(today, -(days - 1)) };
}

export const MEMORY_INDEX = PATHS.memoryIndex;

/** Content words of a text (lower-case, 4+ letters, no stop words, no tags/ids/links). */
export function contentWords(text: string, stop: Set<string>): string[] {
  const t = plainText(withoutCitation(text)).toLowerCase().replace(/\]\([^)]*\)/g, ']').replace(/\^[a-z0-9-]+/g, ' ');
  const out: string[] = [];
  for (const m of t.matchAll(/[\p{L}][\p{L}\p{N}'-]*/gu)) {
    const w = m[0].replace(/'s$/, '');
    if ([...w].length >= 4 && !stop.has(w)) out.push(w);
  }
  return out;
}

// ---- activation -------------------------------------------------------------------------------

export interface RecallRec { count: number; queries: string[]; days: string[]; last: string }

/** The recall-history key of an entry (lib/search/history.ts): its `^id`, else `path#Lline`. */
/** The recall-history key of an entry: its `^id`, else its words and day (the key search records). */
export function historyKey(e: { id?: string | undefined; path: string; text: string; date?: string | undefined }): string {
  return e.id ?? contentKey(e.text, keyAnchor(e.path, classify(e.path).date, e.date));
}

/**
 * The history key of an entry when the recall history holds it (else undefined), cheaply: an entry
 * without an `^id` is hashed (contentKey) only where the history holds a key of its anchor (its day
 * or file). Hashing the words of every entry of a log-heavy memory (half a million) to find the few
 * hundred ever recalled took a third of consolidate's time.
 */
export function recalledKey(history: Map<string, RecallRec>): (e: { id?: string | undefined; path: string; text: string; date?: string | undefined }) => string | undefined {
  const anchors = new Set<string>();
  for (const k of history.keys()) if (k.startsWith('~')) anchors.add(k.slice(k.indexOf('@') + 1));
  let lastPath: string | undefined;
  let lastDate: string | undefined;
  return (e) => {
    if (e.id) return history.has(e.id) ? e.id : undefined;
    if (anchors.size === 0) return undefined;
    if (e.path !== lastPath) { lastPath = e.path; lastDate = classify(e.path).date; }
    const anchor = keyAnchor(e.path, lastDate, e.date);
    if (!anchors.has(anchor)) return undefined;
    const k = contentKey(e.text, anchor);
    return history.has(k) ? k : undefined;
  };
}

/** Activation of an entry today (lib/search/activation.ts) from its date, type and recall history. */
export function activationFn(history: Map<string, RecallRec>, today: string, tz: string, activationOn: (i: {
  type?: EntryType; date?: string; lastRecall?: string; recallCount?: number; kind?: string;
}, today: string, tz: string) => number): (e: MemEntry) => number {
  const keyOf = recalledKey(history);
  return (e) => {
    const k = keyOf(e);
    const r = k === undefined ? undefined : history.get(k);
    return activationOn({
      ...(e.type ? { type: e.type } : {}),
      ...(e.day ? { date: e.day } : {}),
      kind: e.kind,
      ...(r ? { lastRecall: r.last, recallCount: r.count } : {}),
    }, today, tz);
  };
}
