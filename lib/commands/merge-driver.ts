/**
 * `memtier merge-driver BASE OURS THEIRS PATH`: git's `merge=memtier` driver (lib/git/driver.ts).
 * Git hands three temporary files and the file's path in the repository; the merged text goes
 * into OURS. Exit 0 merged, 1 a conflict git should mark (a binary file changed on both sides).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';

export const command: CommandSpec = {
  name: 'merge-driver',
  summary: "git's merge=memtier driver: merge a log by entry id, SESSION-STATE.md by section (git runs it)",
  usage: ['merge-driver BASE OURS THEIRS PATH'],
  needsRoot: false,
  description: `Run by git, not by hand: .gitattributes names "merge=memtier" for the working buffer,
episodic days, the archive, SESSION-STATE.md and memory/.forgotten, and "memtier clone", "init --git"
and "sync" register this command as the driver in the clone's .git/config. It merges the three
versions git gives (BASE, OURS, THEIRS: temporary files; PATH: the file in the memory) by memtier's
rules (see "memtier sync --help") and writes the result into OURS. Exit 0: merged; 1: a conflict git
marks (a binary file changed on both sides).`,
  flags: [],
  examples: ["git config merge.memtier.driver \"memtier merge-driver %O %A %B %P\""],
  async run(_ctx: Ctx, args: Args): Promise<CommandResult> {
    const [base, ours, theirs, path] = args.positionals;
    if (!base || !ours || !theirs || !path) throw new UsageError('merge-driver needs BASE OURS THEIRS PATH (git passes %O %A %B %P)', 'it is run by git: see "memtier sync --help"');
    const { mergeFile } = await import('../git/merge.js');
    const read = (p: string): string | undefined => { try { return readFileSync(p, 'utf8'); } catch { return undefined; } };
    const m = mergeFile({ rel: path.replace(/\\/g, '/'), base: read(base), ours: read(ours), theirs: read(theirs) });
    writeFileSync(ours, m.text ?? '');
    return { text: '', json: { ok: !m.conflict, path, ...(m.conflict ? { conflict: m.conflict } : {}) }, exitCode: m.conflict ? 1 : 0 };
  },
};
