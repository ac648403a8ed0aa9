/**
 * Issue #30, finding 8: `memtier mcp` has the tools to correct (memory_supersede), forget
 * (memory_forget) and list recent activity (memory_recent), with the CLI's guards (they run
 * `memtier supersede` and `memtier forget`: unknown or ambiguous references, secrets, paths out of
 * the memory are refused), and MCP prompts for the protocol (boot, write-before-answering).
 * Through the MCP SDK's own client, on the real binary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp } from './kit.js';
import { BIN, FIXED_NOW, runCli, tmpTree } from '../helpers.js';

let root: string;
let client: Client;

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };
const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolResult> => (await client.callTool({ name, arguments: args })) as ToolResult;
const text = (r: ToolResult): string => r.content[0]!.text;
const json = (r: ToolResult): any => JSON.parse(text(r));
const search = async (query: string): Promise<{ text: string; id?: string }[]> => json(await call('memory_search', { query })).results;

beforeAll(async () => {
  root = join(tmpTree(), 'mem');
  const init = await runCli(['init', root]);
  expect(init.code, init.stderr).toBe(0);
  // FIXED_NOW is 2026-05-15: two earlier days in the week, one day long before
  writeFileSync(join(root, 'memory/episodic/2026-05-13.md'), '# 2026-05-13\n\n- 09:10 [DECISION] ship the billing service on Fridays only ^dec0513a\n- 11:00 [EVENT] met Priya about the launch ^evt0513b\n');
  writeFileSync(join(root, 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 16:45 [TECH] the staging cluster lives in fra1 ^tec0514a\n');
  writeFileSync(join(root, 'memory/episodic/2026-04-01.md'), '# 2026-04-01\n\n- 10:00 [EVENT] an old day outside the week ^old0401a\n');
  writeFileSync(join(root, 'memory/semantic/infrastructure.md'), '# Infrastructure\n\n- [TECH] the broker runs on port 7001 ^brk7001a\n- [TECH] the cache is Redis ^cache01a\n');
  // a note last changed on 2026-05-14 (the clock is fixed; the file's time is set to match)
  writeFileSync(join(root, 'knowledge/launch.md'), '# Launch\n\n- [PROJ] the launch is on June 2\n');
  const t = new Date('2026-05-14T12:00:00Z');
  utimesSync(join(root, 'knowledge/launch.md'), t, t);
  client = await connectMcp(root);
});

afterAll(async () => {
  await client?.close();
});

describe('the editing tools', () => {
  it('are listed with truthful annotations and their arguments', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.memory_forget!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.memory_supersede!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.memory_recent!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.memory_forget!.inputSchema.required).toEqual(['entry']);
    expect(byName.memory_supersede!.inputSchema.required?.sort()).toEqual(['by', 'entry']);
    for (const n of ['memory_forget', 'memory_supersede', 'memory_recent']) expect(byName[n]!.description!.length, n).toBeGreaterThan(120);
  });

  it('memory_supersede corrects a fact as "memtier supersede": the old one struck through, the new one found', async () => {
    const r = await call('memory_supersede', { entry: '^cache01a', by: 'the cache is Valkey since May' });
    expect(r.isError, text(r)).toBeFalsy();
    expect(json(r).changed).toBe(true);
    const note = readFileSync(join(root, 'memory/semantic/infrastructure.md'), 'utf8');
    expect(note).toMatch(/~~.*the cache is Redis.*~~ superseded by \^/);
    expect(note).toContain('the cache is Valkey since May');
    expect((await search('cache Valkey'))[0]!.text).toContain('Valkey');
    // again: nothing changes
    const again = await call('memory_supersede', { entry: '^cache01a', by: 'the cache is Valkey since May' });
    expect(again.isError, text(again)).toBeFalsy();
    expect(json(again).changed).toBe(false);
  });

  it('memory_supersede keeps the CLI\'s guards: a secret, an unknown entry, an empty text are refused and nothing is written', async () => {
    const before = readFileSync(join(root, 'memory/semantic/infrastructure.md'), 'utf8');
    const secret = await call('memory_supersede', { entry: '^brk7001a', by: 'the broker token is ghp_0123456789abcdefghijABCDEFGHIJ012345' });
    expect(secret.isError).toBe(true);
    expect(text(secret)).toMatch(/secret|credential|token/i);
    expect(text(secret)).not.toContain('ghp_0123456789abcdefghij');
    const unknown = await call('memory_supersede', { entry: '^nosuch999', by: 'x' });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/^memtier: .*nosuch999/);
    const empty = await call('memory_supersede', { entry: '^brk7001a', by: '' });
    expect(empty.isError).toBe(true);
    expect(readFileSync(join(root, 'memory/semantic/infrastructure.md'), 'utf8')).toBe(before);
  });

  it('memory_forget moves an entry to the trash as "memtier forget": dry_run first, then gone from search', async () => {
    expect((await search('Priya launch'))[0]!.text).toContain('met Priya');
    const dry = await call('memory_forget', { entry: '^evt0513b', dry_run: true });
    expect(dry.isError, text(dry)).toBeFalsy();
    expect(readFileSync(join(root, 'memory/episodic/2026-05-13.md'), 'utf8')).toContain('met Priya');
    const r = await call('memory_forget', { entry: '^evt0513b' });
    expect(r.isError, text(r)).toBeFalsy();
    expect(json(r).changed).toBe(true);
    expect(readFileSync(join(root, 'memory/episodic/2026-05-13.md'), 'utf8')).not.toContain('met Priya');
    const trash = join(root, 'memory/.trash/forgotten');
    expect(existsSync(trash) && readdirSync(trash).some((f) => readFileSync(join(trash, f), 'utf8').includes('met Priya'))).toBe(true);
    expect((await search('Priya launch')).map((x) => x.text).join('\n')).not.toContain('met Priya');
    // forgetting it again changes nothing
    const again = await call('memory_forget', { entry: '^evt0513b' });
    expect(again.isError, text(again)).toBeFalsy();
    expect(json(again).changed).toBe(false);
  });

  it('memory_forget refuses what is no entry of the memory', async () => {
    for (const entry of ['^nosuch999', '../../etc/passwd:1', '/etc/passwd:1', 'memory/../../x.md#L1', '--purge']) {
      const r = await call('memory_forget', { entry });
      expect(r.isError, `${entry}: ${text(r)}`).toBe(true);
      expect(text(r)).toMatch(/^memtier: /);
    }
  });
});

describe('memory_recent', () => {
  it('lists what changed lately by day, newest first: each day\'s entries and the files changed that day', async () => {
    const r = await call('memory_recent', {});
    expect(r.isError, text(r)).toBeFalsy();
    const j = json(r);
    expect(j.today).toBe('2026-05-15');
    expect(j.since).toBe('2026-05-09');
    const days = j.days.map((d: { day: string }) => d.day);
    expect(days).toEqual([...days].sort().reverse());
    expect(days).not.toContain('2026-04-01');
    const d13 = j.days.find((d: { day: string }) => d.day === '2026-05-13');
    expect(d13.entries.map((e: { text: string }) => e.text)).toEqual(['ship the billing service on Fridays only']);
    expect(d13.entries[0]).toMatchObject({ time: '09:10', type: 'DECISION', id: 'dec0513a', cite: 'memory/episodic/2026-05-13.md#L3' });
    const d14 = j.days.find((d: { day: string }) => d.day === '2026-05-14');
    expect(d14.entries[0]).toMatchObject({ type: 'TECH', text: 'the staging cluster lives in fra1' });
    // a file is listed on the day of its last change
    expect(d14.files).toEqual(['knowledge/launch.md']);
    expect(d14.fileCount).toBe(1);
    expect(JSON.stringify(j)).not.toContain('an old day outside the week');
  });

  it('days narrows the span; limit caps each day\'s lists while the counts stay whole', async () => {
    const one = json(await call('memory_recent', { days: 2 }));
    expect(one.since).toBe('2026-05-14');
    expect(one.days.map((d: { day: string }) => d.day).every((d: string) => d >= '2026-05-14')).toBe(true);
    writeFileSync(join(root, 'memory/episodic/2026-05-12.md'), `# 2026-05-12\n\n${Array.from({ length: 5 }, (_, i) => `- 1${i}:00 [EVENT] event number ${i}\n`).join('')}`);
    const capped = json(await call('memory_recent', { days: 7, limit: 2 }));
    const d12 = capped.days.find((d: { day: string }) => d.day === '2026-05-12');
    expect(d12.entryCount).toBe(5);
    expect(d12.entries.map((e: { text: string }) => e.text)).toEqual(['event number 4', 'event number 3']);
    const bad = await call('memory_recent', { days: 1000 });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/more than 90 days at days/);
  });
});

describe('prompts', () => {
  it('lists boot and write-before-answering', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['boot', 'write-before-answering']);
    for (const p of prompts) expect(p.description!.length, p.name).toBeGreaterThan(60);
  });

  it('boot is what "memtier boot" prints: MEMORY.md and the session state', async () => {
    const p = await client.getPrompt({ name: 'boot' });
    const t = (p.messages[0]!.content as { type: string; text: string }).text;
    expect(p.messages[0]!.role).toBe('user');
    expect(t).toContain('==> MEMORY.md <==');
    expect(t).toContain(readFileSync(join(root, 'MEMORY.md'), 'utf8').split('\n')[0]!);
    const cli = await runCli(['boot', '--root', root, '--json']);
    expect(t).toContain(JSON.parse(cli.stdout).text.trim().slice(0, 200));
  });

  it('write-before-answering is the protocol: search first, memory_wal before answering, no secrets', async () => {
    const p = await client.getPrompt({ name: 'write-before-answering' });
    const t = (p.messages[0]!.content as { type: string; text: string }).text;
    expect(t).toMatch(/memory_search first/);
    expect(t).toMatch(/memory_wal/);
    expect(t).toMatch(/before you answer/i);
    expect(t).toMatch(/never store secrets/i);
  });
});
