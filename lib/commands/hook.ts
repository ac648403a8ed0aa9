/**
 * `memtier hook claude-code EVENT`: what an agent host's lifecycle hooks run. Reads the host's hook
 * input (JSON on standard input, as Claude Code sends it) and prints what the host expects back:
 *
 *   session-start        boot (what to reload) as added context; starts `memtier watch` for the session when
 *                        none runs (it stops with the session's SessionEnd, or after 30 idle minutes)
 *   user-prompt-submit   the recall block for the prompt as added context (nothing when nothing is relevant),
 *                        answered by the memory's memtier watch when one runs (warm), else here
 *   pre-compact, stop    a WAL snapshot of SESSION-STATE.md (the state survives what comes next)
 *   session-end          releases the session's `memtier watch` (a server the host started stops with its last session)
 *
 * Each step is the code of the memtier command of the same job (boot, recall, wal snapshot, watch
 * --detach), so the hook's answer is the command's. A hook never blocks the host: a failure is
 * reported on standard error and the hook still exits 0 with whatever it could give.
 */
import type { Args, CommandResult, CommandSpec, Io } from '../cli/spec.js';
import { flagBool } from '../cli/spec.js';
import { readStdin } from '../cli/stdin.js';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBin } from '../core/bin.js';
import type { Ctx } from '../core/context.js';
import { localStamp } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { quoteInput } from '../store/guards/secrets.js';
import { recall } from '../search/recall.js';
import { delegate } from '../watch/client.js';
import { ask, HOLD_SESSION_RE, trustedWatchInfo } from '../watch/protocol.js';
import { boot } from './boot.js';
import { saveSnapshot } from './wal.js';

export const HOSTS = ['claude-code'] as const;
export const EVENTS = ['session-start', 'user-prompt-submit', 'pre-compact', 'stop', 'session-end'] as const;
type Event = (typeof EVENTS)[number];

/** Claude Code's names of the events (hookEventName). */
const CLAUDE_EVENT: Record<Event, string> = { 'session-start': 'SessionStart', 'user-prompt-submit': 'UserPromptSubmit', 'pre-compact': 'PreCompact', stop: 'Stop', 'session-end': 'SessionEnd' };

/**
 * SessionStart's boot budget: hosts show hook output over about 10,000 characters as a preview
 * (the rest in a file the model may never open), so boot is cut to fit under it; every cut names
 * the lines left out and how to read them (memtier get / memory_get PATH:FROM-TO).
 */
export const HOOK_BOOT_CHARS = 9000;

/** How long a watch a session started waits without a request before it stops (a host that died never sends SessionEnd). */
export const HOST_WATCH_IDLE = '30m';

interface HookInput { prompt?: string; source?: string; trigger?: string; session_id?: string; cwd?: string }

/**
 * The Claude Code settings file that already runs memtier's hooks (`init --claude-code` put them
 * there), if any: the project's .claude/settings.json or settings.local.json, or the user's
 * ~/.claude/settings.json. The plugin's hooks then stand down, so each event runs once.
 */
function settingsRunningHooks(project: string, env: NodeJS.ProcessEnv): string | undefined {
  const files = [join(project, '.claude/settings.json'), join(project, '.claude/settings.local.json')];
  const home = env.HOME;
  if (home) files.push(join(home, '.claude/settings.json'));
  for (const f of files) {
    let text: string;
    try { text = readFileSync(f, 'utf8'); } catch { continue; }
    if (/memtier hook claude-code (?!.*--plugin)/.test(text)) return f;
  }
  return undefined;
}

/** The hook input's session id when it can name a hold (HOLD_SESSION_RE), else undefined. */
function sessionOf(input: HookInput): string | undefined {
  return typeof input.session_id === 'string' && HOLD_SESSION_RE.test(input.session_id) ? input.session_id : undefined;
}

