import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagNumber } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { DEFAULT_ARCHIVE_DAYS, runArchive } from '../lifecycle/archive.js';

export const command: CommandSpec = {
  name: 'archive',
  summary: 'move old episodic days to memory/archive/YYYY/MM/',
  usage: ['archive [--days N] [--dry-run]', 'archive --retention [--session-days N] [--summary-days N] [--dry-run]'],
  description: `Moves episodic days (memory/episodic/YYYY-MM-DD.md and OpenClaw's memory/YYYY-MM-DD*.md)
older than N days to memory/archive/YYYY/MM/, keeping their file names: moved, never deleted,
still searchable (COLD tier); an archived day already there is never overwritten. With
--retention it also applies seed 000's retention: dated raw session files under memory/sessions/
older than 30 days and daily summaries under memory/reviews/daily/ older than 365 days go to
memory/.trash/ (trash, never rm; the nightly consolidate does this clean-up too). A second run
changes nothing. Defaults can be set with
MEMTIER_ARCHIVE_DAYS, MEMTIER_SESSION_RETENTION_DAYS and MEMTIER_SUMMARY_RETENTION_DAYS.`,
  flags: [
    { name: 'days', type: 'number', value: 'N', description: `archive days older than N days (default ${DEFAULT_ARCHIVE_DAYS})` },
    { name: 'retention', type: 'boolean', description: 'also trash raw session files and daily summaries past retention' },
    { name: 'session-days', type: 'number', value: 'N', description: 'trash raw session files older than N days (default 30)' },
    { name: 'summary-days', type: 'number', value: 'N', description: 'trash daily summaries older than N days (default 365)' },
    { name: 'dry-run', type: 'boolean', description: 'show what would move, change nothing' },
  ],
  examples: ['memtier archive', 'memtier archive --days 14 --dry-run', 'memtier archive --retention', 'memtier archive --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const opt = (n: string): number | undefined => flagNumber(args, n);
    const days = opt('days'), sd = opt('session-days'), md = opt('summary-days');
    const r = runArchive(ctx, {
      dryRun: flagBool(args, 'dry-run'),
      retention: flagBool(args, 'retention'),
      ...(days !== undefined ? { days } : {}),
      ...(sd !== undefined ? { sessionDays: sd } : {}),
      ...(md !== undefined ? { summaryDays: md } : {}),
    });
    const lines = [r.message, ...r.moved.map((m) => `  ${m.from} → ${m.to}`), ...r.trashed.map((t) => `  trash ${t.rel} (${t.why})`)];
    return { text: lines.join('\n'), json: r };
  },
};
