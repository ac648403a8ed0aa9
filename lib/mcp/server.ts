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
import { EventEmitter } from 'node:events';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Io, Main } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { memoryFileRel } from '../memory/memory-file.js';
import { readMemoryFile } from '../store/store.js';
import { toolTable } from '../tools/catalog.js';
import { lineReader } from '../watch/protocol.js';
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

/**
 * The longest message read from the client. A tool's arguments are a few KiB (an entry is at most
 * 16 KiB); a longer line is skipped as it arrives, answered with a JSON-RPC error, never buffered.
 */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * `stdin` as the SDK's transport reads it, one whole message (a line) per `data` event: lines
 * found by looking at each chunk once, a line over MAX_MESSAGE_BYTES handed to `reject` (its first
 * KiB) and skipped. Standard input is read only once the transport listens (nothing is lost).
 */
function framedInput(stdin: NodeJS.ReadableStream, reject: (head: Buffer) => void): EventEmitter & { pause(): void } {
  const lines = lineReader(MAX_MESSAGE_BYTES, reject);
  let reading = false;
  const out = new (class extends EventEmitter {
    override on(event: string | symbol, fn: (...a: unknown[]) => void): this {
      super.on(event, fn);
      if (event === 'data' && !reading) {
        reading = true;
        stdin.on('data', (d: Buffer | string) => {
          for (const l of lines(typeof d === 'string' ? Buffer.from(d, 'utf8') : d)) this.emit('data', Buffer.from(l + '\n', 'utf8'));
        });
        stdin.on('error', (e: Error) => { if (this.listenerCount('error')) this.emit('error', e); });
      }
      return this;
    }
    pause(): void { stdin.pause(); }
  })();
  return out;
}

/**
 * The `id` of a JSON-RPC message from its first bytes (a message too long to read whole), when it
 * comes before anything nested: a top-level "id" that is a number or a string; else null (the
 * JSON-RPC answer to a request whose id cannot be read).
 */
export function topLevelId(head: Buffer): number | string | null {
  const t = head.toString('utf8');
  let depth = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    if (c === '{' || c === '[') { depth++; continue; }
    if (c === '}' || c === ']') { depth--; continue; }
    if (c !== '"') continue;
    // a string: a key at depth 1 followed by ':' is looked at, any other string skipped
    let j = i + 1;
    while (j < t.length && t[j] !== '"') j += t[j] === '\\' ? 2 : 1;
    if (j >= t.length) return null;
    const key = t.slice(i + 1, j);
    i = j;
    if (depth !== 1 || key !== 'id') continue;
    const m = /^\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*[,}]/.exec(t.slice(j + 1));
    if (!m) return null;
    try { return JSON.parse(m[1]!) as number | string; } catch { return null; }
  }
  return null;
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
  server.registerResource('memory-file', new ResourceTemplate('memtier:///{+path}', { list: undefined }), { title: 'A memory file', description: 'a memory file by its root-relative path (MEMORY.md, memory/…, knowledge/…: what memory_get reads)', mimeType: 'text/markdown' }, async (uri, vars) => {
    await warm.sync();
    // the rule of memory_get (memtier get): inside the root, and a memory file, else refused unread
    const rel = memoryFileRel(ctx.root, String(vars.path ?? ''));
    return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: readMemoryFile(ctx.root, rel) ?? '' }] };
  });

  // stdout carries the protocol: each message is written whole (the CLI's writer is synchronous)
  const stdout = { write: (s: string) => { io.stdout.write(s); return true; }, once: () => undefined, on: () => undefined };
  const stdin = io.stdin;
  if (!stdin) throw new MemtierError('memtier mcp needs standard input (the MCP client\'s messages)', { code: 'usage', hint: 'start it from an MCP client: command "memtier", args ["mcp"]' });
  // memtier frames the messages itself (the SDK's reader copies and rescans its whole buffer per
  // chunk, and closes for good on a message over its limit): one message at a time reaches it
  const reject = (head: Buffer): void => {
    const id = topLevelId(head);
    io.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message: `message over the ${MAX_MESSAGE_BYTES >> 20} MiB that memtier mcp reads; it was skipped` } }) + '\n');
  };
  const transport = new StdioServerTransport(framedInput(stdin as NodeJS.ReadableStream, reject) as unknown as NodeJS.ReadStream, stdout as unknown as NodeJS.WriteStream, { maxBufferSize: 2 * MAX_MESSAGE_BYTES });
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
