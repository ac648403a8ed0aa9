/**
 * Verify (seed 001's Refinement and drift rules): find what in memory is no longer true.
 *
 *  - dead references: markdown links `[t](path)` / `[t](path#^id)` and back-ticked paths
 *    (`memory/x.md`, `/etc/app.conf`, `~/bin/tool`) that do not exist (an `#^id` must exist in
 *    the target);
 *  - relative dates in durable notes ("yesterday", "last week", "明天", "上周"), each with the
 *    absolute date it meant, from the entry's date or the note's `created`/`last_verified`;
 *  - contradictions: the same subject and attribute with different values ("X is A" / "X is B",
 *    graph `s · p · o` facts), two SESSION-STATE values for one key, a decision reversed later
 *    ("…instead of X", "switch from X", "no longer X") while the earlier one is not struck through;
 *  - notes whose `last_verified` is older than 30 days.
 * Scans durable files only (MEMORY.md, SESSION-STATE, todos, semantic, procedural, graph,
 * knowledge, notes): logs are history and may say "yesterday". Pure reads; the report is the only write.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, posix } from 'node:path';
import { daysBetween } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { parseFrontmatter, startsWithFrontmatter } from '../format/frontmatter.js';
import { parseSimpleFrontmatter } from '../format/frontmatter-simple.js';
import { classify, listMemoryFiles, PATHS, type FileKind } from '../format/layout.js';
import { parseEntries, parseEntryLine, type LocatedEntry } from '../format/entry.js';
import { holdsTimeWords, mayBeRelative, readTimes, type TimePhrase } from '../format/time/read.js';
import { readMemoryFile } from '../store/store.js';
import { cite, linkDest, normalizeText, today, type SourcedEntry } from './common.js';

export const VERIFIED_MAX_DAYS = 30;
const DURABLE: ReadonlySet<FileKind> = new Set(['memory-index', 'session-state', 'todos', 'semantic', 'procedural', 'graph', 'knowledge', 'note']);

export type FindingKind = 'dead-path' | 'relative-date' | 'contradiction' | 'session-state' | 'reversed-decision' | 'stale' | 'unparsable';

export interface VerifyOptions {
  /** Also check paths and links in the episodic days of the last N days (default 0: logs are history). */
  days?: number;
  /** last_verified older than this many days is stale (default 30). */
  staleDays?: number;
}

export interface VerifyFinding {
  kind: FindingKind;
  file: string;
  line: number;
  message: string;
  /** Other places involved (contradictions). */
  related?: string[];
  /** For relative dates: the absolute date (or range) meant. */
  meant?: string;
}

interface FileText {
  rel: string;
  kind: FileKind;
  text: string;
  /** The text's lines (split when first asked for: most checks skip most files). */
  readonly lines: string[];
  /** `lines` with frontmatter, fenced code and HTML comments blanked (same numbering): what is scanned for paths and dates. */
  readonly scan: string[];
  base?: string;
}

/**
 * The memory as one verify run sees it: the file list walked once, each file read once (its
 * error kept and thrown again to every caller, as a fresh read would) and its entries parsed
 * once — the checks below share it instead of each reading and parsing every file again.
 */
interface Memory {
  files: string[];
  /** Strict read (lib/memory/reader.ts): undefined when missing; throws what the read threw. */
  text(rel: string): string | undefined;
  /** Bullet entries of the file's text (parseEntries); throws what the read threw. */
  entries(rel: string): LocatedEntry[];
  /**
   * The entries on lines holding one of `markers` (what entries(rel) has on those lines), parsing
   * only those lines unless the whole file is parsed already: a scan for `[DECISION]` entries
   * need not parse the 10,000 other lines of the logs.
   */
  entriesWith(rel: string, markers: readonly string[]): LocatedEntry[];
  /** The entry on 0-based line `i` of a file (as entries(rel) has it), without parsing the others. */
  entryAt(rel: string, lines: readonly string[], i: number): LocatedEntry | undefined;
}

function memoryOf(ctx: Ctx): Memory {
  const files = listMemoryFiles(ctx.root);
  // folders already found real (not links) by an earlier read of this run: each is looked at once
  const folders = new Set<string>();
  const reads = new Map<string, { text: string | undefined } | { error: unknown }>();
  const parsed = new Map<string, LocatedEntry[]>();
  const text = (rel: string): string | undefined => {
    let r = reads.get(rel);
    if (!r) {
      // this memo is the run's one read of each file (readOnce's cache would keep a second copy of the memory)
      try { r = { text: readMemoryFile(ctx.root, rel, folders) }; } catch (error) { r = { error }; }
      reads.set(rel, r);
    }
    if ('error' in r) throw r.error;
    return r.text;
  };
  const byLine = new Map<string, Map<number, LocatedEntry>>();
  const marked = new Map<string, LocatedEntry[]>();
  const entries = (rel: string): LocatedEntry[] => {
    let e = parsed.get(rel);
    if (!e) { e = parseEntries(text(rel) ?? ''); parsed.set(rel, e); }
    return e;
  };
  const linesWith = (rel: string, markers: readonly string[]): LocatedEntry[] => {
    const done = parsed.get(rel);
    if (done) return done.filter((e) => markers.some((m) => e.raw.includes(m)));
    const t = text(rel) ?? '';
    // the starts of the lines holding a marker, in order
    const starts = new Set<number>();
    for (const m of markers) {
      let at = t.indexOf(m);
      while (at >= 0) {
        starts.add(t.lastIndexOf('\n', at) + 1);
        const end = t.indexOf('\n', at);
        at = end < 0 ? -1 : t.indexOf(m, end + 1); // on to the next line
      }
    }
    const out: LocatedEntry[] = [];
    let line = 1;
    let from = 0;
    for (const start of [...starts].sort((a, b) => a - b)) {
      for (let k = t.indexOf('\n', from); k >= 0 && k < start; k = t.indexOf('\n', k + 1)) line++;
      from = start;
      const end = t.indexOf('\n', start);
      const raw = end < 0 ? t.slice(start) : t.slice(start, end);
      const e = parseEntryLine(raw);
      if (e) out.push({ ...e, line, raw });
    }
    return out;
  };
  return {
    files,
    text,
    entries,
    entriesWith(rel, markers) {
      // the decisions' scan and the pointers' scan ask the same (DECISION_MARKS): one scan a file
      const key = `${markers.join('\u0000')}\u0000${rel}`;
      let known = marked.get(key);
      if (!known) marked.set(key, (known = linesWith(rel, markers)));
      return known;
    },
    entryAt(rel, lines, i) {
      const done = parsed.get(rel);
      if (done) {
        let m = byLine.get(rel);
        if (!m) byLine.set(rel, (m = new Map(done.map((e) => [e.line, e]))));
        return m.get(i + 1);
      }
      const raw = lines[i]!;
      const e = parseEntryLine(raw);
      return e ? { ...e, line: i + 1, raw } : undefined;
    },
  };
}

