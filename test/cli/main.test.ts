import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { registry } from '../../lib/commands/index.js';
import { REPO, runBin, runCli, tmpTree } from '../helpers.js';

const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };

describe('memtier (CLI core)', () => {
  it('prints the version', async () => {
    const r = await runCli(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it('--help lists every command of the registry and the exit codes', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const c of registry) expect(r.stdout).toContain(c.name);
    expect(r.stdout).toMatch(/Exit codes: 0 ok, 1 findings/);
  });

  it('no arguments: help on stdout, usage exit 2', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/Usage:/);
  });

  it('an unknown command suggests the closest one', async () => {
    const r = await runCli(['serch', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command "serch"/);
    expect(r.stderr).toMatch(/did you mean: search/);
  });

  it('errors are JSON on stdout under --json', async () => {
    const r = await runCli(['serch', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: 'usage' } });
  });

  it('a command without a memory says to run memtier init', async () => {
    const empty = tmpTree();
    const r = await runCli(['boot', '--root', empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no memory found/);
    expect(r.stderr).toMatch(/memtier init/);
  });

  it('a bad --now is a usage error naming the value', async () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n' });
    const r = await runCli(['boot', '--root', root, '--now', 'tomorrowish']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--now is not a valid date\/time: "tomorrowish"/);
  });

  it('every registered command loads and has help, usage and a summary', async () => {
    for (const c of registry) {
      const { command } = await c.load();
      expect(command.name).toBe(c.name);
      expect(command.usage.length).toBeGreaterThan(0);
      const r = await runCli([c.name, '--help']);
      expect(r.code, c.name).toBe(0);
      expect(r.stdout).toContain(`memtier ${c.name}`);
      expect(r.stdout).toMatch(/--json/);
    }
  });

  it('an unknown flag is a usage error that points at the command help', async () => {
    const r = await runCli(['bench', '--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Unknown option '--frobnicate'/);
    expect(r.stderr).toMatch(/memtier bench --help/);
  });

  it('global flags may come before the command (memtier --root DIR --now T wal …)', async () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n' });
    const r = await runCli(['--root', root, '--now', '2026-05-16T09:00:00Z', 'wal', 'decide', 'use Postgres', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).entry).toMatch(/^- 2026-05-16 09:00 \[DECISION\] use Postgres \^/);
    const eq = await runCli([`--root=${root}`, 'wal', 'get', '--json']);
    expect(JSON.parse(eq.stdout).state.recentDecisions).toEqual(['2026-05-16 09:00 — use Postgres']);
  });
});

