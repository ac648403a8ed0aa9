/**
 * The hostile-input kit, shared by every table of test/hostile/: a memory built from the
 * skeleton, the real CLI binary run on it, a hash of every file before and after, and the
 * checks a hostile row asserts — the exit code, a message naming the rule, nothing changed when
 * refused, no secret anywhere (stdout, stderr, any file), no stack trace.
 */
import { createHash } from 'node:crypto';
import { cpSync, lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { BIN, FIXED_NOW, SKELETON, tmpTree, writeTree } from '../helpers.js';

/** rel path → what is there: `file:SHA256`, `link:TARGET`, `dir`, or `other` (a FIFO, a socket). */
export type MemorySnapshot = Record<string, string>;

/** A fresh memory: the skeleton plus `files` (path → content). Removed after the test file. */
export function makeMemory(files: Record<string, string | Buffer> = {}): string {
  const root = tmpTree({}, 'memtier-hostile-');
  cpSync(SKELETON, root, { recursive: true });
  writeTree(root, files);
  return root;
}

/**
 * Hash every entry under `root` (files, links, folders, others), `.memtier/` included; `.git/`
 * only when asked (git writes its own bookkeeping on reads).
 */
export function snapshotMemory(root: string, opts: { includeGit?: boolean } = {}): MemorySnapshot {
  const out: MemorySnapshot = {};
  const walk = (rel: string): void => {
    for (const d of readdirSync(join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.name === '.git' && !rel && !opts.includeGit) continue;
      const abs = join(root, r);
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) out[r] = `link:${readlinkSync(abs)}`;
      else if (st.isDirectory()) { out[r] = 'dir'; walk(r); }
      else if (st.isFile()) out[r] = `file:${createHash('sha256').update(readFileSync(abs)).digest('hex')}`;
      else out[r] = 'other';
    }
  };
  walk('');
  return out;
}

export interface RunResult { code: number; stdout: string; stderr: string; signal: NodeJS.Signals | null }

/**
 * Run the real binary (bin/memtier.js → dist/) on `root` with a fixed clock and zone (override
 * through `env`; a value of undefined removes the variable), stdin from `input`. Bounded: killed
 * after `timeoutMs`.
 */
export function runCli(root: string, args: string[], opts: { env?: Record<string, string | undefined>; input?: string | Buffer; cwd?: string; timeoutMs?: number } = {}): RunResult {
  const env: Record<string, string> = {};
  const base: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: root, MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_ROOT: root, MEMTIER_WATCH: 'off', ...opts.env };
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? root, env, input: opts.input, encoding: 'utf8', timeout: opts.timeoutMs ?? 20_000, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? 128, stdout: r.stdout ?? '', stderr: r.stderr ?? '', signal: r.signal };
}

/**
 * The snapshot without what any command may leave in `.memtier/` whatever its outcome: the folder
 * itself, the root's lock file and the last health report. Everything else counts.
 */
export function withoutHousekeeping(s: MemorySnapshot): MemorySnapshot {
  return Object.fromEntries(Object.entries(s).filter(([p]) => !/^\.memtier(?:\/lock[^/]*|\/health(?:-files|-summary)?\.json)?$/.test(p)));
}

/** No stack trace, no crash: no "    at " line, no uncaught error name, not killed. */
export function expectNoCrash(r: RunResult): void {
  const out = r.stdout + r.stderr;
  expect(r.signal, 'killed (timeout or crash)').toBeNull();
  expect(out, 'stack trace in output').not.toMatch(/^\s+at .+[:(]/m);
  expect(out).not.toMatch(/\b(?:TypeError|RangeError|ReferenceError|SyntaxError)\b|Maximum call stack|FATAL ERROR/);
  expect(r.stderr).not.toMatch(/bug in memtier/);
}

/** Every spelling of a secret that must never show up anywhere (the value itself; a split value's halves). */
function leakNeedles(secrets: string | string[] | undefined): string[] {
  return (secrets === undefined ? [] : Array.isArray(secrets) ? secrets : [secrets]).filter((s) => s.length >= 6);
}

/** The secret(s) appear neither in the output nor in any file under `root` (`.git/` included). */
export function expectNoLeak(root: string, r: RunResult, secrets: string | string[] | undefined): void {
  const needles = leakNeedles(secrets);
  if (!needles.length) return;
  const out = r.stdout + r.stderr;
  for (const n of needles) expect(out.includes(n), `secret echoed in output: ${n.slice(0, 4)}…`).toBe(false);
  const walk = (rel: string): void => {
    for (const d of readdirSync(join(root, rel), { withFileTypes: true })) {
      const r2 = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) { walk(r2); continue; }
      if (!d.isFile()) continue;
      const text = readFileSync(join(root, r2)).toString('latin1');
      for (const n of needles) expect(text.includes(Buffer.from(n).toString('latin1')), `secret stored in ${r2}`).toBe(false);
    }
  };
  walk('');
}

export interface Refusal {
  /** Expected exit code (default 2). */
  code?: number;
  /** What stderr (or the JSON error) must say: a pattern naming the rule. */
  message: RegExp;
  /** Value(s) that must appear nowhere. */
  secret?: string | string[];
}

/**
 * A refused command: exit code, a clear message, no crash, the memory's bytes unchanged
 * (`before` from snapshotMemory), no secret anywhere.
 */
export function expectRefused(root: string, before: MemorySnapshot, r: RunResult, want: Refusal): void {
  expectNoCrash(r);
  expect(r.code, `exit code; stderr: ${r.stderr.slice(0, 300)}`).toBe(want.code ?? 2);
  expect(r.stderr + r.stdout).toMatch(want.message);
  expect(withoutHousekeeping(snapshotMemory(root))).toEqual(withoutHousekeeping(before));
  expectNoLeak(root, r, want.secret);
}
