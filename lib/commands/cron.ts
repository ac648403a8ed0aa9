import { mkdirSync } from 'node:fs';
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagString } from '../cli/spec.js';
import { dirname, join, resolve } from 'node:path';
import type { Ctx } from '../core/context.js';
import { findBin } from '../core/bin.js';
import { isMemtierError, UsageError } from '../core/errors.js';
import { assertStateDir } from '../store/state-dir.js';
import { crontabBlock, mergeCrontab, openclawCommands, passedEnv, readCrontab, scheduleZone, systemdEnable, systemdUnits, writeCrontab, type Bin } from '../lifecycle/cron.js';
import { read } from '../lifecycle/common.js';
import { systemTimeZone } from '../core/clock.js';
import { recordUpkeepRole, sharedRepository, TAKE_HINT, UPKEEP_FILE, upkeepStatus, type UpkeepStatus } from '../lifecycle/upkeep-role.js';

/**
 * The memtier that runs now, as absolute paths (schedulers run with a bare PATH, without nvm):
 * this package's bin/memtier.js run by this node. Found upward from this module (lib/ or dist/lib/).
 */
export function defaultBin(env: NodeJS.ProcessEnv): Bin {
  const bin = findBin();
  return bin ? [env.MEMTIER_NODE || process.execPath, bin] : 'memtier';
}

interface RoleReport {
  /** Lines for a person (without a prefix). */
  lines: string[];
  json: UpkeepStatus & { recorded: boolean; wouldRecord: boolean };
  commitSummary?: string;
}

/**
 * The upkeep role as `cron` handles it: `take` records this machine whatever the file says;
 * `claim` (--install) records it when nothing is recorded and the memory is a git repository with
 * a remote (a memory other clones share); otherwise the role is only reported. `dry`: nothing written.
 */
async function upkeepRole(ctx: Ctx, opts: { take: boolean; claim: boolean; dry: boolean }): Promise<RoleReport> {
  const st = await upkeepStatus(ctx);
  const me = st.machine;
  const report = (lines: string[], recorded = false, wouldRecord = false): RoleReport => ({
    lines,
    json: recorded ? { state: 'here', machine: me, holder: me, recorded, wouldRecord } : { ...st, recorded, wouldRecord },
    ...(recorded ? { commitSummary: `upkeep role: ${me} runs the scheduled upkeep` } : {}),
  });
  const record = (line: string, dryLine: string): RoleReport => {
    if (opts.dry) return report([dryLine], false, true);
    try {
      recordUpkeepRole(ctx, me);
    } catch (e) {
      // asked for (--take-upkeep): the error is the answer; claimed by --install: the crontab is
      // installed already, so say what failed and how to record it later
      if (opts.take || !isMemtierError(e)) throw e;
      return report([`upkeep: could not record this machine (${me}) in ${UPKEEP_FILE}: ${e.message}${e.hint ? ` (${e.hint})` : ''}; then: ${TAKE_HINT}`]);
    }
    return report([line], true);
  };
  if (st.state === 'here') return report([`upkeep: runs on this machine (${me}, ${UPKEEP_FILE})${opts.take ? '; nothing changed' : ''}`]);
  if (opts.take) {
    const from = st.state === 'elsewhere' ? ` from ${st.holder}` : st.state === 'unreadable' ? ` (the file could not be read: ${st.problem})` : '';
    return record(
      `upkeep: this machine (${me}) now runs the scheduled upkeep, recorded in ${UPKEEP_FILE}${from}; run "memtier sync" so the other clones' jobs skip${st.state === 'elsewhere' ? ` (until ${st.holder} has synced, its jobs still run there)` : ''}`,
      `dry run: would record this machine (${me}) in ${UPKEEP_FILE} as the one that runs the scheduled upkeep${from}`,
    );
  }
  if (st.state === 'elsewhere') return report([`upkeep: runs on ${st.holder} (${UPKEEP_FILE}); scheduled runs on this machine (${me}) skip; to move it here: ${TAKE_HINT}`]);
  if (st.state === 'unreadable') return report([`upkeep: ${UPKEEP_FILE} cannot be read (${st.problem}); scheduled runs on this machine skip; to record this machine: ${TAKE_HINT}`]);
  if (opts.claim && await sharedRepository(ctx)) {
    return record(
      `upkeep: recorded this machine (${me}) in ${UPKEEP_FILE} as the one that runs the scheduled upkeep; the jobs of other clones skip once they have it (run "memtier sync")`,
      `dry run: would record this machine (${me}) in ${UPKEEP_FILE} as the one that runs the scheduled upkeep (the memory has a remote: other clones' jobs would skip)`,
    );
  }
  return report([]);
}

