import { assertKnownTags } from '../health/vocabulary.js';
import { readStdin } from '../cli/stdin.js';
import type { Args, CommandResult, CommandSpec, Io } from '../cli/spec.js';
import { flagBool, flagList, flagString } from '../cli/spec.js';
import { nearDuplicates } from '../capture/similar.js';
import { localDate } from '../core/clock.js';
import { dayFile, PATHS } from '../format/layout.js';
import { recordRecalls } from '../search/history.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { ENTRY_TYPES, isEntryType } from '../format/entry.js';
import { openStore, readMemoryFile } from '../store/store.js';
import { addEntriesTx } from '../wal/episodic.js';
import { finishRotationTx } from '../wal/rotate.js';


export const command: CommandSpec = {
  name: 'add',
  summary: "append a typed entry to today's episodic file",
  usage: ['add [--type TYPE] [--tags a,b] [--id ID] TEXT'],
  description: `Appends one entry line "- HH:MM [TYPE] TEXT #tags ^id" to memory/episodic/YYYY-MM-DD.md
(today in $MEMTIER_TZ; use --now to backfill another day). Types: ${ENTRY_TYPES.join(', ')}.
Tags (--tags and inline #tags) must be in TAGS.md (the memory root's): another is refused (exit 2, nothing written); "#friction" marks something that cost time (the weekly review collects it).
TEXT "-" reads the text from standard input. add writes what it is given; when today's log or the
working buffer already holds an entry saying the same (same numbers, 85 % of the words), it says so
(--json: nearDuplicateOf); --dedupe refreshes that entry instead of adding a second one.`,
  flags: [
    { name: 'type', type: 'string', value: 'TYPE', description: 'entry type tag', choices: ENTRY_TYPES },
    { name: 'tags', type: 'list', value: 'A,B', description: 'tags to add as #tag' },
    { name: 'id', type: 'string', value: 'ID', description: 'a stable id instead of a generated one (3-64 letters, digits, "-"); refused when any entry of the memory already holds it' },
    { name: 'dedupe', type: 'boolean', description: 'when today\'s log or the buffer already says it, refresh that entry instead of adding one' },
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
    // the same fact already in today's log or the buffer (no index: a write stays a cold call)
    const day = dayFile(ctx.root, localDate(ctx.clock.now(), ctx.clock.tz));
    // a report only: a file that cannot be read is left out (the write itself says why it fails)
    const readable = (rel: string): string | undefined => { try { return readMemoryFile(ctx.root, rel); } catch { return undefined; } };
    const near = (except?: string) => nearDuplicates(text, [{ path: day, text: readable(day) }, { path: PATHS.buffer, text: readable(PATHS.buffer) }], except);
    if (flagBool(args, 'dedupe')) {
      const dup = near()[0];
      if (dup) {
        if (dup.id) recordRecalls(ctx, [dup.id], text);
        return { text: args.quiet ? '' : `already in memory: ${dup.cite} (${dup.text}); refreshed, nothing added`, json: { ok: true, added: false, duplicateOf: dup.cite } };
      }
    }
    // like every writing command, first finish a buffer rotation a crash interrupted
    const [r] = openStore(ctx).mutate((tx) => {
      finishRotationTx(tx, ctx);
      return addEntriesTx(tx, ctx, [entry], { uniqueIds: true });
    });
    const dup = near(r!.id)[0];
    const note = dup ? `; note: it says what ${dup.cite} says (memtier forget ^${r!.id} undoes it; --dedupe refreshes instead of adding)` : '';
    return { text: args.quiet ? '' : `added ^${r!.id} to ${r!.path}:${r!.line}${note}`, json: { ok: true, ...r, ...(dup ? { nearDuplicateOf: dup.cite } : {}) }, commitSummary: `${type ? `[${type}] ` : ''}${text}` };
  },
};
