import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { IF_UPKEEP_FLAG, upkeepSkip } from '../lifecycle/upkeep-role.js';
import { runConsolidate } from '../lifecycle/consolidate.js';
import { localDate } from '../core/clock.js';

export const command: CommandSpec = {
  name: 'consolidate',
  summary: 'nightly: summarize, decay, index, prune, reconcile MEMORY.md, clean, health',
  usage: ['consolidate [--date YYYY-MM-DD|yesterday] [--dry-run]'],
  description: `The nightly pipeline (seed 000; cron 03:00), in order:
  1 summarize  the day's typed entries → memory/reviews/daily/YYYY-MM-DD.md with Facts Learned,
               Decisions Made, Preferences Noted, Action Items (each line cites its source; prose
               an agent writes under "## Notes" is kept; prompt: templates/daily-summary.md);
               a person's daily note (memory/Daily/DATE.md, Logseq's journals/YYYY_MM_DD.md) is
               the day's too: its open "- [ ]" and TODO/LATER items are action items, ticked
               and DONE ones left out; so is a note dated by its frontmatter date: or created:,
               or a Notion page's "Date:" line (its bullets and paragraphs, not its properties)
  2 decay      activation recomputed from dates and recall history; the distribution is reported
  3 index      the search cache refreshed when files changed
  4 prune      episodic days whose entries are all below activation 0.05, and the lowest days
               while more than 10,000 entries are live (MEMTIER_MAX_FACTS), move to memory/archive/
  5 reconcile  MEMORY.md: index lines for recalled facts in their homes above activation 0.5 are
               added within its budget; lines memtier added whose fact fell below 0.15 or is gone
               are removed (only lines ending in the ^id their link points to; never a person's)
  6 clean      raw session files (30 days) and daily summaries (365 days) go to the trash; items
               trashed more than $MEMTIER_TRASH_DAYS days ago (default 30; "off" keeps them)
               leave the trash for good ("memtier trash list" shows them first)
  7 health     checks run, written to .memtier/health.json
A second run the same day changes nothing. Exit 1 when the health step finds a FAIL (the memory
cannot be trusted), as "memtier health" does; upkeep warnings never fail it.
On a terminal, reading a large memory says how far it is on stderr ("reading memory: …"); Ctrl-C
leaves every file old or whole.`,
  flags: [
    { name: 'date', type: 'string', value: 'YYYY-MM-DD', description: 'summarize this day instead of today ("yesterday": the day that ended, what the nightly job passes)' },
    { name: 'dry-run', type: 'boolean', description: 'show what each step would do, write nothing' },
    IF_UPKEEP_FLAG,
  ],
  examples: ['memtier consolidate', 'memtier consolidate --date 2026-05-14 --dry-run', 'memtier consolidate --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const skip = await upkeepSkip(ctx, args);
    if (skip) return skip;
    const given = flagString(args, 'date');
    // the scheduled run at 03:00 summarizes the day that ended (--date yesterday), not the three
    // hours of the new one
    const date = given === 'yesterday' ? localDate(new Date(ctx.clock.now().getTime() - 86_400_000), ctx.clock.tz)
      : given === 'today' ? localDate(ctx.clock.now(), ctx.clock.tz) : given;
    const r = await runConsolidate(ctx, { dryRun: flagBool(args, 'dry-run'), ...(date ? { date } : {}) });
    const parts = [
      r.summary.changed ? `daily summary ${r.date}` : '',
      r.prune.moved.length ? `${r.prune.moved.length} faded day(s) archived` : '',
      r.reconcile.added.length || r.reconcile.removed.length || r.reconcile.relinked.length ? `MEMORY.md +${r.reconcile.added.length} -${r.reconcile.removed.length} relinked ${r.reconcile.relinked.length}` : '',
      r.clean.trashed.length ? `${r.clean.trashed.length} file(s) past retention trashed` : '',
      r.clean.purged.length ? `${r.clean.purged.length} trash item(s) past retention deleted` : '',
    ].filter(Boolean);
    // its own health step failing is a finding: exit 1, as "memtier health" would
    const failed = r.health !== undefined && !r.health.ok;
    const text = failed ? `${r.message}\nmemory integrity check failed after consolidation: run "memtier health" for the FAIL lines` : r.message;
    return { text, json: r, commitSummary: `consolidate: ${parts.join(', ') || 'no changes'}`, ...(failed ? { exitCode: 1 as const } : {}) };
  },
};
