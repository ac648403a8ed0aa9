/**
 * The real hosts of the end-to-end tests (issue 30), installed from the npm registry into a cache
 * folder once and reused on later runs (like lib/bench/openclaw-host.ts's installHost for OpenClaw):
 *
 * - Claude Code: `@anthropic-ai/claude-code@CLAUDE_CODE_VERSION`, whose package carries the native
 *   binary in a per-platform optional dependency (`@anthropic-ai/claude-code-linux-x64/claude`);
 * - Codex: `@openai/codex@CODEX_VERSION`, the same way (`@openai/codex-linux-x64/vendor/…/codex`).
 *
 * Pinned versions: a newer host changes what it sends the model (its prompts, when MCP tools are
 * loaded), and the scripts of the tests are written against these. The cache is
 * MEMTIER_HOSTS_CACHE, else $TMPDIR/memtier-hosts-cache. Each install throws with the reason when
 * it cannot be done (no registry, an unsupported platform); the tests then skip with it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CLAUDE_CODE_VERSION = '2.1.332';
export const CODEX_VERSION = '0.171.0';

export interface InstalledHost {
  /** The host's executable (the native binary: no Node needed to run it). */
  bin: string;
  /** What `bin --version` printed. */
  version: string;
}

export const hostsCache = (): string => process.env.MEMTIER_HOSTS_CACHE ?? join(tmpdir(), 'memtier-hosts-cache');

const NPM_ARGS = ['--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error'];

/** `npm install PKG@VERSION` into DIR unless `found(dir)` already finds the binary there; returns the binary. */
function npmInstall(dir: string, spec: string, found: (dir: string) => string | undefined, log?: (m: string) => void): string {
  const have = found(dir);
  if (have) return have;
  if (process.platform !== 'linux' && process.platform !== 'darwin') throw new Error(`the host tests run on Linux and macOS, not ${process.platform}`);
  log?.(`installing ${spec} from the registry into ${dir}…`);
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('npm', ['install', '--prefix', dir, ...NPM_ARGS, spec], { timeout: 600_000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`npm install ${spec} failed: ${(err.stderr || err.message).trim().split('\n').slice(-3).join(' | ')}`);
  }
  const bin = found(dir);
  if (!bin) throw new Error(`npm install ${spec} gave no executable for ${process.platform}-${process.arch} in ${dir}`);
  return bin;
}

const isExe = (p: string): boolean => { try { return statSync(p).isFile() && (statSync(p).mode & 0o111) !== 0; } catch { return false; } };

function versionOf(bin: string): string {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' } });
  if (r.status !== 0) throw new Error(`${bin} --version failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr ?? '').trim().slice(0, 300)}`);
  return r.stdout.trim();
}

const arch = (): string => (process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : process.arch);

/** Claude Code, installed (or found in the cache). */
export function installClaudeCode(opts: { log?: (m: string) => void } = {}): InstalledHost {
  const dir = join(hostsCache(), `claude-code-${CLAUDE_CODE_VERSION}`);
  const bin = npmInstall(dir, `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`, (d) => {
    // the platform package's binary (the postinstall links it as bin/claude.exe; with scripts off it is not)
    const base = join(d, 'node_modules', '@anthropic-ai');
    const names = existsSync(base) ? readdirSync(base).filter((n) => n.startsWith(`claude-code-${process.platform}-${arch()}`)) : [];
    for (const n of names.sort()) if (isExe(join(base, n, 'claude'))) return join(base, n, 'claude');
    const linked = join(base, 'claude-code', 'bin', 'claude.exe');
    return isExe(linked) && statSync(linked).size > 1 << 20 ? linked : undefined;
  }, opts.log);
  const version = versionOf(bin);
  if (!version.startsWith(CLAUDE_CODE_VERSION)) throw new Error(`${bin} --version gave "${version}", not ${CLAUDE_CODE_VERSION}`);
  return { bin, version };
}

/** Codex, installed (or found in the cache). */
export function installCodex(opts: { log?: (m: string) => void } = {}): InstalledHost {
  const dir = join(hostsCache(), `codex-${CODEX_VERSION}`);
  const bin = npmInstall(dir, `@openai/codex@${CODEX_VERSION}`, (d) => {
    const vendor = join(d, 'node_modules', '@openai', `codex-${process.platform}-${arch()}`, 'vendor');
    if (!existsSync(vendor)) return undefined;
    for (const triple of readdirSync(vendor).sort()) {
      const p = join(vendor, triple, 'bin', 'codex');
      if (isExe(p)) return p;
      const q = join(vendor, triple, 'codex', 'codex');
      if (isExe(q)) return q;
    }
    return undefined;
  }, opts.log);
  const version = versionOf(bin);
  if (!version.includes(CODEX_VERSION)) throw new Error(`${bin} --version gave "${version}", not ${CODEX_VERSION}`);
  return { bin, version };
}
