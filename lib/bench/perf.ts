/**
 * `memtier bench perf [--notes N] [--runs N] [--dir DIR] [--part search,scale] [--sizes N,N] [--baseline DIR] [--timeout S] [--json]`
 *
 * Generates a deterministic synthetic memory (English with about 10 % Chinese; episodic days
 * plus semantic and procedural notes with frontmatter) and measures, on this machine:
 * - bare `node -e ''` start (median of --runs spawns), interleaved with the cold searches;
 * - full index build (in a child process: time and peak RSS) and the index's size on disk;
 * - cold whole-process `memtier search` (median of --runs spawns over different queries);
 * - warm in-process query (index loaded; median over 50 queries) and a warm `search()` call
 *   including the freshness check (stat of every file);
 * - time to reflect a one-file edit (append, then search until the new entry is found);
 * - peak RSS of a cold search process;
 * - one statSync per memory file in a fresh process (the floor of the never-stale check);
 * - ripgrep's unranked scan of the same tree (`rg -c -i WORD`, first word of each query),
 *   interleaved with the cold searches, when `rg` is installed (reported as null otherwise);
 * - then the same with `memtier watch` running (`watch` in the report): its start, cold searches
 *   it answers (again interleaved with bare node and rg), an append seen by the next search
 *   process, and the server's peak RSS. The first part runs with MEMTIER_WATCH=off.
 * With --part scale (default: both parts), perf-scale.ts times every health check and the upkeep
 * commands (health, stats, verify, consolidate, review, palace, dream: wall time and peak RSS) on
 * fresh memories of --sizes notes (default 1000,10000), with --baseline DIR another built memtier
 * measured in the same run.
 * The index is built RACY_MS after the memory is generated: a folder modified within that window
 * of a build is listed again by every query (see cache.ts), which a real memory never is.
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Args, CommandResult, Io } from '../cli/spec.js';
import { flagNumber, flagString } from '../cli/spec.js';
import { addDays, makeClock } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { findBin } from '../core/bin.js';
import { makeTestCtx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import type { BenchSpec } from '../commands/bench.js';
import { measureScale, renderScale, scaleOptions, type MemoryShape } from './perf-scale.js';
import { seededRandom as prng } from '../core/random.js';


const EN = `server deploy docker nginx postgres billing invoice customer backup restore cache redis queue worker cron
schedule release version rollback incident outage latency memory disk network proxy certificate domain token review
meeting roadmap design feature bug fix test coverage pipeline build cluster node kubernetes helm chart metric alert
dashboard log trace user preference language editor theme keyboard shortcut travel flight hotel budget expense report
project milestone deadline client contract invoice payment team hire interview onboarding lesson mistake habit coffee
garden recipe dinner family birthday gift concert book movie podcast running cycling hiking weather morning evening`.split(/\s+/);
const FILLER = `the a we it was is to of and for with on in that this after before because then also but not`.split(/\s+/);
const ZH = '部署 失败 服务器 数据库 备份 缓存 会议 项目 客户 发布 版本 回滚 故障 延迟 网络 证书 域名 测试 流水线 集群 监控 告警 日志 用户 偏好 语言 编辑器 旅行 预算 报告 合同 付款 团队 面试 经验 教训 习惯 咖啡 花园 晚餐 家庭 生日 音乐会 电影 跑步 天气 早上 晚上'.split(' ');

export interface SynthStats { files: number; bytes: number; entries: number }


/** Write a synthetic memory of about `notes` files into `dir`. Deterministic for a given `notes`, seed and shape. */
export function generateMemory(dir: string, notes: number, seed = 42, shape: MemoryShape = 'bench'): SynthStats {
  const rnd = prng(seed);
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)]!;
  // A Zipf-distributed vocabulary like real text: 6,000 pseudo-words, with the English topic
  // words spread over the ranks (so query words are neither all frequent nor all rare).
  const syl = ['ka', 'lo', 'mi', 'ter', 'van', 'su', 'po', 'ren', 'dal', 'xi', 'bro', 'nu', 'fe', 'gor', 'tis', 'qua', 'zel', 'mon', 'ri', 'sha'];
  const vocab: string[] = [];
  for (let i = 0; vocab.length < 6000; i++) {
    if (i % 40 === 20 && i / 40 < EN.length) { vocab.push(EN[Math.floor(i / 40)]!); continue; }
    let w = '';
    let x = i + 7;
    do { w += syl[x % syl.length]; x = Math.floor(x / syl.length); } while (x > 0);
    vocab.push(w);
  }
  const cdf: number[] = [];
  let acc = 0;
  for (let r = 0; r < vocab.length; r++) { acc += 1 / (r + 10); cdf.push(acc); }
  const zipf = (): string => {
    const x = rnd() * acc;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (cdf[mid]! < x) lo = mid + 1; else hi = mid; }
    return vocab[lo]!;
  };
  const sentence = (n: number): string => {
    if (rnd() < 0.1) return Array.from({ length: Math.max(3, n >> 1) }, () => pick(ZH)).join('') + (rnd() < 0.5 ? ` ${zipf()}` : '');
    const w: string[] = [];
    for (let i = 0; i < n; i++) w.push(rnd() < 0.35 ? pick(FILLER) : zipf() + (rnd() < 0.05 ? String(Math.floor(rnd() * 100)) : ''));
    return w.join(' ');
  };
  const types = ['EVENT', 'DECISION', 'TECH', 'PREF', 'LESSON', 'PROJ', 'PEOPLE'];
  let bytes = 0;
  let entries = 0;
  const write = (rel: string, text: string): void => {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
    bytes += Buffer.byteLength(text);
  };
  write('MEMORY.md', '# Memory\n' + Array.from({ length: 40 }, (_, i) => `- [Note ${i}](memory/semantic/note-${i}.md) — ${sentence(6)}`).join('\n') + '\n');
  const days = Math.floor(notes * (shape === 'logs' ? 0.8 : 0.3));
  // the logs end the day before the bench's clock (2026-05-15): years of them, the newest recent
  const start = shape === 'logs' ? addDays('2026-05-14', -(days - 1)) : '2023-01-01';
  if (shape === 'logs') {
    for (let d = 0; d < days; d++) {
      const date = addDays(start, d);
      const n = 24 + Math.floor(rnd() * 72);
      const lines = [`# ${date}`, ''];
      for (let i = 0; i < n; i++) {
        const r = rnd();
        if (r < 0.06) lines.push('', `## ${zipf()} ${zipf()}`, '');
        else if (r < 0.2) lines.push('', `${sentence(14 + Math.floor(rnd() * 16))}. ${sentence(10 + Math.floor(rnd() * 16))}. ${sentence(8 + Math.floor(rnd() * 12))}.`, '');
        else if (r < 0.34) lines.push(`- ${String(7 + Math.floor(rnd() * 14)).padStart(2, '0')}:${String(Math.floor(rnd() * 60)).padStart(2, '0')} ${sentence(6 + Math.floor(rnd() * 14))}`);
        else if (r < 0.4) lines.push(`- [${rnd() < 0.5 ? ' ' : 'x'}] ${sentence(4 + Math.floor(rnd() * 8))}`);
        else lines.push(`- ${sentence(5 + Math.floor(rnd() * 16))}`);
        entries++;
      }
      write(`memory/${date}.md`, lines.join('\n').replace(/\n{3,}/g, '\n\n') + '\n');
    }
  }
  for (let d = 0; d < (shape === 'logs' ? 0 : days); d++) {
    const date = addDays(start, d);
    const n = 8 + Math.floor(rnd() * 16);
    const lines = [`# ${date}`];
    for (let i = 0; i < n; i++) {
      const hh = String(8 + Math.floor((i * 12) / n)).padStart(2, '0');
      lines.push(`- ${hh}:${String(Math.floor(rnd() * 60)).padStart(2, '0')} [${pick(types)}] ${sentence(10 + Math.floor(rnd() * 25))} #${zipf()} ^s${d.toString(36)}x${i.toString(36).padStart(3, '0')}`);
      entries++;
    }
    write(`memory/episodic/${date}.md`, lines.join('\n') + '\n');
  }
  const rest = notes - days;
  for (let k = 0; k < rest; k++) {
    const proc = k % 10 === 0;
    const rel = proc ? `memory/procedural/howto-${k}.md` : `memory/semantic/note-${k}.md`;
    const tags = [zipf(), pick(EN)];
    const lines = ['---', `tags: [${tags.join(', ')}]`, `type: ${proc ? 'LESSON' : pick(types)}`, `created: ${addDays(start, Math.floor(rnd() * days))}`, '---', `# ${zipf()} ${zipf()} ${k}`];
    const sections = 3 + Math.floor(rnd() * 4);
    for (let s = 0; s < sections; s++) {
      lines.push('', `## ${zipf()} ${zipf()}`);
      const paras = 1 + Math.floor(rnd() * 3);
      for (let p = 0; p < paras; p++) lines.push(sentence(25 + Math.floor(rnd() * 40)) + '.');
      entries++;
    }
    write(rel, lines.join('\n') + '\n');
  }
  return { files: days + rest + 1, bytes, entries };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : 0;
};
const r1 = (x: number): number => Math.round(x * 10) / 10;

