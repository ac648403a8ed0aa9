/**
 * A real Claude Code session (issue 30), no API key and no network: `@anthropic-ai/claude-code`
 * (install.ts: pinned, cached) run headless (`claude -p`) in a scratch HOME with
 * ANTHROPIC_BASE_URL at our scripted model (anthropic-stub.ts), telemetry and non-essential traffic
 * off, and `memtier` on PATH as a wrapper of this tree's bin/memtier.js. Both setups the README
 * and templates/claude-code/README.md give:
 *
 * - init: `memtier init --claude-code` run in a scratch project (the project's .claude/settings.json
 *   hooks and .mcp.json server);
 * - plugin: templates/claude-code/ loaded with `--plugin-dir` in a project holding a memory
 *   (`memtier init .`), the plugin's own hooks and MCP server.
 *
 * For each, one scripted turn asking "when do we deploy with kubernetes?": ToolSearch loads
 * memtier's MCP tools (Claude Code defers MCP tools behind ToolSearch, as a real model would do),
 * then memory_search, memory_wal decide, and a final text. Asserted: SessionStart's boot (a
 * MEMORY.md marker) and UserPromptSubmit's recall block (the day entry with its path#Lline) are in
 * the model's first request; the memory_search result the host sends back cites the entry
 * (`#L1`, its ^id); the decision is in memory/working-buffer.md; Stop snapshotted SESSION-STATE.md
 * into memory/.snapshots/; every memtier hook exited 0; no `memtier watch` of the session is left
 * running once the host exited. Then `/compact` in the resumed session (PreCompact snapshots; a
 * test hook of our own changes the MEMORY.md marker just before the compaction) and one more
 * resumed prompt: the boot re-injected after the compaction (the changed marker) is in its
 * request. And the same setup in a folder without a memory (HOME without one): the prompt reaches
 * the model, no memtier block, exit 0, and every memtier hook says why on one stderr line. Last, the
 * plugin and init's settings in one project: the boot and the recall block reach the model once.
 *
 * Skipped unless MEMTIER_HOSTS=1 (npm run test:hosts); skipped with the reason when Claude Code
 * cannot be installed. MEMTIER_HOSTS_TRACE=1 prints the host's output and the stub's requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { REPO, tmpTree } from '../helpers.js';
import { isCompactionRequest, startAnthropicStub, type AnthropicStub } from './anthropic-stub.js';
import { CLAUDE_CODE_VERSION, installClaudeCode, type InstalledHost } from './install.js';
import { leftAfter, localDay, memtierProcesses, runHost, scratchBin } from './proc.js';
import type { RecordedRequest, ScriptStep } from './script.js';

const enabled = process.env.MEMTIER_HOSTS === '1';
const trace = !!process.env.MEMTIER_HOSTS_TRACE;
let skipped = enabled ? '' : 'set MEMTIER_HOSTS=1 (npm run test:hosts) to run memtier inside a real Claude Code session';
let cc: InstalledHost | undefined;
/** Per host run: a hard stop (the process group is killed), so a hung host never hangs the suite. */
const RUN_MS = 120_000;

const TODAY = localDay();
const DAY = `memory/episodic/${TODAY}.md`;
const BOOT_MARK = 'BOOTMARK-heron-4q7z';
const QUESTION = 'When do we deploy with kubernetes?';
const DECISION = 'roll back with helm when the friday deploy fails WALMARK-otter';
const FINAL = `We deploy with Kubernetes on Friday (${DAY}#L1).`;
const SUMMARY_MARK = 'SUMMARYMARK-comet';

beforeAll(() => {
  if (!enabled) return;
  try {
    cc = installClaudeCode({ log: (m) => process.stderr.write(`claude code host: ${m}\n`) });
  } catch (e) {
    skipped = `Claude Code ${CLAUDE_CODE_VERSION} could not be installed or run here: ${(e as Error).message.split('\n')[0]}`;
    process.stderr.write(`skipped: ${skipped}\n`);
  }
}, 900_000);

