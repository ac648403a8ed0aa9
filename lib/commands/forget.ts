import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { PATHS } from '../format/layout.js';
import { forgetEntry, FORGOTTEN_DIR } from '../lifecycle/entries.js';

export const command: CommandSpec = {
  name: 'forget',
  summary: 'move an entry to the trash, everywhere it is materialized',
  usage: ['forget ENTRY [--purge] [--dry-run]'],
  description: `Removes an entry everywhere it is materialized and keeps it in ${FORGOTTEN_DIR}/YYYY-MM-DD.md
under a heading naming where it was ("## HH:MM from path:line"); git history is the undo. ENTRY is its
id (^k2j3mx0a1b: every line carrying that id — the working buffer, an episodic day, its canonical
home, MEMORY.md — and the SESSION-STATE.md item the WAL made of it: a decision's Recent Decisions
line, a pending item, a key fact, the current task; so search and boot no longer show it) or one
place (memory/episodic/2026-05-14.md:12). The state's items go to the trash file too, as
"- Section: item"; an item that only says the same words in another section stays. Forgetting an
id whose lines are already in the trash removes an item SESSION-STATE.md still holds. Prefer "supersede" for facts that
changed; "forget" is for what should not be remembered at all. A file edited meanwhile is left
untouched (exit 2, "conflict"); an ambiguous or missing ENTRY is refused with the candidates;
forgetting an id again changes nothing. The line is saved to the trash before it is removed: a trash
that cannot take it (memory/.trash a file or a link) stops the command with nothing removed.
--purge keeps nothing: the entry's lines are removed and taken out of memory/.trash/ as well (the
forgotten files, the buffer copies rotation left there), its SESSION-STATE.md item out of every
snapshot (memory/.snapshots/), and recall's cache (.memtier/recall-cache.json) is emptied; in a git
memory it prints how to take the line out of git history too (git filter-repo), which memtier never
rewrites itself. "wal restore" of a snapshot leaves out the items of forgotten entries.`,
  flags: [
    { name: 'purge', type: 'boolean', description: 'keep nothing: take the lines out of memory/.trash/ and the state snapshots too (git history: see the printed hint)' },
    { name: 'dry-run', type: 'boolean', description: 'show what would be removed, write nothing' },
  ],
  examples: ['memtier forget ^k2j3mx0a1b', 'memtier forget memory/episodic/2026-05-14.md:12 --dry-run', 'memtier forget ^k2j3mx0a1b --purge'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const [ref, ...extra] = args.positionals;
    if (!ref) throw new UsageError('forget needs an ENTRY', 'e.g. memtier forget ^k2j3mx0a1b');
    if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`, 'forget one entry at a time');
    const r = forgetEntry(ctx, ref, { dryRun: flagBool(args, 'dry-run'), purge: flagBool(args, 'purge') });
    const lines = [r.message, ...(r.from && r.changed ? [`  - ${r.from.raw}`] : []), ...(r.changed ? (r.state ?? []).map((s) => `  - ${s}  (${PATHS.sessionState})`) : []), ...(r.gitHint ?? [])];
    return { text: args.quiet ? '' : lines.join('\n'), json: r };
  },
};
