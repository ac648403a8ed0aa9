/**
 * `memtier boot`: what an agent reloads after compaction or a restart (seed 004 mechanism 2):
 * MEMORY.md, SESSION-STATE.md, the working buffer, today's and yesterday's episodic days (and
 * OpenClaw daily files of those days, and the person's own daily notes under memory/), each under a `==> path <==` header, within a character
 * budget. Read-only: an interrupted rotation is reported, not repaired.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagNumber } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { addDays, localDate } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { parseSessionState } from '../format/session-state.js';
import { classify, dayOfName, PATHS } from '../format/layout.js';
import { readMemoryFile } from '../store/store.js';

export const DEFAULT_MAX_CHARS = 16000;
const MIN_MAX_CHARS = 200;
/** A part that would keep fewer characters than this is left out whole (a stub helps no one). */
const MIN_PART = 120;
const ROTATING_DIR = 'memory/.rotating';

export type PartRole = 'index' | 'state' | 'buffer' | 'today' | 'yesterday';

export interface BootPart {
  path: string;
  role: PartRole;
  /** Characters printed for this part (header and cut note included). */
  chars: number;
  /** Characters of the whole file. */
  fileChars: number;
  truncated: boolean;
  /** Left out entirely to fit the budget. */
  omitted: boolean;
  /** Where the rest is: a `memtier get` command. */
  read?: string;
  error?: string;
}

interface Loaded { path: string; role: PartRole; text: string; error?: string; keep: 'head' | 'tail' }

/**
 * The person's own folders under memory/ that can hold daily notes (an Obsidian vault's Daily/
 * moved in: memory/Daily/2026-11-20.md is a note dated by its name, layout.ts), up to three levels
 * deep (a journal by year and month, memory/Journal/2026/11/), memtier's own folders and hidden
 * ones left out; at most 256, the newest names first (2026/ before 2025/, 12/ before 11/), so a
 * long journal keeps its recent months.
 */
export function noteDayDirs(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string, depth: number): void => {
    let ents;
    try { ents = readdirSync(join(root, dir), { withFileTypes: true }); } catch { return; }
    for (const d of ents.sort((a, b) => b.name.localeCompare(a.name))) {
      if (out.length >= 256) return;
      if (!d.isDirectory() || d.name.startsWith('.')) continue;
      const sub = `${dir}/${d.name}`;
      if (classify(`${sub}/2000-01-01.md`).kind !== 'note') continue;
      out.push(sub);
      if (depth < 3) visit(sub, depth + 1);
    }
  };
  visit(PATHS.memoryDir, 1);
  return out;
}

/** Files of a day: memory/episodic/DATE.md, DATE-*.md there, then OpenClaw's memory/DATE*.md, then the person's own folders' (noteDayDirs). */
function dayFiles(root: string, date: string, noteDirs: string[]): string[] {
  const out: string[] = [];
  const scan = (dir: string): void => {
    let names: string[] = [];
    try { names = readdirSync(join(root, dir)); } catch { return; }
    const mine = names.filter((n) => dayOfName(n) === date).sort((a, b) => (a === `${date}.md` ? -1 : b === `${date}.md` ? 1 : a.localeCompare(b)));
    for (const n of mine) out.push(`${dir}/${n}`);
  };
  scan(PATHS.episodic);
  scan(PATHS.memoryDir);
  for (const dir of noteDirs) scan(dir);
  // after a long gap the last days with notes may be past their TTL, in the archive
  if (out.length === 0) scan(`${PATHS.archive}/${date.slice(0, 4)}/${date.slice(5, 7)}`);
  return out;
}

/**
 * The last `n` days, on or before `today`, that have daily notes (memory/episodic/, OpenClaw's
 * memory/, or the archive): after a gap of weeks these are what the agent was last doing, not an
 * empty today.
 */