/**
 * Blank what is not prose: the frontmatter block, fenced code blocks and HTML comments (the
 * skeleton's `<!-- - [Title](path) -->` format hints are not links). Line numbers are kept.
 */
export function proseLines(lines: string[], bodyLine = 1): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  let comment = false;
  lines.forEach((line, i) => {
    if (i + 1 < bodyLine) { out.push(''); return; }
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length) fence = undefined;
      out.push('');
      return;
    }
    if (f && !comment) { fence = f[1]!; out.push(''); return; }
    let kept = '';
    let rest = line;
    while (rest.length) {
      if (comment) {
        const end = rest.indexOf('-->');
        if (end < 0) break;
        comment = false;
        rest = rest.slice(end + 3);
      } else {
        const start = rest.indexOf('<!--');
        if (start < 0) { kept += rest; break; }
        kept += rest.slice(0, start);
        comment = true;
        rest = rest.slice(start + 4);
      }
    }
    out.push(kept);
  });
  return out;
}

/** A date field of parsed frontmatter as `YYYY-MM-DD`. */
function fmDate(data: Record<string, unknown>, field: string): string | undefined {
  const v = data[field];
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : undefined;
}

const FRONT_DATE = new Map<string, RegExp>();
function frontDate(lines: string[], field: string): string | undefined {
  let re = FRONT_DATE.get(field);
  if (!re) FRONT_DATE.set(field, (re = new RegExp(`^\\s*#?\\s*${field}\\s*:\\s*["']?(\\d{4}-\\d{2}-\\d{2})`, 'i')));
  for (const l of lines.slice(0, 12)) {
    const m = re.exec(l);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Durable files, read strictly. A file that cannot be read or whose frontmatter does not parse
 * (lib/format/frontmatter.ts) is an `unparsable` finding and is left out of the other checks
 * (memtier never rewrites what it could not parse). With `days`, episodic days of the last
 * `days` days are returned too (for paths only).
 */
function durableFiles(ctx: Ctx, mem: Memory, problems: VerifyFinding[], days = 0): { durable: FileText[]; recent: FileText[] } {
  const durable: FileText[] = [];
  const recent: FileText[] = [];
  const t = today(ctx);
  for (const rel of mem.files) {
    const info = classify(rel);
    const isRecent = (info.kind === 'episodic' || info.kind === 'legacy-daily') && !!info.date && days > 0 && daysBetween(info.date, t) < days;
    if ((!DURABLE.has(info.kind) && !isRecent) || info.kind === 'format') continue;
    let text: string | undefined;
    let data: Record<string, unknown> = {};
    let bodyLine = 1;
    try {
      text = mem.text(rel);
      if (text !== undefined && startsWithFrontmatter(text.replace(/^\uFEFF/, ''))) {
        const fm = parseSimpleFrontmatter(text) ?? parseFrontmatter(text, rel);
        data = fm.data;
        bodyLine = fm.bodyLine;
      }
    } catch (e) {
      const me = e as { line?: number; message?: string; hint?: string };
      problems.push({ kind: 'unparsable', file: rel, line: me.line ?? 1, message: `${me.message ?? String(e)}: fix it by hand${me.hint ? ` (${me.hint})` : ''}; memtier does not rewrite it` });
      continue;
    }
    if (text === undefined) continue;
    const base = fmDate(data, 'created') ?? fmDate(data, 'date') ?? fmDate(data, 'last_verified') ?? frontDate(text.split('\n', 12), 'created') ?? frontDate(text.split('\n', 12), 'last_verified');
    let lines: string[] | undefined;
    let scan: string[] | undefined;
    const plain = !text.includes('```') && !text.includes('~~~') && !text.includes('<!--');
    const f: FileText = {
      rel, kind: info.kind, text,
      get lines() { return (lines ??= text.split('\n')); },
      // without fences or comments the prose is every line below the frontmatter
      get scan() { return (scan ??= plain ? (bodyLine > 1 ? this.lines.map((l, i) => (i + 1 < bodyLine ? '' : l)) : this.lines) : proseLines(this.lines, bodyLine)); },
      ...(base ? { base } : {}),
    };
    (isRecent ? recent : durable).push(f);
  }
  return { durable, recent };
}

// ---------- dead references ----------
const LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const TICK = /`([^`\s]+)`/g;

function looksLikePath(s: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:/i.test(s)) return false; // url
  if (s.startsWith('~/') || s.startsWith('/') || s.startsWith('./') || s.startsWith('../')) return s.length > 2 && !/[*?<>{}$|]/.test(s);
  return /^[\w.@-]+(?:\/[\w.@-]+)+\/?$/.test(s) && /\.[a-z0-9]{1,6}$|\/$/i.test(s);
}

function deadRefs(ctx: Ctx, mem: Memory, files: FileText[]): VerifyFinding[] {
  const out: VerifyFinding[] = [];
  const idCache = new Map<string, Set<string>>();
  const idsOf = (rel: string): Set<string> => {
    let s = idCache.get(rel);
    if (!s) {
      s = new Set();
      try { for (const e of mem.entries(rel)) if (e.id) s.add(e.id); } catch { /* unreadable: no ids */ }
      idCache.set(rel, s);
    }
    return s;
  };
  const resolveRel = (from: string, p: string): { abs: string; rel?: string } => {
    if (p.startsWith('~/')) return { abs: join(ctx.env.HOME ?? '/nonexistent', p.slice(2)) };
    if (isAbsolute(p)) return { abs: p };
    const dir = posix.dirname(from);
    const rel = posix.normalize(p.startsWith('./') || p.startsWith('../') ? posix.join(dir, p) : p);
    // a bare path is tried from the root first, then from the note's folder
    if (!p.startsWith('.') && !existsSync(join(ctx.root, rel))) {
      const local = posix.normalize(posix.join(dir, p));
      if (existsSync(join(ctx.root, local))) return { abs: join(ctx.root, local), rel: local };
    }
    return { abs: join(ctx.root, rel), rel };
  };
  for (const f of files) {
    // a link needs "](" and a path "`" (a file without either, and without comments that could join them, has neither)
    if (!f.text.includes('`') && !f.text.includes('](') && !f.text.includes('<!--')) continue;
    f.scan.forEach((line, i) => {
      if (!line.includes('`') && !line.includes('](')) return;
      if (/^\s*~~/.test(line.replace(/^[-*]\s+/, ''))) return; // superseded lines are history
      const seen = new Set<string>();
      const check = (target: string, how: string): void => {
        if (seen.has(target)) return;
        seen.add(target);
        const [p, anchor] = target.split('#', 2) as [string, string | undefined];
        if (!p) return;
        const r = resolveRel(f.rel, decodeURI(p));
        if (!existsSync(r.abs)) {
          out.push({ kind: 'dead-path', file: f.rel, line: i + 1, message: `${how} ${p} does not exist` });
          return;
        }
        if (anchor?.startsWith('^') && r.rel && r.rel.endsWith('.md') && !idsOf(r.rel).has(anchor.slice(1))) {
          out.push({ kind: 'dead-path', file: f.rel, line: i + 1, message: `${p} has no entry ^${anchor.slice(1)}` });
        }
      };
      for (const m of line.matchAll(LINK)) {
        const t = m[1]!;
        if (t.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(t)) continue;
        check(t, 'link to');
      }
      for (const m of line.matchAll(TICK)) if (looksLikePath(m[1]!)) check(m[1]!, 'path');
    });
  }
  return out;
}

