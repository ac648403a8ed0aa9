/**
 * memtier as OpenClaw's memory plugin (`plugins.slots.memory: "memtier"`), loaded inside the
 * gateway (Node 24). What it gives OpenClaw:
 *
 * - `memory_search` and `memory_get` with memory-core's parameters and result shapes
 *   (`{results: [{path, startLine, endLine, score, snippet, source, citation}]}` and
 *   `{status, path, text, from, lines, truncated?, nextFrom?}`), so OpenClaw's prompts, Active
 *   Memory and agents used to those tools keep working; answered by memtier's search (BM25 with
 *   tags, activation and decay, CJK segmentation) over the whole memory, `knowledge/` included;
 * - memtier's own tools from the shared catalog (lib/tools): memory_recall, memory_write,
 *   memory_wal, memory_health;
 * - hooks: on the first turn of a session and after a compaction, memtier's boot block (the
 *   state to reload) as appended system context; recall for the user's message on every turn
 *   (opt-in: `recall.enabled`); a snapshot of SESSION-STATE.md after each turn, before a
 *   compaction and before a reset, when the state moved (what OpenClaw's pre-compaction flush
 *   does today, as one locked, atomic write instead of a model turn editing files);
 * - the memory kept warm in the gateway: the index loaded once and its freshness answered by a
 *   watcher (lib/watch), so an edit made by hand just before a call is in its answer; and the
 *   `memtier watch` socket served from the same process, so the agent's own `memtier search`
 *   and `memtier recall` shell calls are warm too.
 *
 * Every tool and hook is a memtier command run through the CLI's main() (lib/watch/runner.ts):
 * the same guards (secrets, path escapes), the same git commit, one writer.
 */
import { memoryCoreAdvice, memoryCoreState } from './host-config.js';
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import type { Main } from '../cli/spec.js';
import { makeClock } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { LIMITS, toolTable } from '../tools/catalog.js';
import { commandRunner, describeError, type CommandRunner, type Invocation } from '../watch/runner.js';

export const PLUGIN_ID = 'memtier';

/** The plugin's settings (`plugins.entries.memtier.config`); openclaw.plugin.json's configSchema is made from it (a test keeps them equal). */
export const pluginConfig = z.object({
  root: z.string().min(1).optional().describe('The memory root (the folder holding MEMORY.md). Default: the agent\'s OpenClaw workspace.'),
  boot: z.object({
    enabled: z.boolean().optional().describe('Append memtier boot (SESSION-STATE.md, the last days, the working buffer) to the system context on a session\'s first turn and after a compaction. Default true.'),
    maxChars: z.number().int().min(500).max(64000).optional().describe('Size limit of the boot block. Default 6000.'),
  }).strict().optional(),
  recall: z.object({
    enabled: z.boolean().optional().describe('Append the recall block for the user\'s message to the system context on every turn. Default false.'),
    maxChars: z.number().int().min(200).max(20000).optional().describe('Size limit of the recall block. Default 2000.'),
  }).strict().optional(),
  snapshots: z.boolean().optional().describe('Snapshot SESSION-STATE.md after each turn, before compaction and before a reset, when it changed. Default true.'),
  watch: z.boolean().optional().describe('Serve memtier watch from the gateway, so the agent\'s memtier CLI calls are warm. Default true.'),
}).strict();

export type PluginConfig = z.infer<typeof pluginConfig>;

/** The JSON Schema OpenClaw validates the config with (before loading any code: it is in openclaw.plugin.json). */
export function configJsonSchema(): Record<string, unknown> {
  const s = z.toJSONSchema(pluginConfig, { target: 'draft-07', io: 'input' }) as Record<string, unknown>;
  delete s.$schema;
  return s;
}

/** The tools the plugin registers (openclaw.plugin.json's contracts.tools lists the same). */
export const TOOL_NAMES = ['memory_search', 'memory_get', 'memory_recall', 'memory_write', 'memory_wal', 'memory_health'] as const;

