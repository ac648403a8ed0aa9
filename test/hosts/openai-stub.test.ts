/**
 * The OpenAI-compatible scripted model (openai-stub.ts) driven with plain fetch: chat completions
 * and the Responses API, streaming and not, a tool call and its result coming back, side requests,
 * the model list. Runs always (no host, loopback only).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SIDE_STEP, startOpenAIStub, type OpenAIStub } from './openai-stub.js';

let stub: OpenAIStub | undefined;
afterEach(async () => { await stub?.close(); stub = undefined; });

const post = (path: string, body: unknown) => fetch(`${stub!.url}${path}`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000),
});

const postJson = async (path: string, body: unknown): Promise<any> => (await post(path, body)).json();

/** The `data:` payloads (and `event:` names) of an SSE body. */
async function events(r: Response): Promise<{ event?: string; data: string }[]> {
  expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await r.text();
  return text.split('\n\n').filter((b) => b.trim()).map((b) => {
    const ev = /^event: (.*)$/m.exec(b)?.[1];
    const data = /^data: (.*)$/m.exec(b)?.[1] ?? '';
    return ev ? { event: ev, data } : { data };
  });
}

const chatTools = [{ type: 'function', function: { name: 'memory_search', description: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } } }];
const respTools = [{ type: 'function', name: 'mcp__memtier__memory_search', description: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } }];

