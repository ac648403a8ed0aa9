/**
 * `memtier mcp`: the memory as an MCP server over stdio (Claude Code, Codex, any MCP client), on
 * the official TypeScript SDK.
 *
 * Every tool is one memtier command run through the CLI's own main() with `--json` (the way
 * `memtier watch` answers the CLI): the same validation, the same store guards (secrets, paths,
 * sizes), the same git commit, the same output. The memory stays warm in the process and never
 * stale (lib/watch/warm.ts: the index's freshness comes from the watcher, and each call first
 * waits until every change made before it is seen). Calls run one at a time, in order.
 *
 * A memtier error (exit 2: bad arguments, a refused secret, a path outside the memory) comes back
 * as a tool error carrying memtier's message, rule and fix; the server keeps serving.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import type { Io, Main } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { ENTRY_TYPES } from '../format/entry.js';
import { readMemoryFile } from '../store/store.js';
import { textStream } from '../watch/protocol.js';
import { warmMemory } from '../watch/warm.js';

/** One memtier command to run for a tool call: its argv (without --root/--json) and what it reads on stdin. */
interface Invocation { argv: string[]; stdin?: string }

export interface ToolOutcome {
  /** memtier's --json output (an object), or the error it printed. */
  json: Record<string, unknown>;
  /** memtier's exit code: 0 ok, 1 findings (health), 2 an error. */
  code: number;
}

const DAY = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD');
const TYPE = z.enum(ENTRY_TYPES);
const TAGS = z.array(z.string().min(1)).max(20);

