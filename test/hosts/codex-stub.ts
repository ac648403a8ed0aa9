/**
 * The scripted model as Codex needs it: openai-stub.ts's Responses API, with the two items Codex
 * 0.171 needs to reach an MCP server's tools, which openai-stub.ts does not emit. Codex always
 * defers MCP tools behind its client-side `tool_search` (feature tool_search_always_defer_mcp_tools,
 * on and no longer switchable), so a model must first emit a `tool_search_call` item (not a
 * function_call) and then call a loaded tool as a `function_call` with the tool's `namespace`
 * (the MCP server's, e.g. `mcp__memtier__`) and its bare `name`. A script names both as usual:
 *
 *   { toolCalls: [{ name: 'tool_search', input: { query: 'memtier memory_search', limit: 8 } }] }
 *   { toolCalls: [{ name: 'mcp__memtier__memory_search', input: { query: 'deploy' } }] }
 *
 * and this front (on 127.0.0.1, a free port) forwards every request to an openai-stub.ts server
 * and rewrites its answer: a `tool_search` function_call becomes a `tool_search_call` (client
 * execution, the arguments as an object), and a function_call whose name is a namespace the
 * conversation loaded (a `tool_search_output`'s namespace tools) plus a tool's name is split into
 * `namespace` and `name`. Requests, steps and side requests are openai-stub.ts's.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { startOpenAIStub, type OpenAIStub, type OpenAIStubOptions } from './openai-stub.js';
import { readBody, type ScriptStep } from './script.js';

export interface CodexStubOptions extends OpenAIStubOptions {
  /**
   * Codex connects MCP servers in the background: a tool_search made before the server is up finds
   * nothing. When the host sends back a tool_search_output without this tool (e.g. `memory_search`),
   * the front answers the same tool_search_call again (after `retryMs`, at most `retries` times)
   * without consuming a script step, so the script's next step meets the tool loaded.
   */
  searchFor?: string;
  retries?: number;
  retryMs?: number;
}

export interface CodexStub extends OpenAIStub {
  /** The namespaces the host's tool_search outputs loaded, with their tools' names. */
  loaded: Map<string, string[]>;
  /** How many tool_search calls the front repeated while the MCP server was still connecting. */
  searchRetries: number;
}

export async function startCodexStub(steps: ScriptStep[], opts: CodexStubOptions = {}): Promise<CodexStub> {
  const inner = await startOpenAIStub(steps, opts);
  const loaded = new Map<string, string[]>();
  const maxRetries = opts.retries ?? 20;
  const retryMs = opts.retryMs ?? 500;
  let pendingSearch: unknown;
  let searchRetries = 0;
  let seq = 0;

  const server = createServer((req, res) => {
    void forward(req, res).catch((e: Error) => {
      inner.errors.push(e);
      if (!res.headersSent) { res.writeHead(502, { 'content-type': 'application/json' }); res.end(JSON.stringify({ error: { message: e.message } })); } else res.end();
    });
  });

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const headers: Record<string, string> = {};
    for (const h of ['content-type', 'content-encoding', 'authorization', 'accept']) { const v = req.headers[h]; if (typeof v === 'string') headers[h] = v; }
    const path = req.url ?? '/';
    const responses = req.method === 'POST' && /\/responses(\?|$)/.test(path);
    if (responses && opts.searchFor && pendingSearch !== undefined) {
      let parsed: any;
      try { parsed = req.headers['content-encoding'] ? undefined : JSON.parse(body.toString('utf8')); } catch { /* forwarded as it is */ }
      const input: any[] = Array.isArray(parsed?.input) ? parsed.input : [];
      // the host's answer to the search: its tool_search_output (a developer message may follow it)
      const last = [...input].reverse().find((i: any) => i?.type === 'tool_search_output' || i?.type === 'function_call_output');
      if (last?.type === 'tool_search_output') {
        if (!offersTool(last.tools, opts.searchFor) && searchRetries < maxRetries) {
          searchRetries++;
          opts.log?.(`tool_search found no ${opts.searchFor} yet: asked again (${searchRetries})`);
          await new Promise((r) => setTimeout(r, retryMs));
          sendSearchAgain(res, parsed, pendingSearch, seq++);
          return;
        }
        pendingSearch = undefined;
      }
    }
    const r = await fetch(`http://127.0.0.1:${inner.port}${path}`, { method: req.method, headers, ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }), signal: AbortSignal.timeout(60_000) });
    let text = await r.text();
    const type = r.headers.get('content-type') ?? 'application/json';
    if (responses) {
      // the request is recorded by now: what it loaded decides the namespace of its answer's calls
      noteLoaded(inner, loaded);
      const out = type.startsWith('text/event-stream') ? rewriteSse(text, loaded) : rewriteJson(text, loaded);
      text = out.text;
      if (out.search !== undefined) pendingSearch = out.search;
    }
    res.writeHead(r.status, { 'content-type': type, 'cache-control': 'no-cache' });
    res.end(text);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  const addr = server.address();
  if (!addr || typeof addr !== 'object') throw new Error('the Codex stub has no port');
  const stub: CodexStub = {
    ...inner,
    url: `http://127.0.0.1:${addr.port}/v1`,
    port: addr.port,
    loaded,
    get searchRetries() { return searchRetries; },
    setScript: (s) => inner.setScript(s),
    close: async () => {
      await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
      await inner.close();
    },
  };
  return stub;
}

