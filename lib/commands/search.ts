/**
 * `memtier search QUERY`: ranked search over every tier (tags + BM25 + activation).
 */
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagList, flagNumber, flagString } from '../cli/spec.js';
import { ALSO_FLAG, alternatesFlag } from '../cli/alternates.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { isEntryType, type EntryType } from '../format/entry.js';
import { quoteInput } from '../store/guards/secrets.js';
import { MAX_FILE_BYTES } from '../store/guards/text.js';
import type { SearchOptions, SearchResponse, SearchResult } from '../search/search.js';
import { lazyImport } from '../core/lazy.js';
import { notACalendarDay } from '../core/clock.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export { notACalendarDay } from '../core/clock.js';

function dateFlag(args: Args, name: string): string | undefined {
  const v = flagString(args, name);
  if (v === undefined) return v;
  if (!DATE.test(v)) throw new UsageError(`search: --${name} expects a date YYYY-MM-DD, got "${quoteInput(v)}"`, `for example --${name} 2026-05-01`);
  // a day that does not exist matched nothing ("no match", exit 0) or, rolled over, the wrong days
  const why = notACalendarDay(v);
  if (why) throw new UsageError(`search: --${name} is not a real date: "${v}" (${why})`, `give a day of the calendar, YYYY-MM-DD, for example --${name} 2026-05-01`);
  return v;
}

/** Parse the flags shared by search and recall into SearchOptions. */
export function searchOptionsFromArgs(args: Args): SearchOptions {
  const opts: SearchOptions = {};
  const k = flagNumber(args, 'k');
  if (k !== undefined) {
    if (!Number.isInteger(k) || k < 1) throw new UsageError(`--k takes a positive whole number, got ${k}`, 'for example --k 10');
    opts.k = k;
  }
  const tags = flagList(args, 'tags');
  if (tags?.length) opts.tags = tags;
  const type = flagString(args, 'type');
  if (type !== undefined) {
    const t = type.toUpperCase();
    if (!isEntryType(t)) throw new UsageError(`--type must be one of PREF, DECISION, PROJ, TECH, LESSON, PEOPLE, EVENT, TEMP; got "${type}"`);
    opts.type = t as EntryType;
  }
  const since = dateFlag(args, 'since');
  if (since) opts.since = since;
  const until = dateFlag(args, 'until');
  if (until) opts.until = until;
  const tier = flagString(args, 'tier');
  if (tier) opts.tier = tier as 'hot' | 'warm' | 'cold';
  if (flagBool(args, 'include-superseded')) opts.includeSuperseded = true;
  if (flagBool(args, 'explain')) opts.explain = true;
  const also = alternatesFlag(args);
  if (also) opts.alternates = also;
  return opts;
}


export function citation(r: SearchResult): string {
  return r.endLine > r.line ? `${r.path}#L${r.line}-L${r.endLine}` : `${r.path}#L${r.line}`;
}