/** The memory's contents the turn asks about: a boot marker in MEMORY.md, a decision in today's day file. */
function seed(root: string): void {
  const mem = readFileSync(join(root, 'MEMORY.md'), 'utf8');
  expect(mem).toContain('## Key facts\n');
  writeFileSync(join(root, 'MEMORY.md'), mem.replace('## Key facts\n', `## Key facts\n- ${BOOT_MARK}: the host test's boot marker\n- compaction marker: CMARK-BEFORE\n`));
  mkdirSync(join(root, 'memory', 'episodic'), { recursive: true });
  writeFileSync(join(root, DAY), '- 09:00 [DECISION] deploy with kubernetes on friday ^k8sdecide1\n');
}

interface HostRun {
  code: number | null;
  signal: string | null;
  ms: number;
  stdout: string;
  stderr: string;
  /** stream-json events (one JSON object a line). */
  events: any[];
  /** The hook_response events (--include-hook-events): the name, exit code and streams of each hook run. */
  hooks: { name: string; exit: number | undefined; stdout: string; stderr: string }[];
  /** The final `result` event. */
  result: any;
}

interface Session {
  base: string;
  home: string;
  project: string;
  bin: string;
  /** The MCP server's tool-name prefix in this setup. */
  prefix: string;
  /** Extra claude arguments of the setup (--plugin-dir …). */
  args: string[];
}

