import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagNumber } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { rotate, DEFAULT_MAX_LINES } from '../wal/rotate.js';

export const command: CommandSpec = {
  name: 'rotate',
  summary: "move the working buffer into today's episodic file",
  usage: ['rotate [--force] [--max-lines N]'],
  description: `Finishes any rotation a crash interrupted, then, when memory/working-buffer.md has reached
its line limit (or always with --force), moves its entries to memory/episodic/YYYY-MM-DD.md and
empties the buffer. Crash-safe: the buffer is renamed aside first and merged by entry id, so a
crash at any point loses no entry and duplicates none once the next command runs.
Every wal write does this automatically.`,
  flags: [
    { name: 'force', type: 'boolean', description: 'rotate now, whatever the buffer length' },
    { name: 'max-lines', type: 'number', value: 'N', description: `line limit (default $MEMTIER_BUFFER_MAX_LINES or ${DEFAULT_MAX_LINES})` },
  ],
  examples: ['memtier rotate', 'memtier rotate --force'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const max = flagNumber(args, 'max-lines');
    const r = rotate(ctx, { force: flagBool(args, 'force'), ...(max !== undefined ? { maxLines: max } : {}) });
    return { text: r.message, json: { ok: true, ...r } };
  },
};
