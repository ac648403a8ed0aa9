/**
 * `memtier clone URL [DIR]`: a second machine's copy of a memory that lives in git. A plain
 * `git clone`, then what a clone does not carry: this clone's machine name (`git config
 * memtier.machine`, used for conflict copies and the upkeep role), checked to be a memory.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError, UsageError } from '../core/errors.js';

export const command: CommandSpec = {
  name: 'clone',
  summary: 'copy a memory kept in git onto this machine (the second machine\'s first step)',
  usage: ['clone URL [DIR] [--machine NAME]'],
  needsRoot: false,
  description: `Clones the memory repository at URL (any git URL or path another machine syncs to)
into DIR (default: the repository's name, in the current folder), records this clone's machine name
(--machine, default the host name; stored in the clone's own .git/config as memtier.machine, which
git never copies) and checks that it is a memory. Then "memtier sync" in DIR keeps it in step with
the other machines. DIR must not exist or be empty.`,
  flags: [
    { name: 'machine', type: 'string', value: 'NAME', description: 'this machine\'s name in conflict copies and the upkeep role (default: the host name)' },
  ],
  examples: ['memtier clone git@example.com:me/memory.git ~/memory', 'memtier clone /srv/git/memory.git ~/memory --machine desktop --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const [url, dirArg, ...extra] = args.positionals;
    if (!url) throw new UsageError('clone needs the URL of the memory repository', 'e.g. memtier clone git@example.com:me/memory.git ~/memory');
    if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`, 'memtier clone URL [DIR]');
    const dir = resolve(ctx.cwd, dirArg ?? basename(url.replace(/[/\\]+$/, '')).replace(/\.git$/, '') ?? 'memory');
    if (existsSync(dir) && readdirSync(dir).length > 0) throw new MemtierError(`${dir} exists and is not empty`, { code: 'exists', file: dir, hint: 'choose a new folder: memtier clone URL DIR' });
    const { git } = await import('../git/index.js');
    const { machineSlug } = await import('../git/machine.js');
    const gctx = { root: ctx.cwd, env: ctx.env };
    const c = git(gctx, ['clone', '--quiet', '--', url, dir]);
    if (c.code !== 0) {
      const said = c.stderr.split('\n').map((l) => l.replace(/^fatal: /, '').trim()).filter(Boolean).slice(0, 3).join(' / ');
      throw new MemtierError(`could not clone ${url}: ${said || `git exit ${c.code}`}`, { code: 'sync-remote', hint: 'check the URL ("git ls-remote URL" must work from this machine) and your git credentials' });
    }
    // a remote whose HEAD names a branch it does not have (a bare repository made with another
    // default branch than the one pushed): git leaves an unborn HEAD; take the branch there is
    const gdir = { root: dir, env: ctx.env };
    if (git(gdir, ['rev-parse', '--verify', '-q', 'HEAD']).code !== 0) {
      const heads = git(gdir, ['for-each-ref', '--format=%(refname:strip=3)', 'refs/remotes/origin']).stdout.split('\n').filter((b) => b && b !== 'HEAD');
      const pick = heads.length === 1 ? heads[0] : heads.find((b) => b === 'main') ?? heads.find((b) => b === 'master');
      if (pick) git(gdir, ['checkout', '-q', '-B', pick, '--track', `origin/${pick}`]);
    }
    const machine = machineSlug(flagString(args, 'machine') ?? (await import('node:os')).hostname().split('.')[0] ?? 'machine');
    git({ root: dir, env: ctx.env }, ['config', 'memtier.machine', machine]);
    const { ensureMergeDriver } = await import('../git/driver.js');
    ensureMergeDriver({ root: dir, env: ctx.env }, process.execPath);
    const isMemory = existsSync(join(dir, 'MEMORY.md')) || existsSync(join(dir, 'memory'));
    const empty = git({ root: dir, env: ctx.env }, ['rev-parse', '--verify', '-q', 'HEAD']).code !== 0;
    const next = [`cd ${dir}`, 'memtier boot', 'memtier sync            # after writing, and on a schedule: keeps the machines in step'];
    const warn = empty ? 'the repository is empty: run "memtier init --git" in it, then "memtier sync"'
      : !isMemory ? 'no MEMORY.md or memory/ folder in it: is this the memory repository? ("memtier init" adds what is missing)' : undefined;
    const text = [`cloned the memory into ${dir} as machine "${machine}"`, ...(warn ? [`warning: ${warn}`] : []), '', 'next:', ...next.map((l) => `  ${l}`)].join('\n');
    return { text, json: { ok: true, dir, machine, memory: isMemory, empty, ...(warn ? { warning: warn } : {}) } };
  },
};
