/**
 * The scale part of `memtier bench perf` (`--sizes 1000,10000[,50000]`): at each size, a fresh
 * synthetic memory (perf.ts's generator), then
 * - every health check timed on its own over one snapshot, in a child process (so a check that
 *   grows faster than the memory shows as the sizes grow), and the snapshot's read itself;
 * - the whole-process commands an agent and the nightly and weekly jobs run: `health`,
 *   `health --quiet`, `stats`, `verify`, and `consolidate`, `review`, `palace`, `dream` (dry runs,
 *   nothing written but `.memtier/`), each its wall time and peak RSS (a preloaded hook reports
 *   the process's own maxRSS when it exits);
 * - with `--baseline DIR` (another built memtier: a checkout or copy holding bin/ and dist/), the
 *   same measurements with that one on a copy of the same memory in the same run, each right
 *   before this one's, so before and after face the same machine load.
 * Each command's CPU time (user + system) is reported beside its wall time: on a shared machine
 * it is the steadier of the two.
 * A command that runs past `--timeout` seconds is stopped and reported as such (ms = -1).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Args } from '../cli/spec.js';
import { flagList, flagNumber, flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';

/**
 * The shapes `bench perf` generates. `bench`: 30 % episodic days of 8–24 typed entries, each with
 * its `^id`, and 70 % frontmatter notes (a memory memtier wrote). `logs`: years of hand-typed daily
 * logs as OpenClaw and people keep them — 80 % `memory/YYYY-MM-DD.md` of 24–95 lines without ids or
 * types (bullets, some timed, checklists, headings and free-form paragraphs, about 6 KB a file),
 * ending the day before the bench's clock — and 20 % frontmatter notes (issue #33).
 */
export type MemoryShape = 'bench' | 'logs';
export const SHAPES: readonly MemoryShape[] = ['bench', 'logs'];


/** The commands timed at every size: label → argv (dry runs: the memory stays as generated). */
export const SCALE_COMMANDS: readonly (readonly [string, readonly string[]])[] = [
  ['health', ['health']],
  ['health --quiet', ['health', '--quiet']],
  ['stats', ['stats']],
  ['verify', ['verify', '--dry-run']],
  ['consolidate', ['consolidate', '--dry-run']],
  ['review', ['review', '--dry-run']],
  ['palace', ['palace', '--dry-run']],
  ['dream', ['dream', '--dry-run']],
];

/** Wall time of the whole process, its CPU time (user + system: steadier than wall time on a loaded machine), peak RSS. */
export interface CommandRun { ms: number; cpuMs: number; peakRssMb: number; exitCode: number; timedOut: boolean }

export interface ScaleRun {
  /** Which memtier ran: "current" or the --baseline folder. */
  memtier: string;
  /** Reading the memory once (lib/memory/snapshot.ts), in the checks' child. */
  snapshotMs: number;
  /** Each health check alone over that snapshot (ms); -1 when the check threw or the child failed. */
  checks: Record<string, number>;
  commands: Record<string, CommandRun>;
}

export interface ScaleSize { notes: number; shape: MemoryShape; files: number; bytes: number; runs: ScaleRun[] }

export interface ScaleOptions { sizes: number[]; shapes: MemoryShape[]; baseline?: string; timeoutSec: number; dir?: string }

const r1 = (x: number): number => Math.round(x * 10) / 10;

/** The hook preloaded into each timed command: writes the process's peak RSS (kB) and CPU time (ms) where MEMTIER_BENCH_RSS says. */
const RSS_HOOK = "process.on('exit', () => { try { const u = process.resourceUsage(); require('node:fs').writeFileSync(process.env.MEMTIER_BENCH_RSS, JSON.stringify([u.maxRSS, (u.userCPUTime + u.systemCPUTime) / 1000])); } catch {} });\n";

/** bin/memtier.js of a built memtier folder, or a clear error. */
export function memtierAt(dir: string): string {
  const bin = join(dir, 'bin', 'memtier.js');
  if (!existsSync(bin) || !existsSync(join(dir, 'dist', 'lib', 'memory', 'snapshot.js'))) {
    throw new UsageError(`${dir} is not a built memtier (no bin/memtier.js or dist/lib/memory/snapshot.js)`, 'pass a checkout or copy of memtier after "npm run build", e.g. --baseline ../memtier-main');
  }
  return bin;
}