describe('bin/memtier.js (the CommonJS entry)', () => {
  it('ships ASCII-only command bundles (read as one-byte text), whose Chinese rules still match through the binary', () => {
    for (const f of readdirSync(join(REPO, 'dist', 'cli')).filter((n) => n.endsWith('.js'))) {
      expect(/[^\x00-\x7f]/.test(readFileSync(join(REPO, 'dist', 'cli', f), 'utf8')), f).toBe(false);
    }
    const root = tmpTree({ 'MEMORY.md': '# Memory\n', 'TAGS.md': '# Tags\n\n- 部署\n' });
    const r = runBin(['--root', root, 'extract', '--json', '决定下周五之前把网站部署到新服务器。别记这个：密码是 hunter2。'], { env: { MEMTIER_NOW: '2026-05-13T10:00:00Z' } });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { proposals: { type: string; text: string; tags: string[] }[]; skipped: { reason: string }[] };
    expect(out.proposals).toHaveLength(1);
    expect(out.proposals[0]).toMatchObject({ type: 'DECISION', tags: ['部署'] });
    expect(out.proposals[0]!.text).toContain('下周五 (2026-05-22)');
    expect(out.skipped.map((s) => s.reason)).toContain('private');
  });

  it('runs a command bundle from a V8 code cache: written after the first run, used by the next, rewritten when V8 rejects it', () => {
    // MEMTIER_CODE_CACHE=DIR keeps the cache in DIR instead of dist/cli/.code-cache/
    const cache = mkdtempSync(join(tmpdir(), 'memtier-code-cache-'));
    const root = tmpTree({ 'MEMORY.md': '# Memory\n', 'TAGS.md': '# Tags\n\n- postgres\n' });
    const env = { MEMTIER_CODE_CACHE: cache, MEMTIER_CODE_CACHE_TRACE: '1' };
    const args = ['--root', root, 'extract', '--json', 'We decided to move billing to Postgres next Friday. Maybe later.'];
    const plain = runBin(args, { env: { MEMTIER_CODE_CACHE: 'off' } });
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout).proposals[0]).toMatchObject({ type: 'DECISION', tags: ['postgres'] });
    const first = runBin(args, { env });
    expect(first.stderr).toMatch(/^code cache: none \(/);
    const files = readdirSync(cache);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^extract\\.[^.]+\\.${process.version.replace(/\./g, '\\.')}\\.${process.arch}\\.v8$`));
    const file = join(cache, files[0]!);
    expect(readFileSync(file)[0]).toBe(1);
    const second = runBin(args, { env });
    expect(second.stderr).toMatch(/^code cache: used \(/);
    // the next runs that use it write it again (it gains what they compiled), the third and last time here
    expect(readFileSync(file)[0]).toBe(2);
    expect(runBin(args, { env }).stderr).toMatch(/^code cache: used \(/);
    const settled = readFileSync(file);
    expect(settled[0]).toBe(3);
    expect(runBin(args, { env }).stderr).toMatch(/^code cache: used \(/);
    expect(readFileSync(file).equals(settled)).toBe(true);
    // a damaged cache is refused by V8's checks, the command runs as before, and a good cache replaces it
    const good = readFileSync(file);
    writeFileSync(file, Buffer.alloc(good.length, 7));
    const damaged = runBin(args, { env });
    expect(damaged.stderr).toMatch(/^code cache: rejected \(/);
    expect(readFileSync(file).equals(Buffer.alloc(good.length, 7))).toBe(false);
    expect(runBin(args, { env }).stderr).toMatch(/^code cache: used \(/);
    for (const r of [first, second, damaged]) expect([r.code, r.stdout]).toEqual([0, plain.stdout]);
    // a place it cannot write to: no cache, same answer
    const blocked = join(cache, 'not-a-dir');
    writeFileSync(blocked, '');
    const ro = runBin(args, { env: { ...env, MEMTIER_CODE_CACHE: blocked } });
    expect([ro.code, ro.stdout]).toEqual([0, plain.stdout]);
    expect(ro.stderr).toMatch(/^code cache: none \(/);
    // a module the bundle loads on demand from dist/lib (extract --apply's capture) loads from the cache too
    const applied = runBin([...args.slice(0, 3), '--apply', '--json', args[4]!], { env });
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout).proposals[0].added.path).toMatch(/^memory\//);
  });

  it('knows the same value-taking global flags as the CLI (it picks the command bundle after them)', async () => {
    const { GLOBAL_FLAGS } = await import('../../lib/cli/args.js');
    const bin = readFileSync(join(REPO, 'bin', 'memtier.js'), 'utf8');
    const listed = JSON.parse((/const VALUE_FLAGS = (\[[^\]]*\])/.exec(bin)?.[1] ?? '[]').replace(/'/g, '"')) as string[];
    expect(listed.sort()).toEqual(GLOBAL_FLAGS.filter((f) => f.type !== 'boolean').map((f) => `--${f.name}`).sort());
  });

  it('runs a command from its bundle and from dist/lib alike, and a closed pipe ends the output quietly', () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n' });
    const viaBundle = runBin(['--root', root, 'get', 'MEMORY.md']);
    expect(viaBundle.code).toBe(0);
    expect(viaBundle.stdout).toContain('# Memory');
    // --help is served by dist/lib (no bundle is named "--help")
    const help = runBin(['--help']);
    expect(help.stdout).toContain('memtier');
    // 300 KB through a pipe whose reader leaves after one line: EPIPE, no stack trace
    const big = tmpTree({ 'MEMORY.md': '# Memory\n', 'memory/semantic/big.md': '# Big\n\n' + 'a line of memory that goes on and on\n'.repeat(8000) });
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${join(REPO, 'bin', 'memtier.js')}" --root "${big}" get memory/semantic/big.md | head -1`], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });
});
