/**
 * A real Codex turn (issue 30), no API key and no network: `@openai/codex` (install.ts: pinned,
 * cached; its native binary) run as `codex exec` in a scratch HOME / CODEX_HOME whose config.toml is
 * the `[mcp_servers.memtier]` entry `memtier init --codex` prints, pasted as printed, plus a model
 * provider at our scripted model (codex-stub.ts over openai-stub.ts: the Responses API,
 * `wire_api = "responses"`), analytics and the plugin sync off, `--strict-config` (a key this Codex
 * does not know fails the run). The printed AGENTS.md section is the project's AGENTS.md.
 *
 * The model is `gpt-5.5` (served by the stub): a slug in Codex's own catalog. Codex 0.171 always
 * defers MCP tools behind its `tool_search`, which it offers only for a model whose catalog entry
 * supports it: with a model unknown to Codex (fallback metadata) no MCP tool is reachable at all.
 *
 * The script: tool_search (repeated by the stub while memtier's MCP server is still connecting),
 * memory_search, memory_wal decide, a final text. Asserted: the AGENTS.md section reaches the
 * model; memory_search goes to memtier (Codex reports an mcp_tool_call of server memtier) and the
 * next request holds its result with the entry's `#L1` citation and ^id; the decision is in
 * memory/working-buffer.md; no `memtier mcp` is left running after Codex exits.
 *
 * Skipped unless MEMTIER_HOSTS=1 (npm run test:hosts); skipped with the reason when Codex cannot be
 * installed or run here. MEMTIER_HOSTS_TRACE=1 prints Codex's output and the stub's requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { REPO, tmpTree } from '../helpers.js';
import { startCodexStub, type CodexStub } from './codex-stub.js';
import { CODEX_VERSION, installCodex, type InstalledHost } from './install.js';
import { leftAfter, localDay, memtierProcesses, runHost, scratchBin, type HostExit } from './proc.js';
import type { RecordedRequest } from './script.js';

const enabled = process.env.MEMTIER_HOSTS === '1';
const trace = !!process.env.MEMTIER_HOSTS_TRACE;
let skipped = enabled ? '' : 'set MEMTIER_HOSTS=1 (npm run test:hosts) to run memtier inside a real Codex turn';
let codex: InstalledHost | undefined;
const RUN_MS = 120_000;

const DAY = `memory/episodic/${localDay()}.md`;
const QUESTION = 'When do we deploy with kubernetes?';
const DECISION = 'pin the helm chart version before friday WALMARK-codex';
const FINAL = `We deploy with Kubernetes on Friday (${DAY}#L1).`;
const MODEL = 'gpt-5.5';

let base = '';
let project = '';
let home = '';
let printed = { config: '', agents: '' };
let stub: CodexStub | undefined;
let turn: (HostExit & { events: any[] }) | undefined;
let leftMcp: { pid: number; cmd: string }[] = [];

/** The text of the function_call_output items a Responses request carries (what the host sends back after a tool ran). */
function toolOutputs(r: RecordedRequest | undefined): string {
  const input: any[] = Array.isArray(r?.body?.input) ? r!.body.input : [];
  return input.filter((i) => i?.type === 'function_call_output').map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output))).join('\n');
}

