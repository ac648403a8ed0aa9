/**
 * `memtier topics`: topics that emerge from the memory, written to memory/palace/topics.md
 * (lib/lifecycle/topics.ts); `search --topic T` searches one of them.
 */
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { runTopics, TOPICS_FILE } from '../lifecycle/topics.js';

export const command: CommandSpec = {
  name: 'topics',
  summary: 'topics that emerge from the memory (3+ entries sharing a keyword), in memory/palace/topics.md',
  usage: ['topics [--rebuild] [--dry-run]'],
  description: `A topic emerges when 3 or more entries share a keyword (a content word of 4+ letters or a
Chinese word of 2+ characters; a word in more than a quarter of the entries is too common). Topics
whose entries overlap by more than 70 % merge ("postgres / database"); in a topic of 5 or more
entries, a keyword 5 of them share is a subtopic. A topic with no entry in 30 days is idle (listed
apart, its weight halving every 30 days) and is dropped after 90. ${TOPICS_FILE} is generated
(every line links to its entry); .memtier/topics.json remembers each topic's first and last day so
a topic whose entries fall below 3 fades instead of vanishing; --rebuild starts from the entries
alone. "memtier search --topic NAME" searches within one topic.`,
  flags: [
    { name: 'rebuild', type: 'boolean', description: 'forget the remembered topics and start from the entries alone' },
    { name: 'dry-run', type: 'boolean', description: 'show the topics, write nothing' },
  ],
  examples: ['memtier topics', 'memtier topics --json', 'memtier search --topic postgres "migration plan"'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const r = runTopics(ctx, { dryRun: flagBool(args, 'dry-run'), rebuild: flagBool(args, 'rebuild') });
    const lines = [r.message, ...r.active.map((t) => `  ${t.name} (${t.entries}, last ${t.last})${t.subtopics.length ? ` › ${t.subtopics.join(', ')}` : ''}`), ...r.idle.map((t) => `  idle: ${t.name} (${t.entries}, last ${t.last}, weight ${t.weight})`)];
    return { text: lines.join('\n'), json: r, ...(r.changed && !r.dryRun ? { commitSummary: r.message } : {}) };
  },
};
