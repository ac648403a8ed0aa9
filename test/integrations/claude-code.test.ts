/**
 * Claude Code: each hook command run as Claude Code runs it — the real binary, the documented
 * hook input as JSON on standard input — and its output in the format Claude Code reads
 * (`hookSpecificOutput.additionalContext`); `init --claude-code` merging into a project's settings
 * without clobbering them; the shipped plugin folder wiring the same commands.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, runBin, tmpTree } from '../helpers.js';

const ENV = { MEMTIER_WATCH: 'off', MEMTIER_GIT: 'off' };

function memory(): string {
  const root = join(tmpTree(), 'project');
  expect(runBin(['init', root]).code).toBe(0);
  expect(runBin(['add', '--root', root, '--type', 'TECH', 'the broker runs on port 7001'], { env: ENV }).code).toBe(0);
  expect(runBin(['wal', 'task', '--root', root, 'upgrade the broker'], { env: ENV }).code).toBe(0);
  return root;
}

/** Run a hook in the project folder (Claude Code's working directory) with its input on stdin. */
const hook = (root: string, event: string, input: object, extra: string[] = [], env: NodeJS.ProcessEnv = ENV) =>
  runBin(['hook', 'claude-code', event, ...extra], { cwd: root, env, input: JSON.stringify({ session_id: 'abc123', transcript_path: '/tmp/t.jsonl', cwd: root, ...input }) });