/** The part of OpenClaw's plugin API this plugin uses (openclaw/plugin-sdk's OpenClawPluginApi). */
export interface OpenClawApi {
  id?: string;
  config?: unknown;
  pluginConfig?: Record<string, unknown>;
  registrationMode?: string;
  logger?: { debug?(m: string): void; info?(m: string): void; warn?(m: string): void; error?(m: string): void };
  runtime?: { agent?: { resolveAgentWorkspaceDir?(cfg: unknown, agentId: string): string } };
  registerTool(tool: unknown, opts?: { names?: string[] }): void;
  registerMemoryCapability?(capability: unknown): void;
  on(hook: string, handler: (event: Record<string, unknown>, ctx: Record<string, unknown>) => unknown, opts?: Record<string, unknown>): void;
}

interface ToolResult { content: { type: 'text'; text: string }[]; details: unknown }

const jsonResult = (payload: unknown): ToolResult => ({ content: [{ type: 'text', text: JSON.stringify(payload, null, 2) }], details: payload });

/** memory-core's default excerpt of memory_get (packages/memory-host-sdk read-file-shared.ts). */
export const GET_DEFAULT_LINES = 120;
const GET_MAX_CHARS = 12_000;

/** memory-core's memory_search parameters. */
const SEARCH_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'what to look for, in words; English and Chinese; a time phrase ("last Tuesday", "上周二") narrows to that time' },
    maxResults: { type: 'integer', minimum: 1, description: 'number of results (default 10)' },
    minScore: { type: 'number', description: 'leave out results scoring below this (memtier\'s BM25 scale: about 1 is a weak match, 5 and more a strong one)' },
    corpus: { type: 'string', enum: ['memory', 'wiki', 'all', 'sessions'], description: 'memtier searches the memory files: "memory" and "all" search them, "wiki" and "sessions" are not served' },
    alternates: { type: 'string', maxLength: LIMITS.alternatesChars, description: 'other words for what you are looking for when the memory may say it otherwise: the other language (English ↔ Chinese), abbreviations, synonyms, likely wordings; searched below the query\'s own words, never a filter; at most 1,000 characters' },
  },
  required: ['query'],
  additionalProperties: false,
};
/** memory-core's memory_get parameters. */
const GET_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'a memory path as memory_search cites it (memory/2026-05-14.md, or the citation memory/2026-05-14.md#L12)' },
    from: { type: 'integer', minimum: 1, description: 'first line (1-based; a #L12 citation sets it too)' },
    lines: { type: 'integer', minimum: 1, description: `how many lines (default ${GET_DEFAULT_LINES})` },
    corpus: { type: 'string', enum: ['memory', 'wiki', 'all'] },
  },
  required: ['path'],
  additionalProperties: false,
};

const SEARCH_DESCRIPTION = 'Mandatory recall step: search the long-term memory (MEMORY.md, USER.md, memory/ with daily notes, decisions, preferences, people, lessons, and knowledge/) before answering questions about prior work, decisions, dates, people, preferences, or todos. Returns ranked entries with a path#Lline citation; open one with memory_get for its context. English and Chinese. Pass `alternates` when the memory may word it otherwise (another language, an abbreviation, a paraphrase), and when the first results do not answer, search again with them.';
const GET_DESCRIPTION = 'Safe exact excerpt read from a memory file (MEMORY.md, USER.md, memory/, knowledge/). Use it on a memory_search citation to read the lines around a hit before quoting. Defaults to a bounded excerpt when lines are omitted and says how to continue (nextFrom) when more content exists. status=ok: read; status=not_found: no such memory file; status=error: the read failed.';

export interface MemtierPlugin {
  id: string;
  name: string;
  description: string;
  kind: 'memory';
  configSchema: { safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { issues: { path: (string | number)[]; message: string }[] } }; jsonSchema: Record<string, unknown> };
  register(api: OpenClawApi): void;
}

/** A running memory inside the gateway: its runner (warm when it could be), and how to close it. */
interface Served { runner: CommandRunner; close(): Promise<void> }

