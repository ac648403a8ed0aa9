import { describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { jobs, mergeCrontab } from '../../lib/lifecycle/cron.js';
import { REPO, runCli, tmpTree } from '../helpers.js';

/** A fake crontab program: `-l` prints the stored file (or "no crontab"), `-` stores stdin. */
function fakeCrontab(dir: string, initial?: string): { bin: string; store: string } {
  const store = join(dir, 'crontab.txt');
  if (initial !== undefined) writeFileSync(store, initial);
  const bin = join(dir, 'fake-crontab');
  writeFileSync(bin, `#!/bin/sh\nif [ "$1" = "-l" ]; then\n  if [ -f '${store}' ]; then cat '${store}'; else echo "no crontab for test" >&2; exit 1; fi\nelif [ "$1" = "-" ]; then\n  cat > '${store}'\nelse exit 2; fi\n`);
  chmodSync(bin, 0o755);
  return { bin, store };
}

describe('cron', () => {
  it('prints crontab lines for 03:00 nightly and Monday 09:00 weekly', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const r = await runCli(['cron', '--root', root], { env: { MEMTIER_BIN: 'memtier' } });
    expect(r.code).toBe(0);
    // the memory's zone goes with the scheduled runs (cron does not see the shell's MEMTIER_TZ)
    expect(r.stdout).toContain(`0 3 * * * { MEMTIER_TZ=UTC memtier consolidate --date yesterday --if-upkeep --root ${root} --quiet && MEMTIER_TZ=UTC memtier dream --apply --if-upkeep --root ${root} --quiet; } >>`);
    expect(r.stdout).toContain(`0 9 * * 1 { MEMTIER_TZ=UTC memtier review --if-upkeep --root ${root} --quiet; } >>`);
    const local = await runCli(['cron', '--root', root], { env: { MEMTIER_BIN: 'memtier', MEMTIER_TZ: '' } });
    expect(local.stdout).toContain(`0 9 * * 1 { memtier review --if-upkeep --root ${root} --quiet; } >>`);
  });

  it('the schedule runs in the person\'s zone: --tz, else MEMTIER_TZ, else USER.md\'s time zone line (a city too), else the machine\'s (#31 finding 7)', async () => {
    const machine = { MEMTIER_BIN: 'memtier', MEMTIER_TZ: '', TZ: 'UTC' };
    const ws = tmpTree({ 'MEMORY.md': '# M\n', 'SOUL.md': '# Soul\n', 'USER.md': '# USER.md\n\n- **Name:** Inês\n- **Timezone:** Europe/Lisbon\n' });
    const o = await runCli(['cron', '--root', ws, '--openclaw', '--json'], { env: machine });
    const oj = JSON.parse(o.stdout);
    expect([oj.zone, oj.zoneSource]).toEqual(['Europe/Lisbon', 'USER.md']);
    for (const c of oj.commands) expect(c).toContain("--tz Europe/Lisbon");
    // the day cut stays the machine's, where interactive runs cut it: no MEMTIER_TZ for the runs
    expect(oj.commands.join('\n')).not.toContain('--command-env');
    const sd = JSON.parse((await runCli(['cron', '--root', ws, '--systemd', '--json'], { env: machine })).stdout);
    expect(sd.units[1].content).toContain('OnCalendar=*-*-* 03:00:00 Europe/Lisbon\n');
    const ct = await runCli(['cron', '--root', ws], { env: machine });
    expect(ct.stdout).toMatch(/# these run at 03:00 and Monday 09:00 in this machine's zone \(UTC\), not Europe\/Lisbon \(USER\.md's time zone line\)/);
    // a city alone, in Chinese: 时区：上海 is not a zone name; "Asia/Shanghai" is, and "Lisbon" is matched
    writeFileSync(join(ws, 'USER.md'), '# USER\n\nTimezone: Lisbon (GMT+0)\n');
    expect(JSON.parse((await runCli(['cron', '--root', ws, '--openclaw', '--json'], { env: machine })).stdout).zone).toBe('Europe/Lisbon');
    writeFileSync(join(ws, 'USER.md'), '# 用户\n\n- 时区：Asia/Shanghai\n');
    expect(JSON.parse((await runCli(['cron', '--root', ws, '--openclaw', '--json'], { env: machine })).stdout).zone).toBe('Asia/Shanghai');
    // --tz wins, and is the runs' day cut too
    const f = JSON.parse((await runCli(['cron', '--root', ws, '--openclaw', '--tz', 'America/New_York', '--json'], { env: machine })).stdout);
    expect([f.zone, f.zoneSource]).toEqual(['America/New_York', '--tz']);
    expect(f.commands[0]).toContain("--command-env MEMTIER_TZ=America/New_York");
    // MEMTIER_TZ before USER.md
    expect(JSON.parse((await runCli(['cron', '--root', ws, '--openclaw', '--json'], { env: { ...machine, MEMTIER_TZ: 'Asia/Tokyo' } })).stdout).zone).toBe('Asia/Tokyo');
    // no USER.md line: the machine's zone, said so
    writeFileSync(join(ws, 'USER.md'), '# USER\n');
    const m = JSON.parse((await runCli(['cron', '--root', ws, '--openclaw', '--json'], { env: machine })).stdout);
    expect([m.zone, m.zoneSource]).toEqual(['UTC', 'machine']);
    // MEMTIER_GIT=off holds for the scheduled runs too (#31 finding 9)
    const off = JSON.parse((await runCli(['cron', '--root', ws, '--openclaw', '--json'], { env: { ...machine, MEMTIER_GIT: 'off' } })).stdout);
    for (const c of off.commands.slice(0, 3)) expect(c).toContain('--command-env MEMTIER_GIT=off');
    expect((await runCli(['cron', '--root', ws], { env: { ...machine, MEMTIER_GIT: 'off' } })).stdout).toContain(' { MEMTIER_GIT=off memtier consolidate');
    const bad = await runCli(['cron', '--root', ws, '--tz', 'Mars/Olympus'], { env: machine });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown time zone "Mars\/Olympus"/);
  });

  it('the redirect of a crontab line covers every command of its job (run by sh as cron would)', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    // a stand-in for memtier that prints its subcommand to stdout and to stderr
    const bin = join(tmpTree(), 'memtier');
    writeFileSync(bin, '#!/bin/sh\necho "out $1"\necho "err $1" >&2\n');
    chmodSync(bin, 0o755);
    const r = await runCli(['cron', '--root', root], { env: { MEMTIER_BIN: bin } });
    const nightly = r.stdout.split('\n').find((l) => l.startsWith('0 3 * * * '))!;
    const command = nightly.slice('0 3 * * * '.length).replace(/\s+# [^#]*$/, '');
    const run = spawnSync('sh', ['-c', command], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toBe('');
    expect(readFileSync(join(root, '.memtier/cron.log'), 'utf8')).toBe('out consolidate\nerr consolidate\nout dream\nerr dream\n');
  });

  it('every job of the crontab block runs as cron runs it (its "%" handling, then sh) and logs all its output, in a folder named with "%"', async () => {
    const root = join(tmpTree(), '100% notes');
    mkdirSync(root);
    writeFileSync(join(root, 'MEMORY.md'), '# M\n');
    const bin = join(tmpTree(), 'memtier');
    writeFileSync(bin, '#!/bin/sh\necho "out $1"\necho "err $1" >&2\n');
    chmodSync(bin, 0o755);
    const r = await runCli(['cron', '--root', root], { env: { MEMTIER_BIN: bin } });
    expect(r.code, r.stderr).toBe(0);
    /** What cron hands to sh (crontab(5)): an unescaped "%" ends the command, "\\%" is a "%". */
    const asCron = (field: string): string => {
      let out = '';
      for (let i = 0; i < field.length; i++) {
        if (field[i] === '\\' && field[i + 1] === '%') { out += '%'; i++; } else if (field[i] === '%') break; else out += field[i];
      }
      return out;
    };
    const jobs = r.stdout.split('\n').filter((l) => /^\d/.test(l)).map((l) => l.split(' ').slice(5).join(' '));
    expect(jobs).toHaveLength(2);
    for (const job of jobs) {
      const run = spawnSync('sh', ['-c', asCron(job)], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout + run.stderr).toBe('');
    }
    expect(readFileSync(join(root, '.memtier/cron.log'), 'utf8')).toBe('out consolidate\nerr consolidate\nout dream\nerr dream\nout review\nerr review\n');
  });

  it('prints systemd units and openclaw commands; rejects two formats', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const s = await runCli(['cron', '--root', root, '--systemd', '--json'], { env: { MEMTIER_BIN: 'memtier' } });
    const sj = JSON.parse(s.stdout);
    const units = sj.units as { file: string; content: string }[];
    // unit names carry the memory's folder and a hash of its path: two memories never share a unit
    const names = units.map((u) => u.file.split('/').pop()!);
    const unit = (job: string, ext: string) => new RegExp(`^${job}-[a-z0-9-]+-[0-9a-f]{6}\\.${ext}$`);
    [unit('memtier-nightly', 'service'), unit('memtier-nightly', 'timer'), unit('memtier-weekly', 'service'), unit('memtier-weekly', 'timer')].forEach((re, i) => expect(names[i]).toMatch(re));
    const other = await runCli(['cron', '--root', tmpTree({ 'MEMORY.md': '# M\n' }), '--systemd', '--json'], { env: { MEMTIER_BIN: 'memtier' } });
    expect(JSON.parse(other.stdout).units[0].file).not.toBe(units[0]!.file);
    expect(sj.enable).toBe(`systemctl --user daemon-reload && systemctl --user enable --now ${units[1]!.file.split('/').pop()} ${units[3]!.file.split('/').pop()}`);
    expect(units[1]!.content).toContain('OnCalendar=*-*-* 03:00:00');
    expect(units[3]!.content).toContain('OnCalendar=Mon *-*-* 09:00:00');
    expect(units[0]!.content).toContain(`ExecStart=memtier dream --apply --if-upkeep --root ${root} --quiet`);
    expect(units[0]!.content).toContain('Environment=MEMTIER_TZ=UTC\n');
    const o = await runCli(['cron', '--root', root, '--openclaw'], { env: { MEMTIER_BIN: 'memtier' } });
    // upkeep runs as command jobs (no agent, no model); only the day's prose is an agent turn
    expect(o.stdout).toContain(`openclaw cron add \\\n  --name memtier-consolidate \\\n  --cron '0 3 * * *' \\\n  --tz UTC \\\n  --command-argv '["memtier","consolidate","--date","yesterday","--if-upkeep","--root","${root}","--quiet"]' \\\n  --command-cwd ${root} \\\n  --command-env MEMTIER_TZ=UTC \\\n  --no-deliver`);
    expect(o.stdout).toContain(`--name memtier-dream \\\n  --cron '10 3 * * *'`);
    expect(o.stdout).toContain(`--name memtier-review \\\n  --cron '0 9 * * 1'`);
    const oj = JSON.parse((await runCli(['cron', '--root', root, '--openclaw', '--json'], { env: { MEMTIER_BIN: 'memtier' } })).stdout);
    expect(oj.kinds).toEqual(['command', 'command', 'command', 'agent']);
    expect(oj.commands[3]).toContain('--session isolated');
    expect(oj.commands.slice(0, 3).join('\n')).not.toContain('--message');
    expect(o.stdout).toContain('--session isolated');
    const bad = await runCli(['cron', '--root', root, '--systemd', '--openclaw']);
    expect(bad.code).toBe(2);
  });

  it('--install with a fake crontab: dry run first, keeps other lines, and a second install changes nothing', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const { bin, store } = fakeCrontab(root, 'MAILTO=me\n15 * * * * /usr/bin/backup\n');
    const env = { MEMTIER_CRONTAB: bin, PATH: process.env.PATH, MEMTIER_BIN: 'memtier' };
    const dry = await runCli(['cron', '--root', root, '--install', '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^dry run/);
    expect(readFileSync(store, 'utf8')).toBe('MAILTO=me\n15 * * * * /usr/bin/backup\n');
    const inst = await runCli(['cron', '--root', root, '--install'], { env });
    expect(inst.code).toBe(0);
    const tab = readFileSync(store, 'utf8');
    expect(tab.startsWith('MAILTO=me\n15 * * * * /usr/bin/backup\n# >>> memtier ')).toBe(true);
    expect(tab.match(/memtier review/g)?.length).toBe(1);
    const again = await runCli(['cron', '--root', root, '--install', '--json'], { env });
    expect(JSON.parse(again.stdout).changed).toBe(false);
    expect(readFileSync(store, 'utf8')).toBe(tab);
  });

  it('--install on an empty crontab, and a changed --bin replaces only the memtier block', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const { bin, store } = fakeCrontab(root);
    expect(existsSync(store)).toBe(false);
    const env = { MEMTIER_CRONTAB: bin, PATH: process.env.PATH };
    await runCli(['cron', '--root', root, '--install'], { env });
    writeFileSync(store, readFileSync(store, 'utf8') + '30 2 * * * other\n');
    await runCli(['cron', '--root', root, '--install', '--bin', '/opt/memtier/bin/memtier'], { env });
    const tab = readFileSync(store, 'utf8');
    expect(tab).toContain('/opt/memtier/bin/memtier review');
    expect(tab).not.toMatch(/^0 9 \* \* 1 memtier review/m);
    expect(tab).toContain('30 2 * * * other\n');
    expect(mergeCrontab(tab, 'x\n', '/elsewhere')).toBe(tab + 'x\n');
  });

  it('by default schedules this node and this package\'s bin/memtier.js by absolute path, with an absolute --root', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const r = await runCli(['cron', '--crontab'], { cwd: root, env: { MEMTIER_ROOT: root } });
    expect(r.code).toBe(0);
    const bin = join(REPO, 'bin', 'memtier.js');
    expect(r.stdout).toContain(`0 3 * * * { MEMTIER_TZ=UTC ${process.execPath} ${bin} consolidate --date yesterday --if-upkeep --root ${root} --quiet && MEMTIER_TZ=UTC ${process.execPath} ${bin} dream --apply --if-upkeep --root ${root} --quiet; } >>`);
    expect(r.stdout).toContain(`0 9 * * 1 { MEMTIER_TZ=UTC ${process.execPath} ${bin} review --if-upkeep --root ${root} --quiet; } >>`);
  });
});

