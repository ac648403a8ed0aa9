/**
 * The file model: where each kind of memory file lives, its tier, and how to list them.
 * See memory-skeleton/FORMAT.md for the contract.
 */
import { existsSync, readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

export const PATHS = {
  memoryIndex: 'MEMORY.md',
  sessionState: 'SESSION-STATE.md',
  todos: 'todos.md',
  dreams: 'DREAMS.md',
  /** OpenClaw's facts about the user and their tools: searched as WARM notes, never written by memtier. */
  user: 'USER.md',
  tools: 'TOOLS.md',
  memoryDir: 'memory',
  buffer: 'memory/working-buffer.md',
  episodic: 'memory/episodic',
  semantic: 'memory/semantic',
  procedural: 'memory/procedural',
  graph: 'memory/graph',
  palace: 'memory/palace',
  reviews: 'memory/reviews',
  archive: 'memory/archive',
  /** The frozen tag vocabulary: at the root, where memory indexers (OpenClaw's memory-core reads memory/**) do not take it for memory. */
  tags: 'TAGS.md',
  /** The file-format contract `memtier init` copies from memory-skeleton/FORMAT.md (a read-only reference). */
  format: 'FORMAT.md',
  trash: 'memory/.trash',
  /** Ids of forgotten entries, one `^id forgotten STAMP` a line (no text): how a removal reaches the other clones of a git memory. */
  forgotten: 'memory/.forgotten',
  /** Named snapshots of SESSION-STATE.md (`wal snapshot`, host hooks): verbatim copies, committed. */
  snapshots: 'memory/.snapshots',
  /** The machine that runs the scheduled upkeep of a memory shared by several (lib/lifecycle/upkeep-role.ts). */
  upkeep: 'memory/.upkeep',
  knowledge: 'knowledge',
  /** Derived state: index cache, lock, recall history. Gitignored, rebuildable. */
  state: '.memtier',
} as const;

/**
 * Where TAGS.md and FORMAT.md lived in memories made before they moved to the root: still read
 * there (classify gives them their kinds) until `memtier health --fix` moves them (meta-files).
 */
export const LEGACY_PATHS = { tags: 'memory/TAGS.md', format: 'memory/FORMAT.md' } as const;

/**
 * The tag vocabulary a memory uses, root-relative: TAGS.md, or memory/TAGS.md in a memory made
 * before it moved (when the root has none), until `memtier health --fix` moves it.
 */
export function tagsFile(root: string): string {
  return !existsSync(join(root, PATHS.tags)) && existsSync(join(root, LEGACY_PATHS.tags)) ? LEGACY_PATHS.tags : PATHS.tags;
}

export type Tier = 'hot' | 'warm' | 'cold' | 'buffer' | 'generated' | 'meta';

export type FileKind =
  | 'memory-index' | 'session-state' | 'todos' | 'dreams' | 'buffer'
  | 'episodic' | 'legacy-daily' | 'archive' | 'semantic' | 'procedural' | 'graph'
  | 'knowledge' | 'palace' | 'review' | 'tags' | 'format' | 'note' | 'profile';

export interface FileInfo {
  /** Path relative to the root, with forward slashes. */
  rel: string;
  kind: FileKind;
  tier: Tier;
  /** The day a dated file (episodic, legacy daily, archive) is about, `YYYY-MM-DD`. */
  date?: string;
}

// a file named by its day: 2026-11-20.md, 2026-11-20-standup.md, or as a person's daily notes
// app names them, "2026-11-20 Friday.md" / 2026-11-20_notes.md, Logseq's journals/2026_11_20.md
const DAY = /(?:^|\/)(\d{4})([-_])(\d{2})\2(\d{2})(?:[- _][^/]*)?\.md$/;

/** The day a file's name gives it ("2026-11-20.md", "2026-11-20 Friday.md", "2026_11_20.md" → "2026-11-20"), if any. */
export function dayOfName(name: string): string | undefined {
  const m = DAY.exec(name);
  return m ? `${m[1]}-${m[3]}-${m[4]}` : undefined;
}

export function episodicPath(date: string): string {
  return `${PATHS.episodic}/${date}.md`;
}

/**
 * An OpenClaw workspace: the agent's own files at the memory root — SOUL.md, or AGENTS.md with
 * USER.md or IDENTITY.md (AGENTS.md alone is also Codex's, which keeps no daily notes). OpenClaw
 * loads today's and yesterday's `memory/YYYY-MM-DD.md` at session start and its pre-compaction
 * flush writes there, so in such a workspace that is where memtier writes the day too.
 */
export function isOpenClawWorkspace(root: string): boolean {
  const has = (f: string): boolean => existsSync(join(root, f));
  return has('SOUL.md') || (has('AGENTS.md') && (has('USER.md') || has('IDENTITY.md')));
}

/**
 * The one file a day's entries go to — never two for one day: the day's file where one exists
 * (memory/episodic/DAY.md, else OpenClaw's memory/DAY.md), else, for a new day, memory/DAY.md in an
 * OpenClaw workspace (where the host reads and writes it) and memory/episodic/DAY.md elsewhere.
 */
export function dayFile(root: string, date: string): string {
  const episodic = episodicPath(date);
  if (existsSync(join(root, episodic))) return episodic;
  const flat = `${PATHS.memoryDir}/${date}.md`;
  if (existsSync(join(root, flat)) || isOpenClawWorkspace(root)) return flat;
  return episodic;
}

/**
 * MEMORY.md's heading for what is still open, as people write it: "Open questions", "Open threads",
 * "Open items", "Open issues", "Open loops", "Unresolved", "待办", "未决", "未解决", "开放问题".
 */
export const OPEN_SECTION_RE = /^(?:open\s+(?:questions?|threads?|items?|issues?|loops?)|unresolved(?:\s+questions?)?|待办|未决|未解决|开放问题)/i;

export function archivePath(date: string): string {
  return `${PATHS.archive}/${date.slice(0, 4)}/${date.slice(5, 7)}/${date}.md`;
}

/** Classify a root-relative path into its kind and tier. */
export function classify(rel: string): FileInfo {
  const r = rel.replace(/\\/g, '/');
  const day = dayOfName(r);
  const withDate = (kind: FileKind, tier: Tier): FileInfo => (day ? { rel: r, kind, tier, date: day } : { rel: r, kind, tier });
  if (r === PATHS.memoryIndex) return { rel: r, kind: 'memory-index', tier: 'hot' };
  if (r === PATHS.sessionState) return { rel: r, kind: 'session-state', tier: 'hot' };
  if (r === PATHS.todos) return { rel: r, kind: 'todos', tier: 'hot' };
  if (r === PATHS.dreams) return { rel: r, kind: 'dreams', tier: 'generated' };
  if (r === PATHS.user || r === PATHS.tools) return { rel: r, kind: 'profile', tier: 'warm' };
  if (r === PATHS.buffer) return { rel: r, kind: 'buffer', tier: 'buffer' };
  if (r === PATHS.tags || r === LEGACY_PATHS.tags) return { rel: r, kind: 'tags', tier: 'meta' };
  if (r === PATHS.format || r === LEGACY_PATHS.format) return { rel: r, kind: 'format', tier: 'meta' };
  if (r.startsWith(PATHS.episodic + '/')) return withDate('episodic', 'cold');
  if (r.startsWith(PATHS.archive + '/')) return withDate('archive', 'cold');
  if (r.startsWith(PATHS.semantic + '/')) return { rel: r, kind: 'semantic', tier: 'warm' };
  if (r.startsWith(PATHS.procedural + '/')) return { rel: r, kind: 'procedural', tier: 'warm' };
  if (r.startsWith(PATHS.graph + '/')) return { rel: r, kind: 'graph', tier: 'warm' };
  if (r.startsWith(PATHS.knowledge + '/')) return { rel: r, kind: 'knowledge', tier: 'warm' };
  if (r.startsWith(PATHS.palace + '/')) return { rel: r, kind: 'palace', tier: 'generated' };
  if (r.startsWith(PATHS.reviews + '/')) return { rel: r, kind: 'review', tier: 'generated' };
  // OpenClaw's own memory flush: memory/YYYY-MM-DD.md and memory/YYYY-MM-DD-slug.md
  if (/^memory\/\d{4}-\d{2}-\d{2}(?:-[^/]*)?\.md$/.test(r)) return withDate('legacy-daily', 'cold');
  // a person's daily note in a folder of their own (an Obsidian vault's Daily/2026-11-20.md moved
  // into memory/): a note, read in place and never archived, dated by its name (review and
  // consolidate read it as that day's free-form text; search's time filters know its day)
  if (r.startsWith(PATHS.memoryDir + '/')) return withDate('note', 'warm');
  return { rel: r, kind: 'note', tier: 'warm' };
}

/**
 * Root-level files that are memory: memtier's own (TAGS.md and FORMAT.md are its reference files:
 * kept out of search, read, committed and synced as the others), and OpenClaw's USER.md and
 * TOOLS.md (facts about the user). AGENTS.md, SOUL.md, IDENTITY.md and HEARTBEAT.md are
 * instructions to the agent, not memory.
 */
export const ROOT_FILES = [PATHS.memoryIndex, PATHS.sessionState, PATHS.todos, PATHS.dreams, PATHS.user, PATHS.tools, PATHS.tags, PATHS.format];

const SKIP_DIRS = new Set(['.trash', '.memtier', '.git', 'node_modules', 'scripts', '.dreams', '.obsidian']);

/** Is a folder of this name (under memory/ or knowledge/) left out of the memory? Dot folders, .trash and the ones above. */
function skipsDir(name: string): boolean {
  return SKIP_DIRS.has(name) || name.startsWith('.');
}

/**
 * Is `rel` (root-relative, forward slashes, no `.` or `..` part) a path listMemoryFiles would list:
 * a root file memtier knows (ROOT_FILES), or a `.md` file under memory/ or knowledge/ outside the
 * folders it skips (dot folders such as .trash, .snapshots, .git; scripts/, node_modules/)?
 * What `get`, MCP's memory_get and its resources may print: nothing else under the root (.git/config,
 * .env, a key in .ssh/, AGENTS.md, the trash) is memory.
 */
export function isMemoryPath(rel: string): boolean {
  if ((ROOT_FILES as readonly string[]).includes(rel)) return true;
  const parts = rel.split('/');
  if (parts.length < 2 || (parts[0] !== PATHS.memoryDir && parts[0] !== PATHS.knowledge)) return false;
  const name = parts[parts.length - 1]!;
  if (!name.endsWith('.md') || parts.some((p) => p === '' || p === '.' || p === '..')) return false;
  return !parts.slice(1, -1).some(skipsDir);
}

/** What isMemoryPath admits, in words (for a refusal). */
export const MEMORY_PATHS_TEXT = `${ROOT_FILES.join(', ')}, and .md files under ${PATHS.memoryDir}/ and ${PATHS.knowledge}/ (not in dot folders such as ${PATHS.trash})`;

/**
 * Every markdown file of the memory (root-level *.md that memtier owns plus everything under
 * memory/ and knowledge/), sorted, as root-relative paths. Skips .trash, .memtier, dot folders
 * and symlinks. Cheap: readdir only, no stat.
 */
export function listMemoryFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (relDir: string): void => {
    let ents;
    try { ents = readdirSync(join(root, relDir), { withFileTypes: true }); } catch { return; }
    for (const d of ents) {
      const rel = relDir ? `${relDir}/${d.name}` : d.name;
      if (d.isDirectory()) {
        if (skipsDir(d.name)) continue;
        walk(rel);
      } else if (d.isFile() && d.name.endsWith('.md')) {
        out.push(rel);
      }
    }
  };
  // root-level: only the files memtier knows (a workspace root also holds SOUL.md, USER.md, code…),
  // and only real files and folders: memtier never follows a symbolic link (health reports them)
  let top: Map<string, Dirent>;
  try {
    top = new Map(readdirSync(root, { withFileTypes: true }).map((d) => [d.name, d]));
  } catch { return []; }
  for (const f of ROOT_FILES) if (top.get(f)?.isFile()) out.push(f);
  if (top.get(PATHS.memoryDir)?.isDirectory()) walk(PATHS.memoryDir);
  if (top.get(PATHS.knowledge)?.isDirectory()) walk(PATHS.knowledge);
  return out.sort();
}

