/**
 * Memtier commands run inside a long-running host (the MCP server, the OpenClaw plugin): each is
 * the CLI's own main() with `--json` on a warm memory (warm.ts), so a host's tool answers exactly
 * what the command would, with the same validation, store guards and git commit. Calls run one at
 * a time, in order, and each first waits until every change made before it is seen (never stale).
 */
import type { Main } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { textStream } from './protocol.js';
import type { WarmMemory } from './warm.js';

/** One memtier command: its argv (the command name first, without --root/--json) and what it reads on stdin. */
export interface Invocation { argv: string[]; stdin?: string }

export interface CommandOutcome {
  /** memtier's --json output (an object), or the error it printed. */
  json: Record<string, unknown>;
  /** memtier's exit code: 0 ok, 1 findings (health), 2 an error. */
  code: number;
}

export interface CommandRunner {
  run(inv: Invocation): Promise<CommandOutcome>;
  /** Resolves when every queued command finished. */
  idle(): Promise<void>;
}

export function commandRunner(ctx: Ctx, main: Main, warm: Pick<WarmMemory, 'sync'> | undefined): CommandRunner {
  let queue: Promise<unknown> = Promise.resolve();
  const run = (inv: Invocation): Promise<CommandOutcome> => {
    const next = queue.then(async () => {
      await warm?.sync();
      let out = '';
      const sink = { write: (t: string) => { out += t; return true; }, isTTY: false };
      const quiet = { write: () => true, isTTY: false };
      const stdin = inv.stdin === undefined ? undefined : textStream(inv.stdin);
      const code = await main({ argv: [...inv.argv.slice(0, 1), '--root', ctx.root, '--json', ...inv.argv.slice(1)], env: ctx.env, cwd: ctx.root, stdout: sink, stderr: quiet, ...(stdin ? { stdin } : {}) });
      let json: Record<string, unknown>;
      try { json = JSON.parse(out) as Record<string, unknown>; } catch { json = { ok: code === 0, output: out }; }
      return { json, code };
    });
    queue = next.catch(() => undefined);
    return next;
  };
  return { run, idle: async () => { await queue; } };
}

/** memtier's error (its --json error object) as one message for a model: what, where, which rule, the fix. */
export function describeError(json: Record<string, unknown>): string {
  const e = (json.error ?? {}) as { message?: string; file?: string; line?: number; rule?: string; hint?: string };
  const where = e.file ? `${e.file}${e.line ? `:${e.line}` : ''}: ` : '';
  return `memtier: ${where}${e.message ?? 'failed'}${e.rule ? ` [${e.rule}]` : ''}${e.hint ? `\nfix: ${e.hint}` : ''}`;
}
