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
 *
 * The server answers at once: the first index build (14 s at 10,000 notes, more than a host waits
 * for `initialize`) runs on a worker thread (index-worker.ts) while the protocol is served; a tool
 * call arriving meanwhile waits for it, and one that carries a progressToken is sent the build's
 * progress (notifications/progress: files indexed of the total).
 */
import { EventEmitter } from 'node:events';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, JSONRPCMessageSchema, McpError, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Io, Main } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { workerUrl } from '../core/workers.js';
import { memoryFileRel } from '../memory/memory-file.js';
import { readMemoryFile } from '../store/store.js';
import { LIMITS, toolTable } from '../tools/catalog.js';
import { promptTable } from '../tools/prompts.js';
import { lineReader } from '../watch/protocol.js';
import { commandRunner, describeError, type CommandOutcome as ToolOutcome, type Invocation } from '../watch/runner.js';
import { warmMemory, type WarmMemory } from '../watch/warm.js';
import type { IndexWorkerInit, IndexWorkerMessage } from './index-worker.js';

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

/** A JSON-RPC error answered by memtier itself, for a message the SDK never sees. */
interface Refusal { id: number | string | null; code: number; message: string }

/**
 * Why a line is no message the SDK can take, as the JSON-RPC error that answers it (the SDK drops
 * such a line unanswered, and a client waiting on its id waits forever): not JSON (-32700), or
 * not a JSON-RPC message (-32600, for the request's id when it has a method and a readable id).
 * Undefined for a message, and for a blank line (nothing was asked).
 */
function refusal(line: string): Refusal | undefined {
  if (!line.trim()) return undefined;
  let v: unknown;
  try { v = JSON.parse(line); } catch { return { id: null, code: -32700, message: 'parse error: memtier mcp reads one JSON-RPC message per line' }; }
  if (JSONRPCMessageSchema.safeParse(v).success) return undefined;
  const o = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const id = 'method' in o && (typeof o.id === 'string' || typeof o.id === 'number') ? o.id : null;
  return { id, code: -32600, message: 'invalid request: not a JSON-RPC 2.0 message memtier mcp can read' };
}

/**
 * `stdin` as the SDK's transport reads it, one whole message (a line) per `data` event: lines
 * found by looking at each chunk once, a line over MAX_MESSAGE_BYTES handed to `reject` (its first
 * KiB) and skipped, a line that is no message handed to `refuse` and skipped. Standard input is
 * read only once the transport listens (nothing is lost).
 */