/** Run `claude -p PROMPT` in the session's project, against the stub; resolves when the host exits (killed after RUN_MS). */
async function claude(s: Session, stub: AnthropicStub, prompt: string, extra: string[] = []): Promise<HostRun> {
  const env: NodeJS.ProcessEnv = {
    PATH: `${s.bin}${delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: s.home,
    LANG: 'C.UTF-8',
    ...(process.env.TZ ? { TZ: process.env.TZ } : {}),
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    ANTHROPIC_BASE_URL: stub.url,
    ANTHROPIC_API_KEY: 'memtier-test-dummy-key',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_UPDATES: '1',
    DISABLE_ERROR_REPORTING: '1',
    MEMTIER_GIT: 'off',
  };
  // memory_search and memory_wal run without a permission prompt: allowed by name (the server's tools), as a user would
  const args = ['-p', prompt, '--output-format', 'stream-json', '--verbose', '--include-hook-events', '--allowedTools', s.prefix.replace(/__$/, ''), ...s.args, ...extra];
  const exit = await runHost(cc!.bin, args, { cwd: s.project, env, timeoutMs: RUN_MS });
  const events: any[] = [];
  for (const line of exit.stdout.split('\n')) { if (line.trim().startsWith('{')) { try { events.push(JSON.parse(line)); } catch { /* a partial line */ } } }
  const hooks = events.filter((e) => e.type === 'system' && e.subtype === 'hook_response').map((e) => ({ name: String(e.hook_name ?? e.hook_event), exit: e.exit_code as number | undefined, stdout: String(e.stdout ?? ''), stderr: String(e.stderr ?? '') }));
  const run: HostRun = { ...exit, events, hooks, result: events.filter((e) => e.type === 'result').pop() };
  if (trace) {
    process.stderr.write(`claude -p ${JSON.stringify(prompt)}: exit ${exit.code} ${exit.signal ?? ''} in ${exit.ms} ms\n${exit.stderr}\n`);
    for (const h of hooks) process.stderr.write(`  hook ${h.name}: exit ${h.exit} stdout ${h.stdout.length} B stderr ${JSON.stringify(h.stderr)}\n`);
    for (const r of stub.requests) process.stderr.write(`  request step ${r.step} model ${r.body?.model} tools ${r.toolNames.length} text ${r.allText.length} B\n`);
    writeFileSync(join(s.base, `requests-${Date.now()}.json`), JSON.stringify(stub.requests, null, 1));
  }
  return run;
}

/** The text of the tool results in a request's last user message (what the host sends back after running a tool). */
function toolResults(r: RecordedRequest | undefined): string {
  const msgs: any[] = r?.body?.messages ?? [];
  const out: string[] = [];
  for (const m of msgs) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b?.type !== 'tool_result') continue;
      out.push(typeof b.content === 'string' ? b.content : (Array.isArray(b.content) ? b.content.map((c: any) => c?.text ?? '').join('\n') : ''));
    }
  }
  return out.join('\n');
}

const snapshots = (root: string): string[] => { try { return readdirSync(join(root, 'memory', '.snapshots')).sort(); } catch { return []; } };

/** The turn's script: load memtier's deferred MCP tools, search, record the decision, answer. */
function turnScript(prefix: string): ScriptStep[] {
  return [
    { toolCalls: [{ name: 'ToolSearch', input: { query: `select:${prefix}memory_search,${prefix}memory_wal` } }] },
    { toolCalls: [{ name: `${prefix}memory_search`, input: { query: 'kubernetes deploy' } }] },
    { toolCalls: [{ name: `${prefix}memory_wal`, input: { verb: 'decide', text: DECISION } }] },
    { text: FINAL },
  ];
}

type Setup = 'init' | 'plugin';
const SETUPS: { name: Setup; title: string }[] = [
  { name: 'init', title: '`memtier init --claude-code` in the project (.claude/settings.json hooks, .mcp.json)' },
  { name: 'plugin', title: 'the plugin in templates/claude-code/ (--plugin-dir)' },
];

/** A scratch HOME and project set up the setup's way, with the memory seeded; for 'plugin' the memory is `memtier init .` in the project. */
function makeSession(setup: Setup, opts: { memory?: boolean } = {}): Session {
  const base = tmpTree({}, 'memtier-cc-');
  const s: Session = {
    base, home: join(base, 'home'), project: join(base, 'project'), bin: scratchBin(base),
    prefix: setup === 'init' ? 'mcp__memtier__' : 'mcp__plugin_memtier_memtier__',
    args: setup === 'plugin' ? ['--plugin-dir', join(REPO, 'templates', 'claude-code')] : [],
  };
  mkdirSync(s.home, { recursive: true });
  mkdirSync(s.project, { recursive: true });
  if (opts.memory !== false) {
    // the README's steps, run in the project
    const r = memtier(s, setup === 'init' ? ['init', '--claude-code'] : ['init', '.']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(s.project, 'MEMORY.md'))).toBe(true);
    if (setup === 'init') {
      expect(existsSync(join(s.project, '.claude', 'settings.json'))).toBe(true);
      expect(JSON.parse(readFileSync(join(s.project, '.mcp.json'), 'utf8')).mcpServers.memtier).toEqual({ command: 'memtier', args: ['mcp'] });
    }
    seed(s.project);
  }
  return s;
}

/** This tree's memtier CLI as the user runs it in the session's folders (the real clock, the scratch HOME). */
function memtier(s: Session, args: string[], cwd = s.project): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'memtier.js'), ...args], { cwd, env: { PATH: `${s.bin}${delimiter}${process.env.PATH ?? ''}`, HOME: s.home, MEMTIER_GIT: 'off', ...(process.env.TZ ? { TZ: process.env.TZ } : {}) }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const memtierHooks = (run: HostRun | undefined) => (run?.hooks ?? []).filter((h) => /^(SessionStart|UserPromptSubmit|PreCompact|Stop|SessionEnd)/.test(h.name));

for (const setup of SETUPS) {
  describe(`Claude Code ${CLAUDE_CODE_VERSION}, ${setup.title}`, () => {
    let s: Session | undefined;
    let stub: AnthropicStub | undefined;
    let turn: HostRun | undefined;
    let turns: RecordedRequest[] = [];
    let leftAfterTurn: { pid: number; cmd: string }[] = [];
    let mcpAfterTurn: { pid: number; cmd: string }[] = [];
    const sid = randomUUID();

    beforeAll(async () => {
      if (!cc) return;
      s = makeSession(setup.name);
      // a test hook of our own before memtier's PreCompact: the MEMORY.md marker changes just before a compaction, so
      // the boot the model sees after it is told apart from the one the resumed session started with
      const rotate = join(s.base, 'bin', 'rotate-marker.mjs');
      writeFileSync(rotate, `import { readFileSync, writeFileSync } from 'node:fs';\nconst p = ${JSON.stringify(join(s.project, 'MEMORY.md'))};\nwriteFileSync(p, readFileSync(p, 'utf8').replace('CMARK-BEFORE', 'CMARK-AFTER'));\n`);
      mkdirSync(join(s.project, '.claude'), { recursive: true });
      writeFileSync(join(s.project, '.claude', 'settings.local.json'), JSON.stringify({ hooks: { PreCompact: [{ hooks: [{ type: 'command', command: `${JSON.stringify(process.execPath)} ${JSON.stringify(rotate)}`, timeout: 15 }] }] } }, null, 2));
      stub = await startAnthropicStub(turnScript(s.prefix), { sideText: (r) => (isCompactionRequest(r) ? `<analysis>the scripted model.</analysis>\n<summary>\n1. Primary Request and Intent: ${SUMMARY_MARK} the user asked when we deploy with kubernetes.\n</summary>` : 'ok.') });
      turn = await claude(s, stub, QUESTION, ['--session-id', sid]);
      turns = [...stub.turns];
      leftAfterTurn = await leftAfter(s.base, 'watch', 10_000);
      mcpAfterTurn = await leftAfter(s.base, 'mcp', 5_000);
    }, 300_000);

    afterAll(async () => {
      await stub?.close();
      // a watch this test's session left behind is ended here, by its pid (the assertion below has reported it)
      if (s) for (const w of [...memtierProcesses(s.base, 'watch'), ...memtierProcesses(s.base, 'mcp')]) { try { process.kill(w.pid, 'SIGTERM'); } catch { /* gone */ } }
    });

    it('the host runs the turn: exit 0, the scripted answer is the result, every memtier hook exits 0', (t) => {
      if (!turn) return t.skip(skipped);
      expect(turn.code, `${turn.stderr}\n${turn.stdout.slice(-2000)}`).toBe(0);
      expect(turn.result?.is_error, JSON.stringify(turn.result)).toBe(false);
      expect(turn.result?.result).toBe(FINAL);
      expect(stub!.errors).toEqual([]);
      expect(turns.length).toBe(4);
      const hooks = memtierHooks(turn);
      expect(hooks.map((h) => h.name.split(':')[0])).toEqual(expect.arrayContaining(['SessionStart', 'UserPromptSubmit']));
      for (const h of hooks) expect(h.exit, `${h.name}: ${h.stderr}`).toBe(0);
    });

    it("SessionStart's boot reaches the model's first request", (t) => {
      if (!turn) return t.skip(skipped);
      const first = turns[0]!.allText;
      expect(first).toContain('==> MEMORY.md <==');
      expect(first).toContain(BOOT_MARK);
      expect(first).toContain(`==> ${DAY} <==`);
    });

    it("UserPromptSubmit's recall block for the question reaches the first request, with the entry's citation", (t) => {
      if (!turn) return t.skip(skipped);
      const first = turns[0]!.allText;
      expect(first).toContain(QUESTION);
      expect(first).toContain('Relevant memory (memtier recall');
      expect(first).toContain(`deploy with kubernetes on friday (${DAY}#L1)`);
    });

    it("the model's memory_search call goes through memtier's MCP server and returns the cited entry", (t) => {
      if (!turn) return t.skip(skipped);
      expect(turns[1]!.toolNames).toEqual(expect.arrayContaining([`${s!.prefix}memory_search`, `${s!.prefix}memory_wal`]));
      const result = toolResults(turns[2]);
      expect(result).toContain(`${DAY}#L1`);
      expect(result).toContain('k8sdecide1');
      expect(result).toContain('deploy with kubernetes on friday');
    });

    it('a memory_wal decide lands in the working buffer and SESSION-STATE.md', (t) => {
      if (!turn) return t.skip(skipped);
      expect(toolResults(turns[3])).toMatch(/"ok":\s*true/);
      expect(readFileSync(join(s!.project, 'memory', 'working-buffer.md'), 'utf8')).toMatch(new RegExp(`\\[DECISION\\] ${DECISION} \\^[0-9a-z]+`));
      expect(readFileSync(join(s!.project, 'SESSION-STATE.md'), 'utf8')).toContain(DECISION);
    });

    it('Stop snapshots SESSION-STATE.md into memory/.snapshots/', (t) => {
      if (!turn) return t.skip(skipped);
      const stops = snapshots(s!.project).filter((n) => n.startsWith('stop-'));
      expect(stops.length, snapshots(s!.project).join(', ')).toBeGreaterThan(0);
      expect(readFileSync(join(s!.project, 'memory', '.snapshots', stops[stops.length - 1]!), 'utf8')).toContain(DECISION);
    });

    it('no memtier watch started by the session (nor memtier mcp) is still running after the host exits', (t) => {
      if (!turn) return t.skip(skipped);
      expect(leftAfterTurn.map((w) => `${w.pid} ${w.cmd}`)).toEqual([]);
      expect(mcpAfterTurn.map((w) => `${w.pid} ${w.cmd}`), 'memtier mcp outlived the host').toEqual([]);
    });

    it('after a compaction (/compact in the resumed session) the boot is re-injected: the next request holds the boot as it was at the compaction', async (t) => {
      if (!turn || !stub) return t.skip(skipped);
      // the state moves after the last Stop snapshot, so PreCompact has something to save
      expect(memtier(s!, ['wal', 'pending', 'check the helm chart before friday']).code).toBe(0);
      const before = snapshots(s!.project);
      stub.setScript([]);
      const sideBefore = stub.side.length;
      const compact = await claude(s!, stub, '/compact', ['--resume', sid]);
      expect(compact.code, `${compact.stderr}\n${compact.stdout.slice(-2000)}`).toBe(0);
      expect(stub.side.slice(sideBefore).some(isCompactionRequest), 'Claude Code sent no compaction request').toBe(true);
      for (const h of memtierHooks(compact)) expect(h.exit, `${h.name}: ${h.stderr}`).toBe(0);
      const pre = snapshots(s!.project).filter((n) => n.startsWith('pre-compact-') && !before.includes(n));
      expect(pre.length, snapshots(s!.project).join(', ')).toBe(1);
      expect(readFileSync(join(s!.project, 'memory', '.snapshots', pre[0]!), 'utf8')).toContain('check the helm chart before friday');
      expect(readFileSync(join(s!.project, 'MEMORY.md'), 'utf8')).toContain('CMARK-AFTER');
      // SessionStart fired again for the compaction ("compact"), with the boot of the memory as it was then
      const again = compact.hooks.find((h) => h.name === 'SessionStart:compact');
      expect(again, compact.hooks.map((h) => h.name).join(', ')).toBeDefined();
      expect(again!.stdout).toContain('CMARK-AFTER');

      // the marker changes again: what the resumed session's own SessionStart shows
      const mem = readFileSync(join(s!.project, 'MEMORY.md'), 'utf8');
      writeFileSync(join(s!.project, 'MEMORY.md'), mem.replace('CMARK-AFTER', 'CMARK-RESUMED'));
      const n = stub.turns.length;
      stub.setScript([{ text: 'Resumed.' }]);
      const resumed = await claude(s!, stub, 'What is still pending?', ['--resume', sid]);
      expect(resumed.code, `${resumed.stderr}\n${resumed.stdout.slice(-2000)}`).toBe(0);
      const next = stub.turns[n];
      expect(next, 'the resumed prompt reached no model request').toBeDefined();
      expect(next!.allText).toContain(SUMMARY_MARK);
      // CMARK-AFTER was in MEMORY.md only between the PreCompact hook and the end of the compaction run: the boot of
      // SessionStart "compact", kept in the compacted conversation. (Claude Code also keeps the boot of the /compact
      // run's own SessionStart "resume", CMARK-BEFORE, which no model request had carried yet; and this run's, CMARK-RESUMED.)
      expect(next!.allText).toContain('CMARK-AFTER');
      expect(next!.allText).toContain('CMARK-RESUMED');
      expect(await leftAfter(s!.base, 'watch', 10_000)).toEqual([]);
    }, 300_000);

    it('in a folder without a memory (HOME without one either) the prompt is answered normally: exit 0, no memtier block, each hook says why on one stderr line', async (t) => {
      if (!cc) return t.skip(skipped);
      const bare = makeSession(setup.name, { memory: false });
      if (setup.name === 'init') {
        // the project's settings as committed by a teammate who ran init; the memory itself is not there
        const from = makeSession('init');
        mkdirSync(join(bare.project, '.claude'), { recursive: true });
        copyFileSync(join(from.project, '.claude', 'settings.json'), join(bare.project, '.claude', 'settings.json'));
        copyFileSync(join(from.project, '.mcp.json'), join(bare.project, '.mcp.json'));
      }
      const stub2 = await startAnthropicStub([{ text: 'Nothing is recorded about that.' }]);
      try {
        const run = await claude(bare, stub2, QUESTION);
        expect(run.code, `${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);
        expect(run.result?.result).toBe('Nothing is recorded about that.');
        expect(stub2.turns.length).toBeGreaterThan(0);
        const first = stub2.turns[0]!.allText;
        expect(first).toContain(QUESTION);
        expect(first).not.toContain('Relevant memory (memtier recall');
        expect(first).not.toContain('==> MEMORY.md <==');
        const hooks = memtierHooks(run);
        expect(hooks.map((h) => h.name.split(':')[0])).toEqual(expect.arrayContaining(['SessionStart', 'UserPromptSubmit']));
        for (const h of hooks) {
          expect(h.exit, `${h.name}: ${h.stderr}`).toBe(0);
          expect(h.stdout).toBe('');
          const lines = h.stderr.trimEnd().split('\n');
          expect(lines.length, `${h.name}: ${h.stderr}`).toBe(1);
          expect(lines[0]).toMatch(/^memtier hook: no memory found .*the host's turn goes on without memtier$/);
        }
        expect(existsSync(join(bare.project, 'MEMORY.md'))).toBe(false);
        expect(await leftAfter(bare.base, 'watch', 5_000)).toEqual([]);
      } finally {
        await stub2.close();
      }
    }, 300_000);
  });
}

describe(`Claude Code ${CLAUDE_CODE_VERSION}, the plugin and \`memtier init --claude-code\` in one project`, () => {
  it('each hook runs once: the boot and the recall block are in the first request once, not twice', async (t) => {
    if (!cc) return t.skip(skipped);
    const s = makeSession('init');
    s.args = ['--plugin-dir', join(REPO, 'templates', 'claude-code')];
    const stub = await startAnthropicStub([{ text: FINAL }]);
    try {
      const run = await claude(s, stub, QUESTION);
      expect(run.code, `${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);
      for (const h of memtierHooks(run)) expect(h.exit, `${h.name}: ${h.stderr}`).toBe(0);
      const first = stub.turns[0]!.allText;
      const count = (needle: string): number => first.split(needle).length - 1;
      expect(count(BOOT_MARK), 'the boot').toBe(1);
      expect(count('Relevant memory (memtier recall'), 'the recall block').toBe(1);
      expect(await leftAfter(s.base, 'watch', 10_000)).toEqual([]);
    } finally {
      await stub.close();
      for (const w of [...memtierProcesses(s.base, 'watch'), ...memtierProcesses(s.base, 'mcp')]) { try { process.kill(w.pid, 'SIGTERM'); } catch { /* gone */ } }
    }
  }, 300_000);
});