/** Does a tool_search_output's tool list hold `name` (a function, or a namespace's function)? */
function offersTool(tools: unknown, name: string): boolean {
  if (!Array.isArray(tools)) return false;
  return tools.some((t: any) => (typeof t?.name === 'string' && (t.name === name || t.name.endsWith(`__${name}`))) || (t?.type === 'namespace' && offersTool(t.tools, name)));
}

/** A streamed answer holding one tool_search_call (the same arguments again). */
function sendSearchAgain(res: ServerResponse, body: any, args: unknown, n: number): void {
  const id = `resp_search${n}`;
  const item = { id: `tsc_search${n}`, type: 'tool_search_call', call_id: `call_search_${n}`, execution: 'client', status: 'completed', arguments: args };
  const response = (status: string, output: unknown[]) => ({ id, object: 'response', created_at: Math.floor(Date.now() / 1000), status, model: body?.model ?? 'memtier-stub', output, usage: status === 'completed' ? { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 } : null, error: null });
  let sn = 0;
  const ev = (type: string, o: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sn++, ...o })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.end(ev('response.created', { response: response('in_progress', []) }) + ev('response.output_item.added', { output_index: 0, item }) + ev('response.output_item.done', { output_index: 0, item }) + ev('response.completed', { response: response('completed', [item]) }));
}

/** The namespaces (and their tools) the latest recorded request's tool_search_output items carry. */
function noteLoaded(inner: OpenAIStub, loaded: Map<string, string[]>): void {
  const last = inner.requests[inner.requests.length - 1];
  const input: any[] = Array.isArray(last?.body?.input) ? last!.body.input : [];
  for (const it of input) {
    if (it?.type !== 'tool_search_output' || !Array.isArray(it.tools)) continue;
    for (const t of it.tools) {
      if (t?.type === 'namespace' && typeof t.name === 'string' && Array.isArray(t.tools)) loaded.set(t.name, t.tools.map((x: any) => String(x?.name ?? '')).filter(Boolean));
    }
  }
}

/** A function_call item as Codex needs it: tool_search → tool_search_call; NAMESPACE+TOOL → {namespace, name}. */
function rewriteItem(item: any, loaded: Map<string, string[]>): any {
  if (item?.type !== 'function_call') return item;
  if (item.name === 'tool_search') {
    let args: unknown = {};
    try { args = JSON.parse(item.arguments || '{}'); } catch { /* keep {} */ }
    return { id: item.id, type: 'tool_search_call', call_id: item.call_id, execution: 'client', status: item.status ?? 'completed', arguments: args };
  }
  for (const [ns, tools] of loaded) {
    for (const t of tools) {
      if (item.name === `${ns}${t}` || item.name === `${ns}__${t}`) return { ...item, namespace: ns, name: t };
    }
  }
  return item;
}

function rewriteJson(text: string, loaded: Map<string, string[]>): { text: string; search?: unknown } {
  try {
    const o = JSON.parse(text);
    let search: unknown;
    if (Array.isArray(o?.output)) o.output = o.output.map((i: any) => { const r = rewriteItem(i, loaded); if (r?.type === 'tool_search_call') search = r.arguments; return r; });
    return { text: JSON.stringify(o), search };
  } catch { return { text }; }
}

/** The SSE events with the items rewritten; a tool_search_call is sent once, done (no added event, no argument deltas). */
function rewriteSse(text: string, loaded: Map<string, string[]>): { text: string; search?: unknown } {
  const out: string[] = [];
  const searchItems = new Set<string>();
  let search: unknown;
  for (const block of text.split('\n\n')) {
    if (!block.trim()) continue;
    const ev = /^event: (.*)$/m.exec(block)?.[1];
    const dataLine = /^data: (.*)$/m.exec(block)?.[1];
    if (!dataLine || dataLine === '[DONE]') { out.push(block); continue; }
    let d: any;
    try { d = JSON.parse(dataLine); } catch { out.push(block); continue; }
    if (d.item) {
      if (d.item.type === 'function_call' && d.item.name === 'tool_search') {
        searchItems.add(d.item.id);
        if (d.type === 'response.output_item.added') continue;
      }
      d.item = rewriteItem(d.item, loaded);
      if (d.type === 'response.output_item.done' && d.item?.type === 'tool_search_call') search = d.item.arguments;
    }
    if ((d.type === 'response.function_call_arguments.delta' || d.type === 'response.function_call_arguments.done') && searchItems.has(d.item_id)) continue;
    if (d.response && Array.isArray(d.response.output)) d.response.output = d.response.output.map((i: any) => rewriteItem(i, loaded));
    out.push(`${ev ? `event: ${ev}\n` : ''}data: ${JSON.stringify(d)}`);
  }
  return { text: out.join('\n\n') + '\n\n', search };
}

