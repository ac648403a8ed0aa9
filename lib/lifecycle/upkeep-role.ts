/**
 * The upkeep role (issue #28): when one memory is a git repository shared by several clones, each
 * with `memtier cron --install`, only one of them should run the scheduled upkeep, or both write
 * the same generated files (memory/semantic/decisions.md, memory/reviews/YYYY-Www.md) and `sync`
 * conflicts. The role is recorded in the repository, in `memory/.upkeep` (lib/format/upkeep.ts),
 * written through the store and committed like any memory file.
 *
 * The scheduled jobs run their commands with `--if-upkeep` (lib/lifecycle/cron.ts): such a run
 * checks the role first and, when the file names another machine (or cannot be read), writes
 * nothing and exits 0 with a note. Without the file, or when it names this machine, the command
 * runs as before; without the flag (a person at the keyboard) the role is not looked at.
 */
import type { Args, CommandResult, FlagSpec } from '../cli/spec.js';
import { flagBool } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { lazyImport } from '../core/lazy.js';
import { formatUpkeep, parseUpkeep, UPKEEP_FILE, upkeepStamp, type UpkeepRole } from '../format/upkeep.js';
import { gitEnabled, openStore, readMemoryFile } from '../store/store.js';

export { UPKEEP_FILE };

/** The flag the scheduled jobs pass to every command they run. */
export const IF_UPKEEP = 'if-upkeep';

export const IF_UPKEEP_FLAG: FlagSpec = {
  name: IF_UPKEEP,
  type: 'boolean',
  description: `scheduled runs: do nothing (exit 0, a note) when ${UPKEEP_FILE} names another machine (memtier cron --help)`,
};

/** What `memory/.upkeep` says, as read from this clone's work tree. */
export type RoleFile =
  | { state: 'none' }
  | { state: 'ok'; role: UpkeepRole; text: string }
  | { state: 'unreadable'; problem: string; text?: string };

export function readRoleFile(ctx: Pick<Ctx, 'root'>): RoleFile {
  let text: string | undefined;
  try {
    text = readMemoryFile(ctx.root, UPKEEP_FILE);
  } catch (e) {
    return { state: 'unreadable', problem: e instanceof MemtierError ? e.message : String((e as Error)?.message ?? e) };
  }
  if (text === undefined) return { state: 'none' };
  const p = parseUpkeep(text);
  return 'role' in p ? { state: 'ok', role: p.role, text } : { state: 'unreadable', problem: p.problem, text };
}

/** This clone's machine name (loaded only when asked: it may run `git config`). */
export async function thisMachine(ctx: Pick<Ctx, 'root' | 'env'>): Promise<string> {
  const { machineName } = await lazyImport('git/machine.js', () => import('../git/machine.js'));
  return machineName(ctx);
}

/** Does the role name `machine`? (names as machineName makes them; case does not count, as in host names) */
async function names(role: UpkeepRole, machine: string): Promise<boolean> {
  const { machineSlug } = await lazyImport('git/machine.js', () => import('../git/machine.js'));
  return machineSlug(role.machine).toLowerCase() === machine.toLowerCase();
}

/** The role as it concerns this clone. */
export type UpkeepStatus =
  | { state: 'none'; machine: string }
  | { state: 'here' | 'elsewhere'; machine: string; holder: string; since?: string }
  | { state: 'unreadable'; machine: string; problem: string };

export async function upkeepStatus(ctx: Pick<Ctx, 'root' | 'env'>): Promise<UpkeepStatus> {
  const f = readRoleFile(ctx);
  const machine = await thisMachine(ctx);
  if (f.state === 'none') return { state: 'none', machine };
  if (f.state === 'unreadable') return { state: 'unreadable', machine, problem: f.problem };
  return { state: (await names(f.role, machine)) ? 'here' : 'elsewhere', machine, holder: f.role.machine, ...(f.role.since ? { since: f.role.since } : {}) };
}

/**
 * Record `machine` as the upkeep machine, through the store (refused when the file changed since
 * it was read: run again). Returns the role written.
 */
export function recordUpkeepRole(ctx: Ctx, machine: string): UpkeepRole {
  const before = readRoleFile(ctx);
  const role: UpkeepRole = { machine, since: upkeepStamp(ctx.clock.now()) };
  const expected = before.state === 'none' ? null : before.text;
  openStore(ctx).mutate((tx) => tx.write(UPKEEP_FILE, formatUpkeep(role), expected === undefined ? {} : { expected }));
  return role;
}

/** Is the memory a git repository (that memtier commits to) with at least one remote? */
export async function sharedRepository(ctx: Pick<Ctx, 'root' | 'env'>): Promise<boolean> {
  if (!gitEnabled(ctx.env)) return false;
  const g = await lazyImport('git/index.js', () => import('../git/index.js'));
  if (!g.isGitRepo(ctx.root)) return false;
  try {
    const r = g.git(ctx, ['remote']);
    return r.code === 0 && r.stdout.trim() !== '';
  } catch {
    return false;
  }
}

export const TAKE_HINT = 'memtier cron --take-upkeep';

/**
 * For a command run with `--if-upkeep`: the result to return instead of running (nothing written,
 * exit 0) when the role is another machine's or cannot be read; undefined when the command runs.
 */
export async function upkeepSkip(ctx: Ctx, args: Args): Promise<CommandResult | undefined> {
  if (!flagBool(args, IF_UPKEEP)) return undefined;
  const f = readRoleFile(ctx);
  if (f.state === 'none') return undefined;
  if (f.state === 'unreadable') {
    return {
      text: `the upkeep role in ${UPKEEP_FILE} cannot be read (${f.problem}); skipped here; to record this machine: ${TAKE_HINT}`,
      json: { ok: true, skipped: 'upkeep-role', problem: f.problem },
    };
  }
  const machine = await thisMachine(ctx);
  if (await names(f.role, machine)) return undefined;
  return {
    text: `upkeep for this memory runs on ${f.role.machine} (${UPKEEP_FILE}); skipped here; to move it here: ${TAKE_HINT}`,
    json: { ok: true, skipped: 'upkeep-role', machine: f.role.machine, thisMachine: machine },
  };
}
