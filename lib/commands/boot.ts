/**
 * `memtier boot`: what an agent reloads after compaction or a restart (seed 004 mechanism 2):
 * MEMORY.md, SESSION-STATE.md, the working buffer, today's and yesterday's episodic days (and
 * OpenClaw daily files of those days), each under a `==> path <==` header, within a character
 * budget. Read-only: an interrupted rotation is reported, not repaired.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagNumber } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { addDays, localDate } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { PATHS } from '../format/layout.js';
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

/** Files of a day: memory/episodic/DATE.md, DATE-*.md there, then OpenClaw's memory/DATE*.md. */
function dayFiles(root: string, date: string): string[] {
  const out: string[] = [];
  const scan = (dir: string): void => {
    let names: string[] = [];
    try { names = readdirSync(join(root, dir)); } catch { return; }
    const mine = names.filter((n) => n === `${date}.md` || (n.startsWith(`${date}-`) && n.endsWith('.md'))).sort((a, b) => (a === `${date}.md` ? -1 : b === `${date}.md` ? 1 : a.localeCompare(b)));
    for (const n of mine) out.push(`${dir}/${n}`);
  };
  scan(PATHS.episodic);
  scan(PATHS.memoryDir);
  return out;
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
  maxChars: number;
  chars: number;
  files: BootPart[];
  missing: string[];
  rotating: string[];
  text: string;
}

export function boot(ctx: Ctx, maxChars = DEFAULT_MAX_CHARS): BootResult {
  const today = localDate(ctx.clock.now(), ctx.clock.tz);
  const yesterday = addDays(today, -1);
  const wanted: { path: string; role: PartRole; keep: 'head' | 'tail' }[] = [
    { path: PATHS.memoryIndex, role: 'index', keep: 'head' },
    { path: PATHS.sessionState, role: 'state', keep: 'head' },
    ...dayFiles(ctx.root, yesterday).map((path) => ({ path, role: 'yesterday' as const, keep: 'tail' as const })),
    ...dayFiles(ctx.root, today).map((path) => ({ path, role: 'today' as const, keep: 'tail' as const })),
    { path: PATHS.buffer, role: 'buffer', keep: 'tail' },
  ];
  const missing: string[] = [];
  const loaded: Loaded[] = [];
  for (const w of wanted) {
    try {
      const text = readMemoryFile(ctx.root, w.path);
      if (text === undefined) { missing.push(w.path); continue; }
      loaded.push({ ...w, text: withNl(text) });
    } catch (e) {
      const msg = (e as Error).message;
      loaded.push({ ...w, text: `[cannot be read: ${msg}; run "memtier health"]\n`, error: msg });
    }
  }
  const rotating = pendingRotations(ctx.root);
  // Lay the parts out for a budget; the notes around them count too, so shrink until all fits.
  const layout = (budget: number): { parts: (BootPart & { body: string })[]; text: string } => {
    const parts: (BootPart & { body: string })[] = loaded.map((l) => ({
      path: l.path, role: l.role, body: l.text, chars: header(l.path).length + l.text.length, fileChars: l.text.length, truncated: false, omitted: false, ...(l.error ? { error: l.error } : {}),
    }));
    const total = (): number => parts.reduce((s, p) => s + (p.omitted ? 0 : p.chars), 0);
    // Cut order: the oldest and least urgent first; MEMORY.md last.
    const ORDER: PartRole[] = ['yesterday', 'today', 'buffer', 'state', 'index'];
    for (const role of ORDER) {
      // within a role, the largest file first
      for (const p of parts.filter((x) => x.role === role).sort((a, b) => b.chars - a.chars)) {
        const over = total() - budget;
        if (over <= 0) break;
        const room = p.chars - over - header(p.path).length;
        const l = loaded.find((x) => x.path === p.path)!;
        const c = room >= MIN_PART ? cut(l.text, room, l.keep, p.path) : undefined;
        if (c) {
          p.body = c.body;
          p.chars = header(p.path).length + c.body.length;
          p.truncated = true;
          p.read = c.read;
        } else {
          p.omitted = true;
          p.truncated = true;
          p.read = `memtier get ${p.path}`;
          p.chars = 0;
        }
      }
    }
    const out: string[] = [];
    if (rotating.length) {
      out.push(`warning: a buffer rotation was interrupted (${rotating.join(', ')}): its entries are in neither the buffer nor an episodic file yet; the next "memtier wal …", "memtier rotate" or "memtier health --fix" finishes it\n`);
    }
    for (const p of parts) if (!p.omitted) out.push(header(p.path) + p.body);
    const cutParts = parts.filter((p) => p.truncated);
    if (cutParts.length) {
      out.push(`[boot budget ${maxChars} characters: ${cutParts.map((p) => `${p.path} ${p.omitted ? 'left out' : `cut to ${p.chars} of ${p.fileChars}`} (${p.read})`).join('; ')}]\n`);
    }
    if (missing.length) out.push(`[not found: ${missing.join(', ')}]\n`);
    return { parts, text: out.join('\n') };
  };
  let budget = maxChars;
  let lay = layout(budget);
  for (let i = 0; i < 8 && lay.text.length > maxChars && budget > 0; i++) {
    budget -= lay.text.length - maxChars;
    lay = layout(Math.max(0, budget));
  }
  const { parts, text } = lay;
  const files: BootPart[] = parts.map(({ body: _body, ...p }) => p);
  return { root: ctx.root, today, maxChars, chars: text.length, files, missing, rotating, text };
}

export const command: CommandSpec = {
  name: 'boot',
  summary: 'print what to reload after compaction or restart',
  usage: ['boot [--max-chars N]'],
  description: `Prints, each under a "==> path <==" header, what an agent reads after compaction or a
restart (seed 004 compaction recovery): MEMORY.md, SESSION-STATE.md, yesterday's and today's
episodic days (memory/episodic/DATE*.md, and OpenClaw's memory/DATE*.md when the day lives
there), then the working buffer. Dates follow $MEMTIER_TZ.

The output stays within --max-chars (headers included). Over budget, parts are cut in this order:
yesterday, today, the buffer, SESSION-STATE.md, MEMORY.md (largest file first within each);
logs keep their newest lines, MEMORY.md and SESSION-STATE.md their first lines. Every cut says
how to read the rest ("memtier get PATH:FROM-TO"). A part that would keep almost nothing is
left out whole and listed.

Read-only. A rotation a crash interrupted (files in memory/.rotating/) is reported; the next
writing command finishes it.`,
  flags: [{ name: 'max-chars', type: 'number', value: 'N', description: `character budget for the whole output (default ${DEFAULT_MAX_CHARS})`, default: DEFAULT_MAX_CHARS }],
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
