/**
 * The facts graph (seeds 000 and 003) in markdown: subject–predicate–object facts, one per line of
 * memory/graph/facts.md, readable as they are and linkable in Obsidian:
 *
 *   - [[Ana]] owns [[quarterly budget review]] — 2026-05-15 (source: ^3lo7dflvjw35) ^f-3lo8a1b2c3
 *
 * Notes may state relations inline with basic-memory's convention: a bullet `- relation_type
 * [[Target]]` in a note is a fact whose subject is the note (its frontmatter title, else its first
 * heading, else its file name). The graph reads both; only facts.md is written by memtier.
 * Entities and relation types are derived, never declared.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Ctx } from '../core/context.js';
import { localDate, localTime } from '../core/clock.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { newEntryId } from '../format/entry.js';
import { listMemoryFiles, PATHS } from '../format/layout.js';
import { recordRecalls } from '../search/history.js';
import { openStore, readMemoryFile } from '../store/store.js';
import { quoteInput } from '../store/guards/secrets.js';

export const FACTS_FILE = 'memory/graph/facts.md';
const FORGOTTEN_DIR = `${PATHS.trash}/forgotten`;

const HEADER = `# Facts

<!-- The facts graph: one fact per line, "- [[SUBJECT]] predicate [[OBJECT]] — DATE (source: …) ^id".
     Written by "memtier fact add"; hand edits in the same form are read too. Notes may also state
     relations as "- relation_type [[Target]]" bullets (the note is the subject). Format: FORMAT.md -->

`;

export interface Fact {
  subject: string;
  predicate: string;
  object: string;
  /** The fact's own ^id (facts.md), absent for a relation read from a note. */
  id?: string;
  date?: string;
  source?: string;
  /** Where it was read: path and 1-based line. */
  path: string;
  line: number;
}

