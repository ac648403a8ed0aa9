/**
 * The `merge=memtier` git merge driver: what a person's own `git pull` or `git merge` uses for
 * memtier's logs and SESSION-STATE.md, so a merge made outside `memtier sync` does not resurrect
 * what one side removed (as `merge=union` did) either. `.gitattributes` names the driver (it is
 * cloned); its command lives in `.git/config` (never cloned), so `memtier clone`, `init --git` and
 * every sync register it where it is missing. A clone without it falls back to git's text merge,
 * whose conflict memtier's writes refuse to work inside.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ctx } from '../core/context.js';
import { git } from './index.js';

/** The lines `.gitattributes` holds for the driver. */
export const DRIVER_ATTRIBUTES = [
  'memory/working-buffer.md merge=memtier',
  'memory/episodic/*.md merge=memtier',
  'memory/archive/**/*.md merge=memtier',
  'SESSION-STATE.md merge=memtier',
  'memory/.forgotten merge=memtier',
  'memory/.upkeep merge=memtier',
  'DREAMS.md merge=memtier',
];

/** The union lines earlier versions wrote: replaced by the driver's (union brings back what one side removed). */
export const OLD_UNION_LINES = [
  "# memtier: append-only logs merge by union (both sides' new lines are kept)",
  'memory/working-buffer.md merge=union',
  'memory/episodic/*.md merge=union',
  'memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*.md merge=union',
  'memory/archive/**/*.md merge=union',
  'DREAMS.md merge=union',
];

export const DRIVER_COMMENT = "# memtier: logs merge by entry id, SESSION-STATE.md by section and key (memtier merge-driver; registered by memtier clone, init --git and sync)";

/** This installation's bin/memtier.js (from dist/lib/git/, dist/cli/ or lib/git/). */
function binPath(): string | undefined {
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const up of ['../../../bin/memtier.js', '../../bin/memtier.js', '../bin/memtier.js']) {
    const p = resolve(here, up);
    if (existsSync(p)) return p;
  }
  return undefined;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Register the driver in this clone's .git/config when it is missing or points at a memtier that
 * is gone. `node` is the running Node (MEMTIER_NODE overrides). Returns true when it wrote config.
 */
export function ensureMergeDriver(ctx: Pick<Ctx, 'root' | 'env'>, node: string): boolean {
  if (!existsSync(join(ctx.root, '.git'))) return false;
  const bin = binPath();
  if (!bin) return false;
  const want = `${quote(ctx.env.MEMTIER_NODE || node)} ${quote(bin)} merge-driver %O %A %B %P`;
  const have = git(ctx, ['config', '--get', 'merge.memtier.driver']);
  if (have.code === 0 && have.stdout.trim() === want) return false;
  git(ctx, ['config', 'merge.memtier.name', 'memtier: logs by entry id, SESSION-STATE.md by section and key']);
  git(ctx, ['config', 'merge.memtier.driver', want]);
  return true;
}

/** `.gitattributes` text with memtier's union lines replaced by the driver's (undefined: nothing to change). */
export function upgradedAttributes(text: string): string | undefined {
  const lines = text.split('\n');
  const union = new Set(OLD_UNION_LINES);
  if (!lines.some((l) => union.has(l.trim())) && DRIVER_ATTRIBUTES.every((d) => lines.some((l) => l.trim() === d))) return undefined;
  const kept = lines.filter((l) => !union.has(l.trim()) && l.trim() !== DRIVER_COMMENT && !DRIVER_ATTRIBUTES.includes(l.trim()));
  while (kept.length && kept[kept.length - 1] === '') kept.pop();
  const out = [...kept, ...(kept.length ? [''] : []), DRIVER_COMMENT, ...DRIVER_ATTRIBUTES, ''].join('\n');
  return out === text ? undefined : out;
}