/**
 * Root-level markdown files that are instructions or project papers, not notes: a host's (AGENTS.md,
 * SOUL.md, IDENTITY.md, HEARTBEAT.md, BOOTSTRAP.md, CLAUDE.md, GEMINI.md) or a repository's.
 */
const NOT_NOTES = new Set(['AGENTS.md', 'SOUL.md', 'IDENTITY.md', 'HEARTBEAT.md', 'BOOTSTRAP.md', 'CLAUDE.md', 'GEMINI.md', 'README.md', 'CHANGELOG.md', 'CONTRIBUTING.md', 'LICENSE.md', 'SECURITY.md', 'CODE_OF_CONDUCT.md']);
/** Top-level folders that hold no notes: a host's skills (instructions), and the ones listMemoryFiles skips. */
const NOT_NOTE_DIRS = new Set([...SKIP_DIRS, 'skills', PATHS.memoryDir, PATHS.knowledge]);
/** Directory entries looked at, at most, by outsideNotes (a memory root inside a large tree stays cheap). */
const OUTSIDE_WALK_MAX = 20_000;

/**
 * Markdown notes under the root that memtier does not read (it reads the root files it knows,
 * memory/ and knowledge/): per top-level folder ('.' for loose root-level notes), how many, and one
 * of them. A folder of someone's notes (an Obsidian vault's Daily/ or People/) is what a person who
 * runs `memtier init` in it expects to be searched; init and adopt say that it is not, and how to
 * bring it in. Real files and folders only (no links), at most OUTSIDE_WALK_MAX entries looked at
 * (`partial` then).
 */
