/**
 * `memtier stats`: what the memory holds and what it costs — counts by tier, type, tag and
 * month, sizes, the token estimate of the HOT tier loaded every session and of everything,
 * activation distribution and growth.
 */
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { collectStats } from '../stats/collect.js';
import { renderStats } from '../stats/render.js';

export const command: CommandSpec = {
  name: 'stats',
  summary: 'counts, sizes, token estimates, activation, growth',
  usage: ['stats [--json]'],
  description: [
    'Counts files by tier and entries by type, tag and month; sizes; the estimated tokens of the HOT tier',
    '(MEMORY.md, SESSION-STATE.md, todos.md: what an agent loads every session) and of the whole memory;',
    'the activation distribution of entries (decay and recalls) and growth per week and month.',
    'Tokens are estimated as ceil(non-CJK characters / 4) + 1 per CJK character: a budget, not a count.',
    'On a terminal the distributions are drawn as small bar charts. Read-only: writes nothing.',
  ].join('\n'),
  flags: [],
  examples: ['memtier stats', 'memtier stats --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const stats = await collectStats(ctx);
    return { json: stats, ...(args.json ? {} : { text: renderStats(stats, { charts: ctx.interactive }) }) };
  },
};
