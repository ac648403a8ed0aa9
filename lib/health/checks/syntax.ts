import type { Check, CheckEnv, Finding } from '../types.js';
import { arrayOf, isNum, isStr, summaryOf } from '../summary.js';
import { frontmatterBlock, headLines } from '../markdown.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';
import { ID_RE, isEntryType } from '../../format/entry.js';
import { validateFrontmatter } from '../frontmatter.js';

/** Files whose bullets memtier writes as entries: there a malformed head is an error, not prose. */
const LOGS = new Set<MemFile['kind']>(['buffer', 'episodic', 'archive']);
const HEAD = /^[-*] (?:~~)?(?:(\d{4})-(\d{2})-(\d{2})[ T])?(\d{2}):(\d{2})(?::\d{2})?\s+(?:\[([A-Za-z]+)\])?/;

/** Frontmatter and entry syntax, everywhere, with file and line. */
export const check: Check = {
  id: 'syntax',
  description: 'every file decodes as UTF-8 text, frontmatter parses, and entries follow the entry grammar (file and line of each error)',
  severity: 'fail',
  fixable: false,
  source: 'FORMAT.md',
  doc: {
    trigger: 'invalid UTF-8 or a NUL byte, an unclosed or unparsable frontmatter block, or an entry with an impossible date/time, an unknown [TYPE], a duplicate ^id or a `superseded by ^id` that names no entry',
    failing: '---\ntags: [infrastructure\n---\n- 25:10 [DECISON] use SQLite ^k2j3mx0a',
    fixed: '---\ntags: [infrastructure]\n---\n- 15:10 [DECISION] use SQLite ^k2j3mx0a',
    why: 'memtier reads strictly and never rewrites a file it cannot parse; a syntax error hides every fact in the file from search, recall and the lifecycle',
  },
  async run(snap, env) {
    const out: Finding[] = [];
    const ids = allIds(snap, env);
    for (const f of snap.files) out.push(...(await fileFindings(snap, f, ids)));
    return out;
  },
  // every file's ids (allIds)
  summarize: (snap, env) => (f) => { idSummary(snap, f, env); },
};

/** A file's entry ids (all, in order) and its entries' `superseded by ^id` pointers as [line, id]. */
export type IdSummary = [ids: string[], supersededBy: [number, string][]];

const isPointer = (x: unknown): x is [number, string] => Array.isArray(x) && x.length === 2 && isNum(x[0]) && isStr(x[1]);
const reviveIds = (x: unknown): IdSummary | undefined => {
  if (!Array.isArray(x) || x.length !== 2) return undefined;
  const ids = arrayOf(x[0], isStr);
  const sup = arrayOf(x[1], isPointer);
  return ids && sup ? [ids, sup] : undefined;
};

/** The ids and pointers of `f` (kept between full runs through `env`). */
export function idSummary(snap: Snapshot, f: MemFile, env?: CheckEnv): IdSummary {
  const make = (): IdSummary => {
    const ids: string[] = [];
    const sup: [number, string][] = [];
    for (const e of snap.entries(f)) {
      if (e.id) ids.push(e.id);
      if (e.supersededBy) sup.push([e.line, e.supersededBy]);
    }
    return [ids, sup];
  };
  return env ? summaryOf(env, 'ids', f, make, reviveIds) : make();
}

/** Every entry id of the memory. */
export function allIds(snap: Snapshot, env?: CheckEnv): Set<string> {
  const ids = new Set<string>();
  for (const f of snap.files) for (const id of idSummary(snap, f, env)[0]) ids.add(id);
  return ids;
}

/**
 * The findings about one file. Without `ids` (every id of the memory) only what the file alone
 * decides: everything but "superseded by an id no entry has" (isFileLocal).
 */
export async function fileFindings(snap: Snapshot, f: MemFile, ids?: Set<string>): Promise<Finding[]> {
  if (f.text === undefined) {
    if (f.error?.code === 'oversized') {
      return [{ check: 'syntax', severity: 'fail', file: f.rel, message: `cannot be read: ${f.error.message}; search leaves it out and memtier refuses to write to it`, fix: 'split it into smaller notes (or move its old parts to memory/archive/)' }];
    }
    return [{ check: 'syntax', severity: 'fail', file: f.rel, ...(f.error?.line ? { line: f.error.line } : {}), message: `cannot be read: ${f.error?.message ?? 'unknown error'}`, fix: 'convert it to UTF-8 text, or move it out of the memory' }];
  }
  return [...(await frontmatterFindings(f)), ...entryFindings(snap, f, ids)];
}

