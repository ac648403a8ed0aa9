/**
 * `memtier resolve FILE…`: the end of a sync conflict. Sync kept this machine's version in FILE and
 * the other machine's beside it (FILE.conflict-MACHINE.md); a person merged what they want into
 * FILE; resolve checks FILE holds no conflict block, moves the copies to the trash, and syncs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve as resolvePath } from 'node:path';
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { conflictMarkerLine } from '../core/git-state.js';
import { openStore } from '../store/store.js';

/** The conflict copies of `rel` (`NAME.conflict-MACHINE[-N].EXT` beside it). */
export function conflictCopiesOf(root: string, rel: string): string[] {
  const dir = dirname(rel) === '.' ? '' : `${dirname(rel)}/`;
  const name = rel.slice(dir.length);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  let names: string[];
  try { names = readdirSync(join(root, dir || '.')); } catch { return []; }
  return names.filter((n) => n.startsWith(`${stem}.conflict-`) && n.endsWith(ext) && /^[A-Za-z0-9._-]+$/.test(n.slice(stem.length + 10, n.length - ext.length))).sort().map((n) => `${dir}${n}`);
}

export const command: CommandSpec = {
  name: 'resolve',
  summary: 'finish a sync conflict: drop the other machine\'s copy once FILE holds what you want',
  usage: ['resolve FILE... [--no-sync]'],
  description: `When the same part of a person's file (MEMORY.md, a note) changed on two machines, sync
keeps this machine's version in FILE and the other's beside it as FILE.conflict-MACHINE.md, and
exits 1. Merge what you want to keep into FILE (an editor, or copy lines across), then run
"memtier resolve FILE": it checks FILE has no conflict markers, moves the copies to the trash
(memory/.trash/, kept 30 days) and runs "memtier sync" so every machine gets the result.`,
  flags: [
    { name: 'no-sync', type: 'boolean', description: 'only drop the copies and commit; sync later' },
  ],
  examples: ['memtier resolve MEMORY.md', 'memtier resolve memory/semantic/projects.md --no-sync --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    if (args.positionals.length === 0) throw new UsageError('resolve needs the FILE sync named', 'e.g. memtier resolve MEMORY.md (see "memtier health" for open conflicts)');
    const done: { file: string; trashed: string[] }[] = [];
    const copiesOf = new Map<string, string[]>();
    // a path as typed in the current folder, else as the memory names it (MEMORY.md, memory/…)
    const rels = args.positionals.map((p) => {
      const fromCwd = relative(ctx.root, resolvePath(ctx.cwd, p)).replace(/\\/g, '/');
      if (!fromCwd.startsWith('..') && existsSync(join(ctx.root, fromCwd))) return fromCwd;
      return relative(ctx.root, resolvePath(ctx.root, p)).replace(/\\/g, '/');
    });
    for (const rel of rels) {
      if (rel.startsWith('..')) throw new UsageError(`${rel} is outside the memory`, 'give a file of the memory');
      if (/\.conflict-[A-Za-z0-9._-]+\.[^./]+$/.test(rel)) throw new UsageError(`${rel} is a conflict copy`, `give the file it belongs to: memtier resolve ${rel.replace(/\.conflict-[A-Za-z0-9._-]+(\.[^./]+)$/, '$1')}`);
      const copies = conflictCopiesOf(ctx.root, rel);
      if (copies.length === 0) throw new MemtierError(`${rel} has no conflict copy to resolve`, { code: 'missing', file: rel, hint: 'memtier health lists the open conflicts (check "sync")' });
      if (existsSync(join(ctx.root, rel))) {
        const line = conflictMarkerLine(readFileSync(join(ctx.root, rel), 'utf8'));
        if (line !== undefined) throw new MemtierError(`${rel} still holds a conflict block at line ${line}`, { code: 'conflict-markers', file: rel, line, hint: 'keep what you want, delete the <<<<<<< ======= >>>>>>> lines, then run resolve again' });
      }
      // listed again under the lock: a sync that ran meanwhile may have brought the other machine's
      // resolve of the same conflict (its copies gone already: resolved, nothing left to move)
      const trashed = openStore(ctx).mutate((tx) => conflictCopiesOf(ctx.root, rel).map((c) => tx.trash(c)));
      copiesOf.set(rel, copies);
      done.push({ file: rel, trashed });
    }
    const lines = done.map((d) => d.trashed.length ? `resolved ${d.file}: ${d.trashed.length} conflict cop${d.trashed.length === 1 ? 'y' : 'ies'} moved to the trash` : `resolved ${d.file}: its conflict copies were already gone (resolved on another machine, or by another command)`);
    let synced: unknown;
    let exitCode: 0 | 1 = 0;
    if (!flagBool(args, 'no-sync') && existsSync(join(ctx.root, '.git'))) {
      const { autoCommit } = await import('../git/index.js');
      // the files and their copies by name: a copy beside MEMORY.md is outside the memory folders 'all' names
      autoCommit(ctx, [...done.map((d) => d.file), ...done.flatMap((d) => copiesOf.get(d.file) ?? [])], `memtier resolve: ${done.map((d) => d.file).join(', ')}`);
      const hasRemote = (await import('../git/index.js')).git(ctx, ['remote']).stdout.trim() !== '';
      if (hasRemote) {
        const { sync } = await import('../git/sync.js');
        const r = sync(ctx, {});
        synced = r;
        lines.push(r.message);
        exitCode = r.exitCode;
      }
    }
    return { text: lines.join('\n'), json: { ok: exitCode === 0, resolved: done, ...(synced ? { sync: synced } : {}) }, exitCode };
  },
};
