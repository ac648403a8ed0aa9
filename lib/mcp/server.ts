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
import type { Io, Main } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { readMemoryFile } from '../store/store.js';
import { toolTable } from '../tools/catalog.js';
import { commandRunner, describeError, type CommandOutcome as ToolOutcome, type Invocation } from '../watch/runner.js';
import { warmMemory } from '../watch/warm.js';

export type { ToolOutcome };

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
  const runner = commandRunner(ctx, main, warm);

  const tools = toolTable();
  const server = new McpServer({ name: 'memtier', version: opts.version }, {
    instructions: 'Long-term memory of plain markdown files. Search (memory_search) before answering from memory and cite path#Lline; record decisions and the working state with memory_wal before answering; store durable facts with memory_write; never store secrets.',
  });
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolOutcome> => {
    const t = Object.hasOwn(tools, name) ? (tools as Record<string, { invoke: (a: never) => Invocation }>)[name] : undefined;
    if (!t) return { code: 2, json: { ok: false, error: { message: `unknown tool ${name}` } } };
    return runner.run(t.invoke(args as never));
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
      await runner.idle();
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
