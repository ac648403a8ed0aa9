/**
 * Issue #30, finding 6 (the server's part): `memtier mcp` answers `initialize` at once. It built
 * the index before reading its first message (14.5 s at 10,000 notes, and Codex gives up after
 * 10 s); now the build runs beside the protocol: `initialize` and `tools/list` are answered
 * before the build ends (asserted by order, against the build's own "indexed memory" log line,
 * not by a time), and a search sent meanwhile waits for the index and answers from it, with the
 * build's progress sent to a call that asks for it (a progressToken).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { BIN, FIXED_NOW, runCli, tmpTree } from '../helpers.js';

/** Notes enough for the build to take a while on any machine (seconds here; the order is what is asserted). */
const NOTES = 3000;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike', 'november', 'oscar', 'papa'];

let root: string;
let client: Client | undefined;
const events: string[] = [];
let stderr = '';

beforeAll(async () => {
  root = join(tmpTree(), 'mem');
  const init = await runCli(['init', root]);
  expect(init.code, init.stderr).toBe(0);
  const add = await runCli(['add', '--root', root, '--type', 'EVENT', 'visited the zeppelin hangar in Friedrichshafen']);
  expect(add.code, add.stderr).toBe(0);
  mkdirSync(join(root, 'knowledge/notes'), { recursive: true });
  for (let i = 0; i < NOTES; i++) {
    let s = `# Note ${i}\n\n`;
    for (let j = 0; j < 12; j++) s += `- [${j % 2 ? 'TECH' : 'PROJ'}] ${Array.from({ length: 14 }, (_, k) => `${WORDS[(i * 7 + j * 3 + k * 5) % 16]}${(i + j + k) % 97}`).join(' ')}\n`;
    writeFileSync(join(root, `knowledge/notes/n${i}.md`), s);
  }
}, 60_000);

afterAll(async () => {
  await client?.close();
});

describe('memtier mcp starts serving before its index is built', () => {
  it('answers initialize and tools/list before the build ends; a search sent meanwhile waits for the index, with progress', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--root', root],
      // progress from the build's first file, so a build of any length logs its end ("indexed memory: …")
      env: { PATH: process.env.PATH ?? '', HOME: root, MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off', MEMTIER_PROGRESS_AFTER_MS: '0' },
      stderr: 'pipe',
    });
    transport.stderr!.on('data', (d: Buffer) => {
      stderr += String(d);
      if (/indexed memory: [\d,]+ files/.test(stderr) && !events.includes('built')) events.push('built');
    });
    client = new Client({ name: 'memtier-test', version: '1.0.0' });
    await client.connect(transport);
    events.push('initialized');
    const { tools } = await client.listTools();
    events.push('listed');
    expect(tools.map((t) => t.name)).toContain('memory_search');

    const progress: Progress[] = [];
    const beforeBuilt = !events.includes('built');
    const r = (await client.callTool({ name: 'memory_search', arguments: { query: 'zeppelin hangar' } }, undefined, { onprogress: (p) => progress.push(p) })) as { content: { text: string }[]; isError?: boolean };
    events.push('searched');
    expect(r.isError, r.content[0]!.text).toBeFalsy();
    expect(JSON.parse(r.content[0]!.text).results[0].text).toBe('visited the zeppelin hangar in Friedrichshafen');

    for (let i = 0; i < 100 && !events.includes('built'); i++) await new Promise((res) => setTimeout(res, 100));
    expect(events, stderr).toContain('built');
    // the order, not a time: the answers came while the index was still being built
    expect(events.indexOf('initialized'), events.join(' < ')).toBeLessThan(events.indexOf('built'));
    expect(events.indexOf('listed'), events.join(' < ')).toBeLessThan(events.indexOf('built'));
    // the search answered from the built index, after the build
    expect(events.indexOf('searched')).toBeGreaterThan(events.indexOf('built'));
    if (beforeBuilt) {
      expect(progress.length, 'progress notifications for a search that waited for the build').toBeGreaterThan(0);
      const last = progress[progress.length - 1]!;
      expect(last.total).toBeGreaterThan(NOTES);
      expect(last.progress).toBe(last.total);
      for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    }
    // the next call is served warm, without waiting
    const again = (await client.callTool({ name: 'memory_search', arguments: { query: 'alpha1 bravo2' } })) as { isError?: boolean };
    expect(again.isError).toBeFalsy();
  });
});