describe('the OpenAI-compatible scripted model', () => {
  it('lists its model', async () => {
    stub = await startOpenAIStub([], { model: 'stub-1' });
    expect(stub.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const list = await (await fetch(`${stub.url}/models`)).json();
    expect(list).toMatchObject({ object: 'list', data: [{ id: 'stub-1', object: 'model' }] });
    expect((await fetch(`${stub.url}/models/stub-1`)).status).toBe(200);
    expect((await fetch(`${stub.url}/models/other`)).status).toBe(404);
    expect(stub.requests).toEqual([]);
  });

  it('chat completions, streaming: text, a tool call in fragments, finish_reason, usage, [DONE]; the tool result is recorded', async () => {
    stub = await startOpenAIStub([
      { text: 'Let me look that up.', toolCalls: [{ name: 'memory_search', input: { query: 'deploy friday kubernetes' } }] },
      { text: 'Kubernetes, on Friday.', expect: (r) => expect(r.allText).toContain('^k8sdecide1') },
    ], { chunk: 5 });
    const r1 = await post('/chat/completions', {
      model: 'memtier-stub', stream: true, stream_options: { include_usage: true }, tools: chatTools,
      messages: [{ role: 'system', content: 'You are helpful. MARKER-SYS' }, { role: 'user', content: [{ type: 'text', text: 'how do we deploy?' }] }],
    });
    const ev = await events(r1);
    expect(ev.at(-1)!.data).toBe('[DONE]');
    const chunks = ev.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe('Let me look that up.');
    const tc = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(tc[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'memory_search', arguments: '' } });
    const id = tc[0].id as string;
    expect(tc.length).toBeGreaterThan(2);
    expect(JSON.parse(tc.map((t) => t.function.arguments ?? '').join(''))).toEqual({ query: 'deploy friday kubernetes' });
    expect(chunks.find((c) => c.choices[0]?.finish_reason)!.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });

    const r2 = await post('/chat/completions', {
      model: 'memtier-stub', stream: true, tools: chatTools,
      messages: [
        { role: 'system', content: 'You are helpful. MARKER-SYS' }, { role: 'user', content: 'how do we deploy?' },
        { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'memory_search', arguments: '{"query":"deploy"}' } }] },
        { role: 'tool', tool_call_id: id, content: '{"results":[{"citation":"memory/episodic/2026-12-05.md#L3 ^k8sdecide1"}]}' },
      ],
    });
    const c2 = (await events(r2)).slice(0, -1).map((e) => JSON.parse(e.data));
    expect(c2.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Kubernetes, on Friday.');
    expect(c2.find((c) => c.choices[0]?.finish_reason)!.choices[0].finish_reason).toBe('stop');
    expect(c2.some((c) => c.usage)).toBe(false);

    expect(stub.requests.map((r) => r.step)).toEqual([0, 1]);
    expect(stub.requests[0]!.allText).toContain('MARKER-SYS');
    expect(stub.requests[0]!.allText).toContain('how do we deploy?');
    expect(stub.requests[0]!.toolNames).toEqual(['memory_search']);
    expect(stub.requests[1]!.allText).toContain('^k8sdecide1');
    expect(stub.errors).toEqual([]);
  });

  it('chat completions, not streaming; past the script\'s end "done."; a request without tools is a side request', async () => {
    stub = await startOpenAIStub([{ toolCalls: [{ name: (names) => names.find((n) => n.endsWith('search'))!, input: { query: 'q' } }] }]);
    const a = await postJson('/chat/completions', { model: 'x', tools: chatTools, messages: [{ role: 'user', content: 'hi' }] });
    expect(a).toMatchObject({ object: 'chat.completion', model: 'x', choices: [{ finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'memory_search', arguments: '{"query":"q"}' } }] } }] });
    const side = await postJson('/chat/completions', { model: 'x', messages: [{ role: 'user', content: 'title this chat' }] });
    expect(side.choices[0].message.content).toBe('ok.');
    const b = await postJson('/chat/completions', { model: 'x', tools: chatTools, messages: [{ role: 'user', content: 'hi' }] });
    expect(b.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'done.' } });
    expect(stub.requests.map((r) => r.step)).toEqual([0, SIDE_STEP, -1]);
  });

  it('a failing expect is recorded and the step still answered', async () => {
    stub = await startOpenAIStub([{ text: 'fine', expect: () => { throw new Error('not shown the memory'); } }]);
    const a = await postJson('/chat/completions', { model: 'x', tools: chatTools, messages: [{ role: 'user', content: 'hi' }] });
    expect(a.choices[0].message.content).toBe('fine');
    expect(stub.errors.map((e) => e.message)).toEqual(['not shown the memory']);
  });

  it('Responses API, streaming: created, items added/done, text and argument deltas, completed with usage; function_call_output recorded', async () => {
    stub = await startOpenAIStub([
      { text: 'Checking.', toolCalls: [{ name: 'memory_search', input: { query: 'deploy' } }] },
      { text: 'On Friday.' },
    ], { chunk: 4 });
    const r1 = await post('/responses', {
      model: 'memtier-stub', stream: true, instructions: 'INSTR-MARK', tools: respTools,
      input: [{ type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'DEV-MARK' }] }, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'when do we deploy?' }] }],
    });
    const ev = await events(r1);
    const types = ev.map((e) => e.event);
    const data = ev.map((e) => JSON.parse(e.data));
    expect(data.every((d, i) => d.type === types[i])).toBe(true);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_text.delta');
    expect(types).toContain('response.function_call_arguments.done');
    expect(data.filter((d) => d.type === 'response.output_text.delta').map((d) => d.delta).join('')).toBe('Checking.');
    const added = data.filter((d) => d.type === 'response.output_item.added').map((d) => d.item.type);
    expect(added).toEqual(['message', 'function_call']);
    const done = data.filter((d) => d.type === 'response.output_item.done').map((d) => d.item);
    expect(done[1]).toMatchObject({ type: 'function_call', name: 'mcp__memtier__memory_search', arguments: '{"query":"deploy"}', call_id: expect.any(String) });
    expect(data.filter((d) => d.type === 'response.function_call_arguments.delta').length).toBeGreaterThan(2);
    const completed = data.at(-1).response;
    expect(completed).toMatchObject({ status: 'completed', usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) } });
    expect(completed.output).toHaveLength(2);
    expect(data.map((d) => d.sequence_number)).toEqual(data.map((_, i) => i));

    const r2 = await post('/responses', {
      model: 'memtier-stub', stream: true, instructions: 'INSTR-MARK', tools: respTools,
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'when do we deploy?' }] },
        { type: 'function_call', name: 'mcp__memtier__memory_search', arguments: '{"query":"deploy"}', call_id: done[1].call_id },
        { type: 'function_call_output', call_id: done[1].call_id, output: 'RESULT ^k8sdecide1' },
      ],
    });
    const d2 = (await events(r2)).map((e) => JSON.parse(e.data));
    expect(d2.filter((d) => d.type === 'response.output_item.done').map((d) => d.item.type)).toEqual(['message']);
    expect(stub.requests[0]!.allText).toContain('INSTR-MARK');
    expect(stub.requests[0]!.allText).toContain('DEV-MARK');
    expect(stub.requests[0]!.toolNames).toEqual(['mcp__memtier__memory_search']);
    expect(stub.requests[1]!.allText).toContain('RESULT ^k8sdecide1');
  });

  it('Responses API, not streaming; setScript restarts the script', async () => {
    stub = await startOpenAIStub([{ text: 'first' }]);
    const a = await postJson('/responses', { model: 'm', tools: respTools, input: 'plain string input' });
    expect(a).toMatchObject({ object: 'response', status: 'completed', output: [{ type: 'message', content: [{ type: 'output_text', text: 'first' }] }], usage: { total_tokens: expect.any(Number) } });
    stub.setScript([{ toolCalls: [{ name: 'memory_search', input: {} }] }]);
    const b = await postJson('/responses', { model: 'm', tools: respTools, input: [{ role: 'user', content: 'again' }] });
    expect(b.output).toMatchObject([{ type: 'function_call', name: 'mcp__memtier__memory_search', arguments: '{}' }]);
    expect(stub.requests.map((r) => [r.step, r.allText])).toEqual([[0, 'plain string input'], [0, 'again']]);
  });
});
