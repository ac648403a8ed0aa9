import { assertKnownTags } from '../health/vocabulary.js';
import { readStdin } from '../cli/stdin.js';
import type { Args, CommandResult, CommandSpec, Io } from '../cli/spec.js';
import { flagList, flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { ENTRY_TYPES, isEntryType } from '../format/entry.js';
import { openStore } from '../store/store.js';
import { addEntriesTx } from '../wal/episodic.js';
import { finishRotationTx } from '../wal/rotate.js';


export const command: CommandSpec = {
  name: 'add',
  summary: "append a typed entry to today's episodic file",
  usage: ['add [--type TYPE] [--tags a,b] [--id ID] TEXT'],
  description: `Appends one entry line "- HH:MM [TYPE] TEXT #tags ^id" to memory/episodic/YYYY-MM-DD.md
(today in $MEMTIER_TZ; use --now to backfill another day). Types: ${ENTRY_TYPES.join(', ')}.
Tags (--tags and inline #tags) must be in memory/TAGS.md: another is refused (exit 2, nothing written); "#friction" marks something that cost time (the weekly review collects it).
TEXT "-" reads the text from standard input.`,
  flags: [
    { name: 'type', type: 'string', value: 'TYPE', description: 'entry type tag', choices: ENTRY_TYPES },
    { name: 'tags', type: 'list', value: 'A,B', description: 'tags to add as #tag' },
    { name: 'id', type: 'string', value: 'ID', description: 'a stable id instead of a generated one (3-64 letters, digits, "-")' },
  ],
  examples: ['memtier add --type PREF "prefers lists over tables"', 'memtier add --type LESSON --tags friction "pnpm needs --shamefully-hoist for expo"', 'memtier add --now 2026-05-10T09:00:00Z --type EVENT "demo day"'],
  async run(ctx: Ctx, args: Args, io: Io): Promise<CommandResult> {
    const text = args.positionals.length === 1 && args.positionals[0] === '-' ? await readStdin(io) : args.positionals.join(' ');
    if (!text.trim()) throw new UsageError('add needs a TEXT', 'e.g. memtier add --type PREF "prefers tabs"');
    const type = flagString(args, 'type')?.toUpperCase();
    if (type !== undefined && !isEntryType(type)) throw new UsageError(`unknown type "${type}"`, `one of ${ENTRY_TYPES.join(', ')}`);
    const id = flagString(args, 'id');
    const entry = { text, ...(type ? { type } : {}), ...(id ? { id } : {}), tags: flagList(args, 'tags') ?? [] };
    assertKnownTags(ctx, text, entry.tags);
    // like every writing command, first finish a buffer rotation a crash interrupted
    const [r] = openStore(ctx).mutate((tx) => {
      finishRotationTx(tx, ctx);
      return addEntriesTx(tx, ctx, [entry]);
    });
    return { text: args.quiet ? '' : `added ^${r!.id} to ${r!.path}:${r!.line}`, json: { ok: true, ...r }, commitSummary: `${type ? `[${type}] ` : ''}${text}` };
  },
};
