/**
 * Where the memory lives. Order: --root, MEMTIER_ROOT, OPENCLAW_WORKSPACE,
 * the nearest ancestor of the working directory holding MEMORY.md,
 * then ~/.openclaw/workspace.
 */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { MemtierError } from './errors.js';

export interface RootResolution {
  root: string;
  /** Which rule chose the root: flag, MEMTIER_ROOT, OPENCLAW_WORKSPACE, ancestor, default. */
  source: 'flag' | 'MEMTIER_ROOT' | 'OPENCLAW_WORKSPACE' | 'ancestor' | 'default';
}

export function findAncestorWithMemory(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, 'MEMORY.md'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function resolveRoot(opts: { flag?: string | undefined; env: NodeJS.ProcessEnv; cwd: string; home?: string }): RootResolution {
  const { flag, env, cwd } = opts;
  if (flag) return { root: resolve(cwd, flag), source: 'flag' };
  if (env.MEMTIER_ROOT) return { root: resolve(cwd, env.MEMTIER_ROOT), source: 'MEMTIER_ROOT' };
  if (env.OPENCLAW_WORKSPACE) return { root: resolve(cwd, env.OPENCLAW_WORKSPACE), source: 'OPENCLAW_WORKSPACE' };
  const anc = findAncestorWithMemory(cwd);
  if (anc) return { root: anc, source: 'ancestor' };
  return { root: join(opts.home ?? env.HOME ?? homedir(), '.openclaw', 'workspace'), source: 'default' };
}

/** Throw a clear error unless `root` holds a memory (a MEMORY.md or a memory/ folder). */
export function assertMemoryRoot(res: RootResolution): void {
  const { root, source } = res;
  let isDir = false;
  try { isDir = statSync(root).isDirectory(); } catch { /* missing */ }
  const has = isDir && (existsSync(join(root, 'MEMORY.md')) || existsSync(join(root, 'memory')));
  if (!has) {
    throw new MemtierError(`no memory found at ${root} (chosen by ${source})`, {
      code: 'no-memory',
      file: root,
      hint: `run "memtier init${source === 'default' ? '' : ` ${root}`}" to create one, or pass --root DIR / set MEMTIER_ROOT`,
    });
  }
}