// issue #31 finding 1: the 03:00 job ran consolidate on the new day, three hours old and empty
describe('the nightly job summarizes the day that ended', () => {
  it('consolidate --date yesterday at 03:00 summarizes the evening before; the scheduled line passes it', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root], { env: { MEMTIER_GIT: 'off' } })).code).toBe(0);
    const env = { MEMTIER_GIT: 'off', MEMTIER_TZ: 'UTC' };
    expect((await runCli(['add', '--root', root, '--now', '2026-12-05T15:00:00Z', '--type', 'DECISION', 'ship the ledger on Monday'], { env })).code).toBe(0);
    const today = await runCli(['consolidate', '--root', root, '--now', '2026-12-06T03:00:00Z', '--dry-run', '--json'], { env });
    expect(JSON.parse(today.stdout).date).toBe('2026-12-06');
    const night = await runCli(['consolidate', '--date', 'yesterday', '--root', root, '--now', '2026-12-06T03:00:00Z', '--json'], { env });
    expect(night.code, night.stderr).toBe(0);
    expect(JSON.parse(night.stdout).date).toBe('2026-12-05');
    expect(readFileSync(join(root, 'memory/reviews/daily/2026-12-05.md'), 'utf8')).toContain('ship the ledger on Monday');
    expect(jobs('memtier', root)[0]!.commands[0]).toEqual(['memtier', 'consolidate', '--date', 'yesterday', '--if-upkeep', '--root', root, '--quiet']);
  });
});