describe('memtier hook claude-code', () => {
  it('session-start: boot as added context (found from the project folder)', () => {
    const root = memory();
    const r = hook(root, 'session-start', { hook_event_name: 'SessionStart', source: 'compact' }, ['--no-watch']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput.additionalContext).toContain('==> MEMORY.md <==');
    expect(out.hookSpecificOutput.additionalContext).toContain('upgrade the broker');
  });

  it('session-start: boot fits under the host\'s inline limit (~10,000 characters), the cuts say how to read the rest (issue 30 finding 5)', () => {
    const root = memory();
    // a MEMORY.md and a day of notes far over the limit, as months of use make them
    const index = readFileSync(join(root, 'MEMORY.md'), 'utf8') + Array.from({ length: 300 }, (_, i) => `- [topic ${i}](memory/semantic/topic-${i}.md) — what we know about subsystem ${i} and its owners`).join('\n') + '\n';
    writeFileSync(join(root, 'MEMORY.md'), index);
    const day = Array.from({ length: 400 }, (_, i) => `- 09:${String(i % 60).padStart(2, '0')} [EVENT] worked on the broker migration step ${i} with the platform team`).join('\n');
    writeFileSync(join(root, 'memory/episodic/2026-05-15.md'), `# 2026-05-15\n\n${day}\n`);
    const full = runBin(['boot', '--root', root], { env: ENV }).stdout;
    expect(full.length).toBeGreaterThan(12_000);
    const r = hook(root, 'session-start', { hook_event_name: 'SessionStart', source: 'startup' }, ['--no-watch']);
    expect(r.code, r.stderr).toBe(0);
    const ctx = JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string;
    expect(ctx.length).toBeLessThanOrEqual(9000);
    expect(ctx).toContain('==> MEMORY.md <==');
    expect(ctx).toMatch(/memtier get [^\s\]]+:\d+-/);
  });

  it('session-start without --no-watch starts memtier watch in the background; user-prompt-submit is then answered by it', async () => {
    const root = memory();
    const r = hook(root, 'session-start', { hook_event_name: 'SessionStart', source: 'startup' });
    expect(r.code, r.stderr).toBe(0);
    let running = false;
    for (let i = 0; i < 100 && !running; i++) {
      running = runBin(['watch', '--status', '--root', root], { env: ENV }).code === 0;
      if (!running) await new Promise((res) => setTimeout(res, 100));
    }
    expect(running).toBe(true);
    const served = (): number => JSON.parse(runBin(['watch', '--status', '--root', root, '--json'], { env: ENV }).stdout).requests as number;
    const before = served();
    const p = hook(root, 'user-prompt-submit', { hook_event_name: 'UserPromptSubmit', prompt: 'which port does the broker use?' }, [], { MEMTIER_GIT: 'off' });
    expect(p.code, p.stderr).toBe(0);
    expect(JSON.parse(p.stdout).hookSpecificOutput.additionalContext).toMatch(/port 7001/);
    expect(served()).toBe(before + 1);
    expect(runBin(['watch', '--stop', '--root', root], { env: ENV }).code).toBe(0);
  });

  it('a watch the sessions started stops with the last SessionEnd; one a person started stays (issue 30 finding 3)', async () => {
    const root = memory();
    const status = (): { running: boolean; sessions?: number; idleMs?: number } => {
      const r = runBin(['watch', '--status', '--root', root, '--json'], { env: ENV });
      return JSON.parse(r.stdout);
    };
    const until = async (want: boolean): Promise<void> => {
      for (let i = 0; i < 150 && status().running !== want; i++) await new Promise((res) => setTimeout(res, 100));
      expect(status().running).toBe(want);
    };
    expect(hook(root, 'session-start', { hook_event_name: 'SessionStart', source: 'startup', session_id: 'sess-one' }).code).toBe(0);
    await until(true);
    expect(status()).toMatchObject({ sessions: 1, idleMs: 30 * 60_000 });
    // a second session on the same memory joins the running server
    expect(hook(root, 'session-start', { hook_event_name: 'SessionStart', source: 'startup', session_id: 'sess-two' }).code).toBe(0);
    for (let i = 0; i < 50 && status().sessions !== 2; i++) await new Promise((res) => setTimeout(res, 100));
    expect(status().sessions).toBe(2);
    const end = (id: string) => hook(root, 'session-end', { hook_event_name: 'SessionEnd', reason: 'exit', session_id: id });
    const e1 = end('sess-one');
    expect(e1.code, e1.stderr).toBe(0);
    expect(e1.stdout).toBe('');
    expect(status()).toMatchObject({ running: true, sessions: 1 });
    expect(end('sess-two').code).toBe(0);
    await until(false);
    expect(existsSync(join(root, '.memtier/watch.json'))).toBe(false);
    // a SessionEnd with no server, or without a session id, is a no-op (exit 0, nothing printed)
    expect(end('sess-two')).toMatchObject({ code: 0, stdout: '' });
    expect(hook(root, 'session-end', { hook_event_name: 'SessionEnd', session_id: undefined })).toMatchObject({ code: 0, stdout: '' });
    // a server a person started is released, not stopped
    expect(runBin(['watch', '--detach', '--root', root], { env: ENV }).code).toBe(0);
    expect(hook(root, 'session-start', { hook_event_name: 'SessionStart', source: 'startup', session_id: 'sess-three' }).code).toBe(0);
    expect(end('sess-three').code).toBe(0);
    await new Promise((res) => setTimeout(res, 500));
    expect(status().running).toBe(true);
    expect(runBin(['watch', '--stop', '--root', root], { env: ENV }).code).toBe(0);
  }, 60_000);

  it('memtier watch --idle stops by itself after that long without a request', async () => {
    const root = memory();
    // long enough that the status below (a request: it restarts the idle time) comes in time on a loaded machine
    const r = runBin(['watch', '--detach', '--idle', '8s', '--root', root], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(runBin(['watch', '--status', '--root', root, '--json'], { env: ENV }).stdout)).toMatchObject({ running: true, idleMs: 8000 });
    let running = true;
    for (let i = 0; i < 200 && running; i++) {
      await new Promise((res) => setTimeout(res, 200));
      running = existsSync(join(root, '.memtier/watch.json'));
    }
    expect(running).toBe(false);
    expect(readFileSync(join(root, '.memtier/watch.log'), 'utf8')).toMatch(/no request for 8 s; stopping/);
    expect(runBin(['watch', '--idle', 'soon', '--root', root], { env: ENV })).toMatchObject({ code: 2 });
    expect(runBin(['watch', '--session', 'bad id!', '--root', root], { env: ENV })).toMatchObject({ code: 2 });
  }, 60_000);

  it('user-prompt-submit: the recall block for the prompt; nothing at all when nothing is relevant', () => {
    const root = memory();
    const r = hook(root, 'user-prompt-submit', { hook_event_name: 'UserPromptSubmit', prompt: 'which port does the broker use?' });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(out.hookSpecificOutput.additionalContext).toMatch(/the broker runs on port 7001 \(memory\/episodic\/2026-05-15\.md#L\d+\)/);
    const none = hook(root, 'user-prompt-submit', { hook_event_name: 'UserPromptSubmit', prompt: 'zebra quokka axolotl' });
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
  });

  it('pre-compact and stop: a snapshot of SESSION-STATE.md when it moved, no output; a bad input is said on stderr, exit 0', () => {
    const root = memory();
    const fire = (event: 'pre-compact' | 'stop'): void => {
      const r = hook(root, event, { hook_event_name: event === 'stop' ? 'Stop' : 'PreCompact', trigger: 'auto' });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
    };
    fire('pre-compact');
    fire('stop'); // the state did not move: no second file
    let snaps = readdirSync(join(root, 'memory/.snapshots')).sort();
    expect(snaps.length).toBe(1);
    expect(snaps[0]).toMatch(/^pre-compact-/);
    expect(runBin(['wal', 'pending', 'ask Ana for the quota'], { cwd: root, env: ENV }).code).toBe(0);
    fire('stop');
    snaps = readdirSync(join(root, 'memory/.snapshots')).sort();
    expect(snaps.length).toBe(2);
    expect(snaps.some((n) => n.startsWith('stop-'))).toBe(true);
    expect(readFileSync(join(root, 'memory/.snapshots', snaps.find((n) => n.startsWith('stop-'))!), 'utf8')).toContain('ask Ana for the quota');
    expect(readFileSync(join(root, 'memory/.snapshots', snaps[0]!), 'utf8')).toContain('upgrade the broker');
    const bad = runBin(['hook', 'claude-code', 'stop'], { cwd: root, env: ENV, input: 'not json' });
    expect(bad.code).toBe(0);
    expect(bad.stderr).toMatch(/not JSON/);
    expect(runBin(['hook', 'claude-code', 'nope'], { cwd: root, env: ENV, input: '{}' }).code).toBe(0);
  });

  // issue #30 finding 1: Claude Code reads exit 2 from a hook as "block" (UserPromptSubmit erases
  // the prompt; Stop refuses to stop and feeds the message to the model)
  it('never blocks the host: no memory, non-JSON input, a bad MEMTIER_NOW, an unknown event all exit 0, nothing on stdout, the reason on stderr; an unknown flag is ignored and named', () => {
    const empty = tmpTree();
    const home = tmpTree();
    const cases: { event: string; input: string; env?: NodeJS.ProcessEnv; cwd?: string; extra?: string[]; why: RegExp }[] = [
      { event: 'user-prompt-submit', input: '{"prompt":"hi"}', cwd: empty, why: /no memory/ },
      { event: 'stop', input: '{"hook_event_name":"Stop"}', cwd: empty, why: /no memory/ },
      { event: 'session-start', input: '{}', cwd: empty, why: /no memory/ },
      { event: 'user-prompt-submit', input: 'not json at all', why: /not JSON/ },
      { event: 'user-prompt-submit', input: '{"prompt":"hi"}', env: { MEMTIER_NOW: 'yesterday-ish' }, why: /MEMTIER_NOW|time/ },
      { event: 'nope', input: '{}', why: /unknown hook event/ },
    ];
    const root = memory();
    for (const c of cases) {
      const r = runBin(['hook', 'claude-code', c.event, ...(c.extra ?? [])], { cwd: c.cwd ?? root, env: { ...ENV, HOME: home, ...(c.env ?? {}) }, input: c.input });
      expect(r.code, `${c.event} ${c.input}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(c.why);
      expect(r.stderr).toMatch(/the host's turn goes on/);
    }
    // a flag this memtier does not know (a newer template's, or a typo) is ignored and named: the hook still does its job
    const flagged = runBin(['hook', 'claude-code', 'user-prompt-submit', '--no-such-flag'], { cwd: root, env: { ...ENV, HOME: home }, input: '{"prompt":"which port does the broker use?"}' });
    expect(flagged.code).toBe(0);
    expect(flagged.stderr).toMatch(/ignoring --no-such-flag/);
    expect(JSON.parse(flagged.stdout).hookSpecificOutput.additionalContext).toMatch(/port 7001/);
    // the hint for a missing memory names the command exactly (no stray space inside the quotes)
    const none = runBin(['hook', 'claude-code', 'stop'], { cwd: empty, env: { ...ENV, HOME: home }, input: '{}' });
    expect(none.stderr).toMatch(/run "memtier init" to create one/);
  });
});

describe('memtier init --claude-code', () => {
  it('merges the hooks and the MCP server into the project settings, keeping what is there; --dry-run changes nothing; a second run changes nothing', () => {
    const root = join(tmpTree(), 'project');
    mkdirSync(join(root, '.claude'), { recursive: true });
    const settings = { permissions: { allow: ['Bash(npm test)'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } };
    writeFileSync(join(root, '.claude/settings.json'), JSON.stringify(settings));
    writeFileSync(join(root, '.mcp.json'), JSON.stringify({ mcpServers: { github: { command: 'gh-mcp' } } }));
    const dry = runBin(['init', root, '--claude-code', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/\+\s+"command": "memtier hook claude-code user-prompt-submit"/);
    expect(dry.stdout).toContain('dry run: nothing changed');
    expect(JSON.parse(readFileSync(join(root, '.claude/settings.json'), 'utf8'))).toEqual(settings);
    expect(existsSync(join(root, 'MEMORY.md'))).toBe(false);

    const r = runBin(['init', root, '--claude-code', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(readFileSync(join(root, '.claude/settings.json'), 'utf8'));
    expect(s.permissions).toEqual(settings.permissions);
    expect(s.hooks.Stop.map((g: any) => g.hooks[0].command)).toEqual(['say done', 'memtier hook claude-code stop']);
    for (const e of ['SessionStart', 'UserPromptSubmit', 'PreCompact']) expect(s.hooks[e][0].hooks[0].command).toMatch(/^memtier hook claude-code /);
    const m = JSON.parse(readFileSync(join(root, '.mcp.json'), 'utf8'));
    expect(m.mcpServers).toEqual({ github: { command: 'gh-mcp' }, memtier: { command: 'memtier', args: ['mcp'] } });
    const again = JSON.parse(runBin(['init', root, '--claude-code', '--json']).stdout);
    expect(again.claudeCode.map((c: any) => c.changed)).toEqual([false, false]);

    writeFileSync(join(root, '.mcp.json'), '{ broken');
    const broken = runBin(['init', root, '--claude-code']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/\.mcp\.json: is not valid JSON/);
    expect(readFileSync(join(root, '.mcp.json'), 'utf8')).toBe('{ broken');
  });

  // issue #30 finding 4
  it('a malformed settings.json stops init before anything is written; a linked settings.json is edited at its target; the previous version is kept and named; the indentation is kept', () => {
    const root = join(tmpTree(), 'project');
    mkdirSync(join(root, '.claude'), { recursive: true });
    writeFileSync(join(root, '.claude/settings.json'), '{ "permissions": { "allow": [ } }');
    const bad = runBin(['init', root, '--claude-code']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/settings\.json: is not valid JSON/);
    expect(bad.stderr).toMatch(/nothing was changed/);
    expect(readdirSync(root).sort()).toEqual(['.claude']); // no skeleton, no .mcp.json
    expect(readdirSync(join(root, '.claude'))).toEqual(['settings.json']);
    // a dotfiles setup: the project's settings.json is a link to a file kept elsewhere
    const dotfiles = join(tmpTree(), 'dotfiles');
    mkdirSync(dotfiles);
    const mine = '{\n\t"permissions": {\n\t\t"allow": ["Bash(npm test)"]\n\t}\n}\n';
    writeFileSync(join(dotfiles, 'claude-settings.json'), mine);
    rmSync(join(root, '.claude/settings.json'));
    symlinkSync(join(dotfiles, 'claude-settings.json'), join(root, '.claude/settings.json'));
    const r = runBin(['init', root, '--claude-code', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(join(root, '.claude/settings.json')).isSymbolicLink()).toBe(true);
    const after = readFileSync(join(dotfiles, 'claude-settings.json'), 'utf8');
    expect(JSON.parse(after).hooks.SessionStart[0].hooks[0].command).toBe('memtier hook claude-code session-start');
    expect(after).toMatch(/\n\t"permissions": \{\n\t\t"allow"/); // tabs, as the person wrote it
    expect(readFileSync(join(dotfiles, 'claude-settings.json.memtier-backup'), 'utf8')).toBe(mine);
    const j = JSON.parse(r.stdout);
    expect(j.claudeCode[0]).toMatchObject({ changed: true, target: join(realpathSync(dotfiles), 'claude-settings.json'), backup: expect.stringMatching(/claude-settings\.json\.memtier-backup$/) });
    const text = runBin(['init', join(tmpTree(), 'other'), '--claude-code']);
    expect(text.code).toBe(0);
    // a new file needs no backup; a changed one names it in the text output
    writeFileSync(join(root, '.mcp.json'), '{"mcpServers": {}}');
    const again = runBin(['init', root, '--claude-code']);
    expect(again.stdout).toMatch(/claude code: updated \S*\.mcp\.json \(the previous version saved as \S*\.mcp\.json\.memtier-backup\)/);
  });

  // issue #30 finding 2: with no DIR it used the resolved root (~/.openclaw/workspace) and left the project untouched
  it('run in a project without DIR (as the README says), it sets up the project folder, not a memory found elsewhere', () => {
    const home = tmpTree();
    const workspace = join(home, '.openclaw/workspace');
    expect(runBin(['init', workspace]).code).toBe(0);
    const before = readdirSync(workspace).sort();
    const project = join(tmpTree(), 'project');
    mkdirSync(project);
    for (const flag of ['--claude-code', '--codex']) {
      const r = runBin(['init', flag, '--json'], { cwd: project, env: { HOME: home, MEMTIER_GIT: 'off' } });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).root).toBe(project);
    }
    expect(existsSync(join(project, 'MEMORY.md'))).toBe(true);
    expect(existsSync(join(project, '.claude/settings.json'))).toBe(true);
    expect(existsSync(join(project, '.mcp.json'))).toBe(true);
    expect(readdirSync(workspace).sort()).toEqual(before);
    expect(existsSync(join(workspace, '.claude'))).toBe(false);
  });

  it('--codex prints the config.toml entry and the AGENTS.md section for the memory', () => {
    const root = join(tmpTree(), 'mem');
    const r = runBin(['init', root, '--codex', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.codex.configToml).toContain(`args = ["mcp", "--root", '${root}']`);
    expect(j.codex.agentsMd).toContain('memory_search');
  });
});

describe('memtier init --openclaw', () => {
  it('installs the skill in OpenClaw\'s AgentSkills format into the workspace, never over another, and points at the gateway jobs', () => {
    const root = join(tmpTree(), 'workspace');
    const r = runBin(['init', root, '--openclaw', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).openclaw).toEqual({ skill: 'skills/memtier/SKILL.md', written: true });
    const skill = readFileSync(join(root, 'skills/memtier/SKILL.md'), 'utf8');
    expect(skill).toBe(readFileSync(join(REPO, 'templates/openclaw/SKILL.md'), 'utf8'));
    const front = /^---\n([\s\S]*?)\n---\n/.exec(skill)![1]!;
    expect(front).toMatch(/^name: memtier$/m);
    expect(front).toMatch(/^description: .{40,}$/m);
    const meta = JSON.parse(/^metadata: (.*)$/m.exec(front)![1]!);
    expect(meta.openclaw.requires.bins).toEqual(['memtier']);
    for (const step of ['memtier boot', 'memtier wal decide', 'memtier search', 'memtier get']) expect(skill).toContain(step);
    writeFileSync(join(root, 'skills/memtier/SKILL.md'), '---\nname: memtier\ndescription: my own\n---\n');
    const again = runBin(['init', root, '--openclaw']);
    expect(again.stdout).toMatch(/exists and differs from memtier's; kept/);
    expect(readFileSync(join(root, 'skills/memtier/SKILL.md'), 'utf8')).toContain('my own');
    expect(again.stdout).toContain('memtier cron --openclaw');
  });
});

describe('the plugin folder templates/claude-code', () => {
  it('its hooks stand down where init --claude-code already put memtier\'s hooks in the settings: no event runs twice (issue 30 finding 4)', () => {
    const root = memory();
    const prompt = { hook_event_name: 'UserPromptSubmit', prompt: 'which port does the broker use?', cwd: root };
    // the plugin alone: it answers
    const alone = hook(root, 'user-prompt-submit', prompt, ['--plugin']);
    expect(alone.code, alone.stderr).toBe(0);
    expect(JSON.parse(alone.stdout).hookSpecificOutput.additionalContext).toMatch(/port 7001/);
    // the project set up with init --claude-code too: the settings' hook answers, the plugin's is silent
    expect(runBin(['init', root, '--claude-code']).code).toBe(0);
    const settings = readFileSync(join(root, '.claude/settings.json'), 'utf8');
    expect(settings).toContain('"memtier hook claude-code user-prompt-submit"');
    expect(settings).not.toContain('--plugin');
    const both = hook(root, 'user-prompt-submit', prompt, ['--plugin']);
    expect(both).toMatchObject({ code: 0, stdout: '' });
    const viaSettings = hook(root, 'user-prompt-submit', prompt);
    expect(JSON.parse(viaSettings.stdout).hookSpecificOutput.additionalContext).toMatch(/port 7001/);
    const start = hook(root, 'session-start', { hook_event_name: 'SessionStart', source: 'startup', cwd: root }, ['--plugin', '--no-watch']);
    expect(start).toMatchObject({ code: 0, stdout: '' });
  });

  it('wires the five hook commands and the MCP server, and ships the skill', () => {
    const dir = join(REPO, 'templates/claude-code');
    expect(JSON.parse(readFileSync(join(dir, '.claude-plugin/plugin.json'), 'utf8')).name).toBe('memtier');
    const hooks = JSON.parse(readFileSync(join(dir, 'hooks/hooks.json'), 'utf8')).hooks;
    expect(Object.keys(hooks).sort()).toEqual(['PreCompact', 'SessionEnd', 'SessionStart', 'Stop', 'UserPromptSubmit']);
    const cmds = Object.values(hooks).map((g: any) => g[0].hooks[0].command);
    expect(cmds.sort()).toEqual(['pre-compact', 'session-end', 'session-start', 'stop', 'user-prompt-submit'].map((e) => `memtier hook claude-code ${e} --plugin`));
    expect(JSON.parse(readFileSync(join(dir, '.mcp.json'), 'utf8')).mcpServers.memtier).toEqual({ command: 'memtier', args: ['mcp'] });
    expect(readFileSync(join(dir, 'skills/memtier/SKILL.md'), 'utf8')).toBe(readFileSync(join(REPO, 'templates/SKILL.md'), 'utf8'));
  });
});
