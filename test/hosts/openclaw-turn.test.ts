/**
 * A real model turn through OpenClaw (issue 30), no API key and no network: openclaw@2026.9.6 under
 * Node 24 (the cache of lib/bench/openclaw-host.ts), memtier installed as its memory plugin the way
 * the README says (`openclaw plugins install <path> --link`: slots.memory; here with recall on), a
 * custom OpenAI-compatible provider whose baseUrl is our scripted model (openai-stub.ts, chat
 * completions), the gateway on loopback, and one `openclaw agent` turn run against it. The script:
 * call memory_search, then memory_wal decide, then answer. With OpenClaw's default tool surface
 * (Tool Search: plugin tools listed in the system prompt, called through `tool_call`), asserted:
 *
 * - the model's first request carries memtier's boot (a marker from SESSION-STATE.md), the recall
 *   block for the question (the decision's path#Lline citation): before_prompt_build; and the
 *   plugin's "## Memory Recall" guidance and its tools in the prompt's tool directory;
 * - the model's calls go to memtier: the next requests hold memtier's results (provider
 *   "memtier", the citation; the WAL write's ok);
 * - the decision is in SESSION-STATE.md and agent_end snapshotted it (memory/.snapshots/agent-end-*.md);
 * - the turn completes (exit 0) with the script's final text.
 *
 * Skipped unless MEMTIER_HOSTS=1; skipped with the reason when OpenClaw cannot be installed.
 * MEMTIER_HOSTS_TRACE=1 shows the config, the stub's requests and the CLI's stderr;
 * MEMTIER_HOSTS_TRACE=/path/x.json also writes the requests (x.json) and the gateway's log (x.json.gateway.log).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostEnv, installHost, OPENCLAW_VERSION, openclawCli, readConfig, startGateway, writeConfig, type Gateway, type OpenClawHost } from '../../lib/bench/openclaw-host.js';
import { REPO, runCli, tmpTree } from '../helpers.js';
import { startOpenAIStub, type OpenAIStub } from './openai-stub.js';
import { stillCopy } from './still-copy.js';
import type { RecordedRequest } from './script.js';

const enabled = process.env.MEMTIER_HOSTS === '1';
const trace = !!process.env.MEMTIER_HOSTS_TRACE;
let skipped = enabled ? '' : 'set MEMTIER_HOSTS=1 (npm run test:hosts) to run a model turn through a real OpenClaw gateway';
let host: OpenClawHost | undefined;
let gw: Gateway | undefined;
let stub: OpenAIStub | undefined;
let home = '';
let root = '';
let turn: { code: number | null; stdout: string; stderr: string; ms: number } | undefined;

const PROVIDER = 'memstub';
const MODEL = 'memtier-stub';
const today = new Date().toISOString().slice(0, 10);
const DAY = `memory/episodic/${today}.md`;
const CITE = `${DAY}#L3`;
const BOOT_MARK = 'BOOTMARK-quokka-lantern';
const DECISION = 'roll back with helm when the friday deploy fails SNAPMARK-otter';
const QUESTION = 'How and when do we deploy the web app?';
const FINAL = `We deploy with Kubernetes on Friday (Source: ${CITE}).`;
/** The wire format OpenClaw speaks to the scripted model: chat completions (the default for a custom provider), or MEMTIER_HOSTS_OPENCLAW_API=openai-responses. */
const API = process.env.MEMTIER_HOSTS_OPENCLAW_API === 'openai-responses' ? 'openai-responses' : 'openai-completions';
const quiet = { OPENCLAW_NO_AUTO_UPDATE: '1', DO_NOT_TRACK: '1' };

/**
 * The tool results a request carries (chat completions: role "tool" messages; Responses API:
 * function_call_output items), as text (JSON nested in JSON unescaped).
 */
const toolResults = (r: RecordedRequest | undefined): string =>
  [
    ...((r?.body?.messages ?? []) as { role?: string; content?: unknown }[]).filter((m) => m.role === 'tool').map((m) => m.content),
    ...(Array.isArray(r?.body?.input) ? (r.body.input as { type?: string; output?: unknown }[]) : []).filter((i) => i.type === 'function_call_output').map((i) => i.output),
  ]
    .map((c) => (typeof c === 'string' ? c : JSON.stringify(c)))
    .join('\n')
    .replace(/\\+n/g, '\n').replace(/\\+"/g, '"');

/** Wait for the gateway's GET /readyz to answer 200 (startup done, agents admitted), at most `ms`. */
async function ready(port: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(10_000) });
      await r.body?.cancel();
      if (r.status === 200) return true;
    } catch { /* busy or not listening */ }
    await new Promise((r) => setTimeout(r, 1_000));
  }
  return false;
}

