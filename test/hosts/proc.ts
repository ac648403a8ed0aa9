/**
 * What the host end-to-end tests share: `memtier` on PATH for a host (a scratch bin folder), a host
 * run with a hard timeout, and the memtier processes a session left behind.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers.js';

/** A scratch bin folder under `base` with `memtier` running this tree's bin/memtier.js (what hooks and MCP entries call). */
export function scratchBin(base: string): string {
  const bin = join(base, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'memtier'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(REPO, 'bin', 'memtier.js'))} "$@"\n`);
  chmodSync(join(bin, 'memtier'), 0o755);
  return bin;
}

export interface HostExit { code: number | null; signal: string | null; ms: number; stdout: string; stderr: string }

/**
 * Run a host binary (asynchronously: the scripted model answers it from this process) in its own
 * process group, killed with the group after `timeoutMs`: a hung host never hangs the suite.
 */
export function runHost(bin: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<HostExit> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => { stdout += d.toString('utf8'); });
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString('utf8'); });
    const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, opts.timeoutMs);
    child.once('error', (e) => { stderr += `\n${e.message}`; });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ms: Date.now() - t0, stdout, stderr });
    });
  });
}

/** Processes whose command line holds `memtier` and `word` (e.g. watch, mcp) and which name a path under `base` or run in one (Linux /proc). */
export function memtierProcesses(base: string, word: string): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  if (!existsSync('/proc/self/cmdline')) return out;
  const re = new RegExp(`(^| )${word}( |$)`);
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    let cmd = '';
    try { cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ').trim(); } catch { continue; }
    if (!cmd.includes('memtier') || !re.test(cmd)) continue;
    let cwd = '';
    try { cwd = readlinkSync(`/proc/${d}/cwd`); } catch { /* gone, or not ours to read */ }
    if (cmd.includes(base) || cwd === base || cwd.startsWith(`${base}/`)) out.push({ pid: Number(d), cmd: `${cmd} (cwd ${cwd})` });
  }
  return out;
}

/** The processes of memtierProcesses still there after waiting up to `ms` for them to end. */
export async function leftAfter(base: string, word: string, ms: number): Promise<{ pid: number; cmd: string }[]> {
  const end = Date.now() + ms;
  let left = memtierProcesses(base, word);
  while (left.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 250));
    left = memtierProcesses(base, word);
  }
  return left;
}

/** Today in the local time zone (memtier's day files are named by it). */
export function localDay(d = new Date()): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
