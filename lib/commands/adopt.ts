/**
 * `memtier adopt [--dry-run]`: move OpenClaw daily files (memory/YYYY-MM-DD.md,
 * memory/YYYY-MM-DD-slug.md) into memory/episodic/ under the same name. A name already taken
 * keeps both (the newcomer gets -2, -3, … before .md); nothing is overwritten or rewritten.
 * Notes without frontmatter are listed as untyped and left where they are; notes outside the
 * memory (other folders of the root) are counted, with how to bring them in.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { addDays, localDate } from '../core/clock.js';
import { classify, isOpenClawWorkspace, listMemoryFiles, outsideNotes, outsideNotesText, PATHS } from '../format/layout.js';
import { memoryCoreNote } from '../openclaw/host-config.js';
import { startsWithFrontmatter } from '../format/frontmatter.js';
import { openStore, readMemoryFile } from '../store/store.js';

export const LEGACY_DAILY = /^\d{4}-\d{2}-\d{2}(?:-[^/]*)?\.md$/;

export interface AdoptMove { from: string; to: string; renamed: boolean }

/** OpenClaw daily files directly under memory/ (regular files only; links are never moved). */
export function legacyDailyFiles(root: string): string[] {
  let names: string[];
  try { names = readdirSync(join(root, PATHS.memoryDir)); } catch { return []; }
  return names.filter((n) => LEGACY_DAILY.test(n)).filter((n) => {
    try { return lstatSync(join(root, PATHS.memoryDir, n)).isFile(); } catch { return false; }
  }).sort().map((n) => `${PATHS.memoryDir}/${n}`);
}

/** The destination for a daily file: same name in memory/episodic/, or NAME-2.md, NAME-3.md… when taken. */
export function destinationFor(rel: string, taken: (rel: string) => boolean): { to: string; renamed: boolean } {
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  const first = `${PATHS.episodic}/${name}`;
  if (!taken(first)) return { to: first, renamed: false };
  const base = name.slice(0, -3);
  for (let i = 2; ; i++) {
    const to = `${PATHS.episodic}/${base}-${i}.md`;
    if (!taken(to)) return { to, renamed: true };
  }
}

/**
 * Markdown notes (outside the logs) that have no frontmatter: read as untyped, never rewritten.
 * A daily note dated by its name (read as its day) and an outliner's page that opens with
 * `key:: value` properties (read as its frontmatter) are not among them.
 */
export function untypedNotes(root: string): string[] {
  const out: string[] = [];
  for (const rel of listMemoryFiles(root)) {
    const { kind, date } = classify(rel);
    if (!['note', 'semantic', 'procedural', 'knowledge', 'graph'].includes(kind) || (kind === 'note' && date)) continue;
    let text: string | undefined;
    try { text = readMemoryFile(root, rel); } catch { continue; } // unreadable files are health's business
    if (text !== undefined && !startsWithFrontmatter(text) && !/^[A-Za-z][\w-]*::(?:\s|$)/.test(text)) out.push(rel);
  }
  return out;
}

export const command: CommandSpec = {
  name: 'adopt',
  summary: 'move OpenClaw daily files into memory/episodic/; list untyped notes',
  usage: ['adopt [--dry-run]'],
  description: `OpenClaw's memory flush writes daily files memory/YYYY-MM-DD.md and memory/YYYY-MM-DD-slug.md.
memtier reads them in place as episodic days; adopt moves each one to memory/episodic/ under the
same name (a rename: the bytes are not touched). Today's and yesterday's files are left where they
are: OpenClaw loads both at session start and its flush may still append to today's (in an OpenClaw
workspace memtier writes the day there too: one file per day). When the name is already taken in
memory/episodic/, both are kept: the newcomer becomes NAME-2.md (then -3, …). Nothing is ever overwritten.

Notes without frontmatter are listed as untyped and left where they are (memtier never rewrites
them); add a frontmatter block with "tags:" on line 2 by hand to make them WARM notes.

Markdown notes outside the memory (folders other than memory/ and knowledge/, loose notes at the
root) are counted per folder, with how to bring them in: memtier does not move a person's own
folders (--json: outside).

In an OpenClaw workspace whose OpenClaw config ($OPENCLAW_CONFIG_PATH, else ~/.openclaw/openclaw.json)
has memtier in the memory slot while memory-core is still enabled, it says so: memory-core's
dreaming job (03:00) writes MEMORY.md, DREAMS.md and memory/dreaming/ beside memtier, and its tools
conflict with memtier's; the line gives the commands that end both (--json: memoryCore).`,
  flags: [{ name: 'dry-run', type: 'boolean', description: 'print what would move; change nothing' }],
  examples: ['memtier adopt --dry-run', 'memtier adopt', 'memtier adopt --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const dry = flagBool(args, 'dry-run');
    const root = ctx.root;
    let moves: AdoptMove[] = [];
    // today's and yesterday's notes stay where the host reads and writes them (OpenClaw loads both
    // at session start, and its flush may append to today's at any moment)
    const yesterday = addDays(localDate(ctx.clock.now(), ctx.clock.tz), -1);
    const all = legacyDailyFiles(root);
    const recent = all.filter((r) => (classify(r).date ?? '') >= yesterday);
    const candidates = all.filter((r) => !recent.includes(r));
    const plan = (exists: (rel: string) => boolean): AdoptMove[] => {
      const planned = new Set<string>();
      return candidates.map((from) => {
        const d = destinationFor(from, (r) => planned.has(r) || exists(r));
        planned.add(d.to);
        return { from, ...d };
      });
    };
    if (dry) {
      const probe = (r: string): boolean => { try { lstatSync(join(root, r)); return true; } catch { return false; } };
      moves = plan(probe);
    } else if (candidates.length) {
      moves = openStore(ctx).mutate((tx) => {
        const ms = plan((r) => tx.exists(r));
        for (const m of ms) tx.move(m.from, m.to);
        return ms;
      });
    }
    const untyped = untypedNotes(root);
    const lines: string[] = [];
    const verb = dry ? 'would move' : 'moved';
    if (moves.length === 0) lines.push('no OpenClaw daily files to adopt (memory/YYYY-MM-DD*.md)');
    else {
      lines.push(`${verb} ${moves.length} daily file${moves.length === 1 ? '' : 's'} into ${PATHS.episodic}/:`);
      for (const m of moves) lines.push(`  ${m.from} → ${m.to}${m.renamed ? ' (name taken: both kept)' : ''}`);
    }
    if (recent.length) lines.push(`left in place (today's and yesterday's notes, which a host may still be writing): ${recent.join(', ')}`);
    if (untyped.length) {
      lines.push(`${untyped.length} note${untyped.length === 1 ? '' : 's'} without frontmatter, read as untyped and left in place:`);
      for (const u of untyped) lines.push(`  ${u}`);
      lines.push('  (give one a frontmatter block with "tags:" on line 2 to make it a WARM note)');
    }
    const outside = outsideNotes(root);
    lines.push(...outsideNotesText(outside));
    if (dry && moves.length) lines.push('dry run: nothing changed; run "memtier adopt" to move them');
    // an OpenClaw workspace whose memory-core still runs beside memtier: a second dreaming system on these files
    const memoryCore = isOpenClawWorkspace(ctx.root) ? await memoryCoreNote(ctx.env) : undefined;
    if (memoryCore) lines.push(`openclaw: ${memoryCore.advice}`);
    return { text: lines.join('\n'), json: { ok: true, dryRun: dry, moves, left: recent, untyped, outside: outside.folders, ...(outside.partial ? { outsidePartial: true } : {}), ...(memoryCore ? { memoryCore } : {}) } };
  },
};
