/** The MCP tests' client: the real SDK's, talking to `memtier mcp --root ROOT` over stdio (the built binary). */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, FIXED_NOW } from '../helpers.js';

/** A connected client of a new `memtier mcp` server for `root` (the fixed clock, UTC, no git). */
export async function connectMcp(root: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--root', root],
    env: { PATH: process.env.PATH ?? '', HOME: root, MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'memtier-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