function binOrThrow(): string {
  const bin = findBin();
  if (!bin) throw new UsageError('cannot find bin/memtier.js', 'run bench perf from an installed or built memtier (npm ci, or npx tsc -p .)');
  return bin;
}

/** Spawn `node args…`, return wall time in ms and stdout. */
function timed(args: string[], env: NodeJS.ProcessEnv): { ms: number; out: string; code: number } {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { ms: performance.now() - t, out: r.stdout ?? '', code: r.status ?? 2 };
}

export interface PerfReport {
  notes: number; files: number; bytes: number; entries: number; runs: number;
  bareNodeMs: number; buildMs: number; buildPeakRssMb: number;
  /** The index cache's bytes on disk (file sizes), and that over the markdown's bytes. */
  indexBytes: number; indexRatio: number;
  coldSearchMs: number; coldSearchRatio: number; coldPeakRssMb: number;
  warmQueryMs: number; warmSearchMs: number; editReflectMs: number;
  /** ripgrep's unranked scan (median), null when rg is not installed. */
  ripgrepMs: number | null;
  /** The freshness floor: one statSync per memory file in a fresh process (median), without node's start. */
  statAllMs: number;
  /** The same cold calls answered by a running `memtier watch` (interleaved with their own bare-node and rg runs). */
  watch: WatchPerf;
}