/** The plugin entry (openclaw's definePluginEntry shape), running memtier's commands through `main`. */
export function createPlugin(main: Main, version: string): MemtierPlugin {
  return {
    id: PLUGIN_ID,
    name: 'memtier',
    description: 'Long-term memory in plain markdown files: BM25 search with tags, activation and decay (no vectors, no API key), a crash-safe WAL, health checks and upkeep',
    kind: 'memory',
    configSchema: {
      safeParse(v: unknown) {
        const r = pluginConfig.safeParse(v ?? {});
        return r.success ? { success: true as const, data: r.data } : { success: false as const, error: { issues: r.error.issues.map((i) => ({ path: i.path.filter((p): p is string | number => typeof p !== 'symbol'), message: i.message })) } };
      },
      get jsonSchema() { return configJsonSchema(); },
    },
    register(api: OpenClawApi) { registerPlugin(api, main, version); },
  };
}

/** The memories served in this process, by root, with the plugin instances using each. */
const SERVED_KEY = Symbol.for('memtier.openclaw.served');
const SERVED: Map<string, { users: Set<object>; served: Promise<Served> }> =
  ((globalThis as Record<symbol, unknown>)[SERVED_KEY] as Map<string, { users: Set<object>; served: Promise<Served> }> | undefined)
  ?? ((globalThis as Record<symbol, unknown>)[SERVED_KEY] = new Map());

