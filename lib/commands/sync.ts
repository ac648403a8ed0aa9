import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';

export const command: CommandSpec = {
  name: 'sync',
  summary: 'git pull --rebase and push the memory repository',
  usage: ['sync [--remote NAME] [--no-push] [--dry-run]'],
  description: `For a memory shared between machines (git is the distributed engine): commits local
memory changes, pulls with rebase, and pushes. The .gitattributes that "init --git" writes merge
append-only logs (working buffer, episodic days) by union, so two machines' appends both survive.
On a real conflict the rebase is aborted (your commits stay) and the files are listed; exit 1.`,
  flags: [
    { name: 'remote', type: 'string', value: 'NAME', description: "remote to sync with (default: the branch's upstream, else the first remote)" },
    { name: 'no-push', type: 'boolean', description: 'pull only' },
    { name: 'dry-run', type: 'boolean', description: 'say what would happen, change nothing' },
  ],
  examples: ['memtier sync', 'memtier sync --remote origin --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const { sync } = await import('../git/index.js');
    const remote = flagString(args, 'remote');
    const r = sync(ctx, { dryRun: flagBool(args, 'dry-run'), push: !flagBool(args, 'no-push'), ...(remote ? { remote } : {}) });
    return { text: r.message, json: r, exitCode: r.ok ? 0 : 1 };
  },
};