/** The openclaw CLI without blocking this process (the scripted model answers from it): output, exit code, bounded. */
function cliAsync(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(join(host!.nodeBin, 'node'), [host!.openclaw, ...args], { env: { ...hostEnv(host!, home), ...quiet }, cwd: home, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => { stdout += d.toString('utf8'); });
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString('utf8'); if (trace) process.stderr.write(d); });
    const kill = (sig: NodeJS.Signals) => { try { process.kill(-child.pid!, sig); } catch { /* gone */ } };
    const timer = setTimeout(() => { stderr += `\n[killed after ${timeoutMs} ms]`; kill('SIGTERM'); setTimeout(() => kill('SIGKILL'), 10_000).unref(); }, timeoutMs);
    child.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr, ms: Date.now() - t0 }); });
  });
}

beforeAll(async () => {
  if (!enabled) return;
  try {
    host = installHost({ log: (m) => process.stderr.write(`openclaw host: ${m}\n`) });
  } catch (e) {
    skipped = `OpenClaw ${OPENCLAW_VERSION} could not be installed: ${(e as Error).message.split('\n')[0]}`;
    process.stderr.write(`skipped: ${skipped}\n`);
    return;
  }
  const base = tmpTree({}, 'memtier-hosts-openclaw-');
  home = join(base, 'home');
  root = join(base, 'workspace');
  mkdirSync(home, { recursive: true });

  // the memory: a decision of today in the episodic log (what the question asks), a task in the session state (boot)
  expect((await runCli(['init', root])).code).toBe(0);
  expect((await runCli(['wal', 'task', '--root', root, `${BOOT_MARK}: move billing to the new cluster`])).code).toBe(0);
  writeFileSync(join(root, DAY), `# ${today}\n\n- 09:00 [DECISION] deploy with kubernetes on friday ^k8sdecide1\n`);

  // OpenClaw's default tool surface (tools.toolSearch unset: "tools" mode) defers plugin tools behind
  // tool_search / tool_describe / tool_call, listing them in the system prompt's directory: the
  // model calls memtier's tools through tool_call, as a real model does with this config
  stub = await startOpenAIStub([
    { toolCalls: [{ name: 'tool_call', input: { id: 'memory_search', args: { query: 'deploy kubernetes friday' } } }] },
    { toolCalls: [{ name: 'tool_call', input: { id: 'memory_wal', args: { verb: 'decide', text: DECISION } } }] },
    { text: FINAL },
  ], { model: MODEL, log: trace ? (l) => process.stderr.write(`stub: ${l}\n`) : undefined });

  // memtier as the memory plugin, as a user installs it (test/openclaw/gateway.test.ts does the same)
  const pkg = await stillCopy(join(base, 'memtier-package'));
  openclawCli(host, home, ['plugins', 'install', pkg, '--link', '--force', '--accept-capabilities'], 180_000);
  const cfg = readConfig(home);
  expect(cfg.plugins.slots.memory).toBe('memtier');
  cfg.plugins.entries.memtier.config = { root, recall: { enabled: true } };
  cfg.plugins.entries.memtier.hooks = { allowConversationAccess: true };
  // the scripted model as a custom OpenAI-compatible provider (docs/gateway/local-models.md), the agent's model
  cfg.models = {
    mode: 'merge',
    providers: {
      [PROVIDER]: {
        baseUrl: stub.url,
        apiKey: 'memstub-local',
        api: API,
        timeoutSeconds: 60,
        models: [{ id: MODEL, name: 'memtier scripted model', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 4096 }],
      },
    },
  };
  cfg.agents = { ...(cfg.agents ?? {}), defaults: { ...(cfg.agents?.defaults ?? {}), workspace: root, model: { primary: `${PROVIDER}/${MODEL}` } } };
  cfg.update = { ...(cfg.update ?? {}), checkOnStart: false };
  writeConfig(home, cfg);
  if (trace) process.stderr.write(`openclaw config:\n${JSON.stringify(readConfig(home), null, 2)}\n`);

  gw = await startGateway(host, home, { env: quiet });
  // /tools/invoke answers before the gateway has started its channels and sidecars, a phase that
  // can hold its event loop long enough for a client's handshake to time out on a loaded machine:
  // the turn starts once GET /readyz says ready (bounded; past it, the turn is tried anyway)
  await ready(gw.port, 180_000);
  turn = await cliAsync(['agent', '--agent', 'main', '--message', QUESTION, '--json', '--timeout', '150'], 200_000);
  if (trace) process.stderr.write(`agent exit ${turn.code} in ${turn.ms} ms\n${turn.stdout.slice(0, 4000)}\n`);
  // MEMTIER_HOSTS_TRACE=/path/file.json: the requests the model received, for a look
  if (process.env.MEMTIER_HOSTS_TRACE?.startsWith('/')) writeFileSync(process.env.MEMTIER_HOSTS_TRACE, JSON.stringify(stub.requests, null, 2));
}, 900_000);

