import { mkdirSync } from 'node:fs';
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagString } from '../cli/spec.js';
import { dirname, join, resolve } from 'node:path';
import type { Ctx } from '../core/context.js';
import { findBin } from '../core/bin.js';
import { UsageError } from '../core/errors.js';
import { assertStateDir } from '../store/state-dir.js';
import { crontabBlock, mergeCrontab, openclawCommands, readCrontab, systemdEnable, systemdUnits, writeCrontab, type Bin } from '../lifecycle/cron.js';

/**
 * The memtier that runs now, as absolute paths (schedulers run with a bare PATH, without nvm):
 * this package's bin/memtier.js run by this node. Found upward from this module (lib/ or dist/lib/).
 */
export function defaultBin(env: NodeJS.ProcessEnv): Bin {
  const bin = findBin();
  return bin ? [env.MEMTIER_NODE || process.execPath, bin] : 'memtier';
}

export const command: CommandSpec = {
  name: 'cron',
  summary: 'print or install schedules for consolidate, dream and review',
  usage: ['cron [--crontab | --systemd | --openclaw] [--bin PATH]', 'cron --install [--dry-run]'],
  description: `Prints ready-to-use schedules for this memory: nightly "consolidate" then "dream --apply" at
03:00, and the weekly "review" on Monday at 09:00 (seeds 000, 001, 004). Formats: crontab lines
(default), systemd user units (a service and a timer per job, Persistent=true so a missed run
happens at the next boot), or "openclaw cron add" commands: command jobs (--command-argv: run in the
gateway's scheduler, no agent, no model) for consolidate, dream --apply and review, and one isolated
agent turn for what needs a model, the prose of the daily summary. --install merges the crontab lines into your crontab, replacing only memtier's own
block for this memory; run it with --dry-run first to see the resulting crontab. Installing
twice changes nothing. A named zone (MEMTIER_TZ) is passed on to the scheduled runs, so nightly
runs cut days where interactive ones do; the schedule itself runs in the scheduler's zone
(openclaw: --tz). The crontab program can be set with MEMTIER_CRONTAB.`,
  flags: [
    { name: 'crontab', type: 'boolean', description: 'crontab lines (default)' },
    { name: 'systemd', type: 'boolean', description: 'systemd user service and timer units' },
    { name: 'openclaw', type: 'boolean', description: 'openclaw cron add commands' },
    { name: 'bin', type: 'string', value: 'PATH', description: 'the memtier command to schedule (default: $MEMTIER_BIN, else this node and this package\'s bin/memtier.js, absolute)' },
    { name: 'install', type: 'boolean', description: 'install the crontab lines (crontab only)' },
    { name: 'dry-run', type: 'boolean', description: 'with --install: show the new crontab, change nothing' },
  ],
  examples: ['memtier cron', 'memtier cron --systemd', 'memtier cron --openclaw', 'memtier cron --install --dry-run', 'memtier cron --install'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const bin = flagString(args, 'bin') ?? ctx.env.MEMTIER_BIN ?? defaultBin(ctx.env);
    const picked = (['crontab', 'systemd', 'openclaw'] as const).filter((f) => flagBool(args, f));
    if (picked.length > 1) throw new UsageError(`choose one of --crontab, --systemd, --openclaw (got ${picked.map((p) => `--${p}`).join(' ')})`);
    const format = picked[0] ?? 'crontab';
    const install = flagBool(args, 'install');
    // the crontab lines append to .memtier/cron.log: a shell cannot open it in a missing folder
    if (format === 'crontab') {
      assertStateDir(ctx.root, 'the crontab lines\' log (.memtier/cron.log)');
      mkdirSync(join(ctx.root, '.memtier'), { recursive: true });
    }
    if (install && format !== 'crontab') throw new UsageError(`--install works with --crontab only`, format === 'systemd' ? `save the units printed by "memtier cron --systemd", then: ${systemdEnable(resolve(ctx.root))}` : 'run the printed openclaw cron add commands');
    const root = resolve(ctx.root);
    if (format === 'systemd') {
      const units = systemdUnits(bin, root, ctx.clock.tz);
      const text = [...units.map((u) => `# file: ${u.file}\n${u.content}`), `# then: ${systemdEnable(root)}`].join('\n');
      return { text, json: { ok: true, format, units, enable: systemdEnable(root) } };
    }
    if (format === 'openclaw') {
      const b = findBin();
      const { commands, kinds } = openclawCommands(bin, root, ctx.clock.tz, b ? `${join(dirname(b), '..', 'templates')}/` : undefined);
      const text = commands.map((c, i) => `# ${kinds[i] === 'command' ? 'a command job: runs in the scheduler, no agent, no model' : 'an agent turn: needs a model (the prose of the day)'}\n${c}`).join('\n\n');
      return { text, json: { ok: true, format, commands, kinds } };
    }
    const block = crontabBlock(bin, root, ctx.clock.tz);
    if (!install) return { text: block.replace(/\n$/, ''), json: { ok: true, format, lines: block.split('\n').filter(Boolean) } };
    const current = readCrontab(ctx);
    const next = mergeCrontab(current, block, root);
    const changed = next !== current;
    const dry = flagBool(args, 'dry-run');
    if (changed && !dry) writeCrontab(ctx, next);
    const msg = !changed ? 'crontab already has these schedules; nothing changed'
      : dry ? 'dry run: the crontab would become (run without --dry-run to install):' : 'installed into your crontab:';
    return { text: changed ? `${msg}\n${dry ? next : block}`.replace(/\n$/, '') : msg, json: { ok: true, format, installed: changed && !dry, changed, dryRun: dry, crontab: next } };
  },
};
