/**
 * The name of this clone of the memory ("machine"): what conflict copies, the upkeep role and
 * sync's messages call it. MEMTIER_MACHINE, else the clone's own `git config memtier.machine`
 * (set by `memtier clone`, never cloned), else the host name; reduced to a safe file-name part.
 */
import { hostname } from 'node:os';
import type { Ctx } from '../core/context.js';
import { git } from './index.js';

/** A machine name as it may stand in a file name: letters, digits, `.`, `_`, `-`; at most 40. */
export function machineSlug(name: string): string {
  const s = name.normalize('NFKC').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 40);
  return s || 'machine';
}

export function machineName(ctx: Pick<Ctx, 'root' | 'env'>): string {
  if (ctx.env.MEMTIER_MACHINE?.trim()) return machineSlug(ctx.env.MEMTIER_MACHINE.trim());
  try {
    const r = git(ctx, ['config', '--get', 'memtier.machine']);
    if (r.code === 0 && r.stdout.trim()) return machineSlug(r.stdout.trim());
  } catch { /* no git: the host name */ }
  return machineSlug(hostname().split('.')[0] ?? '');
}
