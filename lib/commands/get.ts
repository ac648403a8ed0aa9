/**
 * `memtier get PATH[:FROM[-TO]]` (OpenClaw's memory_get): a memory file, or a 1-based line range
 * of it, read strictly, with the path kept inside the memory root and to memory files
 * (memory/memory-file.ts).
 */
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { parseEntries } from '../format/entry.js';
import { memoryFileRel } from '../memory/memory-file.js';
import { readMemoryFile } from '../store/store.js';

export interface GetSpec { path: string; from?: number; to?: number; /** `PATH#^id`: the line holding that entry. */ id?: string }

/**
 * Split `PATH[:FROM[-TO]]` (`PATH:FROM-` reads to the end). The citation forms search and recall
 * print work too: `PATH#L12`, `PATH#L12-L20`, and `PATH#^id` (the entry with that id).
 */
export function parseGetSpec(arg: string): GetSpec {
  const cite = /^(.+?)#(?:L(\d+)(?:-L?(\d+))?|\^([A-Za-z0-9][A-Za-z0-9-]{2,63}))$/.exec(arg);
  if (cite) {
    if (cite[4]) return { path: cite[1]!, id: cite[4] };
    const from = Number(cite[2]);
    return { path: cite[1]!, from, to: cite[3] ? Number(cite[3]) : from };
  }
  const m = /^(.*?):(\d+)(?:-(\d*))?$/.exec(arg);
  if (!m || !m[1]) return { path: arg };
  const from = Number(m[2]);
  const spec: GetSpec = { path: m[1], from };
  if (m[3] === undefined) spec.to = from;
  else if (m[3] !== '') spec.to = Number(m[3]);
  return spec;
}

export interface GetResult { path: string; from: number; to: number; lines: number; text: string }

export function getRange(root: string, arg: string): GetResult {
  const spec = parseGetSpec(arg);
  // inside the root, and a memory file (never .git/config, .env, a key, the trash): refused unread
  const rel = memoryFileRel(root, spec.path);
  const text = readMemoryFile(root, rel);
  if (text === undefined) {
    throw new MemtierError(`no such file: ${rel}`, { code: 'missing', file: rel, hint: 'give a path relative to the memory root, as search and boot print it (e.g. memory/episodic/2026-05-14.md)' });
  }
  const all = text.split('\n');
  if (all.length && all[all.length - 1] === '') all.pop();
  const n = all.length;
  if (spec.id !== undefined) {
    const hit = parseEntries(text).find((e) => e.id === spec.id);
    if (!hit) throw new MemtierError(`no entry ^${spec.id} in ${rel}`, { code: 'missing', file: rel, hint: `search for it: memtier search "^${spec.id}", or read the whole file: memtier get ${rel}` });
    spec.from = hit.line;
    spec.to = hit.line;
  }
  const from = spec.from ?? 1;
  const to = Math.min(spec.to ?? n, n);
  if (spec.from !== undefined) {
    if (from < 1) throw new UsageError(`line ${from} does not exist: lines start at 1`, `e.g. memtier get ${rel}:1-20`);
    if (from > n) throw new MemtierError(`${rel} has ${n} line${n === 1 ? '' : 's'}; line ${from} does not exist`, { code: 'range', file: rel, line: from, hint: `ask for a range within 1-${n}` });
    if (spec.to !== undefined && spec.to < from) throw new UsageError(`range ${from}-${spec.to} ends before it starts`, `e.g. memtier get ${rel}:${from}-${from + 10}`);
  }
  const slice = n === 0 ? [] : all.slice(from - 1, to);
  return { path: rel, from: n === 0 ? 0 : from, to: n === 0 ? 0 : to, lines: n, text: slice.length ? slice.join('\n') + '\n' : '' };
}

export const command: CommandSpec = {
  name: 'get',
  summary: 'print a memory file or a line range',
  usage: ['get PATH', 'get PATH:LINE', 'get PATH:FROM-TO', 'get PATH:FROM-', 'get PATH#L12-L20', 'get PATH#^ID'],
  description: `Prints a file of the memory (OpenClaw's memory_get), whole or a 1-based, inclusive line range:
PATH:12 is line 12, PATH:12-20 lines 12 to 20, PATH:12- from line 12 to the end. A TO past the
end stops at the last line. Citations as search and recall print them work too: PATH#L12,
PATH#L12-L20, and PATH#^ID (the line of the entry with that id). PATH is relative to the memory root (as search, recall and boot
print it); it can never leave the root, and only memory files are read: MEMORY.md, SESSION-STATE.md,
todos.md, DREAMS.md, USER.md, TOOLS.md and the .md files under memory/ and knowledge/ (not in dot
folders such as memory/.trash); anything else (.git/, .env, .memtier/) is refused (not-memory).
Files are read strictly (UTF-8 text, size limit).`,
  flags: [],
  examples: ['memtier get MEMORY.md', 'memtier get memory/episodic/2026-05-14.md:10-20', 'memtier get memory/semantic/decisions.md:5 --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    if (args.positionals.length !== 1) throw new UsageError(args.positionals.length ? 'get takes one PATH[:FROM[-TO]]' : 'get needs a PATH', 'e.g. memtier get memory/episodic/2026-05-14.md:10-20');
    const r = getRange(ctx.root, args.positionals[0]!);
    return { text: r.text, json: { path: r.path, from: r.from, to: r.to, lines: r.lines, text: r.text } };
  },
};
