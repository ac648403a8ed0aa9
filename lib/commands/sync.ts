import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';

export const command: CommandSpec = {
  name: 'sync',
  summary: 'keep one memory in step on several machines (git): commit, merge by entry, push',
  usage: ['sync [--remote NAME] [--no-push] [--dry-run]'],
  description: `For one memory on several machines (git is the distributed engine; a second machine
starts with "memtier clone URL DIR"): commits this machine's memory changes, fetches the remote
branch, merges, and pushes the branch to the same branch. The merge is memtier's own, file by file:
logs (working buffer, episodic days, archive) merge by entry id (both sides' new entries kept once,
in time order; what one side forgot, superseded, rotated or archived stays so: forgets travel as ids
in memory/.forgotten, never the text); SESSION-STATE.md merges by section and key (a value set on
both machines takes the later write; the other is still in the log); a person's prose (MEMORY.md,
notes) merges line by line where the two changes do not touch, and where they do, this machine's
version stays in the file and the other's is kept beside it as NAME.conflict-MACHINE.md: exit 1,
the rest of the sync done; "memtier resolve NAME.md" finishes it. Sync never starts a git rebase or
merge and never works on a detached HEAD or inside a person's stopped rebase/merge/cherry-pick
(exit 2, with what to do). A sync killed anywhere is finished by the next memtier command.
Exit: 0 synced, 1 synced with files for a person to resolve, 2 could not sync (nothing lost).`,
  flags: [
    { name: 'remote', type: 'string', value: 'NAME', description: "remote to sync with (default: the branch's upstream, else the first remote)" },
    { name: 'no-push', type: 'boolean', description: 'pull only' },
    { name: 'dry-run', type: 'boolean', description: 'say what would happen, change nothing' },
  ],
  examples: ['memtier sync', 'memtier sync --remote origin --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const { sync } = await import('../git/sync.js');
    const remote = flagString(args, 'remote');
    const r = sync(ctx, { dryRun: flagBool(args, 'dry-run'), push: !flagBool(args, 'no-push'), node: process.execPath, ...(remote ? { remote } : {}) });
    return { text: r.message, json: r, exitCode: r.exitCode };
  },
};
