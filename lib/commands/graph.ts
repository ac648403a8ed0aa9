/**
 * `memtier graph related|stats|export`: the facts graph read as a graph (lib/graph/graph.ts).
 */
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagNumber } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { localDate } from '../core/clock.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { allFacts } from '../graph/facts.js';
import { FactGraph, readWeights } from '../graph/graph.js';

export const command: CommandSpec = {
  name: 'graph',
  summary: 'the facts graph: related entities (with the path to each), stats, a Mermaid drawing',
  usage: ['graph related ENTITY [--hops 2]', 'graph stats', 'graph export ENTITY --mermaid [--hops 1]'],
  description: `Reads the facts of memory/graph/facts.md and the "- relation_type [[Target]]" bullets of notes
(memtier fact --help). related: entities within --hops of ENTITY (breadth-first, both directions),
nearest first and, at one distance, the paths of facts recalled together more often first (Hebbian
weights: +0.1 per co-recall, halved every 30 days; recall adds facts about the entities a query
names). stats: entities and relation types with their counts. export --mermaid: a flowchart of
ENTITY's neighbourhood to paste into markdown.`,
  subcommands: { related: 'entities near ENTITY, with the facts that lead there', stats: 'entities and relation types with counts', export: 'draw ENTITY\'s neighbourhood (--mermaid)' },
  flags: [
    { name: 'hops', type: 'number', value: 'N', description: 'related: how far (default 2); export: how far (default 1)' },
    { name: 'mermaid', type: 'boolean', description: 'export as a Mermaid flowchart' },
  ],
  examples: ['memtier graph related Ana', 'memtier graph related "billing service" --hops 1 --json', 'memtier graph stats', 'memtier graph export Ana --mermaid'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const [sub, ...rest] = args.positionals;
    const graph = new FactGraph(allFacts(ctx.root));
    if (sub === 'stats') {
      const s = graph.stats();
      const text = s.entities.length
        ? [`${graph.facts.length} facts, ${s.entities.length} entities, ${s.relations.length} relation types`, 'entities:', ...s.entities.map((e) => `  ${e.entity} (${e.facts})`), 'relation types:', ...s.relations.map((r) => `  ${r.relation} (${r.facts})`)].join('\n')
        : 'no facts yet (memtier fact add SUBJECT PREDICATE OBJECT)';
      return { text, json: { ok: true, facts: graph.facts.length, ...s } };
    }
    const entity = rest.join(' ').trim();
    if (sub !== 'related' && sub !== 'export') throw new UsageError(sub ? `unknown subcommand "graph ${sub}"` : 'graph needs a subcommand', 'one of: related, stats, export');
    if (!entity) throw new UsageError(`graph ${sub} needs an ENTITY`, `e.g. memtier graph ${sub} Ana`);
    if (!graph.has(entity)) throw new MemtierError(`no fact names "${entity}"`, { code: 'not-found', hint: 'memtier graph stats lists the entities' });
    const hops = flagNumber(args, 'hops') ?? (sub === 'related' ? 2 : 1);
    if (!Number.isInteger(hops) || hops < 1 || hops > 6) throw new UsageError(`--hops expects a whole number from 1 to 6, got ${hops}`);
    if (sub === 'export') {
      if (!flagBool(args, 'mermaid')) throw new UsageError('graph export needs a format', 'add --mermaid');
      const m = graph.mermaid(entity, hops);
      return { text: m, json: { ok: true, entity, format: 'mermaid', mermaid: m } };
    }
    const today = localDate(ctx.clock.now(), ctx.clock.tz);
    const near = graph.related(entity, hops, readWeights(ctx.root), today);
    const text = near.length
      ? near.map((n) => `${n.entity} (${n.hops} hop${n.hops === 1 ? '' : 's'}): ${n.path.map((s) => `${s.fact.subject} —${s.fact.predicate}→ ${s.fact.object}`).join('; ')}`).join('\n')
      : `nothing related to "${entity}" within ${hops} hop${hops === 1 ? '' : 's'}`;
    return { text, json: { ok: true, entity, hops, related: near.map((n) => ({ entity: n.entity, hops: n.hops, weight: Math.round(n.weight * 1000) / 1000, path: n.path.map((s) => ({ subject: s.fact.subject, predicate: s.fact.predicate, object: s.fact.object, id: s.fact.id, at: `${s.fact.path}:${s.fact.line}` })) })) } };
  },
};