const FACT_RE = /^\s*[-*]\s+\[\[([^\]]+)\]\]\s+(.+?)\s+\[\[([^\]]+)\]\](?:\s+—\s+(\d{4}-\d{2}-\d{2}))?(?:\s+\(source:\s*([^)]+)\))?(?:\s+\^([A-Za-z0-9][A-Za-z0-9-]{2,63}))?\s*$/;
const RELATION_RE = /^\s*[-*]\s+([\p{L}_][\p{L}\p{N}_-]*(?: [\p{L}_][\p{L}\p{N}_-]*){0,3})\s+\[\[([^\]|#]+)(?:[|#][^\]]*)?\]\]\s*(?:\(.*\))?\s*$/u;

/** An entity's key: case and spacing do not make two entities. */
export const entityKey = (name: string): string => name.trim().replace(/\s+/g, ' ').toLowerCase();
const predicateKey = (p: string): string => p.trim().replace(/\s+/g, ' ').toLowerCase();

/** The facts of facts.md's text. */
export function parseFacts(text: string, path = FACTS_FILE): Fact[] {
  const out: Fact[] = [];
  text.split('\n').forEach((l, i) => {
    const m = FACT_RE.exec(l);
    if (!m) return;
    out.push({ subject: m[1]!.trim(), predicate: m[2]!.trim(), object: m[3]!.trim(), ...(m[6] ? { id: m[6] } : {}), ...(m[4] ? { date: m[4] } : {}), ...(m[5] ? { source: m[5].trim() } : {}), path, line: i + 1 });
  });
  return out;
}

export function formatFact(f: Pick<Fact, 'subject' | 'predicate' | 'object' | 'date' | 'source' | 'id'>): string {
  return `- [[${f.subject}]] ${f.predicate} [[${f.object}]]${f.date ? ` — ${f.date}` : ''}${f.source ? ` (source: ${f.source})` : ''}${f.id ? ` ^${f.id}` : ''}`;
}

/** The subject a note's relations belong to: its frontmatter title (or Logseq `title::`), else its first heading, else its name. */
function noteSubject(text: string, path: string): string {
  const fm = /^---\n([\s\S]*?)\n---/.exec(text);
  const title = fm ? /^title:\s*["']?(.+?)["']?\s*$/m.exec(fm[1]!)?.[1] : /^title::\s*(.+?)\s*$/m.exec(leadingProperties(text))?.[1];
  if (title) return title.trim();
  const h = /^#\s+(.+)$/m.exec(text);
  if (h) return h[1]!.trim();
  return path.split('/').pop()!.replace(/\.md$/, '');
}

/** A Logseq page's properties: its first lines while they are `key:: value` ('' when it has none). */
function leadingProperties(text: string): string {
  let end = 0;
  while (end < text.length) {
    const nl = text.indexOf('\n', end);
    const line = text.slice(end, nl < 0 ? text.length : nl);
    if (!/^[A-Za-z][\w-]*::(?:\s|$)/.test(line)) break;
    end = nl < 0 ? text.length : nl + 1;
  }
  return text.slice(0, end);
}

/** Properties that are no relation to another page: tags, other names, the apps' own settings. */
const NOT_RELATIONS = new Set(['tags', 'tag', 'alias', 'aliases', 'title', 'type', 'id', 'icon', 'collapsed', 'public', 'filters', 'template', 'template-including-parent', 'exclude-from-graph-view', 'cssclasses', 'cssclass']);

/** Relations stated in notes (`- relation_type [[Target]]`; a page's `relation:: [[Target]]` field, Logseq's or Dataview's; a frontmatter property that links, `up: "[[Projects]]"`), every memory file but facts.md. */
export function noteRelations(root: string, files = listMemoryFiles(root)): Fact[] {
  const out: Fact[] = [];
  for (const rel of files) {
    if (rel === FACTS_FILE) continue;
    let text: string;
    try { text = readFileSync(join(root, rel), 'utf8'); } catch { continue; }
    if (!text.includes('[[')) continue;
    let subject: string | undefined;
    let fence = false;
    const lines = text.split('\n');
    const add = (predicate: string, value: string, i: number): void => {
      if (NOT_RELATIONS.has(predicate.toLowerCase())) return;
      for (const t of value.matchAll(/\[\[([^\]|#]+)(?:[|#][^\]]*)?\]\]/g)) {
        subject ??= noteSubject(text, rel);
        out.push({ subject, predicate, object: t[1]!.trim(), path: rel, line: i + 1 });
      }
    };
    // frontmatter properties that link (Obsidian: `up: "[[Projects]]"`, `related:` then `- "[[A]]"` items)
    let body = 0;
    if (lines[0] === '---') {
      const end = lines.indexOf('---', 1);
      let key = '';
      for (let i = 1; i < end; i++) {
        const l = lines[i]!;
        const kv = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(l);
        if (kv) { key = kv[1]!; add(key, kv[2]!, i); continue; }
        if (key && /^\s*-\s/.test(l)) add(key, l, i);
      }
      body = end < 0 ? 0 : end + 1;
    }
    for (let i = body; i < lines.length; i++) {
      const l = lines[i]!;
      if (/^\s*(```|~~~)/.test(l)) fence = !fence;
      if (fence || !l.includes('[[')) continue;
      // an inline field at the start of a line: a page's own (Logseq's page properties, Dataview's
      // fields: `owner:: [[Priya]]`); one indented under a bullet is that block's, not the page's
      const field = /^([A-Za-z][\w-]*)::\s*(.*)$/.exec(l);
      if (field) { add(field[1]!, field[2]!, i); continue; }
      const m = RELATION_RE.exec(l);
      if (!m) continue;
      subject ??= noteSubject(text, rel);
      out.push({ subject, predicate: m[1]!.trim(), object: m[2]!.trim(), path: rel, line: i + 1 });
    }
  }
  return out;
}

/** Every fact of the memory: facts.md, then the relations of notes. */
export function allFacts(root: string): Fact[] {
  const text = readMemoryFile(root, FACTS_FILE);
  return [...(text ? parseFacts(text) : []), ...noteRelations(root)];
}

export interface AddResult { fact: Fact; added: boolean; message: string }

/**
 * Add a fact to facts.md; the same subject, predicate and object again (case and spacing aside)
 * refreshes that fact's activation instead of adding a line (seed 000).
 */
export function addFact(ctx: Ctx, f: { subject: string; predicate: string; object: string; source?: string | undefined }): AddResult {
  for (const [what, v] of [['SUBJECT', f.subject], ['PREDICATE', f.predicate], ['OBJECT', f.object]] as const) {
    if (!v.trim()) throw new UsageError(`fact add needs a ${what}`, 'e.g. memtier fact add Ana owns "quarterly budget review"');
    if (/[\n\]\[]|\^/.test(v) || v.includes(' — ')) throw new UsageError(`the ${what} "${quoteInput(v, 60)}" holds a character the fact line uses ([, ], ^, " — " or a line break)`, 'write it without them');
  }
  if (f.source !== undefined && !/^(?:\^[A-Za-z0-9][A-Za-z0-9-]{2,63}|[\w./#-]+)$/.test(f.source)) throw new UsageError(`--source "${quoteInput(f.source, 60)}" is neither a ^id nor a memory path`, 'e.g. --source ^3lo7dflvjw35 or --source memory/episodic/2026-05-14.md#L12');
  const now = ctx.clock.now();
  let result: AddResult | undefined;
  openStore(ctx).mutate((tx) => {
    const cur = tx.read(FACTS_FILE);
    const same = (cur ? parseFacts(cur) : []).find((x) => entityKey(x.subject) === entityKey(f.subject) && predicateKey(x.predicate) === predicateKey(f.predicate) && entityKey(x.object) === entityKey(f.object));
    if (same) {
      result = { fact: same, added: false, message: `already known (${FACTS_FILE}:${same.line}${same.id ? `, ^${same.id}` : ''}): its activation is refreshed, no line added` };
      return;
    }
    const fact = { subject: f.subject.trim(), predicate: f.predicate.trim(), object: f.object.trim(), date: localDate(now, ctx.clock.tz), ...(f.source ? { source: f.source } : {}), id: `f-${newEntryId(now)}` };
    const base = cur ?? HEADER;
    const line = formatFact(fact);
    tx.write(FACTS_FILE, `${base}${base.endsWith('\n') ? '' : '\n'}${line}\n`, { expected: cur ?? null });
    const lineNo = `${base}${base.endsWith('\n') ? '' : '\n'}`.split('\n').length;
    result = { fact: { ...fact, path: FACTS_FILE, line: lineNo }, added: true, message: `added ^${fact.id} to ${FACTS_FILE}:${lineNo}` };
  });
  if (!result!.added && result!.fact.id) recordRecalls(ctx, [result!.fact.id], `fact: ${f.subject} ${f.predicate} ${f.object}`);
  return result!;
}

/** Move a fact's line from facts.md to the forgotten trash (memory/.trash/forgotten/DAY.md). */
export function forgetFact(ctx: Ctx, ref: string): { fact: Fact; savedTo: string } {
  const id = ref.replace(/^\^/, '');
  const now = ctx.clock.now();
  const day = localDate(now, ctx.clock.tz);
  const savedTo = `${FORGOTTEN_DIR}/${day}.md`;
  let found: Fact | undefined;
  openStore(ctx).mutate((tx) => {
    const cur = tx.read(FACTS_FILE);
    found = cur ? parseFacts(cur).find((x) => x.id === id) : undefined;
    if (!cur || !found) throw new MemtierError(`no fact ^${id} in ${FACTS_FILE}`, { code: 'not-found', file: FACTS_FILE, hint: 'memtier fact list shows each fact with its ^id' });
    const lines = cur.split('\n');
    const raw = lines[found.line - 1]!;
    lines.splice(found.line - 1, 1);
    // save first, remove second: a trash that cannot take the line stops here, nothing removed
    tx.assertTrashUsable();
    if (!tx.exists(savedTo)) tx.write(savedTo, `# Forgotten ${day}\n\nEntries removed with "memtier forget", each under the place it was.\n\n`, { expected: null });
    tx.append(savedTo, `## ${localTime(now, ctx.clock.tz)} from ${FACTS_FILE}:${found.line}\n${raw}\n`);
    tx.write(FACTS_FILE, lines.join('\n'), { expected: cur });
  });
  return { fact: found!, savedTo };
}
