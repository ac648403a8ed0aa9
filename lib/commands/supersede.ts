import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { ENTRY_TYPES, isEntryType } from '../format/entry.js';
import { assertKnownTags } from '../health/vocabulary.js';
import { supersedeEntry } from '../lifecycle/entries.js';

export const command: CommandSpec = {
  name: 'supersede',
  summary: 'mark an entry superseded by a new one',
  usage: ['supersede ENTRY --by TEXT [--type TYPE] [--dry-run]', 'supersede ENTRY --by ^ID'],
  description: `Marks a stale or corrected entry as superseded instead of deleting it. ENTRY is its id
(^k2j3mx0a1b or k2j3mx0a1b) or its place (memory/episodic/2026-05-14.md:12). The old line becomes
"- ~~<old content>~~ superseded by ^NEW ^OLD": kept for history, ranked down in search, left out of recall.
The new entry (same type unless --type) is appended to today's episodic day when the old one is
in a log (buffer, episodic day, archive); in a durable note (semantic, procedural, knowledge,
MEMORY.md) it goes on the line right below the old one, so the fact stays in its home.
An inline #tag in TEXT must be in TAGS.md (exit 2, nothing written, as for add and wal).
--by ^ID points at an entry that already says the new thing (e.g. a decision verify found
reversed) and only marks the old one. A file edited meanwhile is left untouched (exit 2,
"conflict"); an ambiguous or missing ENTRY is refused with the candidates. Running it again
changes nothing.`,
  flags: [
    { name: 'by', type: 'string', value: 'TEXT', description: 'the new, correct content (or ^ID of an existing entry)' },
    { name: 'type', type: 'string', value: 'TYPE', description: "the new entry's type (default: the old entry's)", choices: ENTRY_TYPES },
    { name: 'dry-run', type: 'boolean', description: 'show the change, write nothing' },
  ],
  examples: [
    'memtier supersede ^k2j3mx0a1b --by "the API moved to api.example.org"',
    'memtier supersede memory/semantic/infrastructure.md:14 --by "db runs PostgreSQL 16" --type TECH',
    'memtier supersede ^old1d2e3f4 --by ^new9x8y7z6',
  ],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const [ref, ...extra] = args.positionals;
    if (!ref) throw new UsageError('supersede needs an ENTRY', 'e.g. memtier supersede ^k2j3mx0a1b --by "the new fact"');
    if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`, 'quote the new text and pass it with --by "…"');
    const by = flagString(args, 'by');
    if (by === undefined) throw new UsageError('supersede needs --by TEXT', 'e.g. memtier supersede ^k2j3mx0a1b --by "the new fact"');
    const type = flagString(args, 'type')?.toUpperCase();
    if (type !== undefined && !isEntryType(type)) throw new UsageError(`unknown type "${type}"`, `one of ${ENTRY_TYPES.join(', ')}`);
    // the new text is a new entry: its #tags must be in the vocabulary, like add's and wal's
    if (!/^\^[A-Za-z0-9][A-Za-z0-9-]{2,63}$/.test(by.trim())) assertKnownTags(ctx, by);
    const r = supersedeEntry(ctx, ref, { by, ...(type ? { type } : {}), dryRun: flagBool(args, 'dry-run') });
    const lines = [r.message];
    if (r.changed) lines.push(`  - ${r.old.before}`, `  + ${r.old.after}`, ...(r.by.created ? [`  + ${r.by.line}  (${r.by.path})`] : []));
    return { text: args.quiet ? '' : lines.join('\n'), json: r };
  },
};