export const command: CommandSpec = {
  name: 'hook',
  summary: 'what agent-host hooks run: boot, recall and WAL snapshots in the host\'s format (Claude Code)',
  usage: ['hook claude-code session-start|user-prompt-submit|pre-compact|stop|session-end [--no-watch] [--plugin]'],
  description: `Reads the host's hook input (JSON) on standard input and prints the host's answer:
  session-start        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": BOOT}}
                       (boot's text: MEMORY.md, SESSION-STATE.md, the last days, the buffer; at most 9,000
                       characters, under the ~10,000 hosts show inline; cuts say how to read the rest); also starts
                       "memtier watch --detach --idle 30m --session ID" when none runs, or joins the running
                       one (--no-watch: not)
  user-prompt-submit   {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": RECALL}}
                       for the input's "prompt" (through memtier watch when it runs); prints nothing
                       when nothing is relevant
  pre-compact, stop    a snapshot of SESSION-STATE.md (memory/.snapshots/EVENT-STAMP.md) when it changed
                       since the newest snapshot; prints nothing
  session-end          releases the session's memtier watch: one a session started stops when the last
                       session holding it ends (one a person started keeps running); prints nothing
templates/claude-code/ holds a Claude Code plugin wiring these five hooks and "memtier mcp";
"memtier init --claude-code" merges the same into a project's .claude/settings.json and .mcp.json.
A hook never fails the host's turn: problems go to standard error, the exit code is 0.`,
  neverFails: true,
  flags: [
    { name: 'no-watch', type: 'boolean', description: 'session-start: do not start memtier watch' },
    { name: 'plugin', type: 'boolean', description: 'run by the Claude Code plugin: does nothing where the settings already run memtier\'s hooks (init --claude-code), so no hook runs twice' },
  ],
  examples: ['echo \'{"hook_event_name":"UserPromptSubmit","prompt":"which database do we use?"}\' | memtier hook claude-code user-prompt-submit'],
  async run(ctx: Ctx, args: Args, io: Io): Promise<CommandResult> {
    const [host, event, ...extra] = args.positionals;
    if (!host || !(HOSTS as readonly string[]).includes(host)) throw new UsageError(`hook needs a host: ${HOSTS.join(', ')}`, 'e.g. memtier hook claude-code session-start');
    if (!event || !(EVENTS as readonly string[]).includes(event)) throw new UsageError(`unknown hook event "${event ?? ''}"`, `one of: ${EVENTS.join(', ')}`);
    if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
    let input: HookInput = {};
    if (io.stdin) {
      const raw = (await readStdin(io).catch(() => '')).trim();
      if (raw) { try { input = JSON.parse(raw) as HookInput; } catch { throw new UsageError('the hook input on standard input is not JSON', 'the host sends one JSON object, e.g. {"prompt": "…"}'); } }
    }
    const log: string[] = [];
    const e = event as Event;
    const ignored = (args as Args & { ignored?: string[] }).ignored;
    if (ignored?.length) ctx.log.warn(`memtier hook: ignoring ${ignored.map((f) => quoteInput(f)).join(', ')} (an option of a newer memtier than this one?)`);
    if (flagBool(args, 'plugin')) {
      const by = settingsRunningHooks(typeof input.cwd === 'string' && input.cwd ? input.cwd : ctx.cwd, ctx.env);
      if (by) return { text: '', json: { ok: true, event: e, skipped: `${by} already runs memtier's hooks` } };
    }
    const answer = (context: string): CommandResult => {
      const out = { hookSpecificOutput: { hookEventName: CLAUDE_EVENT[e], additionalContext: context } };
      // the host reads this JSON from standard output with or without --json
      return { text: JSON.stringify(out), json: out };
    };
    let result: CommandResult = { text: '', json: { ok: true, event: e } };
    const step = async <T>(what: string, fn: () => T | Promise<T>): Promise<T | undefined> => {
      try { return await fn(); } catch (err) { log.push(`${what}: ${(err as Error).message}`); return undefined; }
    };
    if (e === 'session-start') {
      const b = await step('boot', () => boot(ctx, HOOK_BOOT_CHARS));
      if (!flagBool(args, 'no-watch')) {
        // started in the background, not awaited: the session does not wait for the index to warm
        await step('memtier watch --detach', () => {
          const bin = findBin();
          if (!bin) throw new Error('cannot find bin/memtier.js');
          const session = sessionOf(input);
          spawn(process.execPath, [bin, 'watch', '--detach', '--root', ctx.root, '--idle', HOST_WATCH_IDLE, ...(session ? ['--session', session] : [])], { detached: true, stdio: 'ignore', env: ctx.env, cwd: ctx.root }).unref();
        });
      }
      if (b) result = answer(b.text);
    } else if (e === 'user-prompt-submit') {
      const prompt = (input.prompt ?? '').trim();
      // warm when the session's memtier watch runs (started at session-start), else in this process
      const served = prompt ? await step('recall through memtier watch', () => delegate('recall', ['recall', '--query', prompt, '--root', ctx.root, '--json'], ctx.env, ctx.cwd)) : undefined;
      let text: string | undefined;
      if (served?.code === 0) { try { text = String((JSON.parse(served.out) as { text?: string }).text ?? ''); } catch { /* run it here */ } }
      if (text === undefined && prompt) text = (await step('recall', () => recall(ctx, prompt)))?.text;
      if (text) result = answer(text);
    } else if (e === 'session-end') {
      const session = sessionOf(input);
      if (session) {
        await step('release memtier watch', async () => {
          const t = trustedWatchInfo(ctx.root);
          if (t && 'info' in t) await ask(t.info.socket, { op: 'release', session }, 1500);
        });
      }
      result = { text: '', json: { ok: true, event: e, ...(session ? { released: session } : {}) } };
    } else {
      const stamp = localStamp(ctx.clock.now(), ctx.clock.tz).replace(/[^0-9]/g, '').slice(0, 14);
      // after every turn (stop): a new file only when the state moved since the newest snapshot
      const s = await step('wal snapshot', () => saveSnapshot(ctx, `${e}-${stamp}`, { ifChanged: true }));
      if (s) result = { text: '', json: { ok: true, event: e, snapshot: s.rel, ...(s.unchanged ? { unchanged: true } : {}) }, ...(s.unchanged ? {} : { commitSummary: `${e}: snapshot of SESSION-STATE.md` }) };
    }
    for (const l of log) ctx.log.warn(l);
    return result;
  },
};
