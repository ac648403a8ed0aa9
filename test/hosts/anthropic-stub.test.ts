/**
 * The Anthropic Messages scripted model (anthropic-stub.ts) driven with plain fetch: streaming and
 * not, a tool_use with its input in input_json_delta pieces and its tool_result coming back in
 * `allText`, side requests (no tools; a compaction summary) answered without consuming a step,
 * count_tokens and probes. Runs always (no host, loopback only).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SIDE_STEP, startAnthropicStub, type AnthropicStub } from './anthropic-stub.js';

let stub: AnthropicStub | undefined;
afterEach(async () => { await stub?.close(); stub = undefined; });

const post = (path: string, body: unknown) => fetch(`${stub!.url}${path}`, {
  method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'dummy' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000),
});

/** A JSON body, untyped. */
const json = async (r: Response | Promise<Response>): Promise<any> => (await r).json();

const tools = [{ name: 'mcp__memtier__memory_search', description: 'search', input_schema: { type: 'object', properties: { query: { type: 'string' } } } }];

/** The SSE events of a body, parsed. */
async function events(r: Response): Promise<{ event: string; data: any }[]> {
  expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return (await r.text()).split('\n\n').filter((b) => b.trim()).map((b) => ({ event: /^event: (.*)$/m.exec(b)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(b)![1]!) }));
}

describe('the Anthropic Messages scripted model', () => {
  it('streams a tool_use (input in input_json_delta pieces, stop_reason tool_use), then a text turn; the tool_result is in the next request\'s allText', async () => {
    stub = await startAnthropicStub([
      { text: 'Let me look.', toolCalls: [{ name: 'memory_search', input: { query: 'kubernetes deploy on friday' } }] },
      { text: 'Friday.' },
    ], { chunk: 5 });
    expect(stub.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ev = await events(await post('/v1/messages?beta=true', { model: 'claude-x', stream: true, max_tokens: 100, system: [{ type: 'text', text: 'SYSTEM-A' }], tools, messages: [{ role: 'user', content: 'when do we deploy?' }] }));
    expect(ev.map((e) => e.event)).toEqual([
      'message_start', 'ping',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'content_block_start', ...Array(Math.ceil(JSON.stringify({ query: 'kubernetes deploy on friday' }).length / 5)).fill('content_block_delta'), 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    for (const e of ev) expect(e.data.type).toBe(e.event);
    expect(ev[0]!.data.message).toMatchObject({ role: 'assistant', model: 'claude-x', content: [], stop_reason: null });
    const start = ev.find((e) => e.event === 'content_block_start' && e.data.content_block.type === 'tool_use')!;
    expect(start.data.content_block).toMatchObject({ name: 'mcp__memtier__memory_search', input: {} });
    const partial = ev.filter((e) => e.data.delta?.type === 'input_json_delta').map((e) => e.data.delta.partial_json).join('');
    expect(JSON.parse(partial)).toEqual({ query: 'kubernetes deploy on friday' });
    expect(ev.filter((e) => e.data.delta?.type === 'text_delta').map((e) => e.data.delta.text).join('')).toBe('Let me look.');
    expect(ev.find((e) => e.event === 'message_delta')!.data.delta.stop_reason).toBe('tool_use');

    const id = start.data.content_block.id;
    const second = await post('/v1/messages', {
      model: 'claude-x', max_tokens: 100, tools,
      messages: [
        { role: 'user', content: 'when do we deploy?' },
        { role: 'assistant', content: [{ type: 'tool_use', id, name: 'mcp__memtier__memory_search', input: { query: 'x' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: 'memory/episodic/2026-12-05.md#L1 ^k8sdecide1' }] }] },
      ],
    });
    expect(await json(second)).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Friday.' }], stop_reason: 'end_turn' });
    expect(stub.turns.map((r) => r.step)).toEqual([0, 1]);
    expect(stub.turns[0]!.allText).toBe('SYSTEM-A\nwhen do we deploy?');
    expect(stub.turns[0]!.toolNames).toEqual(['mcp__memtier__memory_search']);
    expect(stub.turns[1]!.allText).toContain('#L1 ^k8sdecide1');
    expect(stub.turns[1]!.path).toBe('/v1/messages');
    // past the script: a plain answer that ends the turn
    expect((await json(post('/v1/messages', { model: 'm', max_tokens: 5, tools, messages: [{ role: 'user', content: 'more?' }] }))).content).toEqual([{ type: 'text', text: 'done.' }]);
    expect(stub.turns[2]!.step).toBe(-1);
    expect(stub.errors).toEqual([]);
  });

  it('side requests (no tools; a compaction summary) are answered without a step and kept apart; count_tokens and probes are answered', async () => {
    stub = await startAnthropicStub([{ text: 'the turn' }]);
    const title = await post('/v1/messages', { model: 'claude-haiku', max_tokens: 50, messages: [{ role: 'user', content: 'a title for this conversation' }] });
    expect((await json(title)).content[0].text).toBe('ok.');
    const compact = await events(await post('/v1/messages', {
      model: 'claude-x', stream: true, max_tokens: 100, tools,
      messages: [{ role: 'user', content: 'hi' }, { role: 'user', content: 'Your task is to create a detailed summary of the conversation so far … <summary> … </summary>' }, { role: 'system', content: 'a hook\'s context after it' }],
    }));
    expect(compact.filter((e) => e.data.delta?.type === 'text_delta').map((e) => e.data.delta.text).join('')).toMatch(/<summary>[\s\S]+<\/summary>/);
    expect(stub.side.map((r) => r.step)).toEqual([SIDE_STEP, SIDE_STEP]);
    expect(stub.turns).toEqual([]);
    expect((await json(post('/v1/messages', { model: 'claude-x', max_tokens: 5, tools, messages: [{ role: 'user', content: 'go' }] }))).content[0].text).toBe('the turn');
    expect(stub.turns.map((r) => r.step)).toEqual([0]);
    expect(stub.requests.length).toBe(3);
    expect(await json(post('/v1/messages/count_tokens', { model: 'claude-x', messages: [{ role: 'user', content: 'x'.repeat(400) }] }))).toEqual({ input_tokens: 101 });
    expect((await fetch(`${stub.url}/`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${stub.url}/v1/models`)).status).toBe(200);
    expect(stub.seen).toContain('HEAD /');
    expect(stub.requests.length).toBe(3);
  });

  it('an expect check that throws is recorded; the step is still answered', async () => {
    stub = await startAnthropicStub([{ text: 'answered', expect: (r) => { if (!r.allText.includes('BOOT')) throw new Error('no boot in the first request'); } }]);
    const r = await post('/v1/messages', { model: 'm', max_tokens: 5, tools, messages: [{ role: 'user', content: 'hello' }] });
    expect((await json(r)).content[0].text).toBe('answered');
    expect(stub.errors.map((e) => e.message)).toEqual(['no boot in the first request']);
  });
});