afterAll(async () => {
  await gw?.stop();
  if (gw && process.env.MEMTIER_HOSTS_TRACE?.startsWith('/')) writeFileSync(`${process.env.MEMTIER_HOSTS_TRACE}.gateway.log`, gw.log());
  await stub?.close();
}, 60_000);

const why = (): string => `agent exit ${turn?.code}\nstdout: ${turn?.stdout.slice(-2000)}\nstderr: ${turn?.stderr.slice(-3000)}\nstub: ${stub?.seen.join(', ')}\ngateway: ${gw?.log().slice(-3000)}`;

describe('a model turn through a real OpenClaw gateway, memtier its memory plugin', () => {
  it('the turn completes with the scripted model\'s final text', async (t) => {
    if (!gw || !turn) return t.skip(skipped);
    expect(turn.code, why()).toBe(0);
    expect(turn.stdout, why()).toContain('We deploy with Kubernetes on Friday');
    expect(stub!.errors).toEqual([]);
  });

  it('before_prompt_build: boot and the recall block for the question reach the model\'s first request', async (t) => {
    if (!gw || !turn) return t.skip(skipped);
    const first = stub!.requests.find((r) => r.step === 0);
    expect(first, why()).toBeDefined();
    expect(first!.allText).toContain(QUESTION);
    expect(first!.allText).toContain('memtier boot');
    expect(first!.allText).toContain(BOOT_MARK);
    expect(first!.allText).toContain('Relevant memory (memtier recall');
    expect(first!.allText).toContain(`deploy with kubernetes on friday (${CITE})`);
    // the plugin's memory capability: its guidance in the system prompt
    expect(first!.allText).toContain('## Memory Recall\nBefore answering anything about prior work');
    // the tools reach the model through OpenClaw's Tool Search: tool_call offered, memtier's tools in its directory
    expect(first!.toolNames).toEqual(expect.arrayContaining(['tool_search', 'tool_describe', 'tool_call']));
    for (const name of ['memory_search', 'memory_get', 'memory_wal']) expect(first!.allText).toContain(name);
  });

  it('the model\'s memory_search call goes to memtier: the next request holds its result with the citation', async (t) => {
    if (!gw || !turn) return t.skip(skipped);
    const second = stub!.requests.find((r) => r.step === 1);
    expect(second, why()).toBeDefined();
    const results = toolResults(second);
    expect(results).toContain('"provider": "memtier"');
    expect(results).toContain(`"citation": "${CITE}"`);
    expect(results).toContain('deploy with kubernetes on friday');
  });

  it('the model\'s memory_wal decide lands in SESSION-STATE.md, and agent_end snapshots it', async (t) => {
    if (!gw || !turn) return t.skip(skipped);
    const third = stub!.requests.find((r) => r.step === 2);
    expect(third, why()).toBeDefined();
    expect(toolResults(third)).toMatch(/"ok": true/);
    expect(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).toContain(DECISION);
    // agent_end runs after the reply: give it a moment
    const dir = join(root, 'memory', '.snapshots');
    let snaps: string[] = [];
    for (let i = 0; i < 60; i++) {
      snaps = existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith('agent-end-')) : [];
      if (snaps.some((f) => readFileSync(join(dir, f), 'utf8').includes(DECISION))) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(snaps, `${why()}\nsnapshots: ${existsSync(dir) ? readdirSync(dir).join(', ') : '(none)'}`).not.toEqual([]);
    expect(snaps.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n')).toContain(DECISION);
  });
});