export function outsideNotes(root: string): { folders: { dir: string; files: number; example: string }[]; partial: boolean } {
  let seen = 0;
  const count = (relDir: string, acc: { files: number; example: string }): void => {
    let ents: Dirent[];
    try { ents = readdirSync(join(root, relDir), { withFileTypes: true }); } catch { return; }
    ents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of ents) {
      if (++seen > OUTSIDE_WALK_MAX) return;
      const rel = `${relDir}/${d.name}`;
      if (d.isDirectory()) {
        if (!SKIP_DIRS.has(d.name) && !d.name.startsWith('.')) count(rel, acc);
      } else if (d.isFile() && d.name.endsWith('.md')) {
        if (acc.files++ === 0) acc.example = rel;
      }
    }
  };
  let top: Dirent[];
  try { top = readdirSync(root, { withFileTypes: true }); } catch { return { folders: [], partial: false }; }
  top.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const folders: { dir: string; files: number; example: string }[] = [];
  const loose = top.filter((d) => d.isFile() && d.name.endsWith('.md') && !(ROOT_FILES as readonly string[]).includes(d.name) && !NOT_NOTES.has(d.name));
  if (loose.length) folders.push({ dir: '.', files: loose.length, example: loose[0]!.name });
  for (const d of top) {
    if (!d.isDirectory() || NOT_NOTE_DIRS.has(d.name) || d.name.startsWith('.')) continue;
    const acc = { files: 0, example: '' };
    count(d.name, acc);
    if (acc.files) folders.push({ dir: d.name, ...acc });
    if (seen > OUTSIDE_WALK_MAX) break;
  }
  return { folders, partial: seen > OUTSIDE_WALK_MAX };
}

