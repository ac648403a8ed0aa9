/**
 * Schedules for the upkeep (seed 004's weekly review, seed 000's nightly consolidation, seed 001's
 * dream): nightly `consolidate` then `dream --apply` at 03:00, the weekly `review` on Monday at
 * 09:00, as crontab lines, systemd user units (service + timer) or `openclaw cron add` commands,
 * each command with `--if-upkeep` (only the clone holding the upkeep role does the work).
 *
 * `--install` (crontab only) replaces memtier's own block in the user's crontab, between
 * `# >>> memtier ROOT >>>` and `# <<< memtier ROOT <<<`, and leaves every other line alone. The
 * crontab program is `$MEMTIER_CRONTAB` (default `crontab`), so tests use a fake one.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { systemTimeZone, validateTimeZone } from '../core/clock.js';
import { IF_UPKEEP, UPKEEP_FILE } from './upkeep-role.js';

export const NIGHTLY = { minute: 0, hour: 3 } as const;
export const WEEKLY = { minute: 0, hour: 9, weekday: 1 } as const;

/** POSIX shell single-quoting (only when needed). */
export function shq(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface Job { name: string; cron: string; calendar: string; commands: string[][]; what: string }

/** The memtier command: one word (`memtier`, a path) or an argv (`[node, /abs/bin/memtier.js]`). */
export type Bin = string | string[];

/**
 * The jobs. Every command runs with `--if-upkeep`: on a memory shared by several clones only the
 * one `memory/.upkeep` names does the work, the others skip with a note (lib/lifecycle/upkeep-role.ts).
 */
export function jobs(bin: Bin, root: string): Job[] {
  const r = [`--${IF_UPKEEP}`, '--root', root, '--quiet'];
  const b = Array.isArray(bin) ? bin : [bin];
  return [
    { name: 'memtier-nightly', cron: `${NIGHTLY.minute} ${NIGHTLY.hour} * * *`, calendar: '*-*-* 03:00:00', commands: [[...b, 'consolidate', '--date', 'yesterday', ...r], [...b, 'dream', '--apply', ...r]], what: 'nightly consolidation and dream promotion' },
    { name: 'memtier-weekly', cron: `${WEEKLY.minute} ${WEEKLY.hour} * * ${WEEKLY.weekday}`, calendar: 'Mon *-*-* 09:00:00', commands: [[...b, 'review', ...r]], what: 'weekly review' },
  ];
}

const line = (argv: string[]): string => argv.map(shq).join(' ');

export interface ScheduleZone {
  /** The zone the schedule fires in (an IANA name), or undefined: the scheduler's own. */
  zone?: string;
  /** Where it came from. */
  source: '--tz' | 'MEMTIER_TZ' | 'USER.md' | 'machine';
  /** The zone the scheduled runs cut days in (MEMTIER_TZ for them): only a zone the person named for memtier (--tz, MEMTIER_TZ). */
  dayZone?: string;
}

/**
 * The zone a schedule fires in: --tz, else MEMTIER_TZ, else the time zone line of OpenClaw's USER.md
 * ("- **Timezone:** Europe/Lisbon", a city alone as "Lisbon", "时区：Asia/Shanghai"), else this
 * machine's. A gateway host runs in UTC while its person lives in Lisbon: 03:00 must be theirs.
 * Only --tz and MEMTIER_TZ also set the runs' day cut: interactive runs on this machine cut days in
 * MEMTIER_TZ or the machine's zone, and scheduled ones must cut them where those do.
 */
export function scheduleZone(root: string, flag: string | undefined, clockTz: string, readUser: () => string | undefined): ScheduleZone {
  if (flag) { const z = validateTimeZone(flag); return z === 'local' ? { source: '--tz' } : { zone: z, source: '--tz', dayZone: z }; }
  if (clockTz && clockTz !== 'local') return { zone: clockTz, source: 'MEMTIER_TZ', dayZone: clockTz };
  const fromUser = userZone(readUser());
  if (fromUser) return { zone: fromUser, source: 'USER.md' };
  const sys = systemTimeZone();
  return sys ? { zone: sys, source: 'machine' } : { source: 'machine' };
}

/** The IANA zone a USER.md names on its time zone line, if any (a city is matched to its zone). */
export function userZone(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const m = /^[ \t>*-]*[*_]{0,2}\s*(?:time\s*zone|timezone|tz|时区|時區)\s*[*_]{0,2}\s*[:：]\s*[*_]{0,2}\s*([^\n*_]+)/imu.exec(text.slice(0, 64 * 1024));
  if (!m) return undefined;
  for (const word of m[1]!.split(/[\s,;()（）]+/)) {
    const w = word.trim();
    if (!w) continue;
    if (/^(?:UTC|GMT|Z)$/i.test(w)) return 'UTC';
    if (w.includes('/')) { try { return validateTimeZone(w); } catch { continue; } }
    // a city: the zone whose last part it is ("Lisbon" → Europe/Lisbon, "New York" handled below)
    const city = w.toLowerCase();
    const hit = zones().find((z) => z.slice(z.lastIndexOf('/') + 1).toLowerCase() === city);
    if (hit) return hit;
  }
  const spaced = m[1]!.trim().split(/[,;(（]/)[0]!.trim().replace(/\s+/g, '_').toLowerCase();
  return zones().find((z) => z.slice(z.lastIndexOf('/') + 1).toLowerCase() === spaced);
}

let zoneList: string[] | undefined;
function zones(): string[] {
  return (zoneList ??= (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? []);
}

/**
 * The memory's zone, passed on to scheduled runs: cron, systemd and the gateway do not see the
 * MEMTIER_TZ of a person's shell, and a nightly run must cut days where interactive runs do.
 */
const namedZone = (tz: string | undefined): string | undefined => (tz && tz !== 'local' ? tz : undefined);
/** The environment a scheduled run gets: the day zone, and what the person set that memtier must keep (MEMTIER_GIT=off). */
const runEnv = (tz: string | undefined, passed: Record<string, string>): [string, string][] => [...(namedZone(tz) ? [['MEMTIER_TZ', tz!] as [string, string]] : []), ...Object.entries(passed)];
const withEnv = (pairs: [string, string][], cmd: string): string => [...pairs.map(([k, v]) => `${k}=${shq(v)}`), cmd].join(' ');

/** What of the person's environment the scheduled runs keep: MEMTIER_GIT=off (no commits) holds for them too. */
export function passedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return env.MEMTIER_GIT === 'off' ? { MEMTIER_GIT: 'off' } : {};
}

export function blockMarkers(root: string): { begin: string; end: string } {
  return { begin: `# >>> memtier ${root} >>>`, end: `# <<< memtier ${root} <<<` };
}

export function crontabBlock(bin: Bin, root: string, tz?: string, passed: Record<string, string> = {}): string {
  const { begin, end } = blockMarkers(root);
  const log = shq(`${root}/.memtier/cron.log`);
  const out = [begin, '# memtier upkeep (memtier cron --crontab); edit by running it again'];
  // the group makes the redirect cover every command of the job, not only the last one; cron ends
  // a command at an unescaped "%" (the rest becomes its stdin), so a "%" in a path is escaped
  for (const j of jobs(bin, root)) out.push(`${j.cron} { ${j.commands.map((c) => withEnv(runEnv(tz, passed), line(c))).join(' && ')}; } >> ${log} 2>&1`.replace(/%/g, '\\%') + `  # ${j.what}`);
  out.push(end);
  return out.join('\n') + '\n';
}

/** Unit name of a job for one memory: `memtier-nightly-<folder>-<hash>`, so two memories never share a unit. */
export function unitName(job: string, root: string): string {
  const folder = basename(root).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 24) || 'memory';
  return `${job}-${folder}-${createHash('sha1').update(root).digest('hex').slice(0, 6)}`;
}

/** The command that loads and starts the timers printed by systemdUnits. */
export function systemdEnable(root: string): string {
  return `systemctl --user daemon-reload && systemctl --user enable --now ${jobs('memtier', root).map((j) => `${unitName(j.name, root)}.timer`).join(' ')}`;
}

export function systemdUnits(bin: Bin, root: string, tz?: string, scheduleTz?: string, passed: Record<string, string> = {}): { file: string; content: string }[] {
  const out: { file: string; content: string }[] = [];
  for (const j of jobs(bin, root)) {
    const unit = unitName(j.name, root);
    out.push({
      file: `~/.config/systemd/user/${unit}.service`,
      content: `[Unit]\nDescription=memtier ${j.what} (${root})\n\n[Service]\nType=oneshot\n${runEnv(tz, passed).map(([k, v]) => `Environment=${k}=${v}\n`).join('')}${j.commands.map((c) => `ExecStart=${line(c)}`).join('\n')}\nNice=10\n`,
    });
    out.push({
      file: `~/.config/systemd/user/${unit}.timer`,
      content: `[Unit]\nDescription=memtier ${j.what} timer\n\n[Timer]\nOnCalendar=${j.calendar}${scheduleTz ? ` ${scheduleTz}` : ''}\nPersistent=true\nRandomizedDelaySec=120\n\n[Install]\nWantedBy=timers.target\n`,
    });
  }
  return out;
}

/**
 * OpenClaw gateway jobs. Upkeep that needs no judgement runs as command jobs (in the scheduler,
 * no agent, no model: OpenClaw's `--command-argv`), one per command, the nightly ones ten minutes
 * apart so dream sees what consolidate wrote. Only the prose of the day — the daily summary's
 * narrative, from templates/daily-summary.md — needs a model: one isolated agent turn, after them.
 */
export function openclawCommands(bin: Bin, root: string, tz: string | undefined, templates = 'templates/', machine?: string, scheduleTz: string | undefined = namedZone(tz), passed: Record<string, string> = {}): { commands: string[]; kinds: ('command' | 'agent')[] } {
  const zone = scheduleTz ? [`--tz ${shq(scheduleTz)}`] : [];
  const env = runEnv(tz, passed).map(([k, v]) => `--command-env ${shq(`${k}=${v}`)}`);
  const commands: string[] = [];
  const kinds: ('command' | 'agent')[] = [];
  for (const j of jobs(bin, root)) {
    j.commands.forEach((argv, i) => {
      const sub = argv[Array.isArray(bin) ? bin.length : 1] ?? 'job'; // the memtier command after the bin
      const [m, h, ...rest] = j.cron.split(' ');
      const cron = [String(Number(m) + 10 * i), h, ...rest].join(' ');
      commands.push(['openclaw cron add', `--name ${shq(`memtier-${sub}`)}`, `--cron ${shq(cron)}`, ...zone, `--command-argv ${shq(JSON.stringify(argv))}`, `--command-cwd ${shq(root)}`, ...env, '--no-deliver'].join(' \\\n  '));
      kinds.push('command');
    });
  }
  // the agent turn has no --if-upkeep: it is told the rule (the upkeep role, lib/lifecycle/upkeep-role.ts)
  const role = machine ? ` If ${root}/${UPKEEP_FILE} names a machine other than ${machine}, reply NO_REPLY: the upkeep runs there.` : '';
  const prose = `In the memory at ${root}, write the daily summary prose of the day that ended (yesterday): follow the prompt in ${templates}daily-summary.md (memtier consolidate wrote that day's facts to memory/reviews/daily/YESTERDAY.md); reply NO_REPLY when the day has no entries.${role}`;
  commands.push(['openclaw cron add', "--name 'memtier-daily-prose'", `--cron ${shq(`30 ${NIGHTLY.hour} * * *`)}`, ...zone, '--session isolated', '--light-context', '--no-deliver', `--message ${shq(prose)}`].join(' \\\n  '));
  kinds.push('agent');
  return { commands, kinds };
}

/** The crontab with memtier's block for `root` replaced (or added). */
export function mergeCrontab(current: string, block: string, root: string): string {
  const { begin, end } = blockMarkers(root);
  const lines = current.split('\n');
  const b = lines.indexOf(begin);
  const e = lines.indexOf(end);
  let kept: string[];
  if (b >= 0 && e > b) kept = [...lines.slice(0, b), ...lines.slice(e + 1)];
  else kept = lines;
  let text = kept.join('\n').replace(/\n+$/, '');
  if (b >= 0 && e > b) {
    const before = lines.slice(0, b).join('\n');
    const after = lines.slice(e + 1).join('\n');
    return `${before ? before + '\n' : ''}${block}${after}`.replace(/\n*$/, '\n');
  }
  text = text ? text + '\n' : '';
  return text + block;
}

function crontabBin(ctx: Ctx): string {
  return ctx.env.MEMTIER_CRONTAB || 'crontab';
}

export function readCrontab(ctx: Ctx): string {
  const r = spawnSync(crontabBin(ctx), ['-l'], { encoding: 'utf8', env: { PATH: ctx.env.PATH ?? '/usr/bin:/bin', HOME: ctx.env.HOME ?? '/nonexistent' } });
  if (r.error) throw new MemtierError(`cannot run ${crontabBin(ctx)}: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}`, { code: 'cron', hint: 'install cron, or use --systemd / --openclaw and install the printed schedule yourself' });
  if (r.status !== 0) {
    if (/no crontab/i.test(r.stderr ?? '')) return '';
    throw new MemtierError(`${crontabBin(ctx)} -l failed: ${(r.stderr ?? '').trim()}`, { code: 'cron' });
  }
  return r.stdout ?? '';
}

export function writeCrontab(ctx: Ctx, text: string): void {
  const r = spawnSync(crontabBin(ctx), ['-'], { input: text, encoding: 'utf8', env: { PATH: ctx.env.PATH ?? '/usr/bin:/bin', HOME: ctx.env.HOME ?? '/nonexistent' } });
  if (r.error || r.status !== 0) throw new MemtierError(`${crontabBin(ctx)} - failed: ${(r.stderr ?? r.error?.message ?? '').trim()}`, { code: 'cron', hint: 'nothing was installed; install the printed lines with "crontab -e"' });
}