function oneLineText(t: string, max = 240): string {
  const s = t.replace(/\s+/g, ' ').trim();
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/** The files search could not look into, said after the answer (a silent gap would read as "not in memory"). */
function tooLargeNote(resp: SearchResponse): string {
  const big = resp.tooLarge ?? [];
  if (!big.length) return '';
  const shown = big.slice(0, 3).join(', ') + (big.length > 3 ? ` and ${big.length - 3} more` : '');
  return `\nnot searched: ${big.length} file${big.length > 1 ? 's' : ''} over the ${MAX_FILE_BYTES / 1048576} MiB limit (${shown}); split ${big.length > 1 ? 'them' : 'it'} into smaller notes ("memtier health" lists ${big.length > 1 ? 'them' : 'it'})`;
}

function render(resp: SearchResponse, explain: boolean): string {
  return renderResults(resp, explain) + tooLargeNote(resp);
}

function renderResults(resp: SearchResponse, explain: boolean): string {
  if (resp.results.length === 0) {
    // a time the query named and resolved: say which days were searched, not just "no match"
    if (resp.range) {
      const days = resp.range.from === resp.range.to ? `on ${resp.range.from}` : `between ${resp.range.from} and ${resp.range.to}`;
      return `nothing ${days} (${resp.range.phrases.map((p) => `"${p}"`).join(', ')})${resp.terms.length ? ` matching ${resp.terms.join(' ')}` : ''}\ntry other words, a wider time ("last month"), or no time at all`;
    }
    // the query quoted back as any input is: cut, escapes visible, a credential never shown (nor its terms)
    const quoted = quoteInput(resp.query, 80);
    const secret = quoted.startsWith('(a value that looks like');
    return `no match for ${secret ? quoted : `"${quoted}"`}${resp.terms.length && !secret ? ` (terms: ${resp.terms.join(' ')})` : ''}\ntry fewer or other words, drop --tags/--type/--since filters, or check "memtier health"`;
  }
  const out: string[] = [];
  if (explain && resp.aliases) out.push(`aliases: also searched ${resp.aliases.map((a) => `"${a}"`).join(', ')} (names the memory declares for names in the query)`);
  if (explain && resp.secondary) out.push(`secondary: ${resp.secondary.map((s) => `${s.word} (${s.source === 'also' ? 'alternate' : `cedict ${s.via}`}, w ${s.weight})`).join(', ')}`);
  if (resp.range) out.push(`time: ${resp.range.from}${resp.range.to !== resp.range.from ? ` … ${resp.range.to}` : ''} (from "${resp.range.phrases.join('", "')}")`);
  resp.results.forEach((r, i) => {
    const meta = [r.type && `[${r.type}]`, r.date, r.tier, r.tags.length ? r.tags.map((t) => `#${t}`).join(' ') : undefined].filter(Boolean).join(' ');
    out.push(`${i + 1}. ${citation(r)}${r.id ? ` ^${r.id}` : ''}  ${meta}  score ${r.score}${r.via !== 'terms' ? ` (via ${r.via === 'context' ? 'a neighbouring entry' : 'the time range'})` : ''}`);
    // a note that is its title alone: the title once, not "Title — Title"
    out.push(`   ${r.heading && r.heading !== r.text.trim() ? `${r.heading} — ` : ''}${oneLineText(r.text)}`);
    if (r.duplicates?.length) out.push(`   (+${r.duplicates.length} near-duplicate${r.duplicates.length > 1 ? 's' : ''}: ${r.duplicates.join(', ')})`);
    if (explain && r.explain) out.push(`   explain: ${Object.entries(r.explain).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  });
  if (resp.total > resp.results.length) out.push(`${resp.total - resp.results.length} more matches; raise --k to see them`);
  return out.join('\n');
}

export const command: CommandSpec = {
  name: 'search',
  summary: 'ranked search over every tier (tags + BM25 + activation)',
  usage: ['search QUERY [--also WORDS]... [--k 10] [--tags a,b] [--type PREF] [--since D] [--until D] [--tier hot|warm|cold] [--explain] [--record] [--json]'],
  description: [
    'Searches every memory file of every tier (MEMORY.md, SESSION-STATE.md, todos, the working buffer, episodic days,',
    'semantic/procedural notes, knowledge/, the archive) except memory/.trash and .memtier. The unit is an entry: a bullet',
    'entry of a log, a heading section of a note, an index line of MEMORY.md. Each result cites path#Lline.',
    '',
    'Ranking: BM25 (k1 0.9, b 0.4; tags ×3, headings ×2) + context from neighbouring log entries + coverage of the query by',
    'the entry\'s file, tag match, type and tier weights, activation/decay and recency (they order results but never hide a',
    'match); a time expression in the query ("yesterday", "last Tuesday", "in May 2023", "上周二") boosts entries of that',
    'range (a query that is only a time lists it); near-duplicates are folded. Each result says why it is there (via).',
    'English is stemmed with stop words dropped; Chinese/Japanese are segmented into words (Intl.Segmenter, bigrams without ICU).',
    '--explain prints every factor. --record counts the first results, the answers, as recalled (for an agent searching on its own behalf).',
    '',
    'Words the question does not contain (secondary terms, weighed below the question\'s own and never a filter): --also',
    'WORDS, the caller\'s other words for it (translations, abbreviations, paraphrases: pass them when the memory may say',
    'it otherwise, or search again with them when the first results do not answer); and the dictionary bridge (CC-CEDICT):',
    'a Chinese word the memory rarely writes also searches its English glosses and synonyms (链路追踪 → tracing), an',
    'English word the Chinese words it glosses (callback → 回调). A secondary word weighs less than a question word of the',
    'same rarity and never counts toward file coverage; --explain names those an entry holds (also=, with source and weight).',
    'The first search builds the index (.memtier/index); a build longer than a second shows its progress (files done /',
    'total, rate, time left) when stderr is a terminal, and nothing in a pipe or with --json / --quiet.',
  ].join('\n'),
  flags: [
    { name: 'k', type: 'number', value: 'N', description: 'number of results', default: 10, integer: true, min: 1 },
    { name: 'tags', type: 'list', value: 'A,B', description: 'only entries carrying all these tags (inline #tags or frontmatter tags)' },
    { name: 'type', type: 'string', value: 'TYPE', description: 'only entries of this type (PREF, DECISION, PROJ, TECH, LESSON, PEOPLE, EVENT, TEMP)' },
    { name: 'since', type: 'string', value: 'YYYY-MM-DD', description: 'only dated entries on or after this day' },
    { name: 'until', type: 'string', value: 'YYYY-MM-DD', description: 'only dated entries on or before this day' },
    { name: 'tier', type: 'string', value: 'TIER', description: 'only this tier (hot includes the working buffer)', choices: ['hot', 'warm', 'cold'] },
    { name: 'explain', type: 'boolean', description: 'show every factor of each score' },
    { name: 'include-superseded', type: 'boolean', description: 'also list entries struck through as superseded (left out by default)' },
    { name: 'topic', type: 'string', value: 'NAME', description: 'only entries of this topic of memory/palace/topics.md (memtier topics)' },
    { name: 'record', type: 'boolean', description: 'record the results in the recall history (searches made on behalf of the agent)' },
    ALSO_FLAG,
  ],
  examples: [
    'memtier search "docker deploy failed"',
    'memtier search "部署失败" --k 5',
    'memtier search "what did we decide last Tuesday" --explain',
    'memtier search "上上周定的链路追踪方案" --also "tracing OpenTelemetry trace"',
    'memtier search postgres --type DECISION --since 2026-01-01 --json',
  ],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const query = args.positionals.join(' ').trim();
    if (!query) throw new UsageError('search needs a QUERY', 'e.g. memtier search "docker deploy"');
    const opts = searchOptionsFromArgs(args);
    const { searchDetailed } = await lazyImport('search/search.js', () => import('../search/search.js'));
    const topic = flagString(args, 'topic');
    let within: Set<string> | undefined;
    if (topic !== undefined) {
      const { readMemoryFile } = await lazyImport('store/store.js', () => import('../store/store.js'));
      const { TOPICS_FILE, topicEntries } = await lazyImport('format/topics.js', () => import('../format/topics.js'));
      within = topicEntries(readMemoryFile(ctx.root, TOPICS_FILE) ?? '', topic);
      if (!within) throw new UsageError(`no topic "${topic}" in ${TOPICS_FILE}`, 'run "memtier topics" to find the topics; a topic is named by its keywords');
    }
    const k = opts.k ?? 10;
    const resp = await searchDetailed(ctx, query, within ? { ...opts, k: Math.max(200, k * 20) } : opts);
    if (within) {
      const w = within;
      const inTopic = resp.results.filter((r) => (r.id && w.has(`${r.path}#^${r.id}`)) || w.has(`${r.path}#L${r.line}`));
      resp.total = inTopic.length;
      resp.results = inTopic.slice(0, k);
    }
    if (flagBool(args, 'record') && resp.results.length) {
      // what answered (the first results), not every result listed: as recall credits
      const { creditedKeys, recordRecalls } = await lazyImport('search/history.js', () => import('../search/history.js'));
      recordRecalls(ctx, creditedKeys(resp.results), query);
    }
    return {
      text: render(resp, opts.explain === true),
      json: { query: resp.query, terms: resp.terms, range: resp.range ?? null, ...(resp.results.length === 0 && resp.range ? { nothing: resp.range.from === resp.range.to ? `nothing on ${resp.range.from}` : `nothing between ${resp.range.from} and ${resp.range.to}` } : {}), ...(resp.aliases ? { aliases: resp.aliases } : {}), ...(resp.secondary ? { secondary: resp.secondary } : {}), ...(resp.tooLarge ? { tooLarge: resp.tooLarge } : {}), total: resp.total, results: resp.results.map((r) => ({ ...r, cite: citation(r) })) },
      exitCode: 0,
    };
  },
};
