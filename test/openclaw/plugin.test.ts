/**
 * The OpenClaw plugin's registrations run against an object that records what OpenClaw's loader
 * would receive, with memtier's real CLI entry behind every tool: memory-core's result shapes, the
 * hooks' answers, snapshots only when the state moved, a hand edit seen by the next call, and the
 * warm memory served as `memtier watch` until gateway_stop. The same plugin inside the real
 * gateway is test/openclaw/gateway.test.ts (npm run test:openclaw).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { configJsonSchema, createPlugin, TOOL_NAMES, type OpenClawApi } from '../../lib/openclaw/plugin.js';
import { REPO, runCli, tmpTree } from '../helpers.js';

type Handler = (event: Record<string, unknown>, ctx: Record<string, unknown>) => unknown;
interface Tool { name: string; parameters: Record<string, unknown>; description: string; execute(id: string, p: Record<string, unknown>): Promise<{ content: { text: string }[]; details: any }> }

let root: string;
const tools = new Map<string, Tool>();
const hooks = new Map<string, Handler[]>();
const warnings: string[] = [];
let capability: any;

const call = async (name: string, args: Record<string, unknown>): Promise<any> => {
  const r = await tools.get(name)!.execute('call-1', args);
  expect(JSON.parse(r.content[0]!.text)).toEqual(r.details);
  return r.details;
};
const fire = async (hook: string, event: Record<string, unknown> = {}, ctx: Record<string, unknown> = {}): Promise<any> => {
  let out: unknown;
  for (const h of hooks.get(hook) ?? []) out = (await h(event, { agentId: 'main', ...ctx })) ?? out;
  return out;
};

beforeAll(async () => {
  root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root])).code).toBe(0);
  writeTree(root);
  const api: OpenClawApi = {
    id: 'memtier',
    config: {},
    pluginConfig: { root, recall: { enabled: true } },
    registrationMode: 'full',
    logger: { warn: (m) => warnings.push(m), info: () => undefined, debug: () => undefined },
    registerTool(factory: unknown, opts?: { names?: string[] }) {
      const t = (factory as (ctx: unknown) => Tool)({ agentId: 'main', sessionKey: 'agent:main:main' });
      expect(opts?.names).toEqual([t.name]);
      tools.set(t.name, t);
    },
    registerMemoryCapability(c: unknown) { capability = c; },
    on(hook: string, handler: Handler) { hooks.set(hook, [...(hooks.get(hook) ?? []), handler]); },
  };
  createPlugin(main, '0.0.0-test').register(api);
  await fire('gateway_start');
});

function writeTree(r: string): void {
  writeFileSync(join(r, 'knowledge', 'vendor.md'), '# Vendor\n\nThe vendor call moved to Thursday.\n\n数据库迁移到 PostgreSQL 16，负责人是 Ana。\n');
}

afterAll(async () => {
  await fire('gateway_stop');
});

describe('the OpenClaw plugin', () => {
  it('registers the tools its manifest lists, with memory-core\'s parameters, and the prompt guidance', () => {
    expect([...tools.keys()].sort()).toEqual([...TOOL_NAMES].sort());
    const manifest = JSON.parse(readFileSync(join(REPO, 'openclaw.plugin.json'), 'utf8'));
    expect(manifest.contracts.tools.sort()).toEqual([...TOOL_NAMES].sort());
    expect(manifest.kind).toBe('memory');
    // the manifest's schema is the one the code validates with
    expect(manifest.configSchema).toEqual(configJsonSchema());
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    expect(pkg.openclaw.extensions).toEqual(['./dist/lib/openclaw/entry.js']);
    expect(pkg.files).toContain('openclaw.plugin.json');
    expect(tools.get('memory_search')!.parameters).toMatchObject({ required: ['query'], properties: { query: {}, maxResults: {}, minScore: {}, corpus: {} } });
    expect(tools.get('memory_get')!.parameters).toMatchObject({ required: ['path'], properties: { path: {}, from: {}, lines: {}, corpus: {} } });
    expect(capability.promptBuilder({ availableTools: new Set(['memory_search']) }).join('\n')).toContain('run memory_search');
    expect(capability.promptBuilder({ availableTools: new Set() })).toEqual([]);
  });

  it('memory_search answers in memory-core\'s shape, Chinese included, from knowledge/', async () => {
    const r = await call('memory_search', { query: '数据库 负责人' });
    expect(r.provider).toBe('memtier');
    expect(r.results[0]).toMatchObject({ path: 'knowledge/vendor.md', source: 'memory', snippet: expect.stringContaining('PostgreSQL 16') });
    const hit = r.results[0];
    expect(hit.citation).toBe(`knowledge/vendor.md#L${hit.startLine}${hit.endLine === hit.startLine ? '' : `-L${hit.endLine}`}`);
    expect(typeof hit.score).toBe('number');
    expect((await call('memory_search', { query: 'vendor', corpus: 'sessions' })).results).toEqual([]);
    const none = await call('memory_search', { query: 'vendor', minScore: 1e6 });
    expect(none.results).toEqual([]);
  });

  it('memory_get reads a citation\'s lines, bounded, and answers not_found and path escapes as statuses', async () => {
    const hit = (await call('memory_search', { query: 'vendor call Thursday' })).results[0];
    const g = await call('memory_get', { path: hit.citation });
    expect(g).toMatchObject({ status: 'ok', path: 'knowledge/vendor.md', from: hit.startLine });
    expect(g.text).toContain('Thursday');
    const part = await call('memory_get', { path: 'MEMORY.md', from: 1, lines: 2 });
    expect(part).toMatchObject({ status: 'ok', from: 1, lines: 2, truncated: true, nextFrom: 3 });
    expect(part.text.split('\n').slice(0, 2)).toEqual(readFileSync(join(root, 'MEMORY.md'), 'utf8').split('\n').slice(0, 2));
    expect(await call('memory_get', { path: 'memory/none.md' })).toEqual({ status: 'not_found', path: 'memory/none.md', text: '' });
    const esc = await call('memory_get', { path: '../../etc/passwd' });
    expect(esc).toMatchObject({ status: 'error', text: '' });
    expect(esc.error).toContain('leaves the memory root');
  });

  it('sees a hand edit made just before the call', async () => {
    appendFileSync(join(root, 'knowledge', 'vendor.md'), '\nThe quarterly budget review is owned by Marguerite.\n');
    const r = await call('memory_search', { query: 'Marguerite budget' });
    expect(r.results[0].snippet).toContain('Marguerite');
  });

  it('writes through the WAL and refuses a secret and bad arguments with memtier\'s message', async () => {
    const w = await call('memory_wal', { verb: 'decide', text: 'use Valkey instead of Redis' });
    expect(w).toMatchObject({ ok: true, kind: 'decide' });
    expect(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).toContain('use Valkey instead of Redis');
    const s = await call('memory_write', { text: 'the token is ghp_abcdefghijklmnopqrstuvwxyz0123456789', type: 'TECH' });
    expect(s.ok).toBe(false);
    expect(s.error).toMatch(/refused/);
    expect(JSON.stringify(s)).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    const bad = await call('memory_wal', { verb: 'nonsense' });
    expect(bad.ok).toBe(false);
    expect(bad.error.message).toContain('verb');
    expect((await call('memory_search', { query: 'Valkey' })).results[0].snippet).toContain('Valkey');
  });

  it('before_prompt_build: boot on a session\'s first turn and after compaction, recall every turn', async () => {
    const first = await fire('before_prompt_build', { prompt: 'who owns the database migration?', currentUserMessage: 'who owns the database migration?' }, { sessionKey: 's1' });
    expect(first.appendSystemContext).toContain('memtier boot');
    expect(first.appendSystemContext).toContain('==> SESSION-STATE.md <==');
    expect(first.appendSystemContext).toContain('Relevant memory');
    const second = await fire('before_prompt_build', { prompt: 'who owns the database migration?' }, { sessionKey: 's1' });
    expect(second.appendSystemContext).not.toContain('memtier boot');
    expect(second.appendSystemContext).toContain('Relevant memory');
    await fire('after_compaction', {}, { sessionKey: 's1' });
    const third = await fire('before_prompt_build', { prompt: 'hello' }, { sessionKey: 's1' });
    expect(third.appendSystemContext).toContain('memtier boot');
  });

  it('snapshots SESSION-STATE.md after a turn only when it moved', async () => {
    const dir = join(root, 'memory', '.snapshots');
    const count = (): number => (existsSync(dir) ? readdirSync(dir).length : 0);
    await fire('agent_end', {}, { sessionKey: 's1' });
    const n = count();
    expect(n).toBeGreaterThan(0);
    await fire('agent_end', {}, { sessionKey: 's1' });
    expect(count()).toBe(n);
    await call('memory_wal', { verb: 'task', text: 'migrate the billing tables' });
    await fire('before_compaction', {}, { sessionKey: 's1' });
    expect(count()).toBe(n + 1);
    expect(warnings).toEqual([]);
  });

  it('serves memtier watch for the CLI while the gateway runs, and stops with it', async () => {
    const info = JSON.parse(readFileSync(join(root, '.memtier', 'watch.json'), 'utf8'));
    expect(info.pid).toBe(process.pid);
    const st = await runCli(['watch', '--status', '--root', root, '--json']);
    expect(st.code, st.stderr).toBe(0);
    await fire('gateway_stop');
    expect(existsSync(join(root, '.memtier', 'watch.json'))).toBe(false);
    // a call after the stop starts serving again
    expect((await call('memory_search', { query: 'Valkey' })).results.length).toBeGreaterThan(0);
  });

  it('refuses an invalid config, naming the key', () => {
    const plugin = createPlugin(main, '0.0.0-test');
    const r = plugin.configSchema.safeParse({ recall: { enabled: 'yes' } });
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.issues[0]!.path).toEqual(['recall', 'enabled']);
    expect(plugin.configSchema.safeParse({ root: '/x', watch: false }).success).toBe(true);
    expect(plugin.configSchema.safeParse({ nope: 1 }).success).toBe(false);
  });
});