function registerPlugin(api: OpenClawApi, main: Main, version: string): void {
  const instance = {};
  const parsed = pluginConfig.safeParse(api.pluginConfig ?? {});
  if (!parsed.success) throw new Error(`memtier: invalid plugin config: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  const cfg = parsed.data;
  const log = api.logger ?? {};
  // this instance's users of the process-wide served memories (OpenClaw may register the plugin
  // more than once in one gateway: one warm memory and one memtier watch per root, shared)
  const mine = new Set<string>();

  /** The memory root for an agent: the configured root, else that agent's workspace. */
  const rootFor = (agentId: unknown): string => {
    if (cfg.root) return resolve(cfg.root.replace(/^~(?=\/|$)/, homedir()));
    const id = typeof agentId === 'string' && agentId ? agentId : 'main';
    const ws = api.runtime?.agent?.resolveAgentWorkspaceDir?.(api.config, id);
    return ws && isAbsolute(ws) ? ws : join(homedir(), '.openclaw', 'workspace');
  };

  /** The served memory of `root`, started on first use: warm (and serving memtier watch) when it can be. */
  const serve = (root: string): Promise<Served> => {
    let s = SERVED.get(root);
    if (!s) {
      s = { users: new Set(), served: startServing(root, main, version, cfg, log) };
      SERVED.set(root, s);
    }
    s.users.add(instance);
    mine.add(root);
    return s.served;
  };
  const run = async (agentId: unknown, inv: Invocation) => (await serve(rootFor(agentId))).runner.run(inv);

  // memory-core's guidance for the system prompt, when the tools are available to the turn
  api.registerMemoryCapability?.({
    promptBuilder: (p: { availableTools?: Set<string> }) => {
      if (!p.availableTools?.has('memory_search')) return [];
      return [
        '## Memory Recall',
        'Before answering anything about prior work, decisions, dates, people, preferences, or todos: run memory_search; use memory_get on a hit to read the lines around it. The memory may word it otherwise (English or Chinese, an abbreviation, other words): pass `alternates` with those words, and search again with them when the first results do not answer. If low confidence after search, say you checked.',
        'Record decisions and the working state with memory_wal before answering; store a durable fact with memory_write (never a secret).',
        'Citations: include Source: <path#line> when it helps the user verify memory snippets.',
        '',
      ];
    },
  });

  const toolCtxAgent = (ctx: Record<string, unknown> | undefined): unknown => ctx?.agentId;

  api.registerTool((ctx: Record<string, unknown> | undefined) => ({
    name: 'memory_search',
    label: 'Memory Search',
    description: SEARCH_DESCRIPTION,
    parameters: SEARCH_SCHEMA,
    execute: async (_id: string, params: Record<string, unknown>) => jsonResult(await memorySearch((inv) => run(toolCtxAgent(ctx), inv), params)),
  }), { names: ['memory_search'] });

  api.registerTool((ctx: Record<string, unknown> | undefined) => ({
    name: 'memory_get',
    label: 'Memory Get',
    description: GET_DESCRIPTION,
    parameters: GET_SCHEMA,
    execute: async (_id: string, params: Record<string, unknown>) => jsonResult(await memoryGet((inv) => run(toolCtxAgent(ctx), inv), params)),
  }), { names: ['memory_get'] });

  const table = toolTable();
  for (const name of ['memory_recall', 'memory_write', 'memory_wal', 'memory_health'] as const) {
    const t = table[name];
    const schema = z.object(t.inputSchema as z.ZodRawShape).strict();
    const parameters = z.toJSONSchema(schema, { target: 'draft-07', io: 'input' }) as Record<string, unknown>;
    delete parameters.$schema;
    api.registerTool((ctx: Record<string, unknown> | undefined) => ({
      name,
      label: t.title,
      description: t.description,
      parameters,
      execute: async (_id: string, params: Record<string, unknown>) => {
        const a = schema.safeParse(params ?? {});
        if (!a.success) return jsonResult({ ok: false, error: { message: `bad arguments: ${a.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ')}` } });
        const r = await run(toolCtxAgent(ctx), (t.invoke as (x: unknown) => Invocation)(a.data));
        // a refusal (exit 2) comes back as the tool's answer, with memtier's message, rule and fix
        return r.code === 2 ? jsonResult({ ok: false, error: describeError(r.json) }) : jsonResult(r.json);
      },
    }), { names: [name] });
  }

  // boot once per session, and again after a compaction (what the agent must reload)
  const booted = new Set<string>();
  const bootOn = cfg.boot?.enabled !== false;
  const recallOn = cfg.recall?.enabled === true;
  api.on('before_prompt_build', async (event, ctx) => {
    const parts: string[] = [];
    const session = typeof ctx.sessionKey === 'string' ? ctx.sessionKey : '';
    try {
      if (bootOn && session && !booted.has(session)) {
        booted.add(session);
        const b = await run(ctx.agentId, { argv: ['boot', '--max-chars', String(cfg.boot?.maxChars ?? 6000)] });
        if (b.code === 0 && typeof b.json.text === 'string' && b.json.text.trim()) parts.push(`memtier boot (the memory's current state; reload it before you continue):\n${b.json.text.trim()}`);
      }
      if (recallOn) {
        const q = typeof event.currentUserMessage === 'string' ? event.currentUserMessage : typeof event.prompt === 'string' ? event.prompt : '';
        if (q.trim()) {
          const r = await run(ctx.agentId, { argv: ['recall', '--query', q.slice(0, 4000), '--max-chars', String(cfg.recall?.maxChars ?? 2000)] });
          if (r.code === 0 && typeof r.json.text === 'string' && r.json.text.trim()) parts.push(r.json.text.trim());
        }
      }
    } catch (e) {
      log.warn?.(`memtier: ${(e as Error).message}`);
    }
    return parts.length ? { appendSystemContext: parts.join('\n\n') } : undefined;
  });
  api.on('after_compaction', (_event, ctx) => { if (typeof ctx.sessionKey === 'string') booted.delete(ctx.sessionKey); });
  api.on('session_start', (_event, ctx) => { if (typeof ctx.sessionKey === 'string') booted.delete(ctx.sessionKey); });

  if (cfg.snapshots !== false) {
    const snapshot = (what: string) => async (_event: Record<string, unknown>, ctx: Record<string, unknown>) => {
      const stamp = new Date().toISOString().replace(/[^0-9]/g, '').slice(0, 14);
      const r = await run(ctx.agentId, { argv: ['wal', 'snapshot', `${what}-${stamp}`, '--if-changed'] }).catch((e: Error) => ({ code: 2, json: { error: { message: e.message } } }));
      // a memory without SESSION-STATE.md yet has nothing to snapshot
      if (r.code === 2 && (r.json.error as { code?: string } | undefined)?.code !== 'missing') log.warn?.(`memtier: snapshot at ${what}: ${describeError(r.json)}`);
    };
    api.on('agent_end', snapshot('agent-end'));
    api.on('before_compaction', snapshot('before-compaction'));
    api.on('before_reset', snapshot('before-reset'));
  }

  // memory-core beside memtier: its dreaming job and its tool name conflicts, said once at start
  // with the command that ends both (lib/openclaw/host-config.ts), instead of a conflict line per call
  api.on('gateway_start', () => {
    const g = globalThis as Record<symbol, unknown>;
    const said = Symbol.for('memtier.openclaw.memory-core-advice');
    if (g[said]) return;
    g[said] = true;
    const advice = memoryCoreAdvice(memoryCoreState(api.config, PLUGIN_ID));
    if (advice) log.warn?.(`memtier: ${advice}`);
  });

  // warm the memory with the gateway, not on the first question (and serve the CLI's memtier watch)
  api.on('gateway_start', () => { void serve(rootFor(undefined)).catch((e: Error) => log.warn?.(`memtier: ${e.message}`)); });
  api.on('gateway_stop', async () => {
    const closing: Promise<Served>[] = [];
    for (const root of mine) {
      const s = SERVED.get(root);
      if (!s) continue;
      s.users.delete(instance);
      // the last instance that used it stops it
      if (s.users.size === 0) { SERVED.delete(root); closing.push(s.served); }
    }
    mine.clear();
    await Promise.all(closing.map(async (p) => (await p.catch(() => undefined))?.close()));
  });
}

