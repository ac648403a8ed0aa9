/**
 * `memtier watch`: a long-running server for one memory that keeps its index warm and its
 * folders watched, and answers the CLI's `search` and `recall` (lib/watch/). Optional: without
 * it every call stats every file (never stale either way).
 *
 * The one command that owns a process for long: it handles SIGINT and SIGTERM itself (cleanly
 * removing its socket and announcement) and, with --detach, starts itself in the background.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Args, CommandResult, CommandSpec, Io } from '../cli/spec.js';
import { flagBool, flagNumber, flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { findBin } from '../core/bin.js';
import { version } from '../core/version.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { ask, HOLD_SESSION_RE, readWatchInfo, SOCKET_FILE, trustedWatchInfo, WATCH_FILE, type WatchInfo } from '../watch/protocol.js';
import { startServer, type ServerStatus } from '../watch/server.js';
import { assertStateDir } from '../store/state-dir.js';

export const WATCH_LOG = '.memtier/watch.log';

function binPath(): string {
  const bin = findBin();
  if (!bin) throw new MemtierError('cannot find bin/memtier.js to start the server', { code: 'internal' });
  return bin;
}

/** Why the announcement of `root` is not trusted (another user could have written it or listen behind it), if so. */
function distrusted(root: string): string | undefined {
  const t = trustedWatchInfo(root);
  return t && 'why' in t ? t.why : undefined;
}

