/**
 * The memory's tools for agent hosts, as one table: what each is for (written for a model), its
 * arguments (zod, from which a host's JSON Schema is made) and the memtier command it runs. The
 * MCP server (lib/mcp) and the OpenClaw plugin (lib/openclaw) serve them; a tool is a command run
 * through the CLI's main() (lib/watch/runner.ts), so its answer is the command's.
 */
import { z } from 'zod';
import { notACalendarDay } from '../core/clock.js';
import { ENTRY_TYPES } from '../format/entry.js';
import type { Invocation } from '../watch/runner.js';
import type { Ctx } from '../core/context.js';
import { recentActivity, type RecentArgs } from './recent.js';

/**
 * The limits of the tools' text arguments, stated in their descriptions. An argument over its
 * limit is refused naming the argument and the limit, never echoed back.
 */
export const LIMITS = {
  /** memory_search's and memory_recall's query: a question, not a document (4 KiB). */
  queryChars: 4096,
  /** memory_recall's messages: how many, each one's content, and all of them together. Only the last turns are read. */
  messages: 200,
  messageChars: 16_384,
  messagesChars: 65_536,
  /** A fact (memory_write, memory_wal, memory_supersede's new text): one line, as add's entries. */
  textChars: 4000,
  /** A path (memory_get) or an entry reference (memory_forget, memory_supersede). */
  pathChars: 1024,
  /** memory_search's and memory_recall's alternates: a few other words for the question (the CLI's --also limit). */
  alternatesChars: 1000,
} as const;

const n = (v: number): string => v.toLocaleString('en-US');

/** A day of the calendar, YYYY-MM-DD: the rule of the CLI's search --since/--until (notACalendarDay). */
const DAY = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'not a day as YYYY-MM-DD (e.g. 2026-05-01)').superRefine((v, c) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return; // said by the pattern (the value is not repeated: it may be long)
  const why = notACalendarDay(v);
  if (why) c.addIssue({ code: 'custom', message: `not a real day of the calendar (${why})` });
});
const TYPE = z.enum(ENTRY_TYPES);
const TAGS = z.array(z.string().min(1).max(64, 'a tag over 64 characters')).max(20, 'more than 20 tags');
const QUERY = z.string().min(1, 'empty').max(LIMITS.queryChars, `over the limit of ${n(LIMITS.queryChars)} characters (give the question, not a document)`);
/** Other words for the question (search --also): secondary terms, never a filter. */
const ALTERNATES = z.string().max(LIMITS.alternatesChars, `over the limit of ${n(LIMITS.alternatesChars)} characters (a few other words for the question, not a document)`)
  .describe('other words for what you are looking for, when the memory may say it otherwise: the other language (English ↔ Chinese), abbreviations, synonyms, likely wordings (e.g. "tracing OpenTelemetry 链路追踪"); searched below the query\'s own words, never a filter; at most 1,000 characters');
/** When to pass alternates, said the same in both tools' descriptions. */
const ALTERNATES_HINT = ' Pass `alternates` when the memory may word it otherwise (another language, an abbreviation, a paraphrase: "on-call" for 值班, "father-in-law" for 岳父), and when the first results do not answer, search again with them.';
const TEXT = z.string().min(1, 'empty').max(LIMITS.textChars, `over the limit of ${n(LIMITS.textChars)} characters (one fact, one line)`);
const ENTRY_REF = z.string().min(1, 'empty').max(LIMITS.pathChars, `over the limit of ${n(LIMITS.pathChars)} characters`)
  .describe('the entry: its id as memory_search returns it (^k2j3mx0a1b), or its citation (memory/episodic/2026-05-14.md#L12, or PATH:LINE)');
const MESSAGES = z.array(z.object({
  role: z.string().min(1).max(32, 'a role over 32 characters'),
  content: z.string().max(LIMITS.messageChars, `a message's content over the limit of ${n(LIMITS.messageChars)} characters`),
})).min(1, 'no message (give at least one)').max(LIMITS.messages, `more than the limit of ${LIMITS.messages} messages (send the last turns only)`)
  .refine((ms) => ms.reduce((t, m) => t + m.content.length, 0) <= LIMITS.messagesChars, `the contents together over the limit of ${n(LIMITS.messagesChars)} characters (send the last turns only)`);

