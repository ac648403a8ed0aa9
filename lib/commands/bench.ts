/**
 * `memtier bench write|perf|mcp|locomo|cjk|openclaw|extract`: each benchmark lives in lib/bench/NAME.ts and exports
 * `bench: BenchSpec`; this command only dispatches, so a benchmark's code loads only when run.
 */
import type { Args, CommandResult, CommandSpec, FlagSpec, Io } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';

export interface BenchSpec {
  name: string;
  summary: string;
  run(ctx: Ctx, args: Args, io: Io): Promise<CommandResult>;
}

const lazyBench = (file: string) => (): Promise<{ bench: BenchSpec }> => import(/* @vite-ignore */ `../bench/${file}.js`) as Promise<{ bench: BenchSpec }>;

const BENCHES: Record<string, { summary: string; load: () => Promise<{ bench: BenchSpec }> }> = {
  write: { summary: 'cold whole-process `memtier wal decide` median vs bare `node -e ""`', load: lazyBench('write') },
  perf: { summary: 'synthetic memory: index build, cold/warm search, edit freshness, peak RSS; health checks and upkeep commands at several sizes', load: lazyBench('perf') },
  mcp: { summary: 'memory_search through `memtier mcp` and the MCP SDK client: p50/p95 per call', load: lazyBench('mcp') },
  locomo: { summary: 'retrieval quality on a LoCoMo-shaped file (recall@k per category)', load: lazyBench('locomo') },
  extract: { summary: 'extraction precision/recall per type on an annotated set; its cold cost on 200 messages', load: lazyBench('extract') },
  cjk: { summary: 'search quality on a bilingual memory with questions (hit@1/hit@5/MRR per language) beside plain bigram BM25', load: lazyBench('cjk') },
  openclaw: { summary: 'memory_search in a real OpenClaw gateway: memtier\'s plugin vs memory-core (hit@k, p50/p95)', load: lazyBench('openclaw') },
};

const flags: FlagSpec[] = [
  // no table default: each benchmark has its own (15 for write, perf, mcp and extract; 3 for openclaw)
  { name: 'runs', type: 'number', value: 'N', description: 'whole-process runs per measurement (write, perf, extract; default 15); rounds of 10 queries (mcp; default 15); timed rounds of all questions (openclaw; default 3)' },
  { name: 'notes', type: 'number', value: 'N', description: 'synthetic notes to generate (perf, mcp)', default: 10000 },
  { name: 'dir', type: 'string', value: 'DIR', description: 'where to build the synthetic memory (perf; default: a temp dir, removed after)' },
  { name: 'part', type: 'list', value: 'PART,PART', description: 'perf: search (index build, cold/warm search at --notes) and/or scale (health checks and upkeep commands at --sizes); default both' },
  { name: 'sizes', type: 'list', value: 'N,N', description: 'perf scale: memory sizes in notes, each a fresh synthetic memory (default 1000,10000; 50000 takes minutes)' },
  { name: 'shape', type: 'list', value: 'SHAPE,SHAPE', description: 'perf scale: the memory\'s shape, bench (episodic days with ids and frontmatter notes, as memtier writes) and/or logs (years of hand-typed daily logs without ids, 80 %, and notes); default bench' },
  { name: 'baseline', type: 'string', value: 'DIR', description: 'perf scale: another built memtier (bin/ and dist/) measured on the same memories in the same run, before this one' },
  { name: 'timeout', type: 'number', value: 'S', description: 'perf scale: stop a command after S seconds and report it as a timeout (default 300)' },
  { name: 'data', type: 'string', value: 'FILE', description: 'LoCoMo-shaped JSON file (locomo), e.g. ../shared/bench/locomo-dev.json; a folder with memory/ and queries.json (cjk, openclaw), e.g. ../shared/bench/cjk-dev; an annotated set (extract; default both test/fixtures/extract/annotated.json, conversations, and freeform-notes.json, free-form daily notes, each scored per language)' },
  { name: 'memory', type: 'string', value: 'DIR', description: 'a memory root to ask (cjk; with --queries), instead of --data\'s memory/' },
  { name: 'queries', type: 'string', value: 'FILE', description: 'questions [{id, q, expect, lang}] (cjk; with --memory), instead of --data\'s queries.json' },
  { name: 'conversations', type: 'string', value: 'RANGE', description: 'conversations to run (locomo), e.g. 0-4 or 0,2' },
  { name: 'k', type: 'list', value: 'K,K', description: 'cut-offs for recall@k (locomo)', default: '5,10' },
  { name: 'alternates', type: 'string', value: 'FILE', description: 'locomo, cjk: a JSON object of alternates per question (search --also), e.g. your model\'s words for each: keyed by id (cjk), by SAMPLE#N or the question\'s text (locomo; N its 0-based place in the sample\'s qa); cjk reports the run with them beside the run without' },
];

export const command: CommandSpec = {
  name: 'bench',
  summary: 'benchmarks: write, perf, mcp, locomo, cjk, openclaw, extract',
  usage: ['bench write [--runs N]', 'bench perf [--notes N] [--runs N] [--dir DIR] [--part search,scale] [--sizes 1000,10000] [--baseline DIR] [--timeout S]', 'bench mcp [--notes N] [--runs N] [--dir DIR]', 'bench locomo --data FILE [--conversations 0-4] [--k 5,10] [--alternates FILE]', 'bench cjk --data DIR | --memory DIR --queries FILE [--alternates FILE]', 'bench openclaw --data DIR [--runs N]', 'bench extract [--data FILE] [--runs N]'],
  description: 'Benchmarks measure whole processes (what an agent pays per call) and print JSON with --json.\nThey never need an existing memory: each builds its own in a temporary folder.',
  subcommands: Object.fromEntries(Object.entries(BENCHES).map(([k, v]) => [k, v.summary])),
  flags,
  needsRoot: false,
  examples: ['memtier bench write', 'memtier bench perf --notes 10000 --json', 'memtier bench locomo --data ../shared/bench/locomo-dev.json', 'memtier bench cjk --data ../shared/bench/cjk-dev', 'memtier bench openclaw --data ../shared/bench/cjk-dev'],
  async run(ctx: Ctx, args: Args, io: Io): Promise<CommandResult> {
    const [sub, ...rest] = args.positionals;
    const b = sub ? BENCHES[sub] : undefined;
    if (!b) throw new UsageError(sub ? `unknown benchmark "${sub}"` : 'bench needs a benchmark name', `one of: ${Object.keys(BENCHES).join(', ')}`);
    const { bench } = await b.load();
    return bench.run(ctx, { ...args, positionals: rest }, io);
  },
};