/** One whole-process command: wall time from the spawn, peak RSS from the hook. */
function runCommand(bin: string, argv: readonly string[], root: string, env: NodeJS.ProcessEnv, hook: string, timeoutSec: number): CommandRun {
  const rssFile = join(dirname(hook), `rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--require', hook, bin, ...argv, '--root', root, '--json'], {
    env: { ...env, MEMTIER_BENCH_RSS: rssFile }, stdio: 'ignore', timeout: timeoutSec * 1000, killSignal: 'SIGKILL',
  });
  const ms = performance.now() - t;
  const timedOut = r.signal !== null || (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  let kb = 0;
  let cpu = -1;
  try { [kb, cpu] = JSON.parse(readFileSync(rssFile, 'utf8')) as [number, number]; rmSync(rssFile, { force: true }); } catch { /* killed before exit */ }
  return { ms: timedOut ? -1 : r1(ms), cpuMs: timedOut ? -1 : r1(cpu), peakRssMb: r1(kb / 1024), exitCode: r.status ?? -1, timedOut };
}

/** Every health check alone over one snapshot, in a child of the memtier at `distDir`. */
function timeChecks(distDir: string, root: string, env: NodeJS.ProcessEnv, timeoutSec: number): { snapshotMs: number; checks: Record<string, number> } {
  const u = (p: string): string => JSON.stringify(join(distDir, p).replace(/\\/g, '/'));
  const script = `
    const { loadSnapshot } = await import(${u('lib/memory/snapshot.js')});
    const { CHECKS } = await import(${u('lib/health/checks/index.js')});
    const { checkEnv } = await import(${u('lib/health/run.js')});
    const { makeClock } = await import(${u('lib/core/clock.js')});
    const { makeTestCtx } = await import(${u('lib/core/context.js')});
    const root = ${JSON.stringify(root)};
    const env = checkEnv(makeTestCtx(root, makeClock({ now: process.env.MEMTIER_NOW, tz: 'UTC' })));
    let t = performance.now();
    const snap = loadSnapshot(root);
    const out = { snapshotMs: performance.now() - t, checks: {} };
    for (const c of CHECKS) {
      t = performance.now();
      try { await c.run(snap, env); out.checks[c.id] = performance.now() - t; } catch { out.checks[c.id] = -1; }
    }
    console.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8', timeout: timeoutSec * 1000, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 });
  try {
    const o = JSON.parse((r.stdout ?? '').trim().split('\n').pop() ?? '') as { snapshotMs: number; checks: Record<string, number> };
    return { snapshotMs: r1(o.snapshotMs), checks: Object.fromEntries(Object.entries(o.checks).map(([k, v]) => [k, v < 0 ? -1 : r1(v)])) };
  } catch {
    return { snapshotMs: -1, checks: {} };
  }
}

/** Measure the health checks and the upkeep commands at each size, for the baseline (if any) and this memtier. */
export async function measureScale(ctx: Ctx, bin: string, o: ScaleOptions): Promise<ScaleSize[]> {
  const { generateMemory } = await import('./perf.js');
  const { RACY_MS } = await import('../search/cache.js');
  const base = o.dir ? resolve(ctx.cwd, o.dir) : mkdtempSync(join(tmpdir(), 'memtier-scale-'));
  mkdirSync(base, { recursive: true });
  const hook = join(base, 'rss-hook.cjs');
  writeFileSync(hook, RSS_HOOK);
  const env: NodeJS.ProcessEnv = { PATH: ctx.env.PATH, HOME: ctx.env.HOME ?? tmpdir(), MEMTIER_NOW: '2026-05-15T14:30:00Z', MEMTIER_TZ: 'UTC', MEMTIER_WATCH: 'off' };
  const memtiers: { name: string; bin: string }[] = [
    ...(o.baseline ? [{ name: resolve(ctx.cwd, o.baseline), bin: memtierAt(resolve(ctx.cwd, o.baseline)) }] : []),
    { name: 'current', bin },
  ];
  const out: ScaleSize[] = [];
  try {
    for (const shape of o.shapes) for (const notes of o.sizes) {
      const root = join(base, `${shape}-${notes}`);
      rmSync(root, { recursive: true, force: true });
      ctx.log.info(`scale: generating ${notes} notes (${shape})`);
      const st = generateMemory(root, notes, 42, shape);
      await new Promise((r) => setTimeout(r, RACY_MS + 100));
      const size: ScaleSize = { notes, shape, files: st.files, bytes: st.bytes, runs: [] };
      // each memtier on its own copy (its own index and health files: the formats may differ), each
      // measurement taken by one memtier right after the other, so both face the same load
      const roots = memtiers.map((m, k) => {
        const r = k === memtiers.length - 1 ? root : `${root}-${k}`;
        if (r !== root) cpSync(root, r, { recursive: true, preserveTimestamps: true });
        rmSync(join(r, '.memtier'), { recursive: true, force: true });
        spawnSync(process.execPath, [m.bin, 'search', 'warmup', '--root', r, '--json'], { env, stdio: 'ignore', timeout: o.timeoutSec * 1000 });
        return r;
      });
      const runs: ScaleRun[] = memtiers.map((m) => ({ memtier: m.name, snapshotMs: -1, checks: {}, commands: {} }));
      memtiers.forEach((m, k) => {
        ctx.log.info(`scale: ${notes} notes, ${m.name}: health checks`);
        Object.assign(runs[k]!, timeChecks(join(dirname(m.bin), '..', 'dist'), roots[k]!, env, o.timeoutSec));
      });
      for (const [label, argv] of SCALE_COMMANDS) {
        memtiers.forEach((m, k) => {
          ctx.log.info(`scale: ${notes} notes, ${m.name}: ${label}`);
          runs[k]!.commands[label] = runCommand(m.bin, argv, roots[k]!, env, hook, o.timeoutSec);
        });
      }
      size.runs.push(...runs);
      for (const r of roots) if (r !== root) rmSync(r, { recursive: true, force: true });
      out.push(size);
      rmSync(root, { recursive: true, force: true });
    }
  } finally {
    if (!o.dir) rmSync(base, { recursive: true, force: true });
  }
  return out;
}

/** The scale figures as text: per size, each check and command, the baseline's figure first when there is one. */
export function renderScale(sizes: ScaleSize[]): string {
  const lines: string[] = [];
  const fmt = (ms: number): string => (ms < 0 ? 'failed' : ms >= 1000 ? `${r1(ms / 1000)} s` : `${Math.round(ms)} ms`);
  const cmd = (c: CommandRun | undefined): string => (!c ? '-' : c.timedOut ? 'timeout' : `${fmt(c.ms)} (cpu ${fmt(c.cpuMs)}) ${Math.round(c.peakRssMb)} MB`);
  for (const s of sizes) {
    const names = s.runs.map((r) => (r.memtier === 'current' ? 'current' : 'baseline'));
    lines.push(`scale: ${s.notes} notes, ${s.shape === 'logs' ? 'log-heavy shape' : 'bench shape'} (${s.files} files, ${(s.bytes / 1e6).toFixed(1)} MB)${names.length > 1 ? `, ${names.join(' → ')}` : ''}`);
    const ids = Object.keys(s.runs[s.runs.length - 1]!.checks);
    const w = Math.max(16, ...ids.map((i) => i.length), ...SCALE_COMMANDS.map(([l]) => l.length));
    lines.push(`  ${'read (snapshot)'.padEnd(w)}  ${s.runs.map((r) => fmt(r.snapshotMs)).join(' → ')}`);
    for (const id of ids) lines.push(`  ${id.padEnd(w)}  ${s.runs.map((r) => (r.checks[id] === undefined ? '-' : fmt(r.checks[id]!))).join(' → ')}`);
    for (const [label] of SCALE_COMMANDS) lines.push(`  ${label.padEnd(w)}  ${s.runs.map((r) => cmd(r.commands[label])).join(' → ')}`);
  }
  return lines.join('\n');
}

/** --part, --sizes, --baseline and --timeout of `bench perf`, checked. */
export function scaleOptions(args: Args): { search: boolean; scale?: ScaleOptions } {
  const parts = flagList(args, 'part') ?? ['search', 'scale'];
  const bad = parts.filter((p) => p !== 'search' && p !== 'scale');
  if (bad.length) throw new UsageError(`--part expects search and/or scale, got ${bad.join(', ')}`, 'e.g. --part scale');
  const sizes = (flagList(args, 'sizes') ?? ['1000', '10000']).map(Number);
  if (!sizes.length || sizes.some((n) => !Number.isInteger(n) || n < 10)) throw new UsageError(`--sizes expects whole numbers ≥ 10, got ${flagList(args, 'sizes')?.join(',')}`, 'e.g. --sizes 1000,10000,50000');
  const timeoutSec = flagNumber(args, 'timeout') ?? 300;
  if (!(timeoutSec > 0)) throw new UsageError(`--timeout expects seconds > 0, got ${timeoutSec}`);
  const baseline = flagString(args, 'baseline');
  const dir = flagString(args, 'dir');
  const shapes = (flagList(args, 'shape') ?? ['bench']) as MemoryShape[];
  const badShape = shapes.filter((x) => !SHAPES.includes(x));
  if (badShape.length || !shapes.length) throw new UsageError(`--shape expects ${SHAPES.join(' and/or ')}, got ${badShape.join(', ') || 'nothing'}`, 'e.g. --shape bench,logs');
  if (!parts.includes('scale')) return { search: parts.includes('search') };
  return { search: parts.includes('search'), scale: { sizes, shapes, timeoutSec, ...(baseline ? { baseline } : {}), ...(dir ? { dir: join(dir, 'scale') } : {}) } };
}