async function running(root: string): Promise<{ info: WatchInfo; status: ServerStatus } | undefined> {
  // an announcement another local user could have written or be listening behind is none
  const t = trustedWatchInfo(root);
  if (!t || 'why' in t) return undefined;
  const info = t.info;
  const r = await ask(info.socket, { op: 'status' }, 1500);
  return r && r.ok && 'status' in r ? { info, status: r.status as ServerStatus } : undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function describe(s: ServerStatus): string {
  const t = s.tree;
  return [
    `memtier watch is running for ${s.root} (pid ${s.pid}, since ${s.started})`,
    `  watching ${t.files} files in ${t.folders} folders; ${s.requests} requests served, ${s.declined} declined`,
    `  ${t.events} events, ${t.rescans} full rescans${t.lastRescan ? ` (last: ${t.lastRescan})` : ''}${t.trusted ? '' : '; events are not trusted on this platform: every request rescans'}`,
  ].join('\n');
}

async function stop(ctx: Ctx, waitMs: number): Promise<CommandResult> {
  const r = await running(ctx.root);
  if (!r) return { text: `memtier watch is not running for ${ctx.root}`, json: { ok: true, running: false }, exitCode: 1 };
  await ask(r.info.socket, { op: 'stop' }, 2000);
  const deadline = Date.now() + waitMs;
  while (readWatchInfo(ctx.root)?.pid === r.info.pid && Date.now() < deadline) await sleep(50);
  if (readWatchInfo(ctx.root)?.pid === r.info.pid) throw new MemtierError(`memtier watch (pid ${r.info.pid}) did not stop within ${waitMs} ms`, { code: 'watch-stop', file: WATCH_FILE });
  return { text: `stopped memtier watch (pid ${r.info.pid})`, json: { ok: true, running: false, stopped: r.info.pid } };
}

/** `--idle`: a duration, `90s`, `30m`, `2h` (a bare number is minutes); 0 or `off`: never. */
export function parseIdle(v: string): number {
  if (v === 'off' || v === '0') return 0;
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(v.trim());
  if (!m) throw new UsageError(`--idle "${v.slice(0, 40)}" is not a duration`, 'e.g. --idle 30m, --idle 90s, --idle 2h, --idle off');
  const ms = Number(m[1]) * (m[2] === 's' ? 1000 : m[2] === 'h' ? 3_600_000 : 60_000);
  if (ms < 1000 || ms > 7 * 86_400_000) throw new UsageError(`--idle ${v} is out of range`, 'between 1s and 7 days (168h)');
  return Math.round(ms);
}

function sessionArg(args: Args): string | undefined {
  const v = flagString(args, 'session');
  if (v === undefined) return undefined;
  if (!HOLD_SESSION_RE.test(v)) throw new UsageError('--session takes a host\'s session id', 'letters, digits and . _ : - (at most 128), e.g. the session_id of the hook input');
  return v;
}

/** `--release ID`: the host session ID no longer uses the server (a host-started one stops with its last session). */
async function release(ctx: Ctx, session: string): Promise<CommandResult> {
  const r = await running(ctx.root);
  if (!r) return { text: `memtier watch is not running for ${ctx.root}`, json: { ok: true, running: false }, exitCode: 1 };
  const reply = await ask(r.info.socket, { op: 'release', session }, 2000);
  const st = reply && reply.ok && 'status' in reply ? reply.status as ServerStatus : undefined;
  const left = st?.sessions;
  return { text: `released memtier watch (pid ${r.info.pid}) for session ${session}${left === 0 ? '; it stops (the last host session ended)' : left !== undefined ? `; ${left} session${left === 1 ? '' : 's'} still hold it` : '; it keeps running (not started by a host)'}`, json: { ok: true, running: left !== 0, pid: r.info.pid, ...(left !== undefined ? { sessions: left } : {}) } };
}

async function detach(ctx: Ctx, waitMs: number, extra: string[] = [], session?: string): Promise<CommandResult> {
  const r = await running(ctx.root);
  if (r) {
    // a host session joining a running server holds it (its SessionEnd releases it)
    if (session) await ask(r.info.socket, { op: 'hold', session }, 2000);
    return { text: `memtier watch is already running (pid ${r.info.pid})`, json: { ok: true, running: true, pid: r.info.pid, already: true } };
  }
  mkdirSync(join(ctx.root, '.memtier'), { recursive: true, mode: 0o700 });
  const log = openSync(join(ctx.root, WATCH_LOG), 'a', 0o600);
  let pid: number | undefined;
  try {
    const child = spawn(process.execPath, [binPath(), 'watch', '--root', ctx.root, ...extra], { detached: true, stdio: ['ignore', log, log], env: ctx.env, cwd: ctx.root });
    pid = child.pid;
    child.unref();
  } finally {
    closeSync(log);
  }
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const up = await running(ctx.root);
    if (up && up.info.pid === pid) return { text: `memtier watch started (pid ${pid}); log: ${WATCH_LOG}`, json: { ok: true, running: true, pid, log: WATCH_LOG } };
    await sleep(100);
  }
  throw new MemtierError(`memtier watch (pid ${pid}) did not start within ${waitMs} ms`, { code: 'watch-start', file: WATCH_LOG, hint: `see ${WATCH_LOG}; a large memory's first index build can take longer (--wait MS)` });
}

