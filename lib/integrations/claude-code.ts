/**
 * Claude Code and Codex setup: the hooks and MCP entry of templates/claude-code/ merged into a
 * project's `.claude/settings.json` and `.mcp.json` — never clobbering what is there (other hooks,
 * permissions, servers stay; an entry of ours already present is left as it is) — and the Codex
 * snippets of templates/codex/ for a memory root. These are settings files, not memory: they are
 * written by atomic rename, not through the memory store.
 */
import { lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemtierError } from '../core/errors.js';

export interface SettingsChange {
  path: string;
  before: string | undefined;
  after: string;
  diff: string;
  changed: boolean;
  /** The file written when `path` is a symbolic link (its target, edited in place of the link). */
  target?: string;
  /** Where the version before this change was saved (an existing file memtier changed). */
  backup?: string;
}

/** The indentation a JSON text uses (its first indented line's), so a rewrite keeps the person's style; 2 spaces by default. */
function indentOf(text: string | undefined): string | number {
  const m = text ? /\n([ \t]+)["}\]]/.exec(text) : null;
  return m ? m[1]! : 2;
}

/** Where to write `abs`: the target of a symbolic link (a dotfiles setup links settings.json), else abs itself. */
function writeTarget(abs: string): string {
  try {
    if (lstatSync(abs).isSymbolicLink()) return realpathSync(abs);
  } catch { /* a new file, or a dangling link: written where it is named */ }
  return abs;
}

/** templates/ of this package (works from lib/ and dist/lib/). */
export function templatesDir(): string {
  for (const up of ['../../templates', '../../../templates']) {
    const p = fileURLToPath(new URL(up, import.meta.url));
    try { readFileSync(join(p, 'SKILL.md')); return p; } catch { /* try the next level */ }
  }
  throw new MemtierError('cannot find the templates/ folder of memtier', { code: 'internal', hint: 'reinstall memtier' });
}

type Json = Record<string, unknown>;

function readJson(path: string): { text: string | undefined; json: Json } {
  let text: string | undefined;
  try { text = readFileSync(path, 'utf8'); } catch { return { text: undefined, json: {} }; }
  try {
    const j = JSON.parse(text) as unknown;
    if (!j || typeof j !== 'object' || Array.isArray(j)) throw new Error('not a JSON object');
    return { text, json: j as Json };
  } catch (e) {
    throw new MemtierError(`is not valid JSON (${(e as Error).message}); nothing was changed`, { code: 'config', file: path, hint: 'fix the file by hand, then run the command again' });
  }
}

type HookGroup = { matcher?: string; hooks: { type: string; command: string; timeout?: number }[] };

/** Our hook groups added to `settings.hooks` where no hook of that event runs `memtier hook claude-code EVENT` yet. */
function mergeHooks(settings: Json, ours: Record<string, HookGroup[]>): Json {
  const hooks = { ...((settings.hooks as Record<string, HookGroup[]> | undefined) ?? {}) };
  for (const [event, groups] of Object.entries(ours)) {
    const have = hooks[event] ?? [];
    const cmd = groups[0]!.hooks[0]!.command;
    const present = have.some((g) => (g.hooks ?? []).some((h) => typeof h.command === 'string' && h.command.includes(cmd.replace(/^memtier /, ''))));
    if (!present) hooks[event] = [...have, ...groups];
  }
  return { ...settings, hooks };
}

async function change(path: string, before: string | undefined, after: string): Promise<SettingsChange> {
  const { createTwoFilesPatch } = await import('diff');
  const changed = before !== after;
  return { path, before, after, changed, diff: changed ? createTwoFilesPatch(before === undefined ? '/dev/null' : `a/${path}`, `b/${path}`, before ?? '', after, '', '', { context: 3 }) : '' };
}

/** The changes `init --claude-code` makes in `project` (written unless dryRun). */
export async function claudeCodeSetup(project: string, opts: { dryRun?: boolean; rel?: (abs: string) => string } = {}): Promise<SettingsChange[]> {
  const t = templatesDir();
  // the plugin's hooks, without the flag that makes them stand down where these settings run them
  const oursHooks = (JSON.parse(readFileSync(join(t, 'claude-code/hooks/hooks.json'), 'utf8').split(' --plugin"').join('"')) as { hooks: Record<string, HookGroup[]> }).hooks;
  const oursMcp = (JSON.parse(readFileSync(join(t, 'claude-code/.mcp.json'), 'utf8')) as { mcpServers: Json }).mcpServers;
  const settingsPath = join(project, '.claude', 'settings.json');
  const mcpPath = join(project, '.mcp.json');
  const s = readJson(settingsPath);
  const m = readJson(mcpPath);
  const servers = (m.json.mcpServers as Json | undefined) ?? {};
  const mcpAfter = servers.memtier ? m.json : { ...m.json, mcpServers: { ...servers, ...oursMcp } };
  const out = [
    await change(opts.rel ? opts.rel(settingsPath) : settingsPath, s.text, JSON.stringify(mergeHooks(s.json, oursHooks), null, indentOf(s.text)) + '\n'),
    await change(opts.rel ? opts.rel(mcpPath) : mcpPath, m.text, JSON.stringify(mcpAfter, null, indentOf(m.text)) + '\n'),
  ];
  // an unchanged file keeps its bytes (no reformatting of a person's JSON)
  for (const [i, abs] of [settingsPath, mcpPath].entries()) {
    const c = out[i]!;
    if (c.before !== undefined && JSON.stringify(JSON.parse(c.before)) === JSON.stringify(JSON.parse(c.after))) { c.after = c.before; c.changed = false; c.diff = ''; }
    if (!c.changed) continue;
    const target = writeTarget(abs);
    if (target !== abs) c.target = target;
    // the person's version is kept beside it, named in the output (a rewrite cannot keep every comma and comment)
    if (c.before !== undefined) c.backup = `${opts.rel ? opts.rel(target) : target}.memtier-backup`;
    if (opts.dryRun) continue;
    mkdirSync(dirname(target), { recursive: true });
    let mode = 0o644;
    try { mode = statSync(target).mode & 0o777; } catch { /* a new file */ }
    if (c.before !== undefined) writeFileSync(`${target}.memtier-backup`, c.before, { mode });
    const tmp = `${target}.memtier-${process.pid}.tmp`;
    writeFileSync(tmp, c.after, { mode });
    renameSync(tmp, target);
  }
  return out;
}

/** memtier's OpenClaw skill (AgentSkills format), as shipped in templates/openclaw/SKILL.md. */
export function openclawSkill(): string {
  return readFileSync(join(templatesDir(), 'openclaw/SKILL.md'), 'utf8');
}

/**
 * The Codex MCP entry and AGENTS.md section for a memory at `root`. In config.toml the root goes
 * into a TOML string made for it (pasted into "…" as it was, `C:\Users\me` or a `"` in a path made
 * the file invalid TOML), and the entry gives the server a startup timeout of 30 s.
 */
export function codexSnippets(root: string): { configToml: string; agentsMd: string } {
  /**
   * `s` as a TOML string: a literal string ('…', taken as written: a Windows path's backslashes
   * stay backslashes) when it can be one, with no single quote and no control character but tab;
   * else a basic string ("…") with `"` and `\` escaped and every control character as an escape.
   */
  const tomlString = (s: string): string => {
    if (!/['\u0000-\u0008\u000a-\u001f\u007f]/.test(s)) return `'${s}'`;
    const esc: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };
    return `"${s.replace(/["\\\u0000-\u001f\u007f]/g, (c) => esc[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`)}"`;
  };
  const t = templatesDir();
  const toml = readFileSync(join(t, 'codex/config.toml'), 'utf8').split("'MEMORY_ROOT'").join(tomlString(root));
  return { configToml: toml, agentsMd: readFileSync(join(t, 'codex/AGENTS.md'), 'utf8').split('MEMORY_ROOT').join(root) };
}
