/**
 * `memtier bench openclaw --data DIR [--runs N]`: memtier's plugin against OpenClaw's own
 * memory-core, in the real gateway, on the same memory and the same questions.
 *
 * DIR holds `memory/` (a memory root) and `queries.json` (`[{id, q, expect, lang}]`, `expect` a
 * substring of the one line that answers), as ../shared/bench/cjk-dev does. The memory is copied
 * into a scratch OpenClaw workspace; for each plugin a gateway (openclaw@2026.9.6, Node 24,
 * loopback, token auth) is started with it in `plugins.slots.memory` (memory-core with
 * `memory.search.provider: "none"`, its keyword search without an embedding key), and every
 * question goes through `POST /tools/invoke` `memory_search` as an agent's call does. A question
 * hits at k when one of the first k results cites a line range holding the answer's line. Reported
 * per plugin: hit@1, hit@5, MRR (overall and per language) and the time of each call from request to
 * answer over HTTP (p50/p95, after one warm-up round).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Args, CommandResult, Io } from '../cli/spec.js';
import { flagNumber, flagString } from '../cli/spec.js';
import { findBin } from '../core/bin.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import type { BenchSpec } from '../commands/bench.js';
import { assertMemoryFolder, dataClock, locateAnswers, rankOf, readQueries, scoreByLang, type Hit } from './qa-data.js';
import { installHost, OPENCLAW_VERSION, readConfig, startGateway, writeConfig } from './openclaw-host.js';

export interface PluginScore {
  plugin: string;
  n: number;
  hit1: number;
  hit5: number;
  mrr: number;
  byLang: Record<string, { n: number; hit1: number; hit5: number; mrr: number }>;
  p50Ms: number;
  p95Ms: number;
  calls: number;
  /** Questions whose search came back with an error or unavailable (counted as misses). */
  errors: number;
}

export interface OpenClawBenchReport { openclaw: string; memory: string; queries: number; plugins: PluginScore[] }

const PLUGINS = ['memtier', 'memory-core'] as const;

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10 : 0;
};
export async function runOpenClawBench(ctx: Ctx, o: { data: string; runs: number }): Promise<OpenClawBenchReport> {
  const data = resolve(ctx.cwd, o.data);
  const memory = join(data, 'memory');
  const hint = 'give --data a folder with memory/ and queries.json, e.g. ../shared/bench/cjk-dev';
  const queries = readQueries(join(data, 'queries.json'), hint);
  assertMemoryFolder(memory, hint);
  const bin = findBin();
  if (!bin) throw new UsageError('cannot find bin/memtier.js', 'run the benchmark from a built memtier (npm ci)');
  const pkg = dirname(dirname(bin));
  const host = installHost({ log: (m) => ctx.log.info(m) });
  const scratch = mkdtempSync(join(tmpdir(), 'memtier-openclaw-bench-'));
  // the memory's own clock, when it says one (cjk-dev: 2026-07-21 09:00 in Shanghai)
  const dc = dataClock(data);
  const clock: NodeJS.ProcessEnv = { ...(dc.now ? { MEMTIER_NOW: dc.now } : {}), ...(dc.tz ? { MEMTIER_TZ: dc.tz, TZ: dc.tz } : {}) };
  const scores: PluginScore[] = [];
  try {
    for (const plugin of PLUGINS) {
      const workspace = join(scratch, plugin, 'workspace');
      const home = join(scratch, plugin, 'home');
      cpSync(memory, workspace, { recursive: true });
      const answers = locateAnswers(workspace, queries);
      const cfg = readConfig(home);
      cfg.agents = { defaults: { workspace } };
      cfg.memory = { search: { provider: 'none' } };
      cfg.plugins = {
        load: { paths: [pkg] },
        entries: { memtier: { enabled: plugin === 'memtier', config: { root: workspace } } },
        slots: { memory: plugin },
      };
      writeConfig(home, cfg);
      ctx.log.info(`starting the gateway with ${plugin} in the memory slot…`);
      const gw = await startGateway(host, home, { env: { MEMTIER_GIT: 'off', ...clock } });
      try {
        const search = async (q: string): Promise<{ results: Hit[]; error: boolean }> => {
          const r = await gw.invoke('memory_search', { query: q, maxResults: 10 });
          const d = r.body?.result?.details as { results?: Hit[]; unavailable?: boolean; disabled?: boolean; error?: unknown } | undefined;
          return { results: d?.results ?? [], error: r.status !== 200 || !d || d.unavailable === true || d.error !== undefined };
        };
        // memory-core indexes on its first searches: wait until it answers from the files
        for (let i = 0; i < 60; i++) {
          if ((await search(queries[0]!.q)).results.length) break;
          await new Promise((r) => setTimeout(r, 500));
        }
        const ranks: number[] = [];
        let errors = 0;
        for (const q of queries) {
          const r = await search(q.q);
          if (r.error) errors++;
          ranks.push(rankOf(r.results, answers.get(q.id)!));
        }
        const times: number[] = [];
        for (let run = 0; run < o.runs; run++) {
          for (const q of queries) {
            const t = performance.now();
            await search(q.q);
            times.push(performance.now() - t);
          }
        }
        scores.push({ plugin, ...scoreByLang(queries, ranks), p50Ms: pct(times, 50), p95Ms: pct(times, 95), calls: times.length, errors });
      } finally {
        await gw.stop();
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { openclaw: OPENCLAW_VERSION, memory: data, queries: queries.length, plugins: scores };
}

export const bench: BenchSpec = {
  name: 'openclaw',
  summary: 'memory_search in a real OpenClaw gateway: memtier\'s plugin vs memory-core, hit@k and latency',
  async run(ctx: Ctx, args: Args, _io: Io): Promise<CommandResult> {
    const data = flagString(args, 'data');
    if (!data) throw new UsageError('bench openclaw needs --data DIR', 'a folder with memory/ and queries.json, e.g. memtier bench openclaw --data ../shared/bench/cjk-dev');
    const runs = flagNumber(args, 'runs') ?? 3;
    if (!Number.isInteger(runs) || runs < 1) throw new UsageError(`--runs expects a whole number ≥ 1, got ${runs}`);
    const rep = await runOpenClawBench(ctx, { data, runs });
    const langs = Object.keys(rep.plugins[0]?.byLang ?? {});
    const row = (s: PluginScore): string => [
      s.plugin.padEnd(12),
      `${s.hit1.toFixed(3)}  ${s.hit5.toFixed(3)}  ${s.mrr.toFixed(3)}`,
      ...langs.map((l) => `${s.byLang[l]!.hit5.toFixed(3)}`.padStart(8)),
      `${s.p50Ms} / ${s.p95Ms} ms`.padStart(16),
      s.errors ? `  (${s.errors} errors)` : '',
    ].join('  ');
    const text = [
      `OpenClaw ${rep.openclaw}, POST /tools/invoke memory_search, ${rep.queries} questions of ${rep.memory}`,
      ['plugin'.padEnd(12), 'hit@1  hit@5  MRR  ', ...langs.map((l) => `@5 ${l}`.padStart(8)), 'p50 / p95'.padStart(16)].join('  '),
      ...rep.plugins.map(row),
    ].join('\n');
    return { text, json: rep };
  },
};