export const command: CommandSpec = {
  name: 'watch',
  summary: 'serve search and recall from a warm index, with the memory watched',
  usage: ['watch [--detach] [--wait MS] [--idle DURATION] [--session ID]', 'watch --status', 'watch --stop', 'watch --release ID'],
  description: [
    'Runs a server for one memory root: it watches every memory folder (inotify), keeps the index cache warm, and',
    'answers the `search` and `recall` calls of every memtier process on that root over a unix socket, so a cold call',
    'costs little more than starting Node. Each answer is exactly what the CLI would print, and never stale: before',
    'each request the server writes a cookie file and waits for its event, so every edit made before the call is seen.',
    'Without a server the CLI does the work itself (stat of every file); a dead or hung server is bypassed.',
    'Foreground by default (Ctrl-C or SIGTERM stops it); --detach starts it in the background, logging to',
    `${WATCH_LOG}; an index build longer than a second logs its progress there (files done / total, rate, time left).`,
    `The server is announced in ${WATCH_FILE}. Its socket, ${SOCKET_FILE}, is the owner's`,
    'only (0600 in a 0700 folder) and runs reads only: search and recall of this root. MEMTIER_WATCH=off makes the CLI ignore it;',
    'MEMTIER_WATCH=require makes a call fail (exit 2) instead of running without it.',
    '--idle DURATION stops it after that long without a request (30m, 90s, 2h). A host starts it for its session',
    '(--session ID: the Claude Code SessionStart hook does, with --idle 30m); such a server stops when the last session',
    'holding it is released (--release ID: the SessionEnd hook), or when idle. A server a person started stays.',
    'Exit codes: 0 ok; 1 --status/--stop/--release found no server; 2 error (another server runs, cannot watch).',
  ].join('\n'),
  flags: [
    { name: 'detach', type: 'boolean', description: 'start in the background and return once it answers' },
    { name: 'status', type: 'boolean', description: 'is a server running for this root, and what it watches' },
    { name: 'stop', type: 'boolean', description: 'stop the running server' },
    { name: 'wait', type: 'number', value: 'MS', description: 'how long --detach / --stop wait', default: 60000 },
    { name: 'idle', type: 'string', value: 'DURATION', description: 'stop after this long without a request (30m, 90s, 2h; off: never)' },
    { name: 'session', type: 'string', value: 'ID', description: 'started for (or joined by) this host session: stops when its last session is released' },
    { name: 'release', type: 'string', value: 'ID', description: 'the host session ID no longer uses the server (a host-started server stops with its last session)' },
  ],
  examples: ['memtier watch --detach', 'memtier watch --status --json', 'memtier watch --stop'],
  async run(ctx: Ctx, args: Args, io: Io): Promise<CommandResult> {
    const modes = ['detach', 'status', 'stop'].filter((m) => flagBool(args, m));
    if (flagString(args, 'release') !== undefined) modes.push('release');
    if (modes.length > 1) throw new UsageError(`watch: choose one of --${modes.join(', --')}`);
    const waitMs = flagNumber(args, 'wait') ?? 60_000;
    // the server's announcement, socket folder and log live in .memtier/: never through a link
    if (!flagBool(args, 'status') && !flagBool(args, 'stop')) assertStateDir(ctx.root, 'memtier watch');
    if (flagBool(args, 'status')) {
      const r = await running(ctx.root);
      if (!r) {
        const why = distrusted(ctx.root);
        return { text: `memtier watch is not running for ${ctx.root}${why ? ` (${WATCH_FILE} is ignored: ${why}; search and recall run in their own process)` : ''}`, json: { ok: true, running: false, ...(why ? { ignored: why } : {}) }, exitCode: 1 };
      }
      return { text: describe(r.status), json: { ok: true, running: true, ...r.status } };
    }
    if (flagBool(args, 'stop')) return stop(ctx, waitMs);
    const rel = flagString(args, 'release');
    if (rel !== undefined) {
      if (!HOLD_SESSION_RE.test(rel)) throw new UsageError('--release takes a host\'s session id', 'letters, digits and . _ : - (at most 128)');
      return release(ctx, rel);
    }
    const idleFlag = flagString(args, 'idle');
    const idleMs = idleFlag !== undefined ? parseIdle(idleFlag) : undefined;
    const session = sessionArg(args);
    if (flagBool(args, 'detach')) return detach(ctx, waitMs, [...(idleFlag !== undefined ? ['--idle', idleFlag] : []), ...(session ? ['--session', session] : [])], session);

    if (!io.main) throw new MemtierError('watch needs the CLI entry to answer calls', { code: 'internal', hint: 'run it as "memtier watch"' });
    const server = await startServer(ctx, io.main, { burstLimit: ctx.env.MEMTIER_WATCH_BURST ? Number(ctx.env.MEMTIER_WATCH_BURST) : undefined, version: version(), idleMs, sessions: session ? [session] : undefined });
    const onSignal = (): void => { void server.close(); };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    ctx.log.info(`memtier watch: serving ${ctx.root} (pid ${process.pid}, ${server.status().tree.files} files); Ctrl-C stops`);
    await server.closed;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    const s = server.status();
    return { text: `memtier watch stopped after ${s.requests} requests`, json: { ok: true, stopped: true, requests: s.requests, declined: s.declined } };
  },
};