const DANGLING = 'superseded by ^';

const dangling = (f: MemFile, line: number, id: string): Finding => ({ check: 'syntax', severity: 'warn', file: f.rel, line, message: `${DANGLING}${id}, but no entry has that id`, fix: 'point it at the entry that replaced this one' });

/** The findings of the file whose `superseded by ^id` names no entry of `ids` (the one syntax finding not isFileLocal). */
export function danglingFindings(snap: Snapshot, f: MemFile, ids: Set<string>, env?: CheckEnv): Finding[] {
  const out: Finding[] = [];
  for (const [line, id] of idSummary(snap, f, env)[1]) if (!ids.has(id)) out.push(dangling(f, line, id));
  return out;
}

/** Does this syntax finding depend on the file alone (not on the ids of the other files)? */
export const isFileLocal = (x: Finding): boolean => !x.message.startsWith(DANGLING);

async function frontmatterFindings(f: MemFile): Promise<Finding[]> {
  // no frontmatter without a first line starting "---"; else its lines through the closing fence
  if (!f.text!.startsWith('---') && !f.text!.startsWith('\uFEFF---')) return [];
  const lines = headLines(f.text!, 1);
  const first = (lines[0] ?? '').replace(/^\uFEFF/, '').trimEnd();
  const lang = /^---([^-].*)$/.exec(first)?.[1]?.trim().toLowerCase();
  if (lang !== undefined && lang !== 'yaml') {
    return [{ check: 'syntax', severity: 'fail', file: f.rel, line: 1, message: `frontmatter language "${lang.slice(0, 40)}" is not allowed, only YAML (rule frontmatter-language); memtier never runs it`, fix: 'start the frontmatter with a plain `---` line and write YAML' }];
  }
  const fm = frontmatterBlock(lang === 'yaml' ? ['---', ...lines.slice(1)] : lines);
  if (!fm) return [];
  if (fm.end === undefined) return [{ check: 'syntax', severity: 'fail', file: f.rel, line: 1, message: 'frontmatter is never closed (no second `---` line)', fix: 'add a `---` line after the last frontmatter field' }];
  const err = await validateFrontmatter(f.text!, f.rel, fm);
  return err ? [{ check: 'syntax', severity: 'fail', file: f.rel, line: err.line, message: `frontmatter: ${err.message}`, fix: err.fix ?? 'fix the YAML (key: value, lists in [a, b])' }] : [];
}

function entryFindings(snap: Snapshot, f: MemFile, ids: Set<string> | undefined): Finding[] {
  const out: Finding[] = [];
  const strict = LOGS.has(f.kind);
  const seen = new Map<string, number>();
  for (const e of snap.entries(f)) {
    const bad = (severity: Finding['severity'], message: string, fix: string): void => { out.push({ check: 'syntax', severity, file: f.rel, line: e.line, message, fix }); };
    const h = HEAD.exec(e.raw); // the entry's line
    if (h) {
      const [, y, mo, d, hh, mm, type] = h;
      if (y && (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31 || Number.isNaN(Date.parse(`${y}-${mo}-${d}T00:00:00Z`)))) bad('fail', `impossible date ${y}-${mo}-${d}`, 'write the date as YYYY-MM-DD');
      if (Number(hh) > 23 || Number(mm) > 59) bad(strict ? 'fail' : 'warn', `impossible time ${hh}:${mm}`, 'write the time as HH:MM (00:00–23:59)');
      if (type && !isEntryType(type) && type === type.toUpperCase()) bad(strict ? 'fail' : 'warn', `unknown type [${type}]`, 'use one of [PREF] [DECISION] [PROJ] [TECH] [LESSON] [PEOPLE] [EVENT] [TEMP]');
    }
    if (e.id) {
      const prev = seen.get(e.id);
      if (prev !== undefined) bad('warn', `^${e.id} is also used on line ${prev}`, 'give one of the entries a new id (ids identify one entry each)');
      else seen.set(e.id, e.line);
    }
    if (ids && e.supersededBy && !ids.has(e.supersededBy)) out.push(dangling(f, e.line, e.supersededBy));
    if (/\s\^\S+\s*$/.test(e.raw) && !e.id) {
      const raw = /\s\^(\S+)\s*$/.exec(e.raw)![1]!;
      if (!ID_RE.test(raw) && strict) bad('fail', `malformed id ^${raw}`, 'ids are 3–64 letters, digits and "-"');
    }
  }
  return out;
}
