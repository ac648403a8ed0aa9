/**
 * `memtier classify [--apply]`: type and tag the log's orphans with extraction's rules (lib/lifecycle/classify.ts).
 */
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { runClassify } from '../lifecycle/classify.js';

export const command: CommandSpec = {
  name: 'classify',
  summary: 'type and tag untyped or untagged log entries with the extraction rules (--apply writes)',
  usage: ['classify [--apply]'],
  description: `Seed 002's orphans: entries of the log (memory/episodic/, the working buffer, OpenClaw's
memory/YYYY-MM-DD.md days) without a [TYPE] or without a #tag. Each gets the type the extraction
rules give its words (memtier extract --help) and the tags of TAGS.md it names (never another
tag). Without --apply it only shows what it would do. With --apply, lines of memtier's own logs are
rewritten in place (id, time and words kept; [TYPE] and #tags added); entries of a day a person wrote
(memory/YYYY-MM-DD.md) are reported, never rewritten. Entries no rule places are listed.`,
  flags: [{ name: 'apply', type: 'boolean', description: 'rewrite the lines of memtier\'s logs' }],
  examples: ['memtier classify', 'memtier classify --apply --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const r = runClassify(ctx, { apply: flagBool(args, 'apply') });
    const lines = [r.message];
    for (const p of r.placed) lines.push(`  ${p.path}:${p.line} ${p.type ? `[${p.type}]` : ''}${p.tags.map((t) => ` #${t}`).join('')} ← ${p.text.slice(0, 100)}${p.rule ? ` (${p.rule})` : ''}${p.rewritten ? '' : ' (not rewritten: a person\'s note)'}`);
    for (const u of r.unplaced) lines.push(`  unplaced ${u.path}:${u.line}: ${u.text.slice(0, 100)}`);
    if (r.dryRun && r.placed.some((p) => p.rewritten)) lines.push('(nothing written: --apply rewrites these lines)');
    return { text: lines.join('\n'), json: r, ...(r.changed && !r.dryRun ? { commitSummary: r.message } : {}) };
  },
};
