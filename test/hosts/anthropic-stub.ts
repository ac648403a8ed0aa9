/**
 * The scripted model (script.ts) speaking the Anthropic Messages API as Claude Code uses it, on
 * 127.0.0.1 only:
 *
 * - `POST /v1/messages` (Claude Code adds `?beta=true`): streaming when `stream: true` (SSE
 *   `message_start`, then per content block `content_block_start` / `content_block_delta`
 *   (`text_delta`, or `input_json_delta` for a `tool_use` block, the arguments in pieces) /
 *   `content_block_stop`, then `message_delta` with the `stop_reason` (`tool_use` or `end_turn`)
 *   and the usage, and `message_stop`), else one `message` object.
 * - `POST /v1/messages/count_tokens`: `{input_tokens}` (an estimate: characters / 4).
 * - Anything else (a HEAD or GET probe, an unknown path): a minimal 200 `{}`, recorded in `seen`.
 *
 * One script step answers one turn request. A side request Claude Code makes besides the turn (a
 * session title, a quota probe, a topic check with the small fast model: by default a request that
 * offers no tools) is answered without consuming a step and recorded in `side` (and in `requests`
 * with `step: SIDE_STEP`); `opts.isSide` decides otherwise. A compaction request (Claude Code asks
 * for a summary of the conversation) is a side request too, answered with a `<summary>` block.
 *
 *   const stub = await startAnthropicStub([{ toolCalls: [{ name: 'memory_search', input: { query: 'deploy' } }] }, { text: 'Friday.' }]);
 *   // run the host with ANTHROPIC_BASE_URL=stub.url; after the turn:
 *   stub.turns[0].allText; stub.turns[1].allText; await stub.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { decodeBody, pickTool, readBody, stepAt, type RecordedRequest, type ScriptStep, type StubServer, SIDE_STEP } from './script.js';

export { SIDE_STEP };

export interface AnthropicStubOptions {
  /** Is this request a side request (answered without a step)? Default: it offers no tools, or it asks for a compaction summary. */
  isSide?: (req: RecordedRequest) => boolean;
  /** The answer to a side request. Default: a `<summary>` for a compaction request, else "ok.". */
  sideText?: (req: RecordedRequest) => string;
  /** Characters per streamed text or input_json fragment. Default 12. */
  chunk?: number;
  /** Called with one line per request (method, path, step, model): for debugging a host. */
  log?: (line: string) => void;
}

export interface AnthropicStub extends StubServer {
  /** Base URL for ANTHROPIC_BASE_URL (http://127.0.0.1:PORT: Claude Code adds /v1/messages itself). */
  url: string;
  /** The requests that consumed a script step (or ran past its end), in order. */
  turns: RecordedRequest[];
  /** The side requests (title, quota, compaction summary …), in order. */
  side: RecordedRequest[];
  /** Every request's `METHOD /path`, model or not, in order. */
  seen: string[];
}

/** Claude Code's compaction request: the conversation and an instruction to summarize it. */
export function isCompactionRequest(r: RecordedRequest): boolean {
  // the instruction is the last user message (Claude Code may append a hook's context after it as a system message)
  const msgs: any[] = Array.isArray(r.body?.messages) ? r.body.messages : [];
  const last = [...msgs].reverse().find((m) => m?.role === 'user');
  const t = last ? contentText(last.content) : '';
  return /summary of the conversation|summarize the conversation|create a detailed summary/i.test(t) && /<summary>/i.test(t);
}

