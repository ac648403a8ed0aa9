/**
 * `memtier fact add|list|forget`: the facts graph's lines (memory/graph/facts.md, lib/graph/facts.ts).
 */
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { addFact, allFacts, entityKey, FACTS_FILE, forgetFact, formatFact, type Fact } from '../graph/facts.js';

const show = (f: Fact): string => `${formatFact({ ...f, id: undefined })}${f.id ? ` ^${f.id}` : ''}  (${f.path}:${f.line})`;

export const command: CommandSpec = {
  name: 'fact',
  summary: 'the facts graph: add, list and forget subject–predicate–object facts',
  usage: ['fact add SUBJECT PREDICATE OBJECT [--source ^id|PATH]', 'fact list [ENTITY]', 'fact forget ^id'],
  description: `Facts are lines of ${FACTS_FILE}: "- [[SUBJECT]] predicate [[OBJECT]] — DATE (source: …) ^id",
readable as they are and linked in Obsidian. Adding the same subject, predicate and object again (case
and spacing aside) refreshes that fact's activation instead of adding a line. Notes may state relations
as "- relation_type [[Target]]" bullets (basic-memory's convention; the note is the subject): list and
"memtier graph" read both. forget moves the line to memory/.trash/forgotten/DAY.md.
Quote a SUBJECT, PREDICATE or OBJECT of several words; none may hold [, ], ^ or " — ".`,
  subcommands: { add: 'add a fact (or refresh the same one)', list: 'facts, all or those of one entity', forget: 'move a fact to the trash' },
  flags: [{ name: 'source', type: 'string', value: '^ID|PATH', description: 'add: where the fact comes from (an entry id or a memory path)' }],
  examples: ['memtier fact add Ana owns "quarterly budget review" --source ^3lo7dflvjw35', 'memtier fact add 张伟 负责 数据库迁移', 'memtier fact list Ana', 'memtier fact forget ^f-3lo8a1b2c3'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const [sub, ...rest] = args.positionals;
    if (sub === 'add') {
      if (rest.length !== 3) throw new UsageError(`fact add needs SUBJECT PREDICATE OBJECT (got ${rest.length} argument${rest.length === 1 ? '' : 's'})`, 'quote the parts of several words: memtier fact add Ana owns "quarterly budget review"');
      const r = addFact(ctx, { subject: rest[0]!, predicate: rest[1]!, object: rest[2]!, source: flagString(args, 'source') });
      return { text: args.quiet ? '' : r.message, json: { ok: true, added: r.added, fact: r.fact }, ...(r.added ? { commitSummary: `fact: ${rest.join(' ')}` } : {}) };
    }
    if (sub === 'list') {
      if (rest.length > 1) throw new UsageError('fact list takes at most one ENTITY', 'quote an entity of several words');
      const all = allFacts(ctx.root);
      const key = rest[0] === undefined ? undefined : entityKey(rest[0]);
      const facts = key === undefined ? all : all.filter((f) => entityKey(f.subject) === key || entityKey(f.object) === key);
      const text = facts.length ? facts.map(show).join('\n') : key === undefined ? `no facts yet (memtier fact add SUBJECT PREDICATE OBJECT)` : `no facts about "${rest[0]}"`;
      return { text, json: { ok: true, facts } };
    }
    if (sub === 'forget') {
      if (rest.length !== 1 || !/^\^?[A-Za-z0-9][A-Za-z0-9-]{2,63}$/.test(rest[0]!)) throw new UsageError('fact forget needs one ^id', 'memtier fact list shows each fact with its ^id');
      const r = forgetFact(ctx, rest[0]!);
      return { text: args.quiet ? '' : `forgot ^${r.fact.id} (${show(r.fact)}); the line is kept in ${r.savedTo}`, json: { ok: true, fact: r.fact, savedTo: r.savedTo }, commitSummary: `fact forget ^${r.fact.id}` };
    }
    throw new UsageError(sub ? `unknown subcommand "fact ${sub}"` : 'fact needs a subcommand', 'one of: add, list, forget');
  },
};