async function startServing(root: string, main: Main, version: string, cfg: PluginConfig, log: OpenClawApi['logger'] & object): Promise<Served> {
  const env = { ...process.env };
  const ctx: Ctx = {
    root,
    clock: makeClock({ now: env.MEMTIER_NOW, tz: env.MEMTIER_TZ, source: 'MEMTIER_NOW' }),
    log: { info: (m) => log.debug?.(`memtier: ${m}`), warn: (m) => log.warn?.(`memtier: ${m}`) },
    env,
    cwd: root,
    interactive: false,
  };
  const isMemory = (() => { try { return statSync(join(root, 'MEMORY.md')).isFile(); } catch { return false; } })();
  if (!isMemory) {
    // not a memory (yet): every call answers memtier's own error, which says how to make one
    log.warn?.(`memtier: ${root} holds no MEMORY.md; run "memtier init ${root}" (or set plugins.entries.memtier.config.root)`);
    return { runner: commandRunner(ctx, main, undefined), close: async () => undefined };
  }
  if (cfg.watch !== false) {
    try {
      const { startServer } = await import('../watch/server.js');
      const server = await startServer(ctx, main, { version });
      log.info?.(`memtier: serving ${root} warm (memtier watch socket ${server.info.socket})`);
      return { runner: commandRunner(ctx, main, server), close: () => server.close() };
    } catch (e) {
      // another process serves memtier watch for this root: keep a warm memory of our own
      log.info?.(`memtier: ${(e as Error).message}; the plugin keeps its own warm index`);
    }
  }
  try {
    const { warmMemory } = await import('../watch/warm.js');
    const warm = await warmMemory(ctx);
    return { runner: commandRunner(ctx, main, warm), close: async () => warm.close() };
  } catch (e) {
    log.warn?.(`memtier: cannot keep ${root} warm (${(e as Error).message}); each call checks the files itself`);
    return { runner: commandRunner(ctx, main, undefined), close: async () => undefined };
  }
}

type Run = (inv: Invocation) => Promise<{ json: Record<string, unknown>; code: number }>;

interface SearchHit { path: string; line: number; endLine?: number; score: number; text: string; cite?: string; id?: string; type?: string; date?: string; tags?: string[] }