export function lastNoteDays(root: string, today: string, n = 2, noteDirs = noteDayDirs(root)): string[] {
  const days = new Set<string>();
  const archive: string[] = [];
  try {
    for (const y of readdirSync(join(root, PATHS.archive))) {
      if (!/^\d{4}$/.test(y)) continue;
      try { for (const m of readdirSync(join(root, PATHS.archive, y))) if (/^\d{2}$/.test(m)) archive.push(`${PATHS.archive}/${y}/${m}`); } catch { /* not a folder */ }
    }
  } catch { /* no archive */ }
  for (const dir of [PATHS.episodic, PATHS.memoryDir, ...noteDirs, ...archive]) {
    let names: string[] = [];
    try { names = readdirSync(join(root, dir)); } catch { continue; }
    for (const name of names) {
      const day = dayOfName(name);
      if (day && day <= today) days.add(day);
    }
  }
  return [...days].sort().reverse().slice(0, n);
}

/** Does SESSION-STATE.md hold nothing but its template (headings, comments, empty sections)? */
function emptyTemplate(text: string): boolean {
  const p = parseSessionState(text);
  const st = p.state;
  if (st.currentTask || st.keyContext.length || st.recentDecisions.length || st.pending.length || st.blockers.length || st.done.length) return false;
  return text.split('\n').every((l) => { const t = l.trim(); return t === '' || t.startsWith('#') || (t.startsWith('<!--') && t.endsWith('-->')); });
}

/** Aside files of a rotation a crash interrupted. */
export function pendingRotations(root: string): string[] {
  try {
    return readdirSync(join(root, ROTATING_DIR)).filter((n) => !n.startsWith('.')).sort().map((n) => `${ROTATING_DIR}/${n}`);
  } catch {
    return [];
  }
}

const header = (p: string): string => `==> ${p} <==\n`;
const withNl = (s: string): string => (s === '' || s.endsWith('\n') ? s : s + '\n');

/** Room kept for the note that lists the parts left out whole (cut parts carry their own note). */
const noteReserve = (maxChars: number): number => Math.min(170, Math.floor(maxChars * 0.3));

/** `[left out to fit …: a, b, +N more; read one with "memtier get PATH"]`, shorter than `limit`. */
function omittedNote(maxChars: number, omitted: BootPart[], limit = noteReserve(maxChars)): string {
  const end = '; read one with "memtier get PATH"]\n';
  const names = omitted.map((p) => p.path);
  let note = `[left out to fit --max-chars ${maxChars}: `;
  for (let i = 0; i < names.length; i++) {
    const add = (i ? ', ' : '') + names[i];
    const rest = i < names.length - 1 ? `, +${names.length - i - 1} more` : '';
    if (note.length + add.length + rest.length + end.length >= limit) {
      if (i === 0) return `[${names.length} left out; see "memtier boot --json"]\n`;
      return `${note}, +${names.length - i} more${end}`;
    }
    note += add;
  }
  return note + end;
}

/** Keep whole lines from the head or the tail of `text` within `room` characters (the cut note included). */
function cut(text: string, room: number, keep: 'head' | 'tail', path: string): { body: string; read: string } | undefined {
  const lines = withNl(text).split('\n');
  lines.pop();
  const total = lines.length;
  const kept: string[] = [];
  let used = 0;
  const noteLen = 90 + path.length;
  for (let i = 0; i < total; i++) {
    const l = keep === 'head' ? lines[i]! : lines[total - 1 - i]!;
    if (used + l.length + 1 + noteLen > room) break;
    kept.push(l);
    used += l.length + 1;
  }
  if (kept.length === 0) return undefined;
  const n = kept.length;
  if (keep === 'head') {
    const read = `memtier get ${path}:${n + 1}-`;
    return { body: kept.join('\n') + `\n[… ${total - n} more lines cut to fit the boot budget; read them: ${read}]\n`, read };
  }
  kept.reverse();
  const read = `memtier get ${path}:1-${total - n}`;
  return { body: `[… ${total - n} earlier lines cut to fit the boot budget; read them: ${read}]\n` + kept.join('\n') + '\n', read };
}