// ---------- relative dates ----------
/** What a relative phrase meant, as the person should write it: a day, the week of its Monday, a month, a year, or a span. */
function meaning(p: TimePhrase): string {
  switch (p.unit) {
    case 'day': return p.from;
    case 'about': return `around ${p.day ?? p.from}`;
    case 'week': return `the week of ${p.from}`;
    case 'month': return p.from.slice(0, 7);
    case 'year': return p.from.slice(0, 4);
    default: return `${p.from} to ${p.to}`;
  }
}

function relativeDates(mem: Memory, files: FileText[]): VerifyFinding[] {
  const out: VerifyFinding[] = [];
  for (const f of files) {
    if (!f.text.includes('`') && !f.text.includes('<!--') && !f.text.includes('http') && !holdsTimeWords(f.text)) continue;
    let headingDate: string | undefined;
    f.scan.forEach((line, i) => {
      if (!line.trim()) return;
      const h = /^(#{1,6})\s+(.*)$/.exec(line);
      if (h) {
        // a dated section ("## 2026-05-01 launch") dates the lines under it
        const d = /\b(\d{4}-\d{2}-\d{2})\b/.exec(h[2]!)?.[1];
        if (d || h[1]!.length >= 2) headingDate = d;
        return;
      }
      const e = mem.entryAt(f.rel, f.lines, i);
      if (e?.superseded) return;
      const text = (e ? e.text : line).replace(/`[^`]*`/g, '').replace(/<!--.*?-->/g, '').replace(/\bhttps?:\/\/\S+/g, '');
      // the first phrase read against the day it was written (a weekday or a day of the year alone is not relative)
      const base = e?.date ?? /\b(\d{4}-\d{2}-\d{2})\b/.exec(text)?.[1] ?? headingDate ?? f.base;
      const p = mayBeRelative(text) ? readTimes(text, base ?? '2000-01-01', { lean: 'note', bareWeekdays: false, relativeOnly: true }).find((x) => x.deictic) : undefined;
      if (!p) return;
      // already written out: "yesterday (2026-05-14)"
      if (/^\s*\(?\s*\d{4}-\d{2}-\d{2}/.test(text.slice(p.end))) return;
      const meant = base ? meaning(p) : undefined;
      out.push({
        kind: 'relative-date', file: f.rel, line: i + 1,
        message: meant ? `"${p.text}" (written ${base}) meant ${meant}: write the absolute date` : `"${p.text}" has no date to resolve from: write the absolute date`,
        ...(meant ? { meant } : {}),
      });
    });
  }
  return out;
}

// ---------- contradictions ----------
const STOP = new Set(['the', 'a', 'an', 'our', 'my', 'its', 'their', 'this', 'that']);
/** Keys of `key: value` lines that are labels (seed 001's Why / How to apply, closure blocks…), not attributes. */
const LABEL_KEYS = new Set([
  'why', 'how', 'how to apply', 'note', 'notes', 'example', 'examples', 'e.g', 'eg', 'i.e', 'ie', 'see', 'see also', 'tip', 'warning',
  'important', 'todo', 'updated', 'decisions', 'signal', 'open', 'tags', 'last_verified', 'last verified', 'created', 'source',
  'sources', 'reason', 'because', 'context', 'result', 'q', 'a', 'question', 'answer', 'fix', 'cause', 'lesson', 'problem', 'solution',
  'description', 'summary', 'type', 'date', 'time', 'when', 'who', 'what', 'where', 'link', 'links', 'ref', 'refs', 'also', 'nb',
  'ps', 'update', 'edit', 'caveat', 'rule', 'goal', 'next', 'done', 'pros', 'cons', 'idea', 'step',
]);
const PRONOUNS = new Set(['it', 'this', 'that', 'he', 'she', 'they', 'there', 'which', 'what', 'who', 'here', 'everything', 'nothing', 'something', 'one', 'each', 'i', 'we', 'you']);

const CLAIM_MARK = /[·:=→>]/;
const IS_MARK = /\s(?:is|are)\s/iu;

/** A fact's subject+attribute and value: graph `s · p · o`, `key: value`, or (bullets) `X is <name/number/version>`. */
function claimOf(text: string, bullet: boolean): { key: string; value: string } | undefined {
  // each form needs a separator or " is " in the text as written (taking out tags and spaces adds neither)
  if (!CLAIM_MARK.test(text) && !(bullet && IS_MARK.test(text))) return undefined;
  const t = text.replace(/(?:^|\s)#[\p{L}][\p{L}\p{N}_/-]*/gu, '').replace(/\s+/g, ' ').trim().replace(/[.!]$/, '');
  const g = /^(.+?)\s+·\s+(.+?)\s+·\s+(.+)$/.exec(t);
  if (g) return { key: `${normalizeText(g[1]!)} | ${normalizeText(g[2]!)}`, value: normalizeText(g[3]!) };
  const kv = /^(\*\*|__)?([\p{L}][\p{L}\p{N} _./-]{0,40}?)\1?\s*(?::|=|→|->)\1?\s+(\S.*)$/u.exec(t);
  if (kv) {
    const key = normalizeText(kv[2]!);
    if (!key || LABEL_KEYS.has(key) || key.split(' ').length > 5) return undefined;
    const value = normalizeText(kv[3]!);
    return value ? { key, value } : undefined;
  }
  if (!bullet) return undefined;
  const is = /^([\p{L}][\p{L}\p{N} _.'-]{1,50}?)\s+(?:is|are)\s+(?:now\s+|still\s+)?(.{1,60})$/iu.exec(t);
  if (!is) return undefined;
  const key = normalizeText(is[1]!).split(' ').filter((w) => !STOP.has(w)).join(' ');
  const raw = is[2]!.trim();
  if (!key || key.split(' ').length > 4 || PRONOUNS.has(key.split(' ')[0]!)) return undefined;
  // identity values only (names, numbers, versions, hosts): "the primary db is PostgreSQL", not "the API is fast"
  if (/\b(?:not|never|no)\b/i.test(raw) || !/[\p{Lu}\p{N}./@:]/u.test(raw) || raw.split(/\s+/).length > 6) return undefined;
  return { key: `${key} is`, value: normalizeText(raw) };
}

/**
 * One subject and attribute with different values, in semantic notes and the graph. The subject
 * is scoped by its `##` section ("## web-1 / IP" and "## web-2 / IP" are different subjects).
 */
function contradictions(mem: Memory, files: FileText[]): VerifyFinding[] {
  const out: VerifyFinding[] = [];
  const claims = new Map<string, { value: string; shown: string; at: string; file: string; line: number }[]>();
  for (const f of files) {
    if (f.kind !== 'semantic' && f.kind !== 'graph') continue;
    let section = '';
    f.scan.forEach((line, i) => {
      const h = /^(#{1,6})\s+(.*)$/.exec(line);
      if (h) { if (h[1]!.length >= 2) section = normalizeText(h[2]!); return; }
      if (!line.trim()) return;
      if (!CLAIM_MARK.test(line) && !IS_MARK.test(line)) return; // no claim (its entry's text is part of the line)
      const e = mem.entryAt(f.rel, f.lines, i);
      if (e?.superseded) return;
      const c = claimOf(e ? e.text : line.trim(), !!e);
      if (!c) return;
      const k = `${c.key.includes(' | ') ? '' : section}\u0000${c.key}`;
      const at = e ? cite({ ...e, path: f.rel }) : `${f.rel}#L${i + 1}`;
      const list = claims.get(k);
      const claim = { value: c.value, shown: c.key, at, file: f.rel, line: i + 1 };
      if (list) list.push(claim); else claims.set(k, [claim]);
    });
  }
  for (const [k, list] of claims) {
    const values = [...new Set(list.map((x) => x.value))];
    if (values.length < 2) continue;
    const first = list[0]!;
    const others = list.filter((x) => x.value !== first.value);
    const section = k.split('\u0000')[0];
    out.push({
      kind: 'contradiction', file: first.file, line: first.line,
      message: `"${first.shown}"${section ? ` (under "${section}")` : ''} has ${values.length} different values: ${values.map((v) => `"${v}"`).join(' vs ')}; keep one and supersede the other (memtier supersede)`,
      related: others.map((x) => x.at),
    });
  }
  return out;
}

function sessionStateConflicts(files: FileText[]): VerifyFinding[] {
  const out: VerifyFinding[] = [];
  const f = files.find((x) => x.kind === 'session-state');
  if (!f) return out;
  let section = '';
  const seen = new Map<string, { value: string; line: number }>();
  // only Key Context holds key: value facts (seed 002 calls it "Context"); Pending/Done items may share a prefix
  f.scan.forEach((line, i) => {
    const h = /^#{1,6}\s+(.+)$/.exec(line);
    if (h) { section = h[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim(); return; }
    if (section !== 'key context' && section !== 'context') return;
    const m = /^[-*]\s+\*{0,2}([\p{L}][\p{L}\p{N}_ /-]{0,40}?)\*{0,2}\s*:\*{0,2}\s+(.+)$/u.exec(line.trim());
    if (!m || /^(updated|last[_ ]verified|created)$/i.test(m[1]!)) return;
    const k = `${section} / ${m[1]!.trim().toLowerCase()}`;
    const v = m[2]!.trim();
    const prev = seen.get(k);
    if (prev && normalizeText(prev.value) !== normalizeText(v)) {
      out.push({ kind: 'session-state', file: f.rel, line: i + 1, message: `"${m[1]!.trim()}" has two values: "${prev.value}" (line ${prev.line}) and "${v}"; keep the current one`, related: [`${f.rel}#L${prev.line}`] });
    } else if (!prev) seen.set(k, { value: v, line: i + 1 });
  });
  return out;
}

export const REVERSAL = /\b(?:instead of|rather than|switch(?:ed|ing)? (?:away )?from|replac(?:e|es|ed|ing)|no longer(?: use)?|stop(?:ped)? using|drop(?:ped)?|revert(?:ed)?(?: from)?|move(?:d)? (?:away )?from|not)\s+((?:[\w.+-]+\s*){1,3})/gi;
const WEAK = new Set(['use', 'the', 'a', 'an', 'to', 'for', 'with', 'and', 'of', 'in', 'on', 'it', 'we', 'cache', 'is', 'be']);
/** "switch back to X": what is reversed is the latest earlier decision on the topic that chose something else. */
export const BACK_TO = /\b(?:switch(?:ed|ing)? back to|go(?:ing)? back to|went back to|revert(?:ed|ing)? (?:back )?to|return(?:ed|ing)? to|back to)\s+((?:[\w.+-]+\s*){1,3})/i;
export const BACK_WORDS = new Set(['switch', 'switched', 'switching', 'back', 'going', 'went', 'revert', 'reverted', 'reverting', 'return', 'returned', 'returning', 'decided', 'decide', 'after', 'all']);

/** The words of a decision that can name its topic or its choice (3+ letters, not WEAK). */
export function words(s: string): Set<string> {
  const out = new Set<string>();
  for (const w of normalizeText(s).split(' ')) if (w.length >= 3 && !WEAK.has(w)) out.add(w);
  return out;
}

/** A decision as findReversals needs it: its text and when it was made (`YYYY-MM-DD HH:MM`). */
export interface Decided { text: string; when: string }

/**
 * Which earlier decision each later one reverses, as [earlier, later] index pairs, in the order
 * of the later one. `decisions` are sorted by `when`. A later decision reverses at most one
 * earlier decision (the latest on its topic) and an earlier one is reported once: a reversal is a
 * pair, not a cross product.
 *
 * - "switch back to X": the latest earlier decision sharing a word with X or with the rest of the
 *   later one's words is reversed, unless it already chose X (mentions X, not as the object of a
 *   reversal like "instead of X").
 * - "instead of X", "no longer X", …: the latest earlier decision that mentions X, is on the same
 *   topic (at least 2 shared words, half of the smaller one's) and is not itself against X.
 *
 * Candidates come from word postings built as the decisions are visited (so they hold only
 * earlier ones); nothing is compared pairwise. A "back to" is one look at the tail of a few
 * postings. A reversal's candidates are either the decisions holding one of its objects X, or
 * those that can be on its topic — sharing t = max(2, ⌈min(|a|, |b|) / 2⌉) words — found by
 * prefix filtering as in set similarity joins: with words ordered rarest first, two word sets
 * sharing t words share one among the first |x| − t + 1 words of the smaller one, x; so an
 * earlier decision at least as large is found through the postings of the later one's prefix,
 * a smaller one through postings of prefixes. Whichever source touches fewer postings is used;
 * both hold every decision that passes, so the result is the same.
 */
export function findReversals(decisions: readonly Decided[]): [number, number][] {
  const n = decisions.length;
  const texts = decisions.map((d) => d.text);
  const whens = decisions.map((d) => d.when);
  const sets = texts.map(words);
  // each decision's words as ranks, ascending (rarest first): decision i's are words[from[i] .. from[i + 1])
  const from = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) from[i + 1] = from[i]! + sets[i]!.size;
  const wordsOf = new Int32Array(from[n]!);
  // words by rank: fewest decisions first (ties by first appearance); wordsOf holds first-appearance numbers until ranked
  const firstSeen = new Map<string, number>();
  const counts: number[] = [];
  for (let i = 0, at = 0; i < n; i++) {
    for (const w of sets[i]!) {
      let k = firstSeen.get(w);
      if (k === undefined) { k = counts.length; firstSeen.set(w, k); counts.push(1); } else counts[k]!++;
      wordsOf[at++] = k;
    }
  }
  const V = counts.length;
  const order = Int32Array.from({ length: V }, (_, k) => k).sort((x, y) => counts[x]! - counts[y]! || x - y);
  const rankOf = new Int32Array(V);
  order.forEach((k, r) => { rankOf[k] = r; });
  const rank = new Map<string, number>();
  for (const [w, k] of firstSeen) rank.set(w, rankOf[k]!);
  /** Words two decisions of which the smaller has `size` words must share to be on one topic. */
  const need = (size: number): number => Math.max(2, Math.ceil(size / 2));
  /** How many of a decision's first (rarest) words another on its topic must share one of. */
  const prefixOf = (size: number): number => (size >= 2 ? size - need(size) + 1 : 0);
  for (let k = 0; k < wordsOf.length; k++) wordsOf[k] = rankOf[wordsOf[k]!]!;
  for (let i = 0; i < n; i++) wordsOf.subarray(from[i]!, from[i + 1]!).sort();
  const size = (i: number): number => from[i + 1]! - from[i]!;
  // postings of every word and of prefix words, decisions ascending, in flat arrays; at decision j
  // a word's list is read up to its `seen` count, so it holds only earlier decisions
  const postStart = new Int32Array(V + 1);
  const prefStart = new Int32Array(V + 1);
  for (let i = 0; i < n; i++) {
    const p = prefixOf(size(i));
    for (let k = from[i]!; k < from[i + 1]!; k++) {
      const r = wordsOf[k]!;
      postStart[r + 1] = postStart[r + 1]! + 1;
      if (k - from[i]! < p) prefStart[r + 1] = prefStart[r + 1]! + 1;
    }
  }
  for (let r = 0; r < V; r++) { postStart[r + 1] = postStart[r + 1]! + postStart[r]!; prefStart[r + 1] = prefStart[r + 1]! + prefStart[r]!; }
  const post = new Int32Array(postStart[V]!);
  const pref = new Int32Array(prefStart[V]!);
  const postLen = new Int32Array(V);
  const prefLen = new Int32Array(V);
  const sameTopic = (i: number, j: number): boolean => {
    const t = need(Math.min(size(i), size(j)));
    let shared = 0;
    const xe = from[i + 1]!;
    const ye = from[j + 1]!;
    // stop as soon as the words left on the shorter side cannot make up the count
    for (let x = from[i]!, y = from[j]!; x < xe && y < ye;) {
      const d = wordsOf[x]! - wordsOf[y]!;
      if (d < 0) { x++; if (shared + xe - x < t) return false; }
      else if (d > 0) { y++; if (shared + ye - y < t) return false; }
      else if (++shared >= t) return true;
      else { x++; y++; }
    }
    return false;
  };
  const flagged = new Uint8Array(n);
  /** seen[i] === j: decision i is already a candidate of decision j. */
  const seen = new Int32Array(n).fill(-1);
  /** objectOf[r] === j: word r is an object of decision j's reversal. */
  const objectOf = new Int32Array(V).fill(-1);
  const holdsObject = (i: number, j: number): boolean => {
    for (let k = from[i]!; k < from[i + 1]!; k++) if (objectOf[wordsOf[k]!] === j) return true;
    return false;
  };
  const candidates = new Int32Array(n);
  const against: (Set<string>[] | undefined)[] = new Array(n);
  /** The word sets of what decision i reverses ("instead of X": X), computed once. */
  const objectsOf = (i: number): Set<string>[] => (against[i] ??= [...texts[i]!.matchAll(REVERSAL)].map((m) => words(m[1]!)));
  /** The latest earlier decision holding `w` that is not reported yet, or -1. */
  const latestWith = (w: string): number => {
    const r = rank.get(w);
    if (r !== undefined) for (let k = postStart[r]! + postLen[r]! - 1; k >= postStart[r]!; k--) if (!flagged[post[k]!]) return post[k]!;
    return -1;
  };
  const out: [number, number][] = [];
  for (let j = 0; j < n; j++) {
    const text = texts[j]!;
    const mine = size(j);
    const back = BACK_TO.exec(text);
    if (back) {
      const chosen = words(back[1]!);
      const topic = [...sets[j]!].filter((w) => !chosen.has(w) && !BACK_WORDS.has(w));
      // the latest earlier decision holding a word of X or of the topic decides
      let i = -1;
      for (const w of chosen) i = Math.max(i, latestWith(w));
      for (const w of topic) i = Math.max(i, latestWith(w));
      if (i >= 0) {
        const aw = sets[i]!;
        const mentionsChosen = [...chosen].some((w) => aw.has(w));
        const againstChosen = objectsOf(i).some((o) => [...o].some((w) => chosen.has(w)));
        // unless the latest decision on the topic already chose X
        if (!mentionsChosen || againstChosen) { flagged[i] = 1; out.push([i, j]); }
      }
    } else if (mine >= 2) {
      const objects = new Set<string>();
      for (const m of text.matchAll(REVERSAL)) for (const w of words(m[1]!)) objects.add(w);
      let objectCost = 0;
      const objectRanks: number[] = [];
      for (const w of objects) {
        const r = rank.get(w);
        if (r === undefined) continue; // in no decision's words
        objectOf[r] = j;
        objectRanks.push(r);
        objectCost += postLen[r]!;
      }
      if (objects.size > 0) {
        const lo = from[j]!;
        const hi = from[j + 1]!;
        const prefixEnd = lo + prefixOf(mine);
        let topicCost = 0;
        for (let k = lo; k < prefixEnd; k++) topicCost += postLen[wordsOf[k]!]!;
        for (let k = lo; k < hi; k++) topicCost += prefLen[wordsOf[k]!]!;
        let c = 0;
        if (objectCost <= topicCost) {
          for (const r of objectRanks) {
            for (let k = postStart[r]!, e = k + postLen[r]!; k < e; k++) {
              const i = post[k]!;
              if (seen[i] !== j && !flagged[i]) { seen[i] = j; candidates[c++] = i; }
            }
          }
        } else {
          // earlier decisions at least as large share one of this one's prefix words; smaller ones one of their prefix's
          for (let q = lo; q < prefixEnd; q++) {
            const r = wordsOf[q]!;
            for (let k = postStart[r]!, e = k + postLen[r]!; k < e; k++) {
              const i = post[k]!;
              if (seen[i] !== j && !flagged[i] && size(i) >= mine) { seen[i] = j; if (holdsObject(i, j)) candidates[c++] = i; }
            }
          }
          for (let q = lo; q < hi; q++) {
            const r = wordsOf[q]!;
            for (let k = prefStart[r]!, e = k + prefLen[r]!; k < e; k++) {
              const i = pref[k]!;
              if (seen[i] !== j && !flagged[i] && size(i) < mine) { seen[i] = j; if (holdsObject(i, j)) candidates[c++] = i; }
            }
          }
        }
        const found = candidates.subarray(0, c).sort();
        // the latest first
        for (let k = c - 1; k >= 0; k--) {
          const i = found[k]!;
          if (whens[i] === whens[j] && texts[i] === text) continue;
          if (!sameTopic(i, j)) continue;
          // every candidate holds an object: the first one it holds is what it must not be against
          const hit = [...objects].find((w) => sets[i]!.has(w))!;
          if (objectsOf(i).some((o) => o.has(hit))) continue;
          flagged[i] = 1;
          out.push([i, j]);
          break;
        }
      }
    }
    // decision j joins the postings of its words (and of its prefix words)
    const p = prefixOf(mine);
    for (let k = from[j]!; k < from[j + 1]!; k++) {
      const r = wordsOf[k]!;
      post[postStart[r]! + postLen[r]!] = j;
      postLen[r] = postLen[r]! + 1;
      if (k - from[j]! < p) { pref[prefStart[r]! + prefLen[r]!] = j; prefLen[r] = prefLen[r]! + 1; }
    }
  }
  return out;
}

/** What the line of a decision ("[DECISION]") or of a superseded entry ("~~") holds. */
const DECISION_MARKS = ['[DECISION]', '~~'] as const;

/** Unmarked decisions of the durable notes and the logs, in time order, each reversal a finding. */
function reversedDecisions(mem: Memory, files: FileText[]): VerifyFinding[] {
  const all: (SourcedEntry & { when: string })[] = [];
  const logs = mem.files.map(classify).filter((i) => i.kind === 'episodic' || i.kind === 'legacy-daily' || i.kind === 'buffer');
  const sources: { rel: string; date?: string }[] = [
    ...files.map((f) => ({ rel: f.rel })),
    ...logs.map((i) => ({ rel: i.rel, ...(i.date ? { date: i.date } : {}) })),
  ];
  const supersededIds = new Set<string>();
  for (const t of sources) {
    // a decision's line holds "[DECISION]", a superseded one's "~~"
    for (const e of mem.entriesWith(t.rel, DECISION_MARKS)) {
      if (e.superseded) { if (e.id) supersededIds.add(e.id); continue; }
      if (e.type !== 'DECISION') continue;
      const day = e.date ?? t.date;
      all.push({ ...e, path: t.rel, ...(day ? { day } : {}), when: `${day ?? '0000-00-00'} ${e.time ?? '00:00'}` });
    }
  }
  const uniq = new Map<string, (typeof all)[number]>();
  for (const e of all) {
    const k = e.id ?? normalizeText(e.text);
    if (!uniq.has(k)) uniq.set(k, e);
  }
  const decisions = [...uniq.values()].filter((e) => !(e.id && supersededIds.has(e.id))).sort((a, b) => (a.when < b.when ? -1 : a.when > b.when ? 1 : 0));
  return findReversals(decisions).map(([i, j]) => {
    const a = decisions[i]!;
    const b = decisions[j]!;
    return {
      kind: 'reversed-decision' as const, file: a.path, line: a.line,
      message: `decision "${a.text}" (${a.day ?? 'undated'}) looks reversed by "${b.text}" (${b.day ?? 'undated'}) but is not marked superseded: run memtier supersede ${a.id ? `^${a.id}` : `${a.path}:${a.line}`} --by ${b.id ? `^${b.id}` : '"…"'}, or strike it through`,
      related: [cite(b)],
    };
  });
}

// ---------- stale ----------
function stale(files: FileText[], t: string, maxDays = VERIFIED_MAX_DAYS): VerifyFinding[] {
  const out: VerifyFinding[] = [];
  for (const f of files) {
    if (!/last[_ -]verified/i.test(f.text) && !f.text.includes('<!--')) continue; // nothing to read a date from
    const seen = new Set<number>();
    const v = frontDate(f.text.split('\n', 12), 'last_verified');
    if (v) {
      const age = daysBetween(v, t);
      const line = f.lines.findIndex((l) => /last[_-]verified/i.test(l)) + 1;
      seen.add(line);
      if (age > maxDays) out.push({ kind: 'stale', file: f.rel, line, message: `last verified ${v}, ${age} days ago (over ${maxDays}): re-check the note, then update last_verified` });
    }
    // an entry or a section can carry its own "last_verified: YYYY-MM-DD"
    f.scan.forEach((l, i) => {
      const m = /last[_ -]verified\**\s*:\s*\**\s*(\d{4}-\d{2}-\d{2})/i.exec(l);
      if (!m || seen.has(i + 1)) return;
      const age = daysBetween(m[1]!, t);
      if (age > maxDays) out.push({ kind: 'stale', file: f.rel, line: i + 1, message: `entry last verified ${m[1]}, ${age} days ago (over ${maxDays}): re-check it, then update its last_verified` });
    });
  }
  return out;
}

export interface VerifyResult {
  ok: boolean;
  date: string;
  counts: Record<FindingKind, number>;
  findings: VerifyFinding[];
  report: string;
  reportText: string;
}

/**
 * `superseded by ^X` pointing at an entry that exists nowhere (forgotten, or its file deleted):
 * the struck-through line no longer says what replaced it. Reads every memory file's entries.
 */
function danglingSupersedes(mem: Memory): VerifyFinding[] {
  const pointers: { file: string; line: number; by: string }[] = [];
  const readable: string[] = [];
  for (const rel of mem.files) {
    let entries: LocatedEntry[];
    // a pointer's line holds "~~": the decisions' scan of each file serves both
    try { entries = mem.entriesWith(rel, DECISION_MARKS); } catch { continue; } // unreadable files are reported elsewhere
    readable.push(rel);
    for (const e of entries) if (e.supersededBy) pointers.push({ file: rel, line: e.line, by: e.supersededBy });
  }
  // the ids pointed at that exist: only a file whose text holds an id can have an entry with it
  const wanted = [...new Set(pointers.map((p) => p.by))];
  const ids = new Set<string>();
  for (const rel of wanted.length ? readable : []) {
    const text = mem.text(rel) ?? '';
    if (wanted.length <= 64 ? !wanted.some((id) => text.includes(id)) : !text.includes('^')) continue;
    for (const e of mem.entries(rel)) if (e.id) ids.add(e.id);
  }
  return pointers.filter((p) => !ids.has(p.by)).map((p) => ({
    kind: 'dead-path' as const, file: p.file, line: p.line,
    message: `superseded by ^${p.by}, which no longer exists (forgotten or deleted): point it at the current entry or remove the strike-through`,
  }));
}

export function verify(ctx: Ctx, opts: VerifyOptions = {}): VerifyResult {
  const t = today(ctx);
  const unparsable: VerifyFinding[] = [];
  const mem = memoryOf(ctx);
  const { durable: files, recent } = durableFiles(ctx, mem, unparsable, opts.days ?? 0);
  const findings = [
    ...unparsable,
    ...deadRefs(ctx, mem, [...files, ...recent]),
    ...danglingSupersedes(mem),
    ...relativeDates(mem, files),
    ...contradictions(mem, files),
    ...sessionStateConflicts(files),
    ...reversedDecisions(mem, files),
    ...stale(files, t, opts.staleDays ?? VERIFIED_MAX_DAYS),
  ].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.kind < b.kind ? -1 : 1)));
  const counts = { 'dead-path': 0, 'relative-date': 0, contradiction: 0, 'session-state': 0, 'reversed-decision': 0, stale: 0, unparsable: 0 } as Record<FindingKind, number>;
  for (const f of findings) counts[f.kind]++;
  const report = `${PATHS.reviews}/verify-${t}.md`;
  const titles: Record<FindingKind, string> = {
    unparsable: 'Files that do not parse (fix by hand)',
    'dead-path': 'Dead paths and links', 'relative-date': 'Relative dates', contradiction: 'Contradictions',
    'session-state': 'SESSION-STATE conflicts', 'reversed-decision': 'Reversed decisions without a superseded mark', stale: 'Stale notes (last_verified)',
  };
  const lines = [`# Verify ${t}`, '', `${findings.length ? `${findings.length} finding(s)` : 'Nothing found'} in ${files.length} durable files${recent.length ? ` and ${recent.length} recent episodic days` : ''}.`, ''];
  for (const k of Object.keys(titles) as FindingKind[]) {
    const fs = findings.filter((f) => f.kind === k);
    if (!fs.length) continue;
    lines.push(`## ${titles[k]}`);
    for (const f of fs) lines.push(`- [${f.file}:${f.line}](${linkDest(posix.relative(PATHS.reviews, f.file))}#L${f.line}) ${f.message}${f.related?.length ? ` (see ${f.related.join(', ')})` : ''}`);
    lines.push('');
  }
  if (findings.some((f) => f.kind === 'contradiction' || f.kind === 'reversed-decision')) {
    lines.push('An agent can resolve these with the prompt in templates/verify-review.md.', '');
  }
  return { ok: findings.length === 0, date: t, counts, findings, report, reportText: lines.join('\n') };
}
