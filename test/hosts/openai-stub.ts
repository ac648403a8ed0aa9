/**
 * The scripted model (script.ts) speaking the OpenAI-compatible APIs hosts use, on 127.0.0.1 only:
 *
 * - `POST /v1/chat/completions`: streaming (SSE `chat.completion.chunk`s with `delta.content`,
 *   `delta.tool_calls` whose first fragment names the function and whose next ones carry the
 *   arguments in pieces, a `finish_reason`, a usage chunk when `stream_options.include_usage`, and
 *   `data: [DONE]`) and not (one `chat.completion`). OpenClaw's custom providers and most hosts.
 * - `POST /v1/responses`: the Responses API as Codex uses it: streaming events
 *   (`response.created`, `response.in_progress`, `response.output_item.added`/`.done` for
 *   `message` and `function_call` items, `response.content_part.*`, `response.output_text.delta`/
 *   `.done`, `response.function_call_arguments.delta`/`.done`, `response.completed` with usage) or
 *   one response object; the `function_call_output` items the host sends back are in `allText`.
 * - `GET /v1/models` (and `/v1/models/ID`): the stub's model.
 *
 * One script step answers one turn request. A side request (a title, a summary, a probe: by
 * default a request that offers no tools) is answered "ok." without consuming a step and recorded
 * with `step: SIDE_STEP`; `opts.isSide` decides otherwise when a host needs it.
 *
 *   const stub = await startOpenAIStub([{ toolCalls: [{ name: 'memory_search', input: { query: 'deploy' } }] }, { text: 'Friday.' }]);
 *   // give the host stub.url (http://127.0.0.1:PORT/v1) and stub.model; after the turn:
 *   stub.requests[0].allText; stub.requests[1].allText; await stub.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { decodeBody, pickTool, readBody, stepAt, type RecordedRequest, type ScriptStep, type StubServer, SIDE_STEP } from './script.js';

export { SIDE_STEP };

export interface OpenAIStubOptions {
  /** The model id the stub lists and answers as. Default `memtier-stub`. */
  model?: string;
  /** Is this request a side request (answered "ok.", no step consumed)? Default: it offers no tools. */
  isSide?: (req: RecordedRequest) => boolean;
  /** Characters per streamed text or arguments fragment. Default 12. */
  chunk?: number;
  /** Called with one line per request (method, path, step, format): for debugging a host. */
  log?: (line: string) => void;
}

export interface OpenAIStub extends StubServer {
  /** The model id to configure in the host. */
  model: string;
  /** Every request's `METHOD /path`, model or not, in order. */
  seen: string[];
}

/** One tool call as answered: the name picked from what the request offered, and a call id. */
interface Call { id: string; name: string; args: string }

