/**
 * `memtier trash list|restore|purge`: what memtier removed (memory/.trash/, lib/format/trash.ts),
 * put back where it came from, or deleted for good (the one place memtier deletes).
 */
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { trashProblem } from '../store/store.js';
import { PATHS } from '../format/layout.js';
import { DEFAULT_TRASH_DAYS, trashDays } from '../format/trash.js';
import { olderThan, purgeItems, restoreEntry, restoreItems, trashItems } from '../lifecycle/trash.js';

/** `--older-than`: days, `30` or `30d`. */
function parseDays(v: string): number {
  const m = /^\s*(\d+)\s*d?\s*$/i.exec(v);
  if (!m) throw new UsageError(`--older-than "${v.slice(0, 40)}" is not a number of days`, 'e.g. --older-than 30d');
  return Number(m[1]);
}

export const command: CommandSpec = {
  name: 'trash',
  summary: 'what memtier removed: list, restore, purge',
  usage: ['trash list', 'trash restore ITEM [--to PATH]', 'trash restore ^ID', 'trash purge [ITEM] [--older-than Nd] [--dry-run]'],
  description: `memtier never deletes a memory file: what it removes goes to ${PATHS.trash}/ (the buffer copy each
rotation leaves, files past retention, leftovers, torn lines, the lines "forget" removed). An ITEM is
a name "list" prints, e.g. 2026-05-15T143000/memory/working-buffer.md (a STAMP folder names every item
under it). "restore" moves a whole file back where it came from, never over a different file (it
refuses; --to restores it beside, under another name). "restore ^ID" puts an entry "forget" removed
back in the file it came from, at its old line; torn tails are read and added again by hand. "purge" deletes for real, under the memory's lock: ITEM, or every item older
than --older-than days, or both. The nightly "consolidate" purges items older than
$MEMTIER_TRASH_DAYS days (default ${DEFAULT_TRASH_DAYS}; "off" keeps them).`,
  subcommands: { list: 'items with their kind, day, size and origin', restore: 'put an item back where it came from', purge: 'delete items for good' },
  flags: [
    { name: 'to', type: 'string', value: 'PATH', description: 'restore: put the item at PATH instead of its origin (PATH must not exist)' },
    { name: 'older-than', type: 'string', value: 'Nd', description: 'purge: only items trashed more than N days ago' },
    { name: 'dry-run', type: 'boolean', description: 'purge: show what would be deleted, delete nothing' },
  ],
  examples: ['memtier trash list', 'memtier trash restore 2026-05-15T143000/memory/episodic/2026-04-01.md', 'memtier trash restore ^3ay3v36ehcao', 'memtier trash purge --older-than 30d --dry-run'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const [sub, ...rest] = args.positionals;
    const problem = trashProblem(ctx.root);
    if (problem && ['list', 'restore', 'purge'].includes(sub ?? '')) {
      throw new MemtierError(`${PATHS.trash} is ${problem}, not a folder: there is no trash to ${sub}`, { code: 'trash', rule: 'trash-folder', file: PATHS.trash, hint: `look at it, then move it aside (mv ${PATHS.trash} ${PATHS.memoryDir}/trash-was-not-a-folder)` });
    }
    switch (sub) {
      case 'list': {
        if (rest.length) throw new UsageError('trash list takes no arguments');
        const items = trashItems(ctx);
        const days = trashDays(ctx.env);
        const due = typeof days === 'number' ? olderThan(ctx, items, days).length : 0;
        const bytes = items.reduce((n, i) => n + i.bytes, 0);
        const retention = typeof days === 'number' ? `retention ${days} days${due ? `: ${due} past it (the next consolidate deletes them)` : ''}` : typeof days === 'object' ? days.error : 'retention off';
        const text = items.length
          ? [...items.map((i) => `${i.day}  ${i.kind.padEnd(9)} ${String(i.bytes).padStart(8)}  ${i.name}${i.origin && i.kind === 'file' ? `  ← ${i.origin}` : ''}`), `${items.length} item${items.length === 1 ? '' : 's'}, ${bytes} bytes; ${retention}`].join('\n')
          : `${PATHS.trash}/ is empty`;
        return { text, json: { ok: true, items, bytes, retentionDays: typeof days === 'number' ? days : null, due } };
      }
      case 'restore': {
        if (rest.length !== 1) throw new UsageError('trash restore needs one ITEM', '"memtier trash list" shows the names');
        const to = flagString(args, 'to');
        const ref = /^\^([A-Za-z0-9][A-Za-z0-9-]{2,63})$/.exec(rest[0]!);
        if (ref) {
          if (to !== undefined) throw new UsageError('--to restores a whole file; a forgotten entry goes back where it was');
          const e = restoreEntry(ctx, ref[1]!);
          return { text: args.quiet ? '' : e.message, json: e, ...(e.restored.length ? { commitSummary: `trash restore ^${e.id}` } : {}) };
        }
        const r = restoreItems(ctx, rest[0]!, to !== undefined ? { to } : {});
        return { text: args.quiet ? '' : r.message, json: r, ...(r.restored.length ? { commitSummary: `trash restore ${r.restored.map((x) => x.to).join(', ')}` } : {}) };
      }
      case 'purge': {
        if (rest.length > 1) throw new UsageError('trash purge takes at most one ITEM');
        const older = flagString(args, 'older-than');
        const r = purgeItems(ctx, { ...(rest[0] !== undefined ? { item: rest[0] } : {}), ...(older !== undefined ? { olderThanDays: parseDays(older) } : {}), dryRun: flagBool(args, 'dry-run') });
        return { text: args.quiet ? '' : [r.message, ...r.purged.map((p) => `  ${p.name}`)].join('\n'), json: r };
      }
      default:
        throw new UsageError(sub ? `unknown trash subcommand "${sub}"` : 'trash needs a subcommand', 'one of: list, restore, purge');
    }
  },
};