export async function startAnthropicStub(steps: ScriptStep[], opts: AnthropicStubOptions = {}): Promise<AnthropicStub> {
  const chunk = Math.max(1, opts.chunk ?? 12);
  const isSide = opts.isSide ?? ((r: RecordedRequest) => r.toolNames.length === 0 || isCompactionRequest(r));
  const sideText = opts.sideText ?? ((r: RecordedRequest) => (isCompactionRequest(r)
    ? '<analysis>the scripted model summarizes.</analysis>\n<summary>\n1. Primary Request and Intent: a test conversation of memtier\'s host end-to-end tests (issue 30).\n</summary>'
    : 'ok.'));
  let script = steps;
  let next = 0;
  let seq = 0;
  const requests: RecordedRequest[] = [];
  const turns: RecordedRequest[] = [];
  const side: RecordedRequest[] = [];
  const errors: Error[] = [];
  const seen: string[] = [];

  const server = createServer((req, res) => {
    void handle(req, res).catch((e: Error) => {
      errors.push(e);
      if (!res.headersSent) send(res, 500, { type: 'error', error: { type: 'api_error', message: e.message } });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '') || '/';
    seen.push(`${req.method} ${path}`);
    const raw = await readBody(req);
    if (req.method !== 'POST' || !/(^|\/)messages(\/count_tokens)?$/.test(path)) {
      // a probe (HEAD /, GET /v1/models, …): answered, never a model turn
      if (req.method === 'HEAD') { res.writeHead(200, { 'content-type': 'application/json' }); res.end(); return; }
      if (req.method === 'GET' && /(^|\/)models$/.test(path)) { send(res, 200, { data: [], has_more: false, first_id: null, last_id: null }); return; }
      send(res, 200, {});
      return;
    }
    let body: any;
    try {
      body = JSON.parse(decodeBody(raw, req.headers['content-encoding']).toString('utf8'));
    } catch (e) {
      send(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: `bad JSON: ${(e as Error).message}` } });
      return;
    }
    if (path.endsWith('/count_tokens')) {
      send(res, 200, { input_tokens: Math.ceil(messagesText(body).length / 4) + 1 });
      return;
    }
    const rec: RecordedRequest = { path, headers: { ...req.headers }, body, allText: messagesText(body), toolNames: toolNames(body), step: -1 };
    let step: ScriptStep;
    if (isSide(rec)) {
      rec.step = SIDE_STEP;
      step = { text: sideText(rec) };
      side.push(rec);
    } else {
      rec.step = next < script.length ? next : -1;
      step = stepAt(script, next);
      next++;
      turns.push(rec);
    }
    requests.push(rec);
    opts.log?.(`${req.method} ${path} step=${rec.step} model=${body?.model} stream=${body?.stream === true} tools=${rec.toolNames.length}`);
    if (step.expect) {
      try { step.expect(rec); } catch (e) { errors.push(e instanceof Error ? e : new Error(String(e))); }
    }
    const n = seq++;
    const blocks: Block[] = [];
    if (step.text) blocks.push({ type: 'text', text: step.text });
    for (const [i, c] of (step.toolCalls ?? []).entries()) {
      blocks.push({ type: 'tool_use', id: `toolu_stub${n}_${i}`, name: typeof c.name === 'function' ? c.name(rec.toolNames) : pickTool(rec.toolNames, c.name), input: c.input ?? {} });
    }
    if (!blocks.length) blocks.push({ type: 'text', text: 'done.' });
    const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    const model = typeof body?.model === 'string' && body.model ? body.model : 'claude-stub';
    const usage = { input_tokens: Math.ceil(rec.allText.length / 4) + 1, output_tokens: Math.ceil(blocks.reduce((s, b) => s + (b.type === 'text' ? b.text.length : JSON.stringify(b.input).length), 0) / 4) + 1 };
    const id = `msg_stub${n}`;
    if (body?.stream !== true) {
      send(res, 200, { id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stop, stop_sequence: null, usage: { ...usage, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'request-id': `req_stub${n}` });
    const ev = (type: string, o: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`);
    ev('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } });
    ev('ping', {});
    blocks.forEach((b, index) => {
      if (b.type === 'text') {
        ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
        for (const piece of pieces(b.text, chunk)) ev('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      } else {
        ev('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
        for (const piece of pieces(JSON.stringify(b.input), chunk)) ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
      ev('content_block_stop', { index });
    });
    ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    ev('message_stop', {});
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  const addr = server.address();
  if (!addr || typeof addr !== 'object') throw new Error('the Anthropic stub has no port');
  const port = addr.port;
  return {
    url: `http://127.0.0.1:${port}`, port, requests, turns, side, errors, seen,
    setScript(s: ScriptStep[]) { script = s; next = 0; },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function send(res: ServerResponse, status: number, body: unknown): void {
  const b = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(b) });
  res.end(b);
}



function pieces(s: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}

/** The text of a content value: a string, or blocks (`text`, `tool_result` with its content; tool_use and images left out). */
function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c.map((b: any) => {
    if (typeof b === 'string') return b;
    if (b?.type === 'text' && typeof b.text === 'string') return b.text;
    if (b?.type === 'tool_result') return contentText(b.content);
    return '';
  }).filter(Boolean).join('\n');
}

/** The system prompt(s) and every message's text, tool results included, joined with newlines. */
export function messagesText(body: any): string {
  const out: string[] = [];
  const sys = body?.system;
  if (typeof sys === 'string') out.push(sys);
  else if (Array.isArray(sys)) out.push(contentText(sys));
  for (const m of Array.isArray(body?.messages) ? body.messages : []) out.push(contentText(m?.content));
  return out.filter(Boolean).join('\n');
}

function toolNames(body: any): string[] {
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  return tools.map((t) => (typeof t?.name === 'string' ? t.name : '')).filter(Boolean);
}
