/**
 * Issue #31 finding 6: with memtier in OpenClaw's memory slot, memory-core keeps its dreaming job
 * (03:00, writing MEMORY.md, DREAMS.md and memory/dreaming/) and its conflicting tools unless it is
 * disabled. memtier reads OpenClaw's config (JSON5, as OpenClaw reads it) and says how to turn it
 * off: adopt in the workspace, and the plugin once at gateway start (test/openclaw/gateway.test.ts
 * shows it in a real gateway, with the job there and gone after the command).
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DISABLE_MEMORY_CORE, memoryCoreAdvice, memoryCoreState, openclawConfigPath } from '../../lib/openclaw/host-config.js';
import { runCli, tmpTree } from '../helpers.js';
import { makeWorkspace } from '../e2e/openclaw-workspace.js';

describe('memory-core beside memtier', () => {
  it('reads the state from the config: memtier in the slot, memory-core enabled unless said otherwise, dreaming on by default', () => {
    const slot = { plugins: { slots: { memory: 'memtier' }, entries: { memtier: { enabled: true } } } };
    expect(memoryCoreState(slot)).toEqual({ memtierInSlot: true, memoryCoreEnabled: true, dreaming: true });
    expect(memoryCoreAdvice(memoryCoreState(slot))).toContain(DISABLE_MEMORY_CORE);
    expect(memoryCoreAdvice(memoryCoreState(slot))).toMatch(/Memory Dreaming Promotion/);
    const off = { plugins: { slots: { memory: 'memtier' }, entries: { 'memory-core': { enabled: false } } } };
    expect(memoryCoreAdvice(memoryCoreState(off))).toBeUndefined();
    const denied = { plugins: { slots: { memory: 'memtier' }, deny: ['memory-core'] } };
    expect(memoryCoreAdvice(memoryCoreState(denied))).toBeUndefined();
    // dreaming off: the tool conflict is still worth saying, the dreaming part is not
    const quiet = { plugins: { slots: { memory: 'memtier' }, entries: { 'memory-core': { config: { dreaming: { enabled: false } } } } } };
    expect(memoryCoreAdvice(memoryCoreState(quiet))).not.toMatch(/Dreaming/);
    expect(memoryCoreAdvice(memoryCoreState(quiet))).toMatch(/name conflict/);
    // memory-core in its own slot (memtier not installed): nothing to say, unless the slot is about to change
    const own = { plugins: { slots: { memory: 'memory-core' } } };
    expect(memoryCoreAdvice(memoryCoreState(own))).toBeUndefined();
    expect(memoryCoreAdvice(memoryCoreState(own), { slotPending: true })).toContain(DISABLE_MEMORY_CORE);
    expect(memoryCoreAdvice(memoryCoreState(undefined))).toBeUndefined();
  });

  it('finds the config where OpenClaw does', () => {
    expect(openclawConfigPath({ HOME: '/h' })).toBe('/h/.openclaw/openclaw.json');
    expect(openclawConfigPath({ HOME: '/h', OPENCLAW_STATE_DIR: '~/state' })).toBe('/h/state/openclaw.json');
    expect(openclawConfigPath({ HOME: '/h', OPENCLAW_CONFIG_PATH: '/etc/oc.json5', OPENCLAW_STATE_DIR: '/s' })).toBe('/etc/oc.json5');
  });

  it('adopt in a workspace whose OpenClaw config (JSON5, comments and trailing commas) runs memory-core beside memtier says how to turn it off', { timeout: 60_000 }, async () => {
    const root = makeWorkspace();
    const home = tmpTree();
    mkdirSync(join(home, '.openclaw'));
    writeFileSync(join(home, '.openclaw', 'openclaw.json'), `// written by openclaw onboard\n{\n  plugins: {\n    slots: { memory: "memtier", },\n    entries: { memtier: { enabled: true, config: { root: ${JSON.stringify(root)} } }, },\n  },\n}\n`);
    const env = { HOME: home, MEMTIER_NOW: '2026-11-24T10:00:00Z', MEMTIER_TZ: 'UTC' };
    expect((await runCli(['init', root], { env })).code).toBe(0);
    const a = await runCli(['adopt', '--root', root, '--json'], { env });
    expect(a.code, a.stderr).toBe(0);
    const j = JSON.parse(a.stdout);
    expect(j.memoryCore).toMatchObject({ config: join(home, '.openclaw', 'openclaw.json'), command: DISABLE_MEMORY_CORE });
    const t = await runCli(['adopt', '--root', root, '--dry-run'], { env });
    expect(t.stdout).toMatch(/^openclaw: OpenClaw's memory-core still runs beside memtier: .* Turn it off: openclaw plugins disable memory-core, then remove the job it made \(disabling leaves it scheduled\): openclaw cron rm .*$/m);
    // init --openclaw says it too (memtier about to take the slot)
    const i = await runCli(['init', root, '--openclaw', '--json'], { env });
    expect(JSON.parse(i.stdout).openclaw.memoryCore.command).toBe(DISABLE_MEMORY_CORE);
    // disabled: adopt says nothing of it
    writeFileSync(join(home, '.openclaw', 'openclaw.json'), JSON.stringify({ plugins: { slots: { memory: 'memtier' }, entries: { 'memory-core': { enabled: false } } } }));
    expect(JSON.parse((await runCli(['adopt', '--root', root, '--json'], { env })).stdout).memoryCore).toBeUndefined();
  });
});
