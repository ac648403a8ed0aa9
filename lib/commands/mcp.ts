import type { Args, CommandResult, CommandSpec, Io } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { version } from '../core/version.js';

export const command: CommandSpec = {
  name: 'mcp',
  summary: 'serve the memory to an MCP client over stdio (Claude Code, Codex, …)',
  usage: ['mcp'],
  description: [
    'Runs a Model Context Protocol server on standard input and output until the client closes it.',
    'Tools: memory_search, memory_get, memory_recall, memory_recent (what changed lately, by day) and',
    'memory_health (read-only); memory_write (a typed entry, as "memtier add"), memory_wal (task, decide,',
    'context, pending, done, blocker, get), memory_supersede (as "memtier supersede ENTRY --by TEXT") and',
    'memory_forget (as "memtier forget ENTRY": to the trash). Resources: MEMORY.md, SESSION-STATE.md and any',
    'memory file as memtier:///PATH (a missing file or a path that is no memory file is an error). Prompts:',
    'boot (what "memtier boot" prints) and write-before-answering (the protocol). Each tool but memory_recent',
    'runs the memtier command of the same name with --json, so validation, the refusal of secrets and paths',
    'outside the memory, and the git commit are the CLI\'s; arguments outside a tool\'s schema (a date that is',
    'no day of the calendar, a query over 4,096 characters, …) are refused naming the argument and the rule.',
    'An error comes back as a tool error with memtier\'s message and fix, and the server goes on.',
    'It answers at once: the first index build runs on a worker thread, and a tool call arriving meanwhile',
    'waits for it (with notifications/progress when the call carries a progressToken). The index stays warm',
    'in the server and is never stale: a change made before a call (by memtier, a person or another process)',
    'is in its answer. Register it with a client as command "memtier", args ["mcp"] (add "--root", "DIR" for a',
    'memory other than the one found from the working folder).',
    'Standard output carries the protocol only; messages go to standard error.',
  ].join('\n'),
  flags: [],
  examples: [
    'claude mcp add memtier -- memtier mcp --root ~/memory',
    'codex: [mcp_servers.memtier] command = "memtier", args = ["mcp", "--root", \'/home/me/memory\'], startup_timeout_sec = 30 in ~/.codex/config.toml (memtier init --codex prints it)',
  ],
  async run(ctx: Ctx, _args: Args, io: Io): Promise<CommandResult> {
    if (!io.main) throw new MemtierError('mcp needs the CLI entry to run its tools', { code: 'internal', hint: 'run it as "memtier mcp"' });
    const { startMcp } = await import('../mcp/server.js');
    const server = await startMcp(ctx, io.main, io, { version: version() });
    ctx.log.info(`memtier mcp: serving ${ctx.root} on stdio`);
    await server.closed;
    // standard output belongs to the protocol: nothing is printed when the client leaves
    return {};
  },
};
