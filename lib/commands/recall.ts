/**
 * `memtier recall`: the budgeted memory block an agent host prepends to the prompt.
 */
import { readMessages } from '../cli/stdin.js';
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagNumber, flagString } from '../cli/spec.js';
import { ALSO_FLAG, alternatesFlag } from '../cli/alternates.js';
import type { Ctx } from '../core/context.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { lazyImport } from '../core/lazy.js';
import { localDate } from '../core/clock.js';
import type { Fact } from '../graph/facts.js';

/**
 * Is `e` a write the memory's state cannot take (read-only filesystem, no permission, an immutable
 * .memtier/, a full disk)? Recall's own writes (its history, the fact weights) are then skipped:
 * the answer does not depend on them.
 */
function cannotWriteState(e: unknown): boolean {
  if (e instanceof MemtierError && e.code === 'read-only') return true;
  for (let c: unknown = e; c instanceof Error; c = c.cause) {
    const code = (c as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOSPC' || code === 'EDQUOT') return true;
  }
  return false;
}

/**
 * Graph enrichment (seed 003): facts up to two hops from the entities the query names, from
 * memory/graph/facts.md, as many as the budget left allows; the facts recalled together gain
 * Hebbian weight. Only facts.md is read here (one file; note relations are for "memtier graph").
 */
async function graphFacts(ctx: Ctx, query: string, room: number, record: boolean): Promise<{ lines: string[]; json: { subject: string; predicate: string; object: string; id?: string; hops: number }[] }> {
  const none = { lines: [], json: [] };
  if (room < 80 || !query.trim()) return none;
  const { readMemoryFile } = await import('../store/store.js');
  const { FACTS_FILE, parseFacts } = await import('../graph/facts.js');
  const text = readMemoryFile(ctx.root, FACTS_FILE);
  if (!text) return none;
  const { FactGraph, factKey, readWeights, reinforce } = await import('../graph/graph.js');
  const graph = new FactGraph(parseFacts(text));
  const named = graph.entitiesIn(query);
  if (!named.length) return none;
  const today = localDate(ctx.clock.now(), ctx.clock.tz);
  const weights = readWeights(ctx.root);
  const chosen = new Map<string, { fact: Fact; hops: number }>();
  for (const e of named) {
    for (const n of graph.related(e, 2, weights, today)) {
      n.path.forEach((step, i) => { const k = factKey(step.fact); if (!chosen.has(k)) chosen.set(k, { fact: step.fact, hops: i + 1 }); });
    }
  }
  const lines: string[] = [];
  const used: { fact: Fact; hops: number }[] = [];
  let left = room - 40;
  for (const c of [...chosen.values()].sort((a, b) => a.hops - b.hops)) {
    const line = `- ${c.fact.subject} ${c.fact.predicate} ${c.fact.object} (${c.fact.path}#L${c.fact.line})`;
    if (line.length + 1 > left) break;
    lines.push(line);
    used.push(c);
    left -= line.length + 1;
  }
  if (record && used.length > 1) {
    try { reinforce(ctx, used.map((u) => u.fact)); } catch (e) { if (!cannotWriteState(e)) throw e; /* the weights are an optimization */ }
  }
  return { lines, json: used.map((u) => ({ subject: u.fact.subject, predicate: u.fact.predicate, object: u.fact.object, ...(u.fact.id ? { id: u.fact.id } : {}), hops: u.hops })) };
}

export const command: CommandSpec = {
  name: 'recall',
  summary: 'budgeted memory block to prepend to a prompt',
  usage: [
    'recall --query TEXT [--also WORDS]... [--context-used F] [--max-chars N] [--include-faded] [--json]',
    'recall --messages FILE [--query-mode message|recent|full] [--context-used F] [--max-chars N] [--json]',
  ],
  description: [
    'Prints the block an agent host prepends before a reply (Active Memory): the best-ranked entries for the query,',
    'one line each with a path#Lline citation; a hot-tier entry (recalled 5 times or more) is marked ★ and shown only',
    'when it matches, in its place by score (without a query: up to 3 hot entries). A note\'s line starts with its',
    'title when its text does not name it ("Priya Shah — Role: content lead."), its list items kept apart by "; ";',
    'a MEMORY.md index line whose file holds no entry yet (a new memory\'s "Where things live") is left out (search',
    'still lists it).',
    '',
    'Budget: --context-used F (fraction of the context window already used) sets how many entries fit:',
    'under 0.30 → 10; 0.30–0.70 → 10 down to 4 along t²; 0.70–0.85 → 4 down to 2; above 0.85 → 2. --max-chars caps the',
    'characters. Entries whose activation fell below 0.15 are left out unless --include-faded; a question that names a time',
    '(去年国庆去哪玩了, "what did we do last May") keeps that time\'s entries however old, and lists them first.',
    '',
    'The query is --query TEXT, or built from --messages FILE (a JSON list of {role, content}, "-" for stdin):',
    'message = the last user message; recent (default) = the last 2 user turns and 1 assistant turn (220/180 characters each);',
    'full = every turn. Identical queries within 15 s on an unchanged memory are served from .memtier/recall-cache.json',
    '(any write, hand edit or moved file since makes the next recall compute again). What answered (the first results,',
    'up to 3, each scoring at least half the best) is recorded in the recall history (.memtier/recall-history.json),',
    'which drives activation, the hot tier and dream; the rest of the block is not;',
    'a memory whose .memtier/ cannot be written (read-only, no permission) still answers, unrecorded and uncached, with a warning.',
    '--also WORDS: other words for what the conversation is about (the other language, abbreviations, likely wordings),',
    'searched below its own words, never a filter (as in memtier search).',
    'Prints nothing (exit 0) when nothing is relevant.',
  ].join('\n'),
  flags: [
    { name: 'query', type: 'string', value: 'TEXT', description: 'what to recall for' },
    { name: 'messages', type: 'string', value: 'FILE', description: 'JSON list of {role, content} messages ("-" reads stdin)' },
    { name: 'query-mode', type: 'string', value: 'MODE', description: 'how to build the query from --messages', default: 'recent', choices: ['message', 'recent', 'full'] },
    { name: 'context-used', type: 'number', value: 'F', description: 'fraction (0–1) of the context window in use; sets the entry budget', default: 0 },
    { name: 'max-chars', type: 'number', value: 'N', description: 'maximum characters of the block', default: 2000, integer: true, min: 1 },
    { name: 'include-faded', type: 'boolean', description: 'also include entries whose activation fell below 0.15' },
    { name: 'no-record', type: 'boolean', description: 'do not record this recall in the history (dry run)' },
    ALSO_FLAG,
  ],
  examples: [
    'memtier recall --query "deploy the billing service"',
    'memtier recall --messages turn.json --context-used 0.55 --max-chars 1200',
    'memtier recall --messages - --query-mode message --json < turn.json',
  ],
  async run(ctx: Ctx, args: Args, io): Promise<CommandResult> {
    const { queryFromMessages, recall } = await lazyImport('search/recall.js', () => import('../search/recall.js'));
    let query = flagString(args, 'query');
    const file = flagString(args, 'messages');
    if (query === undefined && file === undefined) {
      if (args.positionals.length) query = args.positionals.join(' ');
      else throw new UsageError('recall needs --query TEXT or --messages FILE', 'e.g. memtier recall --query "deploy billing"');
    }
    if (file !== undefined) {
      const list = await readMessages(io, ctx.cwd, file);
      const mode = (flagString(args, 'query-mode') ?? 'recent') as 'message' | 'recent' | 'full';
      const fromMsgs = queryFromMessages(list, mode);
      query = [query, fromMsgs].filter(Boolean).join('\n');
    }
    const used = flagNumber(args, 'context-used') ?? 0;
    if (!(used >= 0 && used <= 1)) throw new UsageError(`--context-used expects a fraction between 0 and 1, got ${used}`, 'e.g. --context-used 0.45 for 45 %');
    const maxChars = flagNumber(args, 'max-chars') ?? 2000;
    if (!(maxChars > 0)) throw new UsageError(`--max-chars expects a positive number, got ${maxChars}`);
    const alternates = alternatesFlag(args);
    const opts = { contextUsed: used, maxChars, includeFaded: flagBool(args, 'include-faded'), noRecord: flagBool(args, 'no-record'), ...(alternates ? { alternates } : {}) };
    let record = !opts.noRecord;
    let block: Awaited<ReturnType<typeof recall>>;
    try {
      block = await recall(ctx, query ?? '', opts);
    } catch (e) {
      // a memory whose .memtier/ cannot be written (read-only, immutable, another user's, full)
      // still answers: without recording the recall in the history (nor caching it)
      if (!record || !cannotWriteState(e)) throw e;
      ctx.log.warn(`recall not recorded in the recall history: ${(e as Error).message.replace(/: nothing was written$/, '')}`);
      record = false;
      block = await recall(ctx, query ?? '', { ...opts, noRecord: true });
    }
    const strip = (r: (typeof block.results)[number]) => { const { line_text: _l, ...rest } = r; return rest; };
    const facts = await graphFacts(ctx, query ?? '', maxChars - block.text.length, record);
    const text = facts.lines.length ? `${block.text}${block.text ? '\n\n' : ''}Related facts (memory/graph/facts.md):\n${facts.lines.join('\n')}` : block.text;
    return {
      text,
      json: { query: block.query, budget: block.budget, cached: block.cached, hot: block.hot.map(strip), results: block.results.map(strip), facts: facts.json, text },
    };
  },
};