/** The tools, as a table: what each is for (written for a model), its arguments and the command it runs. */
export function toolTable() {
  return {
    memory_search: {
      title: 'Search memory',
      description: 'Search the long-term memory (decisions, preferences, people, projects, lessons, daily logs) before answering anything that depends on what was said or decided before. Returns ranked entries, each with a path#Lline citation to quote and to open with memory_get. English and Chinese; a time phrase in the query ("last Tuesday", "in May", "上周二") narrows to that time.' + ALTERNATES_HINT + ' Limits: query at most 4,096 characters, alternates at most 1,000; since/until real days as YYYY-MM-DD.',
      inputSchema: {
        query: QUERY.describe('what to look for, in words (not a regular expression); at most 4,096 characters'),
        k: z.number().int().min(1).max(50).optional().describe('number of results (default 10)'),
        type: TYPE.optional().describe('only entries of this type'),
        tags: TAGS.optional().describe('only entries carrying all these tags'),
        since: DAY.optional().describe('only dated entries on or after this day (YYYY-MM-DD, a real day)'),
        until: DAY.optional().describe('only dated entries on or before this day (YYYY-MM-DD, a real day)'),
        tier: z.enum(['hot', 'warm', 'cold']).optional().describe('only this tier (hot: MEMORY.md, SESSION-STATE.md, the working buffer)'),
        alternates: ALTERNATES.optional(),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      invoke: (a: { query: string; k?: number | undefined; type?: string | undefined; tags?: string[] | undefined; since?: string | undefined; until?: string | undefined; tier?: string | undefined; alternates?: string | undefined }): Invocation => ({
        // the query after "--": a query starting with "-" is words, not a flag; --also=TEXT likewise
        argv: ['search', ...opt('--k', a.k), ...opt('--type', a.type), ...opt('--tags', a.tags?.join(',')), ...opt('--since', a.since), ...opt('--until', a.until), ...opt('--tier', a.tier), ...also(a.alternates), '--record', '--', a.query],
      }),
    },
    memory_get: {
      title: 'Read a memory file',
      description: 'Read a memory file, whole or a line range: use it on a citation from memory_search or memory_recall (path and line) to see the full context before quoting it. The path is relative to the memory root and can never leave it. `lines` without `from` reads the first `lines` lines of the file.',
      inputSchema: {
        path: z.string().min(1, 'empty').max(LIMITS.pathChars, `over the limit of ${n(LIMITS.pathChars)} characters`).describe('a memory path as search prints it, e.g. memory/episodic/2026-05-14.md; a citation such as PATH#L12 works too'),
        from: z.number().int().min(1).optional().describe('first line (1-based; default 1)'),
        lines: z.number().int().min(1).max(2000).optional().describe('how many lines from `from` (default: to the end); without `from`, the first `lines` lines'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      invoke: (a: { path: string; from?: number | undefined; lines?: number | undefined }): Invocation => {
        // `lines` alone counts from the first line (it was ignored: the whole file came back)
        const from = a.from ?? (a.lines === undefined ? undefined : 1);
        return { argv: ['get', '--', from === undefined ? a.path : `${a.path}:${from}-${a.lines === undefined ? '' : from + a.lines - 1}`] };
      },
    },
    memory_recall: {
      title: 'Recall for this turn',
      description: 'A short, budgeted block of the memories most relevant to the conversation right now (the most-recalled entries first), to read before replying. Give a query or the last messages (at least one of them). Cheaper than several searches when you only need context.' + ALTERNATES_HINT + ' Limits: query at most 4,096 characters, alternates at most 1,000; at most 200 messages, each content at most 16,384 characters and 65,536 in all (only the last turns are read).',
      inputSchema: {
        query: QUERY.optional().describe('what the reply is about; at most 4,096 characters'),
        messages: MESSAGES.optional().describe('the recent conversation, oldest first: at most 200 messages, each content at most 16,384 characters, 65,536 in all'),
        max_chars: z.number().int().min(200).max(20000).optional().describe('size limit of the block (default 2000)'),
        context_used: z.number().min(0).max(1).optional().describe('fraction of your context window already used: fewer entries when it is full'),
        alternates: ALTERNATES.optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      check: (a: { query?: string | undefined; messages?: unknown[] | undefined }): string | undefined =>
        a.query === undefined && a.messages === undefined ? 'memory_recall needs `query` or `messages` (neither was given): what the reply is about, or the last turns of the conversation' : undefined,
      invoke: (a: { query?: string | undefined; messages?: { role: string; content: string }[] | undefined; max_chars?: number | undefined; context_used?: number | undefined; alternates?: string | undefined }): Invocation => {
        const common = [...opt('--max-chars', a.max_chars), ...opt('--context-used', a.context_used), ...also(a.alternates)];
        // with neither, the command itself refuses ("recall needs --query TEXT or --messages FILE")
        const query = a.query === undefined ? [] : [`--query=${a.query}`];
        if (a.messages) return { argv: ['recall', '--messages', '-', ...query, ...common], stdin: JSON.stringify(a.messages) };
        return { argv: ['recall', ...query, ...common] };
      },
    },
    memory_write: {
      title: 'Remember a fact',
      description: 'Store one durable fact as a typed entry in today\'s log: a preference (PREF), a decision and why (DECISION), project context (PROJ), infrastructure or tools (TECH), a lesson or correction (LESSON), a person (PEOPLE), an event (EVENT). One fact per call, one line, in the user\'s words. Never store secrets, passwords, tokens or keys (they are refused), nor small talk or what is already in memory (search first; the same fact written twice today is refreshed, not repeated).',
      inputSchema: {
        text: TEXT.describe('the fact, one line (at most 4,000 characters)'),
        type: TYPE.optional().describe('the entry type'),
        tags: TAGS.optional().describe('tags from TAGS.md'),
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
        text: TEXT.optional().describe('the text (for context: the value, or the whole fact without a key); at most 4,000 characters; not used by get'),
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
    memory_forget: {
      title: 'Forget an entry',
      description: 'Remove one entry from memory wherever it is written (its log line, its home note, MEMORY.md, the working buffer, and its SESSION-STATE.md item), for what should not be remembered at all: a mistake, or something the user asked you to forget. The line is moved to the trash (memory/.trash), from where a person can restore it; it is not shown by search, recall or boot any more. For a fact that changed, use memory_supersede instead (it keeps the history). Name the entry by the id memory_search returns (^k2j3mx0a1b) or by its citation (path#L12); an unknown or ambiguous reference is refused with the candidates, and forgetting it again changes nothing. dry_run shows what would be removed without removing it. Runs "memtier forget".',
      inputSchema: {
        entry: ENTRY_REF,
        dry_run: z.boolean().optional().describe('show what would be removed, remove nothing'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      invoke: (a: { entry: string; dry_run?: boolean | undefined }): Invocation => ({
        argv: ['forget', ...(a.dry_run ? ['--dry-run'] : []), '--', a.entry],
      }),
    },
    memory_supersede: {
      title: 'Correct an entry',
      description: 'Replace a fact that changed or was wrong: the old entry is kept struck through, marked "superseded by" the new one (ranked down in search, left out of recall), and the new fact is written as an entry of the same type (or `type`): in today\'s log when the old one was in a log, right below it when it was in a note. `by` is the new fact in one line (at most 4,000 characters; never a secret), or ^ID of an entry that already says it. Name the old entry by the id memory_search returns (^k2j3mx0a1b) or by its citation (path#L12); an unknown or ambiguous reference is refused with the candidates; running it again changes nothing. Runs "memtier supersede ENTRY --by …".',
      inputSchema: {
        entry: ENTRY_REF,
        by: TEXT.describe('the new, correct fact in one line (at most 4,000 characters), or ^ID of an existing entry that says it'),
        type: TYPE.optional().describe('the new entry\'s type (default: the old entry\'s)'),
        dry_run: z.boolean().optional().describe('show the change, write nothing'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      invoke: (a: { entry: string; by: string; type?: string | undefined; dry_run?: boolean | undefined }): Invocation => ({
        // --by=TEXT: a new text starting with "-" is the value, not a flag
        argv: ['supersede', `--by=${a.by}`, ...opt('--type', a.type), ...(a.dry_run ? ['--dry-run'] : []), '--', a.entry],
      }),
    },
    memory_recent: {
      title: 'Recent activity',
      description: 'What changed in the memory lately, day by day, newest first: the entries logged each day (decisions, facts, events: type, text, id and a path#Lline citation) and the memory files changed that day. Use it to catch up at the start of a session ("what happened since Monday?") or to find what was just written; use memory_search to look for a subject. Read-only.',
      inputSchema: {
        days: z.number().int().min(1).max(90, 'more than 90 days').optional().describe('how many days back, today included (default 7, at most 90)'),
        limit: z.number().int().min(1).max(200, 'more than 200').optional().describe('most entries and most files listed per day (default 30, at most 200; the counts are always given)'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      // no CLI command lists recent activity: read here, on the memory's own readers (recent.ts)
      read: (ctx: Ctx, a: RecentArgs): Record<string, unknown> => recentActivity(ctx, a),
    },
  } as const;
}

/** `--also=TEXT` (alternates starting with "-" are words, not a flag), or nothing for none. */
function also(v: string | undefined): string[] {
  return v === undefined || !v.trim() ? [] : [`--also=${v}`];
}

function opt(flag: string, v: string | number | undefined): string[] {
  return v === undefined || v === '' ? [] : [flag, String(v)];
}
