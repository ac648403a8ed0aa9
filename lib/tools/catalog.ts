/**
 * The memory's tools for agent hosts, as one table: what each is for (written for a model), its
 * arguments (zod, from which a host's JSON Schema is made) and the memtier command it runs. The
 * MCP server (lib/mcp) and the OpenClaw plugin (lib/openclaw) serve them; a tool is a command run
 * through the CLI's main() (lib/watch/runner.ts), so its answer is the command's.
 */
import { z } from 'zod';
import { ENTRY_TYPES } from '../format/entry.js';
import type { Invocation } from '../watch/runner.js';

const DAY = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD');
const TYPE = z.enum(ENTRY_TYPES);
const TAGS = z.array(z.string().min(1)).max(20);

/** The tools, as a table: what each is for (written for a model), its arguments and the command it runs. */
export function toolTable() {
  return {
    memory_search: {
      title: 'Search memory',
      description: 'Search the long-term memory (decisions, preferences, people, projects, lessons, daily logs) before answering anything that depends on what was said or decided before. Returns ranked entries, each with a path#Lline citation to quote and to open with memory_get. English and Chinese; a time phrase in the query ("last Tuesday", "in May", "上周二") narrows to that time.',
      inputSchema: {
        query: z.string().min(1).describe('what to look for, in words (not a regular expression)'),
        k: z.number().int().min(1).max(50).optional().describe('number of results (default 10)'),
        type: TYPE.optional().describe('only entries of this type'),
        tags: TAGS.optional().describe('only entries carrying all these tags'),
        since: DAY.optional().describe('only dated entries on or after this day'),
        until: DAY.optional().describe('only dated entries on or before this day'),
        tier: z.enum(['hot', 'warm', 'cold']).optional().describe('only this tier (hot: MEMORY.md, SESSION-STATE.md, the working buffer)'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      invoke: (a: { query: string; k?: number | undefined; type?: string | undefined; tags?: string[] | undefined; since?: string | undefined; until?: string | undefined; tier?: string | undefined }): Invocation => ({
        argv: ['search', a.query, ...opt('--k', a.k), ...opt('--type', a.type), ...opt('--tags', a.tags?.join(',')), ...opt('--since', a.since), ...opt('--until', a.until), ...opt('--tier', a.tier), '--record'],
      }),
    },
    memory_get: {
      title: 'Read a memory file',
      description: 'Read a memory file, whole or a line range: use it on a citation from memory_search or memory_recall (path and line) to see the full context before quoting it. The path is relative to the memory root and can never leave it.',
      inputSchema: {
        path: z.string().min(1).describe('a memory path as search prints it, e.g. memory/episodic/2026-05-14.md; a citation such as PATH#L12 works too'),
        from: z.number().int().min(1).optional().describe('first line (1-based)'),
        lines: z.number().int().min(1).max(2000).optional().describe('how many lines from `from` (default: to the end)'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      invoke: (a: { path: string; from?: number | undefined; lines?: number | undefined }): Invocation => ({
        argv: ['get', a.from === undefined ? a.path : `${a.path}:${a.from}-${a.lines === undefined ? '' : a.from + a.lines - 1}`],
      }),
    },
    memory_recall: {
      title: 'Recall for this turn',
      description: 'A short, budgeted block of the memories most relevant to the conversation right now (the most-recalled entries first), to read before replying. Give either a query or the last messages. Cheaper than several searches when you only need context.',
      inputSchema: {
        query: z.string().min(1).optional().describe('what the reply is about'),
        messages: z.array(z.object({ role: z.string(), content: z.string() })).max(200).optional().describe('the recent conversation, oldest first'),
        max_chars: z.number().int().min(200).max(20000).optional().describe('size limit of the block (default 2000)'),
        context_used: z.number().min(0).max(1).optional().describe('fraction of your context window already used: fewer entries when it is full'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      invoke: (a: { query?: string | undefined; messages?: { role: string; content: string }[] | undefined; max_chars?: number | undefined; context_used?: number | undefined }): Invocation => {
        const common = [...opt('--max-chars', a.max_chars), ...opt('--context-used', a.context_used)];
        if (a.messages) return { argv: ['recall', '--messages', '-', ...common], stdin: JSON.stringify(a.messages) };
        return { argv: ['recall', '--query', a.query ?? '', ...common] };
      },
    },
    memory_write: {
      title: 'Remember a fact',
      description: 'Store one durable fact as a typed entry in today\'s log: a preference (PREF), a decision and why (DECISION), project context (PROJ), infrastructure or tools (TECH), a lesson or correction (LESSON), a person (PEOPLE), an event (EVENT). One fact per call, one line, in the user\'s words. Never store secrets, passwords, tokens or keys (they are refused), nor small talk or what is already in memory (search first; the same fact written twice today is refreshed, not repeated).',
      inputSchema: {
        text: z.string().min(1).max(4000).describe('the fact, one line'),
        type: TYPE.optional().describe('the entry type'),
        tags: TAGS.optional().describe('tags from memory/TAGS.md'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      invoke: (a: { text: string; type?: string | undefined; tags?: string[] | undefined }): Invocation => ({
        // --dedupe: the same fact already in today's log or the buffer is refreshed, not written twice
        argv: ['add', '--dedupe', ...opt('--type', a.type), ...opt('--tags', a.tags?.join(',')), '--', a.text],
      }),
    },
    memory_wal: {
      title: 'Write-ahead log',
      description: 'Record the working state BEFORE you answer, so a compaction or restart loses nothing: task (what you are working on), decide (a decision or correction), context (a fact of this session: key and text, or the text alone; key "pref" logs a lasting preference), pending / blocker (an open item), done (closes the matching pending item), get (print the current session state). Each write updates SESSION-STATE.md and the working buffer in one crash-safe step.',
      inputSchema: {
        verb: z.enum(['task', 'decide', 'context', 'pending', 'done', 'blocker', 'get']).describe('what to record'),
        text: z.string().min(1).max(4000).optional().describe('the text (for context: the value, or the whole fact without a key); not used by get'),
        key: z.string().min(1).max(80).optional().describe('for context: the key (e.g. deadline, pref); leave it out for a fact in plain words'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      invoke: (a: { verb: string; text?: string | undefined; key?: string | undefined }): Invocation => {
        if (a.verb === 'get') return { argv: ['wal', 'get'] };
        if (a.verb === 'context') return { argv: ['wal', 'context', '--', a.key ?? '', a.text ?? ''] };
        return { argv: ['wal', a.verb, '--', a.text ?? ''] };
      },
    },
    memory_health: {
      title: 'Memory health',
      description: 'Check whether the memory can be trusted (torn or unparseable files, an inconsistent log, a credential on disk, a dead link in MEMORY.md) and what upkeep is due. When it reports failures, do not answer from memory until they are fixed.',
      inputSchema: {},
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      invoke: (): Invocation => ({ argv: ['health'] }),
    },
  } as const;
}

function opt(flag: string, v: string | number | undefined): string[] {
  return v === undefined || v === '' ? [] : [flag, String(v)];
}
