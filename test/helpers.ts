/**
 * Shared test helpers: temporary memories from object literals, a fixed clock,
 * and the CLI run in-process (main()) or through the real binary (bin/memtier.js).
 */
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { makeClock } from '../lib/core/clock.js';
import { makeTestCtx, type Ctx } from '../lib/core/context.js';
import { main } from '../lib/cli/main.js';

export const REPO = resolve(import.meta.dirname, '..');
export const BIN = join(REPO, 'bin', 'memtier.js');
export const SKELETON = join(REPO, 'memory-skeleton');
export const FIXED_NOW = '2026-05-15T14:30:00Z';

const temps: string[] = [];

/** Remember a temp path so it is removed after the test file (test/setup.ts); MEMTIER_KEEP_TMP=1 keeps them. */
export function trackTemp(path: string): string {
  temps.push(path);
  return path;
}

export function cleanupTemps(): void {
  if (process.env.MEMTIER_KEEP_TMP) return;
  for (const p of temps.splice(0)) rmSync(p, { recursive: true, force: true });
}

/** Make a temp dir holding `files` (path → content). Returns its absolute path. */
export function tmpTree(files: Record<string, string | Buffer> = {}, prefix = 'memtier-test-'): string {
  const dir = trackTemp(mkdtempSync(join(tmpdir(), prefix)));
  writeTree(dir, files);
  return dir;
}

export function writeTree(dir: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

/** Read every file under `dir` (relative path → content), skipping .memtier/ unless asked. */
export function readTree(dir: string, opts: { includeState?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const d of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        if ((d.name === '.memtier' && !opts.includeState) || d.name === '.git') continue;
        walk(r);
      } else if (d.isFile()) out[r] = readFileSync(join(dir, r), 'utf8');
    }
  };
  walk('');
  return out;
}

export function rmTree(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A Ctx for calling lib code directly: temp root, fixed clock (UTC unless tz given). */
export function testCtx(root: string, now = FIXED_NOW, tz = 'UTC', env: NodeJS.ProcessEnv = {}): Ctx {
  return makeTestCtx(root, makeClock({ now, tz }), env);
}

export interface CliResult { code: number; stdout: string; stderr: string }

/** Run the CLI in-process through main(), with MEMTIER_NOW/TZ fixed unless overridden. */
export async function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv: args,
    env: { MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', HOME: tmpdir(), ...opts.env },
    cwd: opts.cwd ?? tmpdir(),
    stdout: { write: (s: string) => { stdout += s; return true; } },
    stderr: { write: (s: string) => { stderr += s; return true; } },
  });
  return { code, stdout, stderr };
}

/** Run the real binary (compiled dist/) in a child process. */
export function runBin(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? tmpdir(),
    env: { PATH: process.env.PATH, HOME: tmpdir(), MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', ...opts.env },
    input: opts.input,
    encoding: 'utf8',
  });
  return { code: r.status ?? (r.signal ? 128 : 2), stdout: r.stdout, stderr: r.stderr };
}