/** memory_search with memory-core's arguments and result shape. */
export async function memorySearch(run: Run, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const query = typeof params.query === 'string' ? params.query.trim() : '';
  const corpus = typeof params.corpus === 'string' ? params.corpus : 'memory';
  const base = { provider: 'memtier', mode: 'bm25', citations: 'on' };
  if (!query) return { results: [], ...base, error: 'query required' };
  if (corpus === 'wiki' || corpus === 'sessions') {
    return { results: [], ...base, disabled: true, unavailable: true, warning: `memtier searches the memory files; corpus=${corpus} is not served by this memory plugin`, action: 'search with corpus "memory" (the default)' };
  }
  const k = Number.isInteger(params.maxResults) && (params.maxResults as number) > 0 ? Math.min(params.maxResults as number, 50) : 10;
  const alternates = typeof params.alternates === 'string' ? params.alternates.trim() : '';
  if (alternates.length > LIMITS.alternatesChars) return { results: [], ...base, error: `alternates: over the limit of ${LIMITS.alternatesChars.toLocaleString('en-US')} characters (a few other words for the question, not a document)` };
  const r = await run({ argv: ['search', '--k', String(k), '--record', ...(alternates ? [`--also=${alternates}`] : []), '--', query] });
  if (r.code !== 0) return { results: [], ...base, disabled: false, unavailable: true, error: describeError(r.json) };
  const minScore = typeof params.minScore === 'number' ? params.minScore : undefined;
  const hits = ((r.json.results ?? []) as SearchHit[]).filter((h) => minScore === undefined || h.score >= minScore);
  return {
    results: hits.map((h) => {
      const startLine = h.line;
      const endLine = h.endLine ?? h.line;
      const citation = h.cite ?? `${h.path}#L${startLine}${endLine !== startLine ? `-L${endLine}` : ''}`;
      return {
        path: h.path, startLine, endLine, score: h.score, snippet: h.text, source: 'memory', corpus: 'memory', citation,
        ...(h.id ? { id: h.id } : {}), ...(h.type ? { type: h.type } : {}), ...(h.date ? { date: h.date } : {}), ...(h.tags?.length ? { tags: h.tags } : {}),
      };
    }),
    ...base,
  };
}

/** memory_get with memory-core's arguments and result shape (a bounded excerpt, and where to continue). */
export async function memoryGet(run: Run, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  let path = typeof params.path === 'string' ? params.path.trim() : '';
  let from = Number.isInteger(params.from) && (params.from as number) > 0 ? (params.from as number) : undefined;
  // a citation works as a path: PATH#L12 or PATH#L12-L14
  const cite = /^(.*)#L(\d+)(?:-L?(\d+))?$/.exec(path);
  let lines = Number.isInteger(params.lines) && (params.lines as number) > 0 ? (params.lines as number) : undefined;
  if (cite) {
    path = cite[1]!;
    from ??= Number(cite[2]);
  }
  if (!path) return { status: 'error', path, text: '', code: 'MEMORY_PATH_REQUIRED', error: 'path required' };
  const start = from ?? 1;
  const count = lines ?? GET_DEFAULT_LINES;
  const r = await run({ argv: ['get', `${path}:${start}-${start + count - 1}`] });
  if (r.code !== 0) {
    const e = (r.json.error ?? {}) as { code?: string };
    if (e.code === 'missing') return { status: 'not_found', path, text: '' };
    return { status: 'error', path, text: '', code: e.code ?? 'MEMORY_READ_FAILED', error: describeError(r.json) };
  }
  const total = typeof r.json.lines === 'number' ? r.json.lines : 0;
  let selected = String(r.json.text ?? '').split('\n');
  if (selected.at(-1) === '') selected.pop();
  // fit whole lines into the character budget, as memory-core does
  let used = 0;
  let kept = 0;
  for (const l of selected) {
    const next = used + l.length + (kept > 0 ? 1 : 0);
    if (kept > 0 && next > GET_MAX_CHARS) break;
    kept++;
    used = next;
  }
  const cut = kept < selected.length;
  selected = selected.slice(0, kept);
  const moreRemain = start - 1 + kept < total;
  const nextFrom = moreRemain || cut ? start + kept : undefined;
  lines = kept;
  const text = selected.join('\n') + (nextFrom ? `\n\n[More content available. Use from=${nextFrom} to continue.]` : '');
  return { status: 'ok', text, path, from: start, lines, ...(nextFrom ? { truncated: true, nextFrom } : {}) };
}