export interface WatchPerf {
  /** From spawn until it answers (index already built). */
  startMs: number;
  bareNodeMs: number;
  coldSearchMs: number;
  coldSearchRatio: number;
  ripgrepMs: number | null;
  /** Append to a file, then a new `memtier search` process finds it (whole process; median of 5 edits). */
  editReflectMs: number;
  /** Peak RSS of the server. */
  serverPeakRssMb: number;
}

/** Peak RSS (VmHWM) of a live process in MB, from /proc (0 elsewhere). */
function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? r1(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** Start `memtier watch` on dir, measure cold calls through it, stop it. */
async function measureWatch(bin: string, dir: string, env: NodeJS.ProcessEnv, runs: number, queries: string[], rg: boolean): Promise<WatchPerf> {
  const t0 = performance.now();
  const server = spawn(process.execPath, [bin, 'watch', '--root', dir], { env, stdio: 'ignore' });
  try {
    const wenv = { ...env, MEMTIER_WATCH: 'require' };
    for (;;) {
      if (server.exitCode !== null) throw new UsageError(`memtier watch exited (${server.exitCode}) in the perf memory`);
      if (existsSync(join(dir, '.memtier', 'watch.json')) && timed([bin, 'search', 'warmup', '--root', dir, '--json'], wenv).code === 0) break;
      if (performance.now() - t0 > 120_000) throw new UsageError('memtier watch did not start within 2 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
    const startMs = performance.now() - t0;
    const bareRuns: number[] = [];
    const cold: number[] = [];
    const rgRuns: number[] = [];
    for (let i = 0; i < runs; i++) {
      bareRuns.push(timed(['-e', ''], env).ms);
      const r = timed([bin, 'search', queries[i % queries.length]!, '--root', dir, '--json'], wenv);
      if (r.code !== 0) throw new UsageError(`memtier search through memtier watch failed (exit ${r.code})`);
      cold.push(r.ms);
      if (rg) {
        const t = performance.now();
        spawnSync('rg', ['-c', '-i', '--no-messages', '--', queries[i % queries.length]!.split(' ')[0]!, dir], { env, maxBuffer: 64 * 1024 * 1024 });
        rgRuns.push(performance.now() - t);
      }
    }
    // five edits of different days, each followed at once by a new search process (median)
    const edits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const te = performance.now();
      appendFileSync(join(dir, `memory/episodic/2023-01-1${i}.md`), `- 23:59 [EVENT] quetzal${i} lemonade incident ^perfedit${i}w\n`);
      const edit = timed([bin, 'search', `quetzal${i} lemonade`, '--root', dir, '--json', '--k', '1'], wenv);
      edits.push(edit.out.includes(`perfedit${i}w`) ? performance.now() - te : Infinity);
    }
    const editMs = edits.includes(Infinity) ? -1 : median(edits);
    const bare = median(bareRuns);
    const coldMs = median(cold);
    return {
      startMs: r1(startMs), bareNodeMs: r1(bare), coldSearchMs: r1(coldMs), coldSearchRatio: Math.round((coldMs / bare) * 100) / 100,
      ripgrepMs: rg ? r1(median(rgRuns)) : null, editReflectMs: r1(editMs), serverPeakRssMb: server.pid ? peakRssMb(server.pid) : 0,
    };
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => (server.exitCode !== null ? r(0) : server.once('exit', r)));
  }
}

/** Bytes of the files under `dir` (their sizes, not the blocks they take). */
function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  return n;
}

