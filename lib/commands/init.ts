/**
 * `memtier init [DIR] [--git]`: create (or complete) a memory from memory-skeleton/, never
 * overwriting a file. Idempotent; works in an existing OpenClaw workspace (keeps everything).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { localDate } from '../core/clock.js';
import { findBin } from '../core/bin.js';
import { shq } from '../lifecycle/cron.js';
import { DRIVER_ATTRIBUTES, DRIVER_COMMENT, ensureMergeDriver, upgradedAttributes } from '../git/driver.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { LEGACY_PATHS, outsideNotes, outsideNotesText, PATHS } from '../format/layout.js';
import { usedTags } from '../health/checks/tag-vocabulary.js';
import { parseVocabulary } from '../health/vocabulary.js';
import { loadSnapshot } from '../memory/snapshot.js';
import { openStore, settleTouched } from '../store/store.js';
import { resolveInside } from '../store/guards/paths.js';

/** Lines `init --git` makes sure `.gitignore` holds. */
export const GITIGNORE_LINES = ['.memtier/', 'memory/.trash/'];

/** Lines `init --git` makes sure `.gitattributes` holds: memtier's merge driver for the logs and the state (lib/git/driver.ts). */
export const GITATTRIBUTES_LINES = DRIVER_ATTRIBUTES;

/** Skeleton files that must stay executable once copied. */
const EXECUTABLE = new Set(['memory/scripts/wal']);

/** Find memory-skeleton/ next to the package (from dist/lib/commands/ or lib/commands/). */
export function skeletonDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const up of ['../../../memory-skeleton', '../../memory-skeleton']) {
    const dir = resolve(here, up);
    if (existsSync(join(dir, 'MEMORY.md'))) return dir;
  }
  throw new MemtierError('the memory skeleton is missing from this memtier installation', {
    code: 'internal',
    file: resolve(here, '../../../memory-skeleton'),
    hint: 'reinstall memtier (the package ships memory-skeleton/)',
  });
}

/**
 * A fresh note is verified today: `{{today}}` and the frontmatter's `created:` /
 * `last_verified:` dates become the clock's date (the skeleton's own dates are placeholders).
 */
export function stampDates(text: string, today: string): string {
  let out = text.replaceAll('{{today}}', today);
  if (out.startsWith('---\n')) {
    const end = out.indexOf('\n---', 3);
    if (end > 0) {
      const fm = out.slice(0, end).replace(/^(created|last_verified)(\s*:\s*)\d{4}-\d{2}-\d{2}[ \t]*$/gm, `$1$2${today}`);
      out = fm + out.slice(end);
    }
  }
  return out;
}

export interface SkeletonFile {
  /** Path in the memory root. */
  rel: string;
  content: string;
  executable: boolean;
}

/**
 * The skeleton's files as they land in a memory: `{{today}}` replaced by the clock's date,
 * memory-skeleton/FORMAT.md copied as it is to FORMAT.md (TAGS.md and FORMAT.md live at the root,
 * beside MEMORY.md: memory indexers that read memory/** would take them for memory).
 */
