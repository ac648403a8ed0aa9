/**
 * `memtier bench mcp`: memory_search through the MCP protocol on a synthetic memory (the one
 * `bench perf` builds): the real `memtier mcp` spawned, the SDK's own client over stdio, the time
 * of each call from request to answer (p50/p95), the server's start and a hand edit seen.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Args, CommandResult, Io } from '../cli/spec.js';
import { findBin } from '../core/bin.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import type { BenchSpec } from '../commands/bench.js';
import { generateMemory, syntheticOptions } from './perf.js';

export interface McpBenchReport {
  notes: number;
  files: number;
  calls: number;
  startMs: number;
  searchP50Ms: number;
  searchP95Ms: number;
  editVisible: boolean;
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 100) / 100 : 0;
};

export async function runMcpBench(ctx: Ctx, o: { notes: number; runs: number; dir?: string }): Promise<McpBenchReport> {
  const bin = findBin();
  if (!bin) throw new UsageError('cannot find bin/memtier.js', 'run the benchmark from a built memtier (npm ci)');
  const dir = o.dir ? resolve(ctx.cwd, o.dir) : mkdtempSync(join(tmpdir(), 'memtier-mcp-bench-'));
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  try {
    mkdirSync(dir, { recursive: true });
    ctx.log.info(`generating ${o.notes} notes in ${dir}`);
    const stats = generateMemory(dir, o.notes);
    const env = { PATH: ctx.env.PATH ?? '', HOME: ctx.env.HOME ?? tmpdir(), MEMTIER_NOW: '2026-05-15T14:30:00Z', MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' };
    const t0 = performance.now();
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--root', dir], env, stderr: 'ignore' });
    const client = new Client({ name: 'memtier-bench', version: '1' });
    await client.connect(transport);
    await client.listTools();
    const startMs = Math.round(performance.now() - t0);
    try {
      const queries = ['docker deploy failed', 'postgres backup restore', '部署 失败', 'billing invoice customer', 'kubernetes helm chart', 'coffee morning habit', 'rollback release version', '数据库 备份', 'flight hotel budget', 'alert dashboard latency'];
      const search = (query: string) => client.callTool({ name: 'memory_search', arguments: { query, k: 10 } });
      for (const q of queries) await search(q); // warm-up: the first calls run unoptimized code
      const times: number[] = [];
      for (let r = 0; r < o.runs; r++) {
        for (const q of queries) {
          const t = performance.now();
          await search(q);
          times.push(performance.now() - t);
        }
      }
      appendFileSync(join(dir, 'MEMORY.md'), '\n- the quokka colony moved to the east paddock\n');
      const res = (await search('quokka colony')) as { content: { text: string }[] };
      const editVisible = res.content[0]!.text.includes('quokka colony moved');
      return { notes: o.notes, files: stats.files, calls: times.length, startMs, searchP50Ms: pct(times, 50), searchP95Ms: pct(times, 95), editVisible };
    } finally {
      await client.close();
    }
  } finally {
    if (!o.dir) rmSync(dir, { recursive: true, force: true });
  }
}

export const bench: BenchSpec = {
  name: 'mcp',
  summary: 'memory_search through `memtier mcp` and the MCP SDK client: p50/p95 per call',
  async run(ctx: Ctx, args: Args, _io: Io): Promise<CommandResult> {
    const rep = await runMcpBench(ctx, syntheticOptions(args));
    const text = [
      `memtier mcp on ${rep.files} files (${rep.notes} notes), SDK client over stdio`,
      `server start (spawn to tools listed)  ${rep.startMs} ms`,
      `memory_search per call                p50 ${rep.searchP50Ms} ms, p95 ${rep.searchP95Ms} ms (${rep.calls} calls)`,
      `hand edit seen by the next call       ${rep.editVisible ? 'yes' : 'NO'}`,
    ].join('\n');
    return { text, json: rep, ...(rep.editVisible ? {} : { exitCode: 1 as const }) };
  },
};
