/**
 * `memtier mcp` through the MCP SDK's own client over stdio: the real binary spawned, every tool
 * called, bad arguments and a refused secret answered as tool errors while the server goes on,
 * and a hand edit made between two calls seen by the second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp } from './kit.js';
import { BIN, FIXED_NOW, runCli, tmpTree } from '../helpers.js';

let root: string;
let client: Client;

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };
const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolResult> => (await client.callTool({ name, arguments: args })) as ToolResult;
const json = (r: ToolResult): any => JSON.parse(r.content[0]!.text);

beforeAll(async () => {
  root = join(tmpTree(), 'mem');
  const init = await runCli(['init', root]);
  expect(init.code, init.stderr).toBe(0);
  for (const t of ['the broker runs on port 7001', 'Dana prefers short answers']) {
    const r = await runCli(['add', '--root', root, '--type', 'TECH', t]);
    expect(r.code, r.stderr).toBe(0);
  }
  client = await connectMcp(root);
});

afterAll(async () => {
  await client?.close();
});

describe('memtier mcp over stdio', () => {
  it('lists its tools with descriptions and truthful annotations, and its resources', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['memory_forget', 'memory_get', 'memory_health', 'memory_recall', 'memory_recent', 'memory_search', 'memory_supersede', 'memory_wal', 'memory_write']);
    for (const t of tools) expect(t.description!.length, t.name).toBeGreaterThan(80);
    expect(byName.memory_search!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.memory_get!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.memory_write!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.memory_wal!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.memory_search!.inputSchema.required).toEqual(['query']);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['memtier:///MEMORY.md', 'memtier:///SESSION-STATE.md']);
    const mem = await client.readResource({ uri: 'memtier:///MEMORY.md' });
    expect((mem.contents[0] as { text: string }).text).toBe(readFileSync(join(root, 'MEMORY.md'), 'utf8'));
  });

  it('searches, then reads the cited lines with memory_get', async () => {
    const r = await call('memory_search', { query: 'broker port', k: 3 });
    expect(r.isError).toBeFalsy();
    const top = json(r).results[0];
    expect(top.text).toBe('the broker runs on port 7001');
    expect(top.cite).toMatch(/^memory\/episodic\/2026-05-15\.md#L\d+$/);
    const g = await call('memory_get', { path: top.path, from: top.line, lines: 1 });
    expect(g.isError).toBeFalsy();
    expect(JSON.stringify(json(g))).toContain('the broker runs on port 7001');
  });

  it('writes a typed entry and a WAL decision, both found by the next search', async () => {
    const w = await call('memory_write', { text: 'the staging cluster lives in fra1', type: 'TECH' });
    expect(w.isError, w.content[0]!.text).toBeFalsy();
    const d = await call('memory_wal', { verb: 'decide', text: 'use Valkey instead of Redis for the cache' });
    expect(d.isError, d.content[0]!.text).toBeFalsy();
    expect(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).toContain('use Valkey instead of Redis');
    expect(json(await call('memory_search', { query: 'staging cluster' })).results[0].text).toBe('the staging cluster lives in fra1');
    expect(json(await call('memory_search', { query: 'Valkey cache' })).results[0].text).toContain('use Valkey instead of Redis');
    const state = await call('memory_wal', { verb: 'get' });
    expect(state.content[0]!.text).toContain('Valkey');
  });

  it('sees a hand edit made just before the call (never stale)', async () => {
    expect(json(await call('memory_search', { query: 'zeppelin hangar' })).results).toEqual([]);
    appendFileSync(join(root, 'memory/episodic/2026-05-15.md'), '- 15:00 [EVENT] visited the zeppelin hangar in Friedrichshafen\n');
    const r = json(await call('memory_search', { query: 'zeppelin hangar' }));
    expect(r.results[0].text).toContain('zeppelin hangar');
  });

  it('recalls a budgeted block for a query and for messages', async () => {
    const q = await call('memory_recall', { query: 'which port does the broker use?' });
    expect(q.isError).toBeFalsy();
    expect(q.content[0]!.text).toContain('7001');
    const m = await call('memory_recall', { messages: [{ role: 'user', content: 'where does the staging cluster live?' }] });
    expect(m.isError).toBeFalsy();
    expect(m.content[0]!.text).toContain('fra1');
  });

  it('reports health (findings are data, not a tool error)', async () => {
    const h = await call('memory_health');
    expect(h.isError).toBeFalsy();
    expect(json(h).counts.checks).toBeGreaterThan(10);
    expect(json(h).results.map((c: { id: string }) => c.id)).toContain('secrets');
  });

  it('answers bad arguments, a secret and a path escape with tool errors, and goes on serving', async () => {
    const bad = await call('memory_search', { query: '', k: 500 });
    expect(bad.isError).toBe(true);
    const secret = await call('memory_write', { text: 'the deploy key is ghp_0123456789abcdefghijABCDEFGHIJ012345', type: 'TECH' });
    expect(secret.isError).toBe(true);
    expect(secret.content[0]!.text).toMatch(/secret|credential|token/i);
    expect(secret.content[0]!.text).not.toContain('ghp_0123456789abcdefghij');
    expect(readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8')).not.toContain('ghp_');
    const escape = await call('memory_get', { path: '../../etc/passwd' });
    expect(escape.isError).toBe(true);
    expect(escape.content[0]!.text).toMatch(/outside|escape|leave/i);
    const type = await call('memory_write', { text: 'x', type: 'NOPE' });
    expect(type.isError).toBe(true);
    // still serving
    expect(json(await call('memory_search', { query: 'broker port' })).results[0].text).toBe('the broker runs on port 7001');
  });
});