beforeAll(async () => {
  if (!enabled) return;
  try {
    codex = installCodex({ log: (m) => process.stderr.write(`codex host: ${m}\n`) });
  } catch (e) {
    skipped = `Codex ${CODEX_VERSION} could not be installed or run here: ${(e as Error).message.split('\n')[0]}`;
    process.stderr.write(`skipped: ${skipped}\n`);
    return;
  }
  base = tmpTree({}, 'memtier-codex-');
  project = join(base, 'project');
  home = join(base, 'home');
  mkdirSync(project, { recursive: true });
  mkdirSync(join(home, '.codex'), { recursive: true });
  const bin = scratchBin(base);
  const env = { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`, HOME: home, MEMTIER_GIT: 'off', ...(process.env.TZ ? { TZ: process.env.TZ } : {}) };
  // the README's step, run in the project: the memory here, and the snippets to paste
  const init = spawnSync(process.execPath, [join(REPO, 'bin', 'memtier.js'), 'init', '--codex'], { cwd: project, env, encoding: 'utf8', timeout: 60_000 });
  expect(init.status, init.stderr).toBe(0);
  const m = /^codex: add to ~\/\.codex\/config\.toml:\n([\s\S]*?)\nand to the project's AGENTS\.md:\n([\s\S]*?)\n\nnext:/m.exec(init.stdout);
  expect(m, init.stdout).not.toBeNull();
  printed = { config: m![1]!, agents: m![2]! };
  writeFileSync(join(project, DAY), '- 09:00 [DECISION] deploy with kubernetes on friday ^k8sdecide1\n');
  writeFileSync(join(project, 'AGENTS.md'), `# Project\n\n${printed.agents}\n`);

  stub = await startCodexStub([
    { toolCalls: [{ name: 'tool_search', input: { query: 'memtier memory_search memory_wal', limit: 8 } }] },
    { toolCalls: [{ name: 'mcp__memtier__memory_search', input: { query: 'kubernetes deploy' } }] },
    { toolCalls: [{ name: 'mcp__memtier__memory_wal', input: { verb: 'decide', text: DECISION } }] },
    { text: FINAL },
  ], { model: MODEL, searchFor: 'memory_search', ...(trace ? { log: (l: string) => process.stderr.write(`codex stub: ${l}\n`) } : {}) });
  // the printed entry as printed; the provider, analytics and the plugin sync are ours
  writeFileSync(join(home, '.codex', 'config.toml'), [
    `model = "${MODEL}"`,
    'model_provider = "memstub"',
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[features]',
    'plugins = false',
    '',
    '[model_providers.memstub]',
    'name = "memtier scripted model"',
    `base_url = "${stub.url}"`,
    'wire_api = "responses"',
    'env_key = "MEMSTUB_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    printed.config,
    '',
  ].join('\n'));
  const exit = await runHost(codex.bin, ['exec', '--strict-config', '--skip-git-repo-check', '--json', QUESTION], {
    cwd: project,
    env: { PATH: env.PATH, HOME: home, CODEX_HOME: join(home, '.codex'), MEMSTUB_API_KEY: 'memtier-test-dummy', MEMTIER_GIT: 'off', LANG: 'C.UTF-8', ...(process.env.TZ ? { TZ: process.env.TZ } : {}), ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}) },
    timeoutMs: RUN_MS,
  });
  const events: any[] = [];
  for (const line of exit.stdout.split('\n')) { if (line.trim().startsWith('{')) { try { events.push(JSON.parse(line)); } catch { /* partial */ } } }
  turn = { ...exit, events };
  leftMcp = await leftAfter(base, 'mcp', 10_000);
  if (trace) {
    process.stderr.write(`codex exec: exit ${exit.code} ${exit.signal ?? ''} in ${exit.ms} ms, ${stub.searchRetries} tool_search retries\n${exit.stdout}\n${exit.stderr.slice(-4000)}\n`);
    writeFileSync(join(base, 'requests.json'), JSON.stringify(stub.requests, null, 1));
  }
}, 600_000);

afterAll(async () => {
  await stub?.close();
  if (base) for (const p of memtierProcesses(base, 'mcp')) { try { process.kill(p.pid, 'SIGTERM'); } catch { /* gone */ } }
});

describe(`Codex ${CODEX_VERSION}: memtier's MCP server as \`memtier init --codex\` prints it`, () => {
  it('the printed entry is valid config for this Codex (--strict-config) and the turn ends with the scripted answer', (t) => {
    if (!turn) return t.skip(skipped);
    expect(printed.config).toMatch(/^\[mcp_servers\.memtier\]$/m);
    expect(turn.code, `${turn.stderr.slice(-3000)}\n${turn.stdout.slice(-2000)}`).toBe(0);
    expect(turn.stderr).not.toMatch(/Error loading config|unknown field|unknown configuration/i);
    const messages = turn.events.filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message').map((e) => e.item.text);
    expect(messages[messages.length - 1]).toBe(FINAL);
    expect(stub!.errors).toEqual([]);
  });

  it("the printed AGENTS.md section reaches the model's first request", (t) => {
    if (!turn) return t.skip(skipped);
    const first = stub!.requests[0]!.allText;
    expect(first).toContain('## Memory (memtier)');
    expect(first).toContain(`plain markdown under \`${project}\``);
  });

  it("the model's memory_search call reaches memtier's MCP server and the next request holds the cited entry", (t) => {
    if (!turn) return t.skip(skipped);
    const call = turn.events.find((e) => e.type === 'item.completed' && e.item?.type === 'mcp_tool_call' && e.item.tool === 'memory_search');
    expect(call, turn.stdout.slice(-3000)).toBeDefined();
    expect(call.item.server).toBe('memtier');
    const after = stub!.requests.find((r) => toolOutputs(r).includes('k8sdecide1'));
    expect(after, stub!.requests.map((r) => toolOutputs(r).slice(0, 300)).join('\n---\n')).toBeDefined();
    const out = toolOutputs(after);
    expect(out).toContain(`${DAY}#L1`);
    expect(out).toContain('deploy with kubernetes on friday');
  });

  it('a memory_wal decide lands in the working buffer', (t) => {
    if (!turn) return t.skip(skipped);
    expect(readFileSync(join(project, 'memory', 'working-buffer.md'), 'utf8')).toMatch(new RegExp(`\\[DECISION\\] ${DECISION} \\^[0-9a-z]+`));
  });

  it('no memtier mcp is left running after Codex exits', (t) => {
    if (!turn) return t.skip(skipped);
    expect(leftMcp.map((p) => `${p.pid} ${p.cmd}`)).toEqual([]);
  });
});