export function skeletonFiles(today: string, dir = skeletonDir()): SkeletonFile[] {
  const out: SkeletonFile[] = [];
  const walk = (relDir: string): void => {
    for (const d of readdirSync(join(dir, relDir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = relDir ? `${relDir}/${d.name}` : d.name;
      if (d.isDirectory()) walk(rel);
      else if (d.isFile()) {
        const raw = readFileSync(join(dir, rel), 'utf8');
        const content = rel === PATHS.format ? raw : stampDates(raw, today);
        out.push({ rel, content, executable: EXECUTABLE.has(rel) });
      }
    }
  };
  walk('');
  return out.sort((a, b) => a.rel.localeCompare(b.rel));
}

export interface InitResult {
  root: string;
  created: string[];
  kept: string[];
  /** Tags the existing memory already used that the new TAGS.md did not hold: added to it. */
  tagsAdded?: string[];
  git?: { initialized: boolean; already: boolean; gitignore: 'created' | 'updated' | 'kept'; gitattributes: 'created' | 'updated' | 'kept'; /** The first commit init made (its sha), or why it made none. */ commit?: string; notCommitted?: string };
}

function gitAvailable(env: NodeJS.ProcessEnv): boolean {
  const r = spawnSync('git', ['--version'], { env, encoding: 'utf8' });
  return !r.error && r.status === 0;
}

/** The lines of `want` missing from `text` (compared trimmed), as text to append. */
function missingLines(text: string, want: string[]): string[] {
  const have = new Set(text.split('\n').map((l) => l.trim()));
  return want.filter((l) => !have.has(l));
}

export function initMemory(ctx: Ctx, root: string, opts: { git?: boolean } = {}): InitResult {
  const today = localDate(ctx.clock.now(), ctx.clock.tz);
  const files = skeletonFiles(today);
  try {
    if (existsSync(root) && !statSync(root).isDirectory()) {
      throw new MemtierError(`${root} exists and is not a folder`, { code: 'path', file: root, hint: 'choose another folder for the memory' });
    }
    mkdirSync(root, { recursive: true });
  } catch (e) {
    if (e instanceof MemtierError) throw e;
    throw new MemtierError(`cannot create the memory folder: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { code: 'io', file: root, cause: e, hint: 'check the path and its permissions' });
  }
  if (opts.git && !gitAvailable(ctx.env)) {
    throw new MemtierError('git is not installed (or not on PATH); nothing was changed', {
      code: 'git-missing',
      file: root,
      hint: 'install git, or run "memtier init" without --git',
    });
  }
  const res: InitResult = { root, created: [], kept: [] };
  const store = openStore({ root, env: ctx.env, clock: ctx.clock });
  // a memory made before TAGS.md and FORMAT.md moved to the root keeps its own where they are
  // (memory/TAGS.md is its owner's vocabulary): `memtier health --fix` moves them (meta-files)
  const legacy = new Map<string, string>([[PATHS.tags, LEGACY_PATHS.tags], [PATHS.format, LEGACY_PATHS.format]]);
  store.mutate((tx) => {
    for (const f of files) {
      if (tx.exists(f.rel)) { res.kept.push(f.rel); continue; }
      const old = legacy.get(f.rel);
      if (old !== undefined && tx.exists(old)) { res.kept.push(old); continue; }
      tx.write(f.rel, f.content, { expected: null });
      if (f.executable) chmodSync(resolveInside(root, f.rel), 0o755);
      res.created.push(f.rel);
    }
  });
  if (res.created.includes(PATHS.tags)) {
    // an existing memory gets a vocabulary that holds what it already says: its own tags are added
    const used = [...new Set(usedTags(loadSnapshot(root)).map((u) => u.tag))];
    const vocab = parseVocabulary(store.mutate((tx) => tx.read(PATHS.tags)) ?? '');
    const add = used.filter((t) => !vocab.has(t)).sort();
    if (add.length) {
      store.mutate((tx) => tx.append(PATHS.tags, `- found in this memory: ${add.join(', ')}\n`));
      res.tagsAdded = add;
    }
  }
  if (opts.git) {
    const already = existsSync(join(root, '.git'));
    if (!already) {
      // the branch is main whatever git's own default: the README's remotes and clones say main
      const r = spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: root, env: ctx.env, encoding: 'utf8' });
      if (r.error || r.status !== 0) {
        throw new MemtierError(`git init failed: ${(r.stderr || r.error?.message || '').trim().slice(0, 300)}`, { code: 'git', file: root, hint: 'run "git init" in the memory folder yourself, then "memtier init --git" again' });
      }
    }
    const ensure = (rel: string, want: string[], header: string): 'created' | 'updated' | 'kept' =>
      store.mutate((tx) => {
        const cur = tx.read(rel);
        if (cur === undefined) {
          tx.write(rel, `${header}\n${want.join('\n')}\n`, { expected: null });
          return 'created';
        }
        const miss = missingLines(cur, want);
        if (miss.length === 0) return 'kept';
        tx.append(rel, `${header}\n${miss.join('\n')}\n`);
        return 'updated';
      });
    const gitignore = ensure('.gitignore', GITIGNORE_LINES, '# memtier: derived state (.memtier/: index cache, lock, recall bookkeeping) and the local trash (memory/.trash/: git history already holds every removed line)');
    // the union lines of earlier versions brought back what one machine removed: replaced
    const upgraded = store.mutate((tx) => {
      const cur = tx.read('.gitattributes');
      const next = cur === undefined ? undefined : upgradedAttributes(cur);
      if (cur !== undefined && next !== undefined && cur.includes('merge=union')) { tx.write('.gitattributes', next, { expected: cur }); return true; }
      return false;
    });
    const ensured = ensure('.gitattributes', GITATTRIBUTES_LINES, DRIVER_COMMENT);
    const gitattributes = upgraded && ensured === 'kept' ? 'updated' : ensured;
    ensureMergeDriver({ root, env: ctx.env }, process.execPath);
    res.git = { initialized: !already, already, gitignore, gitattributes };
  }
  return res;
}

/**
 * init --git commits what it set up, so the history starts with the memory: every memory path
 * when init created the repository, only the files init created (and the .git* files it changed)
 * when the repository existed. A commit that fails (no git identity, …) is reported, not fatal.
 */
async function commitInit(ctx: Ctx, r: InitResult): Promise<void> {
  const g = r.git!;
  const files = g.initialized ? 'all' as const : [...r.created, ...(g.gitignore !== 'kept' ? ['.gitignore'] : []), ...(g.gitattributes !== 'kept' ? ['.gitattributes'] : [])];
  if (files !== 'all' && files.length === 0) return;
  try {
    const git = await import('../git/index.js');
    const c = git.autoCommit({ ...ctx, root: r.root }, files, g.initialized ? 'memtier init: a new memory from memory-skeleton/' : `memtier init: ${r.created.length} skeleton file(s) added`);
    if (c.committed && c.sha) g.commit = c.sha;
    else g.notCommitted = c.reason ?? 'nothing to commit';
    settleTouched(r.root);
  } catch (e) {
    g.notCommitted = (e as Error).message;
  }
}

export const command: CommandSpec = {
  name: 'init',
  summary: 'create a memory from the skeleton (never overwrites)',
  usage: ['init [DIR] [--git] [--openclaw] [--claude-code [--dry-run]] [--codex]'],
  description: `Copies memory-skeleton/ into DIR (default: the memory root memtier resolves: --root,
$MEMTIER_ROOT, $OPENCLAW_WORKSPACE, the nearest folder above holding MEMORY.md, else
~/.openclaw/workspace). An existing file is never overwritten, so init is idempotent and safe in
an existing OpenClaw workspace: SOUL.md, USER.md, MEMORY.md and memory/YYYY-MM-DD.md stay as they
are (run "memtier adopt" to move daily files into memory/episodic/). Reports what it created and
what it kept. The contract of every file is copied to FORMAT.md, and the tag vocabulary is
TAGS.md, both beside MEMORY.md (not under memory/, where memory indexers such as OpenClaw's
memory-core would read them as memory; a memory made with memory/TAGS.md and memory/FORMAT.md
keeps them until "memtier health --fix" moves them).

memtier reads MEMORY.md, SESSION-STATE.md, todos.md, USER.md, TOOLS.md, memory/ and knowledge/.
When the folder holds other markdown notes (an Obsidian vault's Daily/ or People/, loose notes at
its root), init says how many, where, and how to bring them in (move them into memory/, where they
are read in place); --json: outside ([{dir, files, example}]). Host instructions (AGENTS.md, SOUL.md,
CLAUDE.md…), README.md and skills/ are not counted.

In a folder that already has notes, the TAGS.md init creates (the generic vocabulary) also
gets the tags those notes use (tags lines and inline #tags, as health's tag-vocabulary check reads
them) on a "- found in this memory: …" line, so add and wal accept them; init says which (--json:
tagsAdded). An existing TAGS.md (or memory/TAGS.md) is the owner's and is left alone.

--git makes the folder a git repository (if it is not one), with .gitignore (.memtier/) and
.gitattributes (merge=memtier for the logs and SESSION-STATE.md: "memtier merge-driver" merges two
machines' entries by id, registered in this clone's .git/config).
Existing .gitignore/.gitattributes files only get the missing lines appended. Then it commits what
it set up: every memory path in a new repository, only the files init created in an existing one.`,
  flags: [
    { name: 'git', type: 'boolean', description: 'git init, .gitignore and .gitattributes for the memory' },
    { name: 'claude-code', type: 'boolean', description: 'also merge memtier\'s hooks and MCP server into DIR/.claude/settings.json and DIR/.mcp.json (checked before anything is written; shown as a diff; nothing else in them changes; the previous version kept as NAME.memtier-backup; a linked file edited at its target)' },
    { name: 'openclaw', type: 'boolean', description: 'also install memtier\'s OpenClaw skill into DIR/skills/memtier/SKILL.md (never over another) and print the gateway jobs (memtier cron --openclaw)' },
    { name: 'codex', type: 'boolean', description: 'also print the ~/.codex/config.toml MCP entry and an AGENTS.md section for this memory' },
    { name: 'dry-run', type: 'boolean', description: 'with --claude-code: show the diff of the settings files, change nothing' },
  ],
  needsRoot: false,
  examples: ['memtier init', 'memtier init ~/.openclaw/workspace --git', 'memtier init ./demo-memory --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    if (args.positionals.length > 1) throw new UsageError('init takes at most one folder', 'e.g. memtier init ~/.openclaw/workspace');
    const dir = args.positionals[0];
    const claude = flagBool(args, 'claude-code');
    // a host set up "here" (run in the project, as the README says) means the current folder, not a
    // memory found elsewhere (~/.openclaw/workspace): another folder needs DIR or --root
    const hostHere = (claude || flagBool(args, 'codex')) && !(args as Args & { global?: Record<string, unknown> }).global?.root;
    const root = dir ? resolve(ctx.cwd, dir) : hostHere ? resolve(ctx.cwd) : ctx.root;
    if (flagBool(args, 'dry-run')) {
      if (!claude) throw new UsageError('--dry-run goes with --claude-code', 'memtier init --claude-code --dry-run');
      const { claudeCodeSetup } = await import('../integrations/claude-code.js');
      const ch = await claudeCodeSetup(root, { dryRun: true, rel: (a) => relative(ctx.cwd, a) || a });
      const text = ch.some((c) => c.changed) ? ch.filter((c) => c.changed).map((c) => c.diff.replace(/^=+\n/, '').trimEnd()).join('\n') + '\ndry run: nothing changed' : 'the Claude Code settings already hold memtier\'s hooks and MCP server: nothing to change';
      return { text, json: { ok: true, dryRun: true, claudeCode: ch.map(({ before: _b, ...c }) => c) } };
    }
    // the host's settings checked before anything is written: a malformed settings.json stops
    // init with the memory untouched, not after the skeleton was made
    if (claude) await (await import('../integrations/claude-code.js')).claudeCodeSetup(root, { dryRun: true });
    const r = initMemory(ctx, root, { git: flagBool(args, 'git') });
    if (r.git) await commitInit(ctx, r);
    const lines: string[] = [];
    const rel = relative(ctx.cwd, root);
    const shown = rel === '' ? '.' : rel.startsWith('..') ? root : rel;
    if (r.created.length === 0) lines.push(`memory at ${root} is complete: kept all ${r.kept.length} files, created none`);
    else {
      lines.push(`${r.kept.length ? 'completed' : 'created'} the memory at ${root}: ${r.created.length} file${r.created.length === 1 ? '' : 's'} created, ${r.kept.length} kept`);
      if (!args.quiet) for (const c of r.created) lines.push(`  + ${c}`);
    }
    if (!args.quiet && r.kept.length && r.created.length) for (const k of r.kept) lines.push(`  = ${k} (kept)`);
    const outside = outsideNotes(root);
    lines.push(...outsideNotesText(outside));
    if (r.tagsAdded?.length) lines.push(`added ${r.tagsAdded.length} tag${r.tagsAdded.length === 1 ? '' : 's'} this memory already uses to ${PATHS.tags} ("found in this memory"): ${r.tagsAdded.join(', ')}`);
    if (r.git) {
      lines.push(`git: ${r.git.already ? 'already a repository' : 'initialized'}; .gitignore ${r.git.gitignore}; .gitattributes ${r.git.gitattributes}; ${r.git.commit ? `committed ${r.git.commit.slice(0, 10)}` : `not committed (${r.git.notCommitted ?? 'nothing new'})`}`);
    }
    let claudeCode: Awaited<ReturnType<typeof import('../integrations/claude-code.js').claudeCodeSetup>> | undefined;
    if (claude) {
      const { claudeCodeSetup } = await import('../integrations/claude-code.js');
      claudeCode = await claudeCodeSetup(root, { rel: (a) => relative(ctx.cwd, a) || a });
      for (const c of claudeCode) {
        if (!c.changed) { lines.push(`claude code: ${c.path} already set up`); continue; }
        const where = [c.target ? `the link's target ${c.target}` : '', c.backup ? `the previous version saved as ${c.backup}` : ''].filter(Boolean).join('; ');
        lines.push(`claude code: updated ${c.path}${where ? ` (${where})` : ''}\n${c.diff.replace(/^=+\n/, '').trimEnd()}`);
      }
    }
    let openclaw: { skill: string; written: boolean; memoryCore?: { config: string; advice: string; command: string } } | undefined;
    if (flagBool(args, 'openclaw')) {
      const { openclawSkill } = await import('../integrations/claude-code.js');
      const skill = openclawSkill();
      const rel = 'skills/memtier/SKILL.md';
      const written = openStore({ root, env: ctx.env, clock: ctx.clock }).mutate((tx) => {
        const cur = tx.read(rel);
        if (cur !== undefined) return false;
        tx.write(rel, skill, { expected: null });
        return true;
      });
      openclaw = { skill: rel, written };
      const same = !written && readFileSync(join(root, rel), 'utf8') === skill;
      lines.push(written ? `openclaw: installed the skill as ${rel}` : same ? `openclaw: ${rel} is already memtier's skill` : `openclaw: ${rel} exists and differs from memtier's; kept (compare with templates/openclaw/SKILL.md)`);
      const pkgDir = dirname(dirname(findBin() ?? join('memtier', 'bin', 'memtier.js')));
      lines.push(
        `openclaw: make memtier the memory plugin (memory_search/memory_get, boot and snapshots in the gateway):`,
        `  openclaw plugins install ${shq(pkgDir)} --link --force --accept-capabilities`,
        `  then set plugins.entries.memtier.config.root to ${shq(root)} and plugins.entries.memtier.hooks.allowConversationAccess to true in ~/.openclaw/openclaw.json (README: "OpenClaw: memtier as the memory plugin")`,
        `openclaw: schedule the upkeep in the gateway with the commands "memtier cron --openclaw${root === ctx.root ? '' : ` --root ${root}`}" prints`,
      );
      // memory-core beside memtier once memtier holds the slot: a second dreaming system on these files
      const { memoryCoreNote } = await import('../openclaw/host-config.js');
      const mc = await memoryCoreNote(ctx.env, { slotPending: true });
      if (mc) { openclaw.memoryCore = mc; lines.push(`openclaw: ${mc.advice}`); }
    }
    let codex: { configToml: string; agentsMd: string } | undefined;
    if (flagBool(args, 'codex')) {
      const { codexSnippets } = await import('../integrations/claude-code.js');
      codex = codexSnippets(root);
      lines.push('codex: add to ~/.codex/config.toml:', codex.configToml.trimEnd(), 'and to the project\'s AGENTS.md:', codex.agentsMd.trimEnd());
    }
    if (!args.quiet) {
      const at = /^[A-Za-z0-9_./-]+$/.test(shown) ? shown : JSON.stringify(shown);
      const rootFlag = root === ctx.root ? '' : ` --root ${at}`;
      lines.push('', 'next:', `  memtier wal${rootFlag} task "what you are working on"`, `  memtier boot${rootFlag}`, `  memtier health${rootFlag}`);
    }
    return { text: lines.join('\n'), json: { ok: true, ...r, outside: outside.folders, ...(outside.partial ? { outsidePartial: true } : {}), ...(claudeCode ? { claudeCode: claudeCode.map(({ before: _b, ...c }) => c) } : {}), ...(codex ? { codex } : {}), ...(openclaw ? { openclaw } : {}) } };
  },
};
