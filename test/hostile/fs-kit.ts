/**
 * A small kit for the file-system rows of the hostile corpus: a fresh memory per row (copied
 * from one made by `memtier init`), a hash of every byte of it and of a folder outside it, and
 * the real binary run with a bounded heap.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { BIN, FIXED_NOW, tmpTree } from '../helpers.js';

export interface Sandbox { root: string; outside: string }
export interface Run { code: number; stdout: string; stderr: string }

/** What the outside folder holds: a file a link may point at, and a sentinel a `---js` block would write. */
export const OUTSIDE_SECRET = 'root:x:0:0:OUTSIDE-SENTINEL-7f3a:/root:/bin/bash\n';
export const SENTINEL = 'untouched\n';

let base: string | undefined;

/** One memory made by `memtier init` (plus a day with entries), copied for every row. */
function baseMemory(): string {
  if (base) return base;
  const dir = tmpTree();
  const r = runMemtier(['init', '--root', join(dir, 'mem')], {});
  if (r.code !== 0) throw new Error(`init failed: ${r.stderr}`);
  writeFileSync(join(dir, 'mem', 'memory/episodic/2026-05-14.md'), '# 2026-05-14\n\n- 09:00 [DECISION] deploy with kubernetes on friday ^k8sdecide1\n');
  return (base = join(dir, 'mem'));
}

export function sandbox(): Sandbox {
  const dir = tmpTree();
  const root = join(dir, 'mem');
  cpSync(baseMemory(), root, { recursive: true });
  const outside = join(dir, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'passwd'), OUTSIDE_SECRET);
  writeFileSync(join(outside, 'sentinel.txt'), SENTINEL);
  return { root, outside };
}

/**
 * path → sha256 of every entry under `dir` (files by content, links by target, FIFOs and
 * folders by kind). `.memtier/` is derived state (index, health.json) and left out unless asked.
 */
export function hashTree(dir: string, opts: { state?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (!rel && name === '.memtier' && !opts.state) continue;
      const abs = join(dir, r);
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) out[r] = `link:${readlinkSync(abs)}`;
      else if (st.isDirectory()) { out[r] = 'dir'; walk(r); }
      else if (st.isFile()) out[r] = createHash('sha256').update(readFileSync(abs)).digest('hex');
      else out[r] = st.isFIFO() ? 'fifo' : 'other';
    }
  };
  if (existsSync(dir)) walk('');
  return out;
}

/** Run bin/memtier.js; `heapMb` caps V8's heap so a blow-up fails fast instead of eating the machine. */
export function runMemtier(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string | Buffer; heapMb?: number; cwd?: string }): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? baseCwd(),
    env: {
      PATH: process.env.PATH, HOME: baseCwd(), MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off',
      ...(opts.heapMb ? { NODE_OPTIONS: `--max-old-space-size=${opts.heapMb}` } : {}),
      ...opts.env,
    },
    input: opts.input ?? '',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
  });
  return { code: r.status ?? (r.signal ? 128 : 2), stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** runMemtier without blocking, so the table's rows can run side by side. */
export function runMemtierAsync(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string | Buffer; heapMb?: number }): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: baseCwd(),
      env: {
        PATH: process.env.PATH, HOME: baseCwd(), MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off',
        ...(opts.heapMb ? { NODE_OPTIONS: `--max-old-space-size=${opts.heapMb}` } : {}),
        ...opts.env,
      },
      timeout: 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    child.stdin.on('error', () => { /* the command may exit before reading all of its input */ });
    child.stdin.end(opts.input ?? '');
    child.on('error', reject);
    child.on('close', (code, signal) => resolveRun({ code: code ?? (signal ? 128 : 2), stdout, stderr }));
  });
}

let cwd: string | undefined;
function baseCwd(): string {
  return (cwd ??= tmpTree());
}

/** Lines of a Node stack trace ("    at fn (file:line)"): never shown to a user. */
export const STACK_LINE = /^\s{4}at .+[:(]/m;
