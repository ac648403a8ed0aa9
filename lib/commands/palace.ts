import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { IF_UPKEEP_FLAG, upkeepSkip } from '../lifecycle/upkeep-role.js';
import { runPalace, VIEWS_FILE } from '../lifecycle/palace.js';

export const command: CommandSpec = {
  name: 'palace',
  summary: 'regenerate the views in memory/palace/',
  usage: ['palace [--dry-run]'],
  description: `Regenerates the memory palace (seed 001): views of the memory in memory/palace/,
each line linking to the entry it shows (path#^id). timeline.md lists the episodic log by day,
newest first, under a mermaid timeline of the last 14 days (a picture on GitHub and in editors);
projects.md groups [PROJ] entries by tag; technology.md groups [TECH] entries by tag and lists
the WARM notes by the tags on their line 2. Custom views come from ${VIEWS_FILE}, a JSON array:
  [{"name": "people", "title": "People", "type": "PEOPLE"},
   {"name": "docker", "tags": ["docker"]}]
(type: one entry type or a list; tags: any of them; both: an entry must match both).
The views are generated: do not edit them. A view whose content did not change is not written,
so a second run changes nothing.
On a terminal, reading a large memory says how far it is on stderr ("reading memory: …"); Ctrl-C
leaves every file old or whole.`,
  flags: [{ name: 'dry-run', type: 'boolean', description: 'show which views would change, write nothing' }, IF_UPKEEP_FLAG],
  examples: ['memtier palace', 'memtier palace --dry-run', 'memtier palace --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const skip = await upkeepSkip(ctx, args);
    if (skip) return skip;
    const r = runPalace(ctx, { dryRun: flagBool(args, 'dry-run') });
    const lines = [r.message, ...r.views.map((v) => `  ${v.changed ? (r.dryRun ? 'would write' : 'wrote') : 'same'} ${v.file} (${v.entries} lines)`)];
    return { text: lines.join('\n'), json: r, commitSummary: r.message };
  },
};
