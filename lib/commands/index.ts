/**
 * The command registry: name → summary and a lazy loader, so `memtier X`
 * loads only X's module (cold calls stay fast).
 */
import type { CommandSpec } from '../cli/spec.js';
import { lazyImport } from '../core/lazy.js';

export interface RegistryEntry {
  name: string;
  group: string;
  summary: string;
  load: () => Promise<{ command: CommandSpec }>;
}

type CommandModule = { command: CommandSpec };

/** Commands bundled with the CLI (dist/cli/NAME.js, scripts/bundle.mjs): no module to load. */
const preloaded = new Map<string, CommandModule>();

export function preloadCommand(name: string, mod: CommandModule): void {
  preloaded.set(name, mod);
}

/**
 * Load `lib/commands/NAME.js` only when the command runs (synchronously when compiled: see
 * lazyImport). The specifier is a variable so that a bundler leaves the other commands out.
 */
const lazy = (file: string) => (): Promise<CommandModule> => {
  const mod = preloaded.get(file);
  if (mod) return Promise.resolve(mod);
  const spec = `./${file}.js`;
  return lazyImport(`commands/${file}.js`, () => import(/* @vite-ignore */ spec) as Promise<CommandModule>);
};

export const registry: RegistryEntry[] = [
  // Memory files and the WAL
  { name: 'init', group: 'Memory', summary: 'create a memory from the skeleton (never overwrites)', load: lazy('init') },
  { name: 'adopt', group: 'Memory', summary: 'move OpenClaw daily files into memory/episodic/; list untyped notes', load: lazy('adopt') },
  { name: 'wal', group: 'Memory', summary: 'write-ahead log: task, decide, context, pending, done, blocker, get, snapshot, restore', load: lazy('wal') },
  { name: 'add', group: 'Memory', summary: "append a typed entry to today's episodic file", load: lazy('add') },
  { name: 'extract', group: 'Memory', summary: 'propose typed memories from conversation text (keyword rules, English and Chinese); --apply writes them', load: lazy('extract') },
  { name: 'classify', group: 'Memory', summary: 'type and tag untyped or untagged log entries with the extraction rules (--apply writes)', load: lazy('classify') },
  { name: 'fact', group: 'Memory', summary: 'the facts graph: add, list and forget subject–predicate–object facts', load: lazy('fact') },
  { name: 'graph', group: 'Memory', summary: 'the facts graph: related entities (with the path to each), stats, a Mermaid drawing', load: lazy('graph') },
  { name: 'rotate', group: 'Memory', summary: "move the working buffer into today's episodic file", load: lazy('rotate') },
  { name: 'close-day', group: 'Memory', summary: 'write the closure block of a day from its entries', load: lazy('close-day') },
  { name: 'boot', group: 'Memory', summary: 'print what to reload after compaction or restart', load: lazy('boot') },
  { name: 'get', group: 'Memory', summary: 'print a memory file or a line range', load: lazy('get') },
  { name: 'cache', group: 'Memory', summary: 'session cache: set, get, list, clear', load: lazy('cache') },
  // Search
  { name: 'search', group: 'Search', summary: 'ranked search over every tier (tags + BM25 + activation)', load: lazy('search') },
  { name: 'recall', group: 'Search', summary: 'budgeted memory block to prepend to a prompt', load: lazy('recall') },
  { name: 'hook', group: 'Search', summary: 'what agent-host hooks run (Claude Code): boot, recall, WAL snapshots in the host\'s format', load: lazy('hook') },
  { name: 'mcp', group: 'Search', summary: 'serve the memory to an MCP client over stdio (Claude Code, Codex, …)', load: lazy('mcp') },
  { name: 'watch', group: 'Search', summary: 'serve search and recall from a warm index, with the memory watched', load: lazy('watch') },
  // Health
  { name: 'health', group: 'Health', summary: 'check the invariants; --fix repairs what is safe', load: lazy('health') },
  { name: 'stats', group: 'Health', summary: 'counts, sizes, token estimates, activation, growth', load: lazy('stats') },
  // Lifecycle
  { name: 'archive', group: 'Lifecycle', summary: 'move old episodic days to memory/archive/YYYY/MM/', load: lazy('archive') },
  { name: 'consolidate', group: 'Lifecycle', summary: 'nightly: summarize, decay, index, prune, reconcile MEMORY.md, clean, health', load: lazy('consolidate') },
  { name: 'review', group: 'Lifecycle', summary: 'weekly review: decisions and lessons to their homes, freshness, report', load: lazy('review') },
  { name: 'dream', group: 'Lifecycle', summary: 'stage, theme and promote recalled entries into MEMORY.md', load: lazy('dream') },
  { name: 'verify', group: 'Lifecycle', summary: 'find drift: dead paths, relative dates, contradictions, stale facts', load: lazy('verify') },
  { name: 'supersede', group: 'Lifecycle', summary: 'mark an entry superseded by a new one', load: lazy('supersede') },
  { name: 'forget', group: 'Lifecycle', summary: 'move an entry to the trash', load: lazy('forget') },
  { name: 'trash', group: 'Lifecycle', summary: 'what memtier removed: list, restore, purge', load: lazy('trash') },
  { name: 'palace', group: 'Lifecycle', summary: 'regenerate the views in memory/palace/', load: lazy('palace') },
  { name: 'topics', group: 'Lifecycle', summary: 'topics that emerge from the memory (3+ entries sharing a keyword), in memory/palace/topics.md', load: lazy('topics') },
  { name: 'sync', group: 'Lifecycle', summary: 'keep one memory in step on several machines (git): commit, merge by entry, push', load: lazy('sync') },
  { name: 'clone', group: 'Lifecycle', summary: "copy a memory kept in git onto this machine (the second machine's first step)", load: lazy('clone') },
  { name: 'merge-driver', group: 'Lifecycle', summary: "git's merge=memtier driver: merge a log by entry id, SESSION-STATE.md by section (git runs it)", load: lazy('merge-driver') },
  { name: 'resolve', group: 'Lifecycle', summary: "finish a sync conflict: drop the other machine's copy once FILE holds what you want", load: lazy('resolve') },
  { name: 'cron', group: 'Lifecycle', summary: 'print or install schedules for consolidate, dream and review', load: lazy('cron') },
  // Tools
  { name: 'bench', group: 'Tools', summary: 'benchmarks: write, perf, locomo', load: lazy('bench') },
];

export function findCommand(name: string): RegistryEntry | undefined {
  return registry.find((c) => c.name === name);
}

/** Closest command names by edit distance, for "did you mean". */
export function suggest(name: string): string[] {
  const d = (a: string, b: string): number => {
    const m = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) m[0]![j] = j;
    for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) {
      m[i]![j] = Math.min(m[i - 1]![j]! + 1, m[i]![j - 1]! + 1, m[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    return m[a.length]![b.length]!;
  };
  return registry.map((c) => [c.name, d(name, c.name)] as const).filter(([, s]) => s <= 2).sort((a, b) => a[1] - b[1]).map(([n]) => n);
}