function framedInput(stdin: NodeJS.ReadableStream, reject: (head: Buffer) => void, refuse: (r: Refusal) => void): EventEmitter & { pause(): void } {
  const lines = lineReader(MAX_MESSAGE_BYTES, reject);
  let reading = false;
  const out = new (class extends EventEmitter {
    override on(event: string | symbol, fn: (...a: unknown[]) => void): this {
      super.on(event, fn);
      if (event === 'data' && !reading) {
        reading = true;
        stdin.on('data', (d: Buffer | string) => {
          for (const l of lines(typeof d === 'string' ? Buffer.from(d, 'utf8') : d)) {
            const r = refusal(l);
            if (r) refuse(r);
            else this.emit('data', Buffer.from(l + '\n', 'utf8'));
          }
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

/** The first index build's progress: files indexed of the total. */
interface BuildProgress { done: number; total: number }

/** The memory made warm in the background (the server answers meanwhile). */
interface Warming {
  /** The warm memory once its index is built, or why it could not be made warm. */
  ready: Promise<WarmMemory>;
  /** Whether `ready` has settled. */
  settled(): boolean;
  /** Call `fn` with the build's progress as it goes, and with undefined when it ended; returns its removal. */
  watch(fn: (p: BuildProgress | undefined) => void): () => void;
  /** Stop a build under way (the server closes with no call waiting for it). */
  stop(): void;
}

/**
 * Build (or bring up to date) the index cache on a worker thread (index-worker.ts), then open the
 * memory warm (watch/warm.ts), which finds the cache fresh. The protocol is served meanwhile: the
 * build runs on its own thread, never on the one that answers. Without the worker's module (memtier
 * run from its TypeScript sources) or when the worker fails, warmMemory builds on this thread.
 */
function warmInBackground(ctx: Ctx): Warming {
  const events = new EventEmitter();
  let stopped = false;
  let settled = false;
  let worker: import('node:worker_threads').Worker | undefined;
  let shown: BuildProgress | undefined;
  const t0 = performance.now();
  const built = new Promise<void>((resolve) => {
    const url = workerUrl(import.meta.url, ['./index-worker.js']);
    if (!url) { resolve(); return; }
    void import('node:worker_threads').then(({ Worker }) => {
      if (stopped) { resolve(); return; }
      const init: IndexWorkerInit = { root: ctx.root, env: { ...ctx.env } as Record<string, string>, tz: ctx.clock.tz, nowMs: ctx.clock.fixed ? ctx.clock.now().getTime() : undefined };
      // the worker's standard output is never the protocol's: taken and dropped
      const w = new Worker(url, { workerData: init, stdout: true });
      worker = w;
      w.stdout.resume();
      w.on('message', (m: IndexWorkerMessage) => {
        if (!('progress' in m)) return;
        shown = m.progress;
        events.emit('progress', m.progress);
      });
      w.once('error', (e: Error) => ctx.log.warn(`memtier mcp: the index build on a worker thread failed (${e.message}); building it on the main thread`));
      w.once('exit', () => { worker = undefined; resolve(); });
    }, () => resolve());
  });
  const ready = built.then(async () => {
    if (stopped) throw new MemtierError('memtier mcp is closing', { code: 'closed' });
    const w = await warmMemory(ctx);
    // a build long enough to show progress (search/progress.ts: after a second) says when it ended
    if (shown) ctx.log.info(`indexed memory: ${shown.total.toLocaleString('en-US')} files in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return w;
  });
  void ready.then(() => undefined, (e: Error) => { if (!stopped) ctx.log.warn(`memtier mcp: ${e.message}`); }).finally(() => { settled = true; events.emit('progress', undefined); });
  return {
    ready,
    settled: () => settled,
    watch(fn) {
      if (settled) return () => undefined;
      if (shown) fn(shown);
      events.on('progress', fn);
      return () => { events.off('progress', fn); };
    },
    stop() {
      stopped = true;
      void worker?.terminate();
    },
  };
}

/** A tool's or prompt's answer when the memory could not be made warm (or a call failed outside memtier's main). */
function failure(e: unknown): ToolOutcome {
  const m = e instanceof MemtierError ? e.toJSON() : { message: e instanceof Error ? e.message : String(e) };
  return { code: 2, json: { ok: false, error: m } };
}

/** A resource read refused: not found (SEP-2164: Invalid Params, with the URI), or not a memory file. */
function resourceError(uri: URL, e: unknown): McpError {
  const m = e instanceof MemtierError ? `${e.message}${e.hint ? ` (${e.hint})` : ''}` : e instanceof Error ? e.message : String(e);
  return new McpError(ErrorCode.InvalidParams, m, { uri: uri.href });
}

/** The text of memory file `rel`, for `uri`: an MCP error when it is missing (never an empty text). */
function readResource(root: string, rel: string, uri: URL): string {
  let text: string | undefined;
  try { text = readMemoryFile(root, rel); } catch (e) {
    throw e instanceof MemtierError ? new McpError(ErrorCode.InternalError, `${rel}: ${e.message}`, { uri: uri.href }) : e;
  }
  if (text === undefined) throw new McpError(ErrorCode.InvalidParams, `Resource not found: no memory file ${rel}`, { uri: uri.href });
  return text;
}

/** Start serving `ctx.root` over `io`'s stdin and stdout. */
export async function startMcp(ctx: Ctx, main: Main, io: Io, opts: { version: string }): Promise<McpHandle> {
  const warming = warmInBackground(ctx);
  const runner = commandRunner(ctx, main, { sync: async () => { await (await warming.ready).sync(); } });
  // one call at a time, in order: the commands (the runner) and the tools read here (memory_recent)
  let lane: Promise<unknown> = Promise.resolve();
  const inOrder = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = lane.then(fn);
    lane = next.catch(() => undefined);
    return next;
  };

  const tools = toolTable();
  const server = new McpServer({ name: 'memtier', version: opts.version }, {
    instructions: 'Long-term memory of plain markdown files. Search (memory_search) before answering from memory and cite path#Lline. The memory may not use the question\'s words (it may be written in the other language, English or Chinese, or say it with an abbreviation or other words): pass `alternates` with other words for it (translations, synonyms, likely wordings), and when the first results do not answer, search again with them. Record decisions and the working state with memory_wal before answering; store durable facts with memory_write; never store secrets.',
  });
  type Tool = {
    invoke?: (a: never) => Invocation;
    read?: (ctx: Ctx, a: never) => Record<string, unknown>;
    /** A rule between arguments the schema cannot say: the refusal, or undefined. */
    check?: (a: never) => string | undefined;
  };
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolOutcome> => {
    const t = Object.hasOwn(tools, name) ? (tools as Record<string, Tool>)[name] : undefined;
    if (!t) return { code: 2, json: { ok: false, error: { message: `unknown tool ${name}` } } };
    const refused = t.check?.(args as never);
    if (refused) return { code: 2, json: { ok: false, error: { code: 'usage', message: refused } } };
    try {
      if (t.read) {
        const read = t.read;
        return await inOrder(async () => {
          await (await warming.ready).sync();
          return { code: 0, json: read(ctx, args as never) };
        });
      }
      return await inOrder(() => runner.run(t.invoke!(args as never)));
    } catch (e) {
      return failure(e);
    }
  };
  /**
   * While the first index build runs, send a call that carries a progressToken the build's
   * progress (files indexed of the total), rising, and its end; returns the stop of it.
   */
  const reportBuild = (extra: { _meta?: { progressToken?: string | number | undefined } | undefined; sendNotification: (n: ServerNotification) => Promise<void> }): (() => void) => {
    const token = extra._meta?.progressToken;
    if (token === undefined || warming.settled()) return () => undefined;
    let sent = -1;
    let last: BuildProgress | undefined;
    const send = (p: BuildProgress, message: string): void => {
      if (p.done <= sent) return;
      sent = p.done;
      void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: p.done, total: p.total, message } }).catch(() => undefined);
    };
    return warming.watch((p) => {
      if (p) { last = p; send(p, `indexing memory: ${p.done}/${p.total} files`); } else send({ done: last?.total ?? 1, total: last?.total ?? 1 }, 'memory index ready');
    });
  };
  for (const [name, t] of Object.entries(tools)) {
    server.registerTool(name, { title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations }, async (args: Record<string, unknown>, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => {
      const stop = reportBuild(extra);
      try {
        const r = await call(name, args);
        const isError = r.code === 2;
        const text = isError ? describeError(r.json) : JSON.stringify(r.json);
        return { content: [{ type: 'text' as const, text }], ...(isError ? { isError: true } : {}) };
      } finally {
        stop();
      }
    });
  }
  // resources are read from the files (no index): served during the first build too
  for (const file of ['MEMORY.md', 'SESSION-STATE.md']) {
    server.registerResource(file, `memtier:///${file}`, { title: file, description: file === 'MEMORY.md' ? 'the always-loaded index of the memory' : 'the current task, decisions, pending items and blockers (the WAL\'s state)', mimeType: 'text/markdown' }, async (uri) => {
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: readResource(ctx.root, file, uri) }] };
    });
  }
  server.registerResource('memory-file', new ResourceTemplate('memtier:///{+path}', { list: undefined }), { title: 'A memory file', description: 'a memory file by its root-relative path (MEMORY.md, memory/…, knowledge/…: what memory_get reads); a missing file or a path that is no memory file is an error', mimeType: 'text/markdown' }, async (uri, vars) => {
    const raw = String(vars.path ?? '');
    let path = raw;
    try { path = decodeURIComponent(raw); } catch { /* not percent-encoded: as given */ }
    // the rule of memory_get (memtier get): inside the root, and a memory file, else refused unread
    // a path as long as memory_get takes (the refusal does not repeat a longer one)
    if (path.length > LIMITS.pathChars) throw new McpError(ErrorCode.InvalidParams, `the path is over the limit of ${LIMITS.pathChars} characters`);
    let rel: string;
    try { rel = memoryFileRel(ctx.root, path); } catch (e) { throw resourceError(uri, e); }
    return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: readResource(ctx.root, rel, uri) }] };
  });
  const prompts = promptTable();
  server.registerPrompt('boot', { title: prompts.boot.title, description: prompts.boot.description }, async () => {
    let r: ToolOutcome;
    try { r = await inOrder(() => runner.run(prompts.boot.invoke())); } catch (e) { r = failure(e); }
    if (r.code === 2) throw new McpError(ErrorCode.InternalError, describeError(r.json));
    const text = typeof r.json.text === 'string' ? r.json.text : '';
    return {
      description: prompts.boot.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `memtier boot (the memory's current state; read it before you continue):\n${text.trim()}` } }],
    };
  });
  const protocol = prompts['write-before-answering'];
  server.registerPrompt('write-before-answering', { title: protocol.title, description: protocol.description }, () => ({
    description: protocol.description,
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: protocol.text } }],
  }));

  // stdout carries the protocol: each message is written whole (the CLI's writer is synchronous)
  const stdout = { write: (s: string) => { io.stdout.write(s); return true; }, once: () => undefined, on: () => undefined };
  const stdin = io.stdin;
  if (!stdin) throw new MemtierError('memtier mcp needs standard input (the MCP client\'s messages)', { code: 'usage', hint: 'start it from an MCP client: command "memtier", args ["mcp"]' });
  // memtier frames the messages itself (the SDK's reader copies and rescans its whole buffer per
  // chunk, and closes for good on a message over its limit): one message at a time reaches it
  const refuse = ({ id, code, message }: Refusal): void => {
    io.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) + '\n');
  };
  const reject = (head: Buffer): void => refuse({ id: topLevelId(head), code: -32600, message: `message over the ${MAX_MESSAGE_BYTES >> 20} MiB that memtier mcp reads; it was skipped` });
  // a line reaches the SDK decoded and encoded again: each byte that is no UTF-8 becomes U+FFFD,
  // three bytes, so a line under the limit can come to three times its size (the SDK's reader
  // closes for good on a message over its buffer: every later request would go unanswered)
  const transport = new StdioServerTransport(framedInput(stdin as NodeJS.ReadableStream, reject, refuse) as unknown as NodeJS.ReadStream, stdout as unknown as NodeJS.WriteStream, { maxBufferSize: 3 * MAX_MESSAGE_BYTES + 1 });
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => { resolveClosed = r; });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      // the calls already sent are answered (a write sent just before the end is written), their
      // answers written out (the SDK sends each a few promise turns after its handler ends)
      await lane;
      await new Promise((r) => setImmediate(r));
      if (!warming.settled()) warming.stop();
      await server.close().catch(() => undefined);
      await warming.ready.then((w) => w.close(), () => undefined);
      resolveClosed();
    })();
    return closing;
  };
  (stdin as NodeJS.ReadableStream).once('end', () => void close());
  (stdin as NodeJS.ReadableStream).once('close', () => void close());
  await server.connect(transport);
  return { closed, close, call };
}