function hasRipgrep(env: NodeJS.ProcessEnv): boolean {
  const r = spawnSync('rg', ['--version'], { env, encoding: 'utf8' });
  return r.status === 0;
}

export async function runPerf(ctx: Ctx, o: { notes: number; runs: number; dir?: string }): Promise<PerfReport> {
  const dir = o.dir ? resolve(ctx.cwd, o.dir) : mkdtempSync(join(tmpdir(), 'memtier-perf-'));
  // MEMTIER_WATCH=off: the cold calls run without a server (measureWatch runs them with one)
  const env: NodeJS.ProcessEnv = { PATH: ctx.env.PATH, HOME: ctx.env.HOME ?? tmpdir(), MEMTIER_NOW: '2026-05-15T14:30:00Z', MEMTIER_TZ: 'UTC', MEMTIER_WATCH: 'off' };
  try {
    mkdirSync(dir, { recursive: true });
    ctx.log.info(`generating ${o.notes} notes in ${dir}`);
    const stats = generateMemory(dir, o.notes);
    const bin = binOrThrow();
    const distSearch = join(dirname(bin), '..', 'dist', 'lib', 'search');
    const { RACY_MS } = await import('../search/cache.js');
    await new Promise((r) => setTimeout(r, RACY_MS + 100));
    // full build in a child (time + peak RSS)
    rmSync(join(dir, '.memtier'), { recursive: true, force: true });
    const buildScript = `import('${join(distSearch, 'cache.js').replace(/\\/g, '/')}').then(async (c) => { const { makeClock } = await import('${join(distSearch, '..', 'core', 'clock.js').replace(/\\/g, '/')}'); const t = performance.now(); c.rebuildIndex({ root: ${JSON.stringify(dir)}, clock: makeClock({ now: '2026-05-15T14:30:00Z', tz: 'UTC' }), log: { info() {}, warn() {} }, env: {}, cwd: ${JSON.stringify(dir)}, interactive: false }); console.log(JSON.stringify({ ms: performance.now() - t, rss: process.resourceUsage().maxRSS })); })`;
    ctx.log.info('building the index');
    const b = JSON.parse(timed(['-e', buildScript], env).out.trim().split('\n').pop() ?? '{}') as { ms: number; rss: number };
    const indexBytes = dirBytes(join(dir, '.memtier', 'index'));
    // cold whole-process searches
    const queries = ['docker deploy failed', 'postgres backup restore', '部署 失败', 'billing invoice customer', 'kubernetes helm chart', 'coffee morning habit', 'rollback release version', '数据库 备份', 'flight hotel budget', 'alert dashboard latency'];
    // bare node and cold searches interleaved, so machine load hits both alike
    const cold: number[] = [];
    const bareRuns: number[] = [];
    const rgRuns: number[] = [];
    const rg = hasRipgrep(env);
    const statRuns: number[] = [];
    const statScript = `const fs = require('node:fs'); const root = ${JSON.stringify(dir + '/')}; const paths = JSON.parse(fs.readFileSync(root + '.memtier/index/manifest.json', 'utf8')).paths.split('\\n'); const t = performance.now(); let n = 0; for (const p of paths) { const s = fs.statSync(root + p, { throwIfNoEntry: false }); if (s) n += s.size; } console.log(performance.now() - t);`;
    timed([bin, 'search', 'warmup', '--root', dir, '--json'], env); // page cache
    for (let i = 0; i < o.runs; i++) {
      bareRuns.push(timed(['-e', ''], env).ms);
      const r = timed([bin, 'search', queries[i % queries.length]!, '--root', dir, '--json'], env);
      if (r.code !== 0) throw new UsageError(`memtier search failed in the perf memory (exit ${r.code})`);
      cold.push(r.ms);
      const st = Number(timed(['-e', statScript], env).out.trim());
      if (st > 0) statRuns.push(st);
      if (rg) {
        const t = performance.now();
        spawnSync('rg', ['-c', '-i', '--no-messages', '--', queries[i % queries.length]!.split(' ')[0]!, dir], { env, maxBuffer: 64 * 1024 * 1024 });
        rgRuns.push(performance.now() - t);
      }
    }
    const bare = median(bareRuns);
    const rssScript = `import('${join(dirname(bin), '..', 'dist', 'lib', 'cli', 'main.js').replace(/\\/g, '/')}').then(async (m) => { await m.main({ argv: ['search', 'docker deploy failed', '--root', ${JSON.stringify(dir)}, '--json'], env: process.env, cwd: ${JSON.stringify(dir)}, stdout: { write() {} }, stderr: process.stderr }); console.log(process.resourceUsage().maxRSS); })`;
    const coldRss = Number(timed(['-e', rssScript], env).out.trim().split('\n').pop());
    // warm, in this process
    const sctx = makeTestCtx(dir, makeClock({ now: '2026-05-15T14:30:00Z', tz: 'UTC' }));
    const { openIndex } = await import('../search/cache.js');
    const { rank, searchDetailed } = await import('../search/search.js');
    const view = openIndex(sctx);
    const warm: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      rank(sctx, view, queries[i % queries.length]!, { k: 10 });
      warm.push(performance.now() - t);
    }
    const warmSearch: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      await searchDetailed(sctx, queries[i % queries.length]!, { k: 10 });
      warmSearch.push(performance.now() - t);
    }
    // one-file edit → visible
    const t0 = performance.now();
    appendFileSync(join(dir, 'memory/episodic/2023-01-05.md'), '- 23:59 [EVENT] zanzibar marmalade incident ^perfedit1\n');
    let found = false;
    while (!found && performance.now() - t0 < 10_000) found = (await searchDetailed(sctx, 'zanzibar marmalade', { k: 1 })).results[0]?.id === 'perfedit1';
    const edit = performance.now() - t0;
    const coldMs = median(cold);
    ctx.log.info('measuring with memtier watch');
    const { MEMTIER_WATCH: _off, ...serverEnv } = env;
    const watch = await measureWatch(bin, dir, serverEnv, o.runs, queries, rg);
    return {
      notes: o.notes, files: stats.files, bytes: stats.bytes, entries: stats.entries, runs: o.runs,
      bareNodeMs: r1(bare), buildMs: r1(b.ms), buildPeakRssMb: r1(b.rss / 1024), indexBytes, indexRatio: Math.round((indexBytes / stats.bytes) * 100) / 100,
      coldSearchMs: r1(coldMs), coldSearchRatio: Math.round((coldMs / bare) * 100) / 100, coldPeakRssMb: r1(coldRss / 1024),
      warmQueryMs: Math.round(median(warm) * 100) / 100, warmSearchMs: r1(median(warmSearch)), editReflectMs: found ? r1(edit) : -1,
      ripgrepMs: rg ? r1(median(rgRuns)) : null,
      statAllMs: r1(median(statRuns)),
      watch,
    };
  } finally {
    if (!o.dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** --notes, --runs and --dir of the benchmarks that build a synthetic memory (perf, mcp), checked. */
export function syntheticOptions(args: Args): { notes: number; runs: number; dir?: string } {
  const notes = flagNumber(args, 'notes') ?? 10_000;
  const runs = flagNumber(args, 'runs') ?? 15;
  if (!Number.isInteger(notes) || notes < 10) throw new UsageError(`--notes expects a whole number ≥ 10, got ${notes}`);
  if (!Number.isInteger(runs) || runs < 1) throw new UsageError(`--runs expects a whole number ≥ 1, got ${runs}`);
  const dir = flagString(args, 'dir');
  return dir ? { notes, runs, dir } : { notes, runs };
}

export const bench: BenchSpec = {
  name: 'perf',
  summary: 'synthetic memory: index build, cold/warm search, edit freshness, peak RSS; health checks and upkeep commands at several sizes',
  async run(ctx: Ctx, args: Args, io: Io): Promise<CommandResult> {
    const parts = scaleOptions(args);
    const search = parts.search ? await searchPart(ctx, args, io) : undefined;
    const scale = parts.scale ? await measureScale(ctx, binOrThrow(), parts.scale) : undefined;
    return {
      text: [search?.text, scale ? renderScale(scale) : undefined].filter((t) => t !== undefined).join('\n'),
      json: { ...((search?.json as object | undefined) ?? {}), ...(scale ? { scale } : {}) },
    };
  },
};

/** The search part of the benchmark (--part search): index build, cold and warm search, edits, with and without memtier watch. */
const searchPart = async (ctx: Ctx, args: Args, _io: Io): Promise<CommandResult> => {
    const o = syntheticOptions(args);
    const runs = o.runs;
    const rep = await runPerf(ctx, o);
    const text = [
      `synthetic memory: ${rep.files} files, ${(rep.bytes / 1e6).toFixed(1)} MB, ${rep.entries} entries`,
      `bare node start        ${rep.bareNodeMs} ms (median of ${runs})`,
      `index build            ${rep.buildMs} ms, peak RSS ${rep.buildPeakRssMb} MB; on disk ${(rep.indexBytes / 1e6).toFixed(1)} MB = ${rep.indexRatio}× the markdown`,
      `cold search (process)  ${rep.coldSearchMs} ms = ${rep.coldSearchRatio}× bare node, peak RSS ${rep.coldPeakRssMb} MB`,
      `warm query             ${rep.warmQueryMs} ms (index loaded); search() with freshness check ${rep.warmSearchMs} ms`,
      `one-file edit visible  ${rep.editReflectMs} ms`,
      `stat every file        ${rep.statAllMs} ms in a fresh process (the never-stale check's floor, node start excluded)`,
      rep.ripgrepMs === null ? 'ripgrep                not installed (no unranked-scan comparison)' : `ripgrep unranked scan  ${rep.ripgrepMs} ms (cold search = ${Math.round((rep.coldSearchMs / rep.ripgrepMs) * 100) / 100}× rg)`,
      'with memtier watch running (its own interleaved runs):',
      `  cold search (process)  ${rep.watch.coldSearchMs} ms = ${rep.watch.coldSearchRatio}× bare node (${rep.watch.bareNodeMs} ms)${rep.watch.ripgrepMs === null ? '' : ` = ${Math.round((rep.watch.coldSearchMs / rep.watch.ripgrepMs) * 100) / 100}× rg (${rep.watch.ripgrepMs} ms)`}`,
      `  one-file edit visible  ${rep.watch.editReflectMs} ms (append, then a new search process; median of 5)`,
      `  server start ${rep.watch.startMs} ms, peak RSS ${rep.watch.serverPeakRssMb} MB`,
    ].join('\n');
    return { text, json: rep };
};