export async function startOpenAIStub(steps: ScriptStep[], opts: OpenAIStubOptions = {}): Promise<OpenAIStub> {
  const model = opts.model ?? 'memtier-stub';
  const chunk = Math.max(1, opts.chunk ?? 12);
  const isSide = opts.isSide ?? ((r: RecordedRequest) => r.toolNames.length === 0);
  let script = steps;
  let next = 0;
  let seq = 0;
  const requests: RecordedRequest[] = [];
  const errors: Error[] = [];
  const seen: string[] = [];

  const server = createServer((req, res) => {
    void handle(req, res).catch((e: Error) => {
      errors.push(e);
      if (!res.headersSent) send(res, 500, { error: { message: e.message, type: 'server_error' } });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '') || '/';
    seen.push(`${req.method} ${path}`);
    if (req.method === 'GET' && /(^|\/)models$/.test(path)) {
      send(res, 200, { object: 'list', data: [modelObject(model)] });
      return;
    }
    const one = /(?:^|\/)models\/(.+)$/.exec(path);
    if (req.method === 'GET' && one) {
      if (decodeURIComponent(one[1]!) === model) send(res, 200, modelObject(model));
      else send(res, 404, { error: { message: `The model '${one[1]}' does not exist`, type: 'invalid_request_error', code: 'model_not_found' } });
      return;
    }
    const chat = req.method === 'POST' && /(^|\/)chat\/completions$/.test(path);
    const responses = req.method === 'POST' && /(^|\/)responses$/.test(path);
    if (!chat && !responses) {
      send(res, 404, { error: { message: `memtier's OpenAI stub does not serve ${req.method} ${path}`, type: 'invalid_request_error' } });
      return;
    }
    let body: any;
    try {
      body = JSON.parse(decodeBody(await readBody(req), req.headers['content-encoding']).toString('utf8'));
    } catch (e) {
      send(res, 400, { error: { message: `bad JSON: ${(e as Error).message}`, type: 'invalid_request_error' } });
      return;
    }
    const rec: RecordedRequest = {
      path, headers: { ...req.headers }, body,
      allText: chat ? chatText(body) : responsesText(body),
      toolNames: toolNames(body),
      step: -1,
    };
    let step: ScriptStep;
    if (isSide(rec)) {
      rec.step = SIDE_STEP;
      step = { text: 'ok.' };
    } else {
      rec.step = next < script.length ? next : -1;
      step = stepAt(script, next);
      next++;
    }
    requests.push(rec);
    opts.log?.(`${req.method} ${path} step=${rec.step} stream=${body?.stream === true} tools=${rec.toolNames.length}`);
    if (step.expect) {
      try { step.expect(rec); } catch (e) { errors.push(e instanceof Error ? e : new Error(String(e))); }
    }
    const n = seq++;
    const calls: Call[] = (step.toolCalls ?? []).map((c, i) => ({
      id: `call_${n}_${i}`,
      name: typeof c.name === 'function' ? c.name(rec.toolNames) : pickTool(rec.toolNames, c.name),
      args: JSON.stringify(c.input ?? {}),
    }));
    const text = step.text ?? '';
    const usage = { input: Math.ceil(rec.allText.length / 4) + 1, output: Math.ceil((text.length + calls.reduce((s, c) => s + c.args.length, 0)) / 4) + 1 };
    const respModel = typeof body?.model === 'string' && body.model ? body.model : model;
    if (chat) answerChat(res, body, respModel, n, text, calls, usage);
    else answerResponses(res, body, respModel, n, text, calls, usage);
  }

  function answerChat(res: ServerResponse, body: any, m: string, n: number, text: string, calls: Call[], usage: { input: number; output: number }): void {
    const id = `chatcmpl-stub${n}`;
    const created = Math.floor(Date.now() / 1000);
    const finish = calls.length ? 'tool_calls' : 'stop';
    const u = { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output };
    if (body?.stream !== true) {
      send(res, 200, {
        id, object: 'chat.completion', created, model: m,
        choices: [{
          index: 0,
          message: {
            role: 'assistant', content: text || (calls.length ? null : ''), refusal: null,
            ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) } : {}),
          },
          logprobs: null, finish_reason: finish,
        }],
        usage: u,
      });
      return;
    }
    sse(res);
    const chunkOf = (delta: unknown, finishReason: string | null = null) => ({ id, object: 'chat.completion.chunk', created, model: m, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });
    const data = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
    data(chunkOf({ role: 'assistant', content: '' }));
    for (const piece of pieces(text, chunk)) data(chunkOf({ content: piece }));
    calls.forEach((c, i) => {
      data(chunkOf({ tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
      for (const piece of pieces(c.args, chunk)) data(chunkOf({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    });
    data(chunkOf({}, finish));
    if (body?.stream_options?.include_usage) data({ id, object: 'chat.completion.chunk', created, model: m, choices: [], usage: u });
    res.end('data: [DONE]\n\n');
  }

  function answerResponses(res: ServerResponse, body: any, m: string, n: number, text: string, calls: Call[], usage: { input: number; output: number }): void {
    const id = `resp_stub${n}`;
    const created = Math.floor(Date.now() / 1000);
    const items: any[] = [];
    if (text) items.push({ id: `msg_stub${n}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] });
    for (const [i, c] of calls.entries()) items.push({ id: `fc_stub${n}_${i}`, type: 'function_call', status: 'completed', call_id: c.id, name: c.name, arguments: c.args });
    const u = { input_tokens: usage.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: usage.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usage.input + usage.output };
    const response = (status: string, output: any[], withUsage: boolean) => ({
      id, object: 'response', created_at: created, status, model: m, output,
      ...(typeof body?.instructions === 'string' ? { instructions: body.instructions } : {}),
      parallel_tool_calls: body?.parallel_tool_calls ?? true, tool_choice: body?.tool_choice ?? 'auto', tools: body?.tools ?? [],
      usage: withUsage ? u : null, error: null, incomplete_details: null,
    });
    if (body?.stream !== true) {
      send(res, 200, { ...response('completed', items, true), output_text: text });
      return;
    }
    sse(res);
    let sn = 0;
    const ev = (type: string, o: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sn++, ...o })}\n\n`);
    ev('response.created', { response: response('in_progress', [], false) });
    ev('response.in_progress', { response: response('in_progress', [], false) });
    items.forEach((item, oi) => {
      if (item.type === 'message') {
        ev('response.output_item.added', { output_index: oi, item: { ...item, status: 'in_progress', content: [] } });
        ev('response.content_part.added', { item_id: item.id, output_index: oi, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
        for (const piece of pieces(text, chunk)) ev('response.output_text.delta', { item_id: item.id, output_index: oi, content_index: 0, delta: piece, logprobs: [] });
        ev('response.output_text.done', { item_id: item.id, output_index: oi, content_index: 0, text, logprobs: [] });
        ev('response.content_part.done', { item_id: item.id, output_index: oi, content_index: 0, part: item.content[0] });
      } else {
        ev('response.output_item.added', { output_index: oi, item: { ...item, status: 'in_progress', arguments: '' } });
        for (const piece of pieces(item.arguments, chunk)) ev('response.function_call_arguments.delta', { item_id: item.id, output_index: oi, delta: piece });
        ev('response.function_call_arguments.done', { item_id: item.id, output_index: oi, name: item.name, arguments: item.arguments });
      }
      ev('response.output_item.done', { output_index: oi, item });
    });
    ev('response.completed', { response: response('completed', items, true) });
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  const addr = server.address();
  if (!addr || typeof addr !== 'object') throw new Error('the OpenAI stub has no port');
  const port = addr.port;
  return {
    url: `http://127.0.0.1:${port}/v1`, port, model, requests, errors, seen,
    setScript(s: ScriptStep[]) { script = s; next = 0; },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

const modelObject = (id: string) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'memtier-stub' });

function send(res: ServerResponse, status: number, body: unknown): void {
  const b = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(b) });
  res.end(b);
}

function sse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
}



/** Text split into fragments of `n` characters (none for an empty text). */
function pieces(s: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}

/** The text of a content value: a string, or an array of parts (`text`, `input_text`, `output_text`, …). */
function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : typeof p?.content === 'string' ? p.content : Array.isArray(p?.content) ? contentText(p.content) : '')).filter(Boolean).join('\n');
  if (c && typeof c === 'object' && typeof (c as { text?: unknown }).text === 'string') return (c as { text: string }).text;
  return '';
}

/** Chat completions: every message's text (system, user, assistant, tool results), in order. */
function chatText(body: any): string {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  return msgs.map((m) => contentText(m?.content)).filter(Boolean).join('\n');
}

/** Responses API: the instructions, then every input item's text (messages, function_call_output / custom tool outputs). */
function responsesText(body: any): string {
  const out: string[] = [];
  if (typeof body?.instructions === 'string') out.push(body.instructions);
  const input = body?.input;
  if (typeof input === 'string') out.push(input);
  else if (Array.isArray(input)) {
    for (const it of input) {
      if (typeof it === 'string') out.push(it);
      else if (it?.type === 'function_call_output' || it?.type === 'custom_tool_call_output' || it?.type === 'local_shell_call_output' || it?.type === 'mcp_call_output') out.push(contentText(it.output));
      else if (it?.type === 'message' || (it?.role && it?.content !== undefined)) out.push(contentText(it.content));
    }
  }
  return out.filter(Boolean).join('\n');
}

/** The tool names a request offers: chat's `tools[].function.name`, the Responses API's `tools[].name`. */
function toolNames(body: any): string[] {
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  return tools.map((t) => (typeof t?.function?.name === 'string' ? t.function.name : typeof t?.name === 'string' ? t.name : typeof t?.type === 'string' ? t.type : '')).filter(Boolean);
}