/** The tools, as a table: what each is for (written for a model), its arguments and the command it runs. */
function toolTable() {
  return {
    memory_search: {
      title: 'Search memory',
      description: 'Search the long-term memory (decisions, preferences, people, projects, lessons, daily logs) before answering anything that depends on what was said or decided before. Returns ranked entries, each with a path#Lline citation to quote and to open with memory_get. English and Chinese; a time phrase in the query ("last Tuesday", "in May", "上周二") narrows to that time.',
      inputSchema: {
        query: z.string().min(1).describe('what to look for, in words (not a regular expression)'),
        k: z.number().int().min(1).max(50).optional().describe('number of results (default 10)'),
        type: TYPE.optional().describe('only entries of this type'),
        tags: TAGS.optional().describe('only entries carrying all these tags'),
        since: DAY.optional().describe('only dated entries on or after this day'),
        until: DAY.optional().describe('only dated entries on or before this day'),
        tier: z.enum(['hot', 'warm', 'cold']).optional().describe('only this tier (hot: MEMORY.md, SESSION-STATE.md, the working buffer)'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      invoke: (a: { query: string; k?: number | undefined; type?: string | undefined; tags?: string[] | undefined; since?: string | undefined; until?: string | undefined; tier?: string | undefined }): Invocation => ({
        argv: ['search', a.query, ...opt('--k', a.k), ...opt('--type', a.type), ...opt('--tags', a.tags?.join(',')), ...opt('--since', a.since), ...opt('--until', a.until), ...opt('--tier', a.tier), '--record'],
      }),
    },
    memory_get: {
      title: 'Read a memory file',
      description: 'Read a memory file, whole or a line range: use it on a citation from memory_search or memory_recall (path and line) to see the full context before quoting it. The path is relative to the memory root and can never leave it.',
      inputSchema: {
        path: z.string().min(1).describe('a memory path as search prints it, e.g. memory/episodic/2026-05-14.md; a citation such as PATH#L12 works too'),
        from: z.number().int().min(1).optional().describe('first line (1-based)'),
        lines: z.number().int().min(1).max(2000).optional().describe('how many lines from `from` (default: to the end)'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      invoke: (a: { path: string; from?: number | undefined; lines?: number | undefined }): Invocation => ({
        argv: ['get', a.from === undefined ? a.path : `${a.path}:${a.from}-${a.lines === undefined ? '' : a.from + a.lines - 1}`],
      }),
    },
    memory_recall: {
      title: 'Recall for this turn',
      description: 'A short, budgeted block of the memories most relevant to the conversation right now (the most-recalled entries first), to read before replying. Give either a query or the last messages. Cheaper than several searches when you only need context.',
      inputSchema: {
        query: z.string().min(1).optional().describe('what the reply is about'),
        messages: z.array(z.object({ role: z.string(), content: z.string() })).max(200).optional().describe('the recent conversation, oldest first'),
        max_chars: z.number().int().min(200).max(20000).optional().describe('size limit of the block (default 2000)'),
        context_used: z.number().min(0).max(1).optional().describe('fraction of your context window already used: fewer entries when it is full'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      invoke: (a: { query?: string | undefined; messages?: { role: string; content: string }[] | undefined; max_chars?: number | undefined; context_used?: number | undefined }): Invocation => {
        const common = [...opt('--max-chars', a.max_chars), ...opt('--context-used', a.context_used)];
        if (a.messages) return { argv: ['recall', '--messages', '-', ...common], stdin: JSON.stringify(a.messages) };
        return { argv: ['recall', '--query', a.query ?? '', ...common] };
      },
    },
    memory_write: {
      title: 'Remember a fact',
      description: 'Store one durable fact as a typed entry in today\'s log: a preference (PREF), a decision and why (DECISION), project context (PROJ), infrastructure or tools (TECH), a lesson or correction (LESSON), a person (PEOPLE), an event (EVENT). One fact per call, one line, in the user\'s words. Never store secrets, passwords, tokens or keys (they are refused), nor small talk or what is already in memory (search first).',
      inputSchema: {
        text: z.string().min(1).max(4000).describe('the fact, one line'),
        type: TYPE.optional().describe('the entry type'),
        tags: TAGS.optional().describe('tags from memory/TAGS.md'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      invoke: (a: { text: string; type?: string | undefined; tags?: string[] | undefined }): Invocation => ({
        argv: ['add', ...opt('--type', a.type), ...opt('--tags', a.tags?.join(',')), '--', a.text],
      }),
    },
    memory_wal: {
      title: 'Write-ahead log',
      description: 'Record the working state BEFORE you answer, so a compaction or restart loses nothing: task (what you are working on), decide (a decision or correction), context (a fact of this session: key and text, or the text alone; key "pref" logs a lasting preference), pending / blocker (an open item), done (closes the matching pending item), get (print the current session state). Each write updates SESSION-STATE.md and the working buffer in one crash-safe step.',
      inputSchema: {
        verb: z.enum(['task', 'decide', 'context', 'pending', 'done', 'blocker', 'get']).describe('what to record'),
        text: z.string().min(1).max(4000).optional().describe('the text (for context: the value, or the whole fact without a key); not used by get'),
        key: z.string().min(1).max(80).optional().describe('for context: the key (e.g. deadline, pref); leave it out for a fact in plain words'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      invoke: (a: { verb: string; text?: string | undefined; key?: string | undefined }): Invocation => {
        if (a.verb === 'get') return { argv: ['wal', 'get'] };
        if (a.verb === 'context') return { argv: ['wal', 'context', '--', a.key ?? '', a.text ?? ''] };
        return { argv: ['wal', a.verb, '--', a.text ?? ''] };
      },
    },
    memory_health: {
      title: 'Memory health',
      description: 'Check whether the memory can be trusted (torn or unparseable files, an inconsistent log, a credential on disk, a dead link in MEMORY.md) and what upkeep is due. When it reports failures, do not answer from memory until they are fixed.',
      inputSchema: {},
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      invoke: (): Invocation => ({ argv: ['health'] }),
    },
  } as const;
}

function opt(flag: string, v: string | number | undefined): string[] {
  return v === undefined || v === '' ? [] : [flag, String(v)];
}

export interface McpHandle {
  /** Resolves when the client closed standard input (or close() was called). */
  closed: Promise<void>;
  close(): Promise<void>;
  /** Run one tool as a client would (for tests of the mapping without a transport). */
  call(tool: string, args: Record<string, unknown>): Promise<ToolOutcome>;
}

/** Start serving `ctx.root` over `io`'s stdin and stdout. */
export async function startMcp(ctx: Ctx, main: Main, io: Io, opts: { version: string }): Promise<McpHandle> {
  const warm = await warmMemory(ctx);
  let queue: Promise<unknown> = Promise.resolve();

  /** Run one memtier command with --json, after every earlier change is seen; calls queue up. */
  const runCommand = (inv: Invocation): Promise<ToolOutcome> => {
    const next = queue.then(async () => {
      await warm.sync();
      let out = '';
      const sink = { write: (t: string) => { out += t; return true; }, isTTY: false };
      const quiet = { write: () => true, isTTY: false };
      const stdin = inv.stdin === undefined ? undefined : textStream(inv.stdin);
      const code = await main({ argv: [...inv.argv.slice(0, 1), '--root', ctx.root, '--json', ...inv.argv.slice(1)], env: ctx.env, cwd: ctx.root, stdout: sink, stderr: quiet, ...(stdin ? { stdin } : {}) });
      let json: Record<string, unknown>;
      try { json = JSON.parse(out) as Record<string, unknown>; } catch { json = { ok: code === 0, output: out }; }
      return { json, code };
    });
    queue = next.catch(() => undefined);
    return next;
  };

  const tools = toolTable();
  const server = new McpServer({ name: 'memtier', version: opts.version }, {
    instructions: 'Long-term memory of plain markdown files. Search (memory_search) before answering from memory and cite path#Lline; record decisions and the working state with memory_wal before answering; store durable facts with memory_write; never store secrets.',
  });
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolOutcome> => {
    const t = (tools as Record<string, { invoke: (a: never) => Invocation }>)[name];
    if (!t) return { code: 2, json: { ok: false, error: { message: `unknown tool ${name}` } } };
    return runCommand(t.invoke(args as never));
  };
  for (const [name, t] of Object.entries(tools)) {
    server.registerTool(name, { title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations }, async (args: Record<string, unknown>) => {
      const r = await call(name, args);
      const isError = r.code === 2;
      const text = isError ? describeError(r.json) : JSON.stringify(r.json);
      return { content: [{ type: 'text' as const, text }], ...(isError ? { isError: true } : {}) };
    });
  }
  for (const file of ['MEMORY.md', 'SESSION-STATE.md']) {
    server.registerResource(file, `memtier:///${file}`, { title: file, description: file === 'MEMORY.md' ? 'the always-loaded index of the memory' : 'the current task, decisions, pending items and blockers (the WAL\'s state)', mimeType: 'text/markdown' }, async (uri) => {
      await warm.sync();
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: readMemoryFile(ctx.root, file) ?? '' }] };
    });
  }
  server.registerResource('memory-file', new ResourceTemplate('memtier:///{+path}', { list: undefined }), { title: 'A memory file', description: 'any memory file by its root-relative path', mimeType: 'text/markdown' }, async (uri, vars) => {
    await warm.sync();
    const rel = String(vars.path ?? '');
    return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: readMemoryFile(ctx.root, rel) ?? '' }] };
  });

  // stdout carries the protocol: each message is written whole (the CLI's writer is synchronous)
  const stdout = { write: (s: string) => { io.stdout.write(s); return true; }, once: () => undefined, on: () => undefined };
  const stdin = io.stdin;
  if (!stdin) throw new MemtierError('memtier mcp needs standard input (the MCP client\'s messages)', { code: 'usage', hint: 'start it from an MCP client: command "memtier", args ["mcp"]' });
  const transport = new StdioServerTransport(stdin as NodeJS.ReadStream, stdout as unknown as NodeJS.WriteStream);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => { resolveClosed = r; });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await queue;
      await server.close().catch(() => undefined);
      warm.close();
      resolveClosed();
    })();
    return closing;
  };
  (stdin as NodeJS.ReadableStream).once('end', () => void close());
  (stdin as NodeJS.ReadableStream).once('close', () => void close());
  await server.connect(transport);
  return { closed, close, call };
}

/** memtier's error as one message for the model: what, where, which rule, the fix. */
function describeError(json: Record<string, unknown>): string {
  const e = (json.error ?? {}) as { message?: string; file?: string; line?: number; rule?: string; hint?: string };
  const where = e.file ? `${e.file}${e.line ? `:${e.line}` : ''}: ` : '';
  return `memtier: ${where}${e.message ?? 'failed'}${e.rule ? ` [${e.rule}]` : ''}${e.hint ? `\nfix: ${e.hint}` : ''}`;
}
