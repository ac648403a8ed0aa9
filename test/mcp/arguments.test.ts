/**
 * Issue #30, finding 7: `memtier mcp` through the MCP SDK's own client, on what a client may send
 * wrong. A missing file read as a resource is an MCP error (not an empty text), and so is a path
 * that is no memory file; every tool argument is validated with an error naming the argument and
 * the rule: a date that is no day of the calendar, `memory_recall` with neither query nor
 * messages, a query or messages over their stated limits (refused, never echoed back);
 * `memory_get`'s `lines` without `from` reads the first lines (it was ignored).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp } from './kit.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { BIN, FIXED_NOW, runCli, tmpTree } from '../helpers.js';

let root: string;
let client: Client;

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };
const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolResult> => (await client.callTool({ name, arguments: args })) as ToolResult;
const text = (r: ToolResult): string => r.content[0]!.text;

/** The error a resources/read answers with (undefined when it answered contents). */
async function readError(uri: string): Promise<McpError | undefined> {
  try {
    await client.readResource({ uri });
    return undefined;
  } catch (e) {
    return e as McpError;
  }
}

beforeAll(async () => {
  root = join(tmpTree(), 'mem');
  const init = await runCli(['init', root]);
  expect(init.code, init.stderr).toBe(0);
  const r = await runCli(['add', '--root', root, '--type', 'TECH', 'the broker runs on port 7001']);
  expect(r.code, r.stderr).toBe(0);
  writeFileSync(join(root, 'memory/semantic/five.md'), '# Five\n\nline 3\nline 4\nline 5\n');
  client = await connectMcp(root);
});

afterAll(async () => {
  await client?.close();
});

describe('resources that are not there', () => {
  it('a missing memory file is an MCP error naming it (Invalid Params, with the URI), not an empty text', async () => {
    const uri = 'memtier:///memory/semantic/nope.md';
    const e = await readError(uri);
    expect(e, 'resources/read of a missing file answered contents').toBeInstanceOf(McpError);
    expect(e!.code).toBe(-32602);
    expect(e!.message).toMatch(/not found/i);
    expect(e!.message).toContain('memory/semantic/nope.md');
    expect(e!.data).toEqual({ uri });
  });

  it('a path that is no memory file, or leaves the root, is an error too, never a read', async () => {
    for (const uri of ['memtier:///.git/config', 'memtier:///AGENTS.md', 'memtier:///memory/.trash/x.md', 'memtier:///../../etc/passwd', 'memtier:///memory/%2e%2e/%2e%2e/etc/passwd']) {
      const e = await readError(uri);
      expect(e, uri).toBeInstanceOf(McpError);
      expect(e!.code, uri).toBe(-32602);
    }
  });

  it('an existing file still reads (percent-encoded too), and the server goes on', async () => {
    writeFileSync(join(root, 'memory/semantic/my note.md'), '# My note\n');
    const r = await client.readResource({ uri: 'memtier:///memory/semantic/my%20note.md' });
    expect((r.contents[0] as { text: string }).text).toBe('# My note\n');
    const f = await client.readResource({ uri: 'memtier:///memory/semantic/five.md' });
    expect((f.contents[0] as { text: string }).text).toContain('line 5');
  });
});

describe('tool arguments', () => {
  it('a date that is no day of the calendar is refused naming since/until and the rule, as the CLI\'s search --since does', async () => {
    for (const [arg, day, why] of [['since', '2026-13-45', /no month 13/], ['since', '2026-02-30', /2026-02 has 28 days/], ['until', '2025-02-29', /2025-02 has 28 days/], ['since', '2026-5-1', /YYYY-MM-DD/]] as const) {
      const r = await call('memory_search', { query: 'broker', [arg]: day });
      expect(r.isError, `${arg}=${day}: ${text(r)}`).toBe(true);
      expect(text(r)).toContain(arg);
      expect(text(r)).toMatch(why);
    }
    // a real day is taken (a leap day too)
    const ok = await call('memory_search', { query: 'broker', since: '2024-02-29', until: '2026-12-31' });
    expect(ok.isError, text(ok)).toBeFalsy();
    expect(JSON.parse(text(ok)).results[0].text).toBe('the broker runs on port 7001');
  });

  it('memory_recall with neither query nor messages is an error naming both', async () => {
    const r = await call('memory_recall', {});
    expect(r.isError, text(r)).toBe(true);
    expect(text(r)).toMatch(/^memtier: /);
    expect(text(r)).toContain('`query`');
    expect(text(r)).toContain('`messages`');
    const empty = await call('memory_recall', { messages: [] });
    expect(empty.isError, text(empty)).toBe(true);
    expect(text(empty)).toContain('messages');
  });

  it('memory_get with lines and no from reads the first lines (from 1), not the whole file', async () => {
    const r = await call('memory_get', { path: 'memory/semantic/five.md', lines: 2 });
    expect(r.isError, text(r)).toBeFalsy();
    const j = JSON.parse(text(r));
    expect(j.from).toBe(1);
    expect(j.to).toBe(2);
    expect(j.text).toBe('# Five\n\n');
    expect(j.text).not.toContain('line 5');
  });

  it('a query over 4,096 characters and messages over their limits are refused naming the argument and the limit, never echoed', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const q = await call('memory_search', { query: big });
    expect(q.isError).toBe(true);
    expect(text(q)).toContain('query');
    expect(text(q)).toMatch(/4,096 characters/);
    expect(text(q).length).toBeLessThan(1000);
    const rq = await call('memory_recall', { query: `broker ${'y'.repeat(5000)}` });
    expect(rq.isError).toBe(true);
    expect(text(rq)).toMatch(/4,096 characters/);
    expect(text(rq)).not.toContain('yyyyyyyy');
    const m1 = await call('memory_recall', { messages: [{ role: 'user', content: big }] });
    expect(m1.isError).toBe(true);
    expect(text(m1)).toContain('messages');
    expect(text(m1)).toMatch(/16,384 characters/);
    expect(text(m1).length).toBeLessThan(1000);
    const many = Array.from({ length: 10 }, () => ({ role: 'user', content: 'z'.repeat(10_000) }));
    const m2 = await call('memory_recall', { messages: many });
    expect(m2.isError).toBe(true);
    expect(text(m2)).toMatch(/65,536 characters/);
    expect(text(m2).length).toBeLessThan(1000);
    const m3 = await call('memory_recall', { messages: Array.from({ length: 201 }, () => ({ role: 'user', content: 'hi' })) });
    expect(m3.isError).toBe(true);
    expect(text(m3)).toMatch(/200 messages/);
    // the limits are stated in the tool descriptions
    const { tools } = await client.listTools();
    const d = Object.fromEntries(tools.map((t) => [t.name, t.description ?? '']));
    expect(d.memory_search).toMatch(/4,096 characters/);
    expect(d.memory_recall).toMatch(/4,096 characters/);
    expect(d.memory_recall).toMatch(/200 messages.*16,384 characters.*65,536/);
  });

  it('a query starting with "-" is words, not a flag; within the limits everything still answers', async () => {
    const r = await call('memory_search', { query: '-broker port' });
    expect(r.isError, text(r)).toBeFalsy();
    expect(JSON.parse(text(r)).results[0].text).toBe('the broker runs on port 7001');
    const rec = await call('memory_recall', { query: 'which port does the broker use?', messages: [{ role: 'user', content: 'the broker' }] });
    expect(rec.isError, text(rec)).toBeFalsy();
    expect(text(rec)).toContain('7001');
  });
});