/** A line or two saying which notes memtier does not read and how to bring them in (init, adopt). */
export function outsideNotesText(o: ReturnType<typeof outsideNotes>): string[] {
  if (o.folders.length === 0) return [];
  const n = o.folders.reduce((s, f) => s + f.files, 0);
  const where = o.folders.map((f) => `${f.dir === '.' ? 'the root' : `${f.dir}/`} (${f.files})`).join(', ');
  const dirs = o.folders.filter((f) => f.dir !== '.').map((f) => f.dir);
  return [
    `${n}${o.partial ? '+' : ''} markdown note${n === 1 ? '' : 's'} here ${n === 1 ? 'is' : 'are'} not part of the memory, so search, recall and health do not read ${n === 1 ? 'it' : 'them'}: ${where}`,
    `  memtier reads ${PATHS.memoryIndex}, ${PATHS.sessionState}, ${PATHS.todos} (and the root files it knows), ${PATHS.memoryDir}/ and ${PATHS.knowledge}/; move notes into ${PATHS.memoryDir}/ to make them memory (read in place, never rewritten)${dirs.length ? `, e.g. mv ${dirs.map((d) => (/^[A-Za-z0-9_.-]+$/.test(d) ? d : JSON.stringify(d))).join(' ')} ${PATHS.memoryDir}/` : ''}`,
  ];
}