export interface BootResult {
  root: string;
  today: string;
  /** The days whose notes are shown (the most recent first): today and yesterday, or the last two with notes. */
  days: string[];
  maxChars: number;
  chars: number;
  files: BootPart[];
  missing: string[];
  rotating: string[];
  text: string;
}

export function boot(ctx: Ctx, maxChars = DEFAULT_MAX_CHARS): BootResult {
  const today = localDate(ctx.clock.now(), ctx.clock.tz);
  // the two most recent days with notes (today and yesterday when the agent works daily)
  const noteDirs = noteDayDirs(ctx.root);
  const [latest, before] = lastNoteDays(ctx.root, today, 2, noteDirs);
  const wanted: { path: string; role: PartRole; keep: 'head' | 'tail' }[] = [
    { path: PATHS.memoryIndex, role: 'index', keep: 'head' },
    { path: PATHS.sessionState, role: 'state', keep: 'head' },
    ...(before ? dayFiles(ctx.root, before, noteDirs) : []).map((path) => ({ path, role: 'yesterday' as const, keep: 'tail' as const })),
    ...(latest ? dayFiles(ctx.root, latest, noteDirs) : []).map((path) => ({ path, role: 'today' as const, keep: 'tail' as const })),
    { path: PATHS.buffer, role: 'buffer', keep: 'tail' },
  ];
  const missing: string[] = [];
  const loaded: Loaded[] = [];
  for (const w of wanted) {
    try {
      const text = readMemoryFile(ctx.root, w.path);
      if (text === undefined) { missing.push(w.path); continue; }
      // an untouched template says nothing: one line instead of its empty headings
      if (w.role === 'state' && emptyTemplate(text)) { loaded.push({ ...w, text: '(no current task, context, decisions, pending items or blockers recorded yet: "memtier wal task …" sets them)\n' }); continue; }
      loaded.push({ ...w, text: withNl(text) });
    } catch (e) {
      const msg = (e as Error).message;
      loaded.push({ ...w, text: `[cannot be read: ${msg}; run "memtier health"]\n`, error: msg });
    }
  }
  const rotating = pendingRotations(ctx.root);
  // A rotation a crash interrupted holds acknowledged entries that are in neither the buffer nor
  // an episodic file yet: show them with the buffer.
  for (const path of rotating) {
    try {
      const text = readMemoryFile(ctx.root, path);
      if (text !== undefined) loaded.push({ path, role: 'buffer', keep: 'tail', text: withNl(text) });
    } catch { /* reported by the warning below; health names the problem */ }
  }
  const head: string[] = [];
  if (latest && latest < addDays(today, -1)) {
    const age = Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${latest}T00:00:00Z`)) / 86_400_000);
    head.push(`note: no daily notes since ${latest} (${age} days ago); the last days with notes are shown\n`);
  }
  if (rotating.length) {
    const long = `warning: a buffer rotation was interrupted (${rotating.join(', ')}): its entries are shown below but are in neither the buffer nor an episodic file yet; the next "memtier wal …", "memtier rotate" or "memtier health --fix" finishes it\n`;
    head.push(long.length <= maxChars / 4 ? long : 'warning: an interrupted buffer rotation (memory/.rotating/); "memtier rotate" finishes it\n');
  }
  const tail: string[] = missing.length ? [`[not found: ${missing.join(', ')}]\n`] : [];
  if (tail[0] && tail[0].length > maxChars / 4) tail[0] = `[not found: ${missing.length} of the boot files]\n`;
  const parts: (BootPart & { body: string })[] = loaded.map((l) => ({
    path: l.path, role: l.role, body: l.text, chars: header(l.path).length + l.text.length, fileChars: l.text.length, truncated: false, omitted: false, ...(l.error ? { error: l.error } : {}),
  }));
  // Every piece is joined with one "\n".
  const fixed = [...head, ...tail].reduce((s, t) => s + t.length + 1, 0);
  const full = parts.reduce((s, p) => s + p.chars + 1, 0);
  if (fixed + full > maxChars) {
    // Greedy by priority: MEMORY.md, SESSION-STATE.md, the buffer, today, yesterday; each part
    // takes what is left (whole, else its first/newest lines, else left out), with a fixed
    // reserve for the "left out" note.
    const PRIORITY: PartRole[] = ['index', 'state', 'buffer', 'today', 'yesterday'];
    const ordered = [...parts].sort((a, b) => PRIORITY.indexOf(a.role) - PRIORITY.indexOf(b.role));
    let remaining = maxChars - fixed - noteReserve(maxChars);
    for (const p of ordered) {
      const room = remaining - 1;
      if (p.chars <= room) { remaining -= p.chars + 1; continue; }
      const l = loaded.find((x) => x.path === p.path)!;
      const c = room - header(p.path).length >= MIN_PART ? cut(l.text, room - header(p.path).length, l.keep, p.path) : undefined;
      if (c) {
        p.body = c.body;
        p.chars = header(p.path).length + c.body.length;
        p.truncated = true;
        p.read = c.read;
        remaining -= p.chars + 1;
      } else {
        p.omitted = true;
        p.truncated = true;
        p.read = `memtier get ${p.path}`;
        p.chars = 0;
      }
    }
  }
  const omitted = parts.filter((p) => p.omitted);
  const out = [...head, ...parts.filter((p) => !p.omitted).map((p) => header(p.path) + p.body)];
  if (omitted.length) out.push(omittedNote(maxChars, omitted));
  out.push(...tail);
  const text = out.join('\n');
  const files: BootPart[] = parts.map(({ body: _body, ...p }) => p);
  return { root: ctx.root, today, days: [latest, before].filter((d): d is string => d !== undefined), maxChars, chars: text.length, files, missing, rotating, text };
}

export const command: CommandSpec = {
  name: 'boot',
  summary: 'print what to reload after compaction or restart',
  usage: ['boot [--max-chars N]'],
  description: `Prints, each under a "==> path <==" header, what an agent reads after compaction or a
restart (seed 004 compaction recovery): MEMORY.md, SESSION-STATE.md, the notes of the last two
days that have notes — today and yesterday for an agent that works daily; after a gap, the last
two days with notes, with a line saying how old they are — (memory/episodic/DATE*.md,
OpenClaw's memory/DATE*.md, and the person's own daily notes in folders of theirs under
memory/, e.g. memory/Daily/DATE.md or memory/Journal/2026/11/DATE.md), then the working buffer.
A SESSION-STATE.md that is still the empty template is shown as one line. Dates follow
$MEMTIER_TZ.

The output stays within --max-chars (headers included). Over budget, parts are cut in this order:
yesterday, today, the buffer, SESSION-STATE.md, MEMORY.md (largest file first within each);
logs keep their newest lines, MEMORY.md and SESSION-STATE.md their first lines. Every cut says
how to read the rest ("memtier get PATH:FROM-TO"). A part that would keep almost nothing is
left out whole and listed.

Read-only. A rotation a crash interrupted (files in memory/.rotating/) is reported; the next
writing command finishes it.`,
  flags: [{ name: 'max-chars', type: 'number', value: 'N', description: `character budget for the whole output (default ${DEFAULT_MAX_CHARS})`, default: DEFAULT_MAX_CHARS, integer: true, min: 1 }],
  examples: ['memtier boot', 'memtier boot --max-chars 8000', 'memtier boot --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    if (args.positionals.length) throw new UsageError('boot takes no arguments', 'e.g. memtier boot --max-chars 8000');
    const max = flagNumber(args, 'max-chars') ?? DEFAULT_MAX_CHARS;
    if (!Number.isFinite(max) || max < MIN_MAX_CHARS) throw new UsageError(`--max-chars ${max} is too small`, `give at least ${MIN_MAX_CHARS} characters (default ${DEFAULT_MAX_CHARS})`);
    const r = boot(ctx, Math.floor(max));
    const { text, ...json } = r;
    return { text, json: { ok: true, ...json, text } };
  },
};