const zoneSource = (s: string): string => (s === 'machine' ? "this machine's zone" : s === 'USER.md' ? "USER.md's time zone line" : s);

export const command: CommandSpec = {
  name: 'cron',
  summary: 'print or install schedules for consolidate, dream and review',
  usage: ['cron [--crontab | --systemd | --openclaw] [--bin PATH]', 'cron --install [--dry-run]', 'cron --take-upkeep [--dry-run]'],
  description: `Prints ready-to-use schedules for this memory: nightly "consolidate" then "dream --apply" at
03:00, and the weekly "review" on Monday at 09:00 (seeds 000, 001, 004). Formats: crontab lines
(default), systemd user units (a service and a timer per job, Persistent=true so a missed run
happens at the next boot), or "openclaw cron add" commands: command jobs (--command-argv: run in the
gateway's scheduler, no agent, no model) for consolidate, dream --apply and review, and one isolated
agent turn for what needs a model, the prose of the daily summary. --install merges the crontab lines into your crontab, replacing only memtier's own
block for this memory; run it with --dry-run first to see the resulting crontab. Installing
twice changes nothing. The schedule's zone (03:00 where?) is --tz, else MEMTIER_TZ, else the
time zone line of the workspace's USER.md ("- **Timezone:** Europe/Lisbon", or a city), else this
machine's: openclaw jobs get it as --tz, systemd timers on OnCalendar; cron has no zone of its
own and runs at 03:00 of the machine's (a comment says so when the zones differ). A zone named for
memtier (--tz, MEMTIER_TZ) is also passed on to the scheduled runs as MEMTIER_TZ, so nightly runs
cut days where interactive ones do, and MEMTIER_GIT=off (no commits) holds for them too. The
crontab program can be set with MEMTIER_CRONTAB.
One machine does the upkeep: every scheduled command runs with --if-upkeep, and when the memory is
a git repository shared by several clones (memtier sync), only the machine named in
${UPKEEP_FILE} (committed with the memory; "machine: NAME", the name from MEMTIER_MACHINE, else
git config memtier.machine, else the host name) does the work; the others' runs write nothing and
log "upkeep for this memory runs on NAME; skipped here". Without that file every machine runs
its jobs. --install on a repository with a remote and no role recorded records this machine (run
memtier sync to share it); when another machine holds the role, it says so. --take-upkeep moves the
role to this machine (with or without --install). "memtier cron" shows the role when one is recorded.`,
  flags: [
    { name: 'crontab', type: 'boolean', description: 'crontab lines (default)' },
    { name: 'systemd', type: 'boolean', description: 'systemd user service and timer units' },
    { name: 'openclaw', type: 'boolean', description: 'openclaw cron add commands' },
    { name: 'tz', type: 'string', value: 'ZONE', description: 'the zone the schedule runs in (an IANA name such as Europe/Lisbon; default: MEMTIER_TZ, else USER.md\'s time zone line, else this machine\'s); also the scheduled runs\' MEMTIER_TZ' },
    { name: 'bin', type: 'string', value: 'PATH', description: 'the memtier command to schedule (default: $MEMTIER_BIN, else this node and this package\'s bin/memtier.js, absolute)' },
    { name: 'install', type: 'boolean', description: `install the crontab lines (crontab only); on a shared repository with no upkeep role yet, record this machine in ${UPKEEP_FILE}` },
    { name: 'take-upkeep', type: 'boolean', description: `record this machine in ${UPKEEP_FILE} as the one that runs the scheduled upkeep` },
    { name: 'dry-run', type: 'boolean', description: 'with --install or --take-upkeep: show what would change, change nothing' },
  ],
  examples: ['memtier cron', 'memtier cron --systemd', 'memtier cron --openclaw', 'memtier cron --openclaw --tz Europe/Lisbon', 'memtier cron --install --dry-run', 'memtier cron --install', 'memtier cron --take-upkeep'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const bin = flagString(args, 'bin') ?? ctx.env.MEMTIER_BIN ?? defaultBin(ctx.env);
    const picked = (['crontab', 'systemd', 'openclaw'] as const).filter((f) => flagBool(args, f));
    if (picked.length > 1) throw new UsageError(`choose one of --crontab, --systemd, --openclaw (got ${picked.map((p) => `--${p}`).join(' ')})`);
    const format = picked[0] ?? 'crontab';
    const install = flagBool(args, 'install');
    // the crontab lines append to .memtier/cron.log: a shell cannot open it in a missing folder
    if (format === 'crontab') {
      assertStateDir(ctx.root, 'the crontab lines\' log (.memtier/cron.log)');
      mkdirSync(join(ctx.root, '.memtier'), { recursive: true, mode: 0o700 });
    }
    if (install && format !== 'crontab') throw new UsageError(`--install works with --crontab only`, format === 'systemd' ? `save the units printed by "memtier cron --systemd", then: ${systemdEnable(resolve(ctx.root))}` : 'run the printed openclaw cron add commands');
    const root = resolve(ctx.root);
    const sz = scheduleZone(root, flagString(args, 'tz'), ctx.clock.tz, () => read(ctx, 'USER.md'));
    const zoneJson = { zone: sz.zone ?? null, zoneSource: sz.source };
    const dry = flagBool(args, 'dry-run');
    const take = flagBool(args, 'take-upkeep');
    // printed schedules get the role as comment lines (they stay pasteable)
    const printed = async (): Promise<{ comments: string; upkeep: RoleReport }> => {
      const upkeep = await upkeepRole(ctx, { take, claim: false, dry });
      return { comments: upkeep.lines.map((l) => `\n# ${l}`).join(''), upkeep };
    };
    const withRole = (r: RoleReport) => ({ upkeep: r.json });
    if (format === 'systemd') {
      const { comments, upkeep } = await printed();
      const units = systemdUnits(bin, root, sz.dayZone, sz.zone, passedEnv(ctx.env));
      const text = [...units.map((u) => `# file: ${u.file}\n${u.content}`), `# then: ${systemdEnable(root)}`].join('\n') + comments;
      return { text, json: { ok: true, format, units, enable: systemdEnable(root), ...zoneJson, ...withRole(upkeep) }, ...(upkeep.commitSummary ? { commitSummary: upkeep.commitSummary } : {}) };
    }
    if (format === 'openclaw') {
      const { comments, upkeep } = await printed();
      const b = findBin();
      const { commands, kinds } = openclawCommands(bin, root, sz.dayZone, b ? `${join(dirname(b), '..', 'templates')}/` : undefined, upkeep.json.machine, sz.zone, passedEnv(ctx.env));
      const text = (sz.zone ? `# schedule zone: ${sz.zone} (${zoneSource(sz.source)})\n` : '') + commands.map((c, i) => `# ${kinds[i] === 'command' ? 'a command job: runs in the scheduler, no agent, no model' : 'an agent turn: needs a model (the prose of the day)'}\n${c}`).join('\n\n') + comments;
      return { text, json: { ok: true, format, commands, kinds, ...zoneJson, ...withRole(upkeep) }, ...(upkeep.commitSummary ? { commitSummary: upkeep.commitSummary } : {}) };
    }
    const block = crontabBlock(bin, root, sz.dayZone, passedEnv(ctx.env));
    // cron fires in the machine's zone: when the person's is another, say so (systemd and openclaw take a zone)
    const machineZone = systemTimeZone();
    const zoneNote = sz.zone && sz.zone !== machineZone && sz.source !== 'machine'
      ? `\n# these run at 03:00 and Monday 09:00 in this machine's zone (${machineZone}), not ${sz.zone} (${zoneSource(sz.source)}): cron has no zone of its own; "memtier cron --systemd" or "--openclaw" runs them in ${sz.zone}`
      : '';
    if (!install) {
      const { comments: roleComments, upkeep } = await printed();
      const comments = zoneNote + roleComments;
      const commit = upkeep.commitSummary ? { commitSummary: upkeep.commitSummary } : {};
      // --take-upkeep alone: the role is the answer (the schedule is "memtier cron")
      if (take && picked.length === 0) return { text: upkeep.lines.join('\n'), json: { ok: true, ...withRole(upkeep) }, ...commit };
      return { text: block.replace(/\n$/, '') + comments, json: { ok: true, format, lines: block.split('\n').filter(Boolean), ...zoneJson, ...withRole(upkeep) }, ...commit };
    }
    const current = readCrontab(ctx);
    const next = mergeCrontab(current, block, root);
    const changed = next !== current;
    if (changed && !dry) writeCrontab(ctx, next);
    const upkeep = await upkeepRole(ctx, { take, claim: true, dry });
    const msg = !changed ? 'crontab already has these schedules; nothing changed'
      : dry ? 'dry run: the crontab would become (run without --dry-run to install):' : 'installed into your crontab:';
    const text = [(changed ? `${msg}\n${dry ? next : block}`.replace(/\n$/, '') : msg), ...(zoneNote ? [zoneNote.slice(1)] : []), ...upkeep.lines].join('\n');
    return {
      text,
      json: { ok: true, format, installed: changed && !dry, changed, dryRun: dry, crontab: next, ...zoneJson, ...withRole(upkeep) },
      ...(upkeep.commitSummary ? { commitSummary: upkeep.commitSummary } : {}),
    };
  },
};
