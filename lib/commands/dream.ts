import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagNumber, flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { IF_UPKEEP_FLAG, upkeepSkip } from '../lifecycle/upkeep-role.js';
import { UsageError } from '../core/errors.js';
import { DREAM_DEFAULTS, GATE_WHY, runDream, type Phase } from '../lifecycle/dream.js';

export const command: CommandSpec = {
  name: 'dream',
  summary: 'stage, theme and promote recalled entries into MEMORY.md',
  usage: ['dream [--phase light|rem|deep] [--apply] [--explain] [--min-score X] [--min-recall-count N] [--min-unique-queries N] [--max-age-days N] [--limit N]'],
  description: `Seed 001's dream, as in OpenClaw memory-core. light stages candidates: entries of the
last 30 days up to today (a day written ahead only when recalled) and every entry in the
recall history (the same ^id in a log and a home is one candidate; near-duplicates, word sets
80% alike, are merged and their recalls added up; TEMP entries never). REM finds recurring
themes (tags on 2+ candidates, words on 3+). deep scores
each candidate on six signals weighted like memory-core's deep phase: relevance 0.30 (a type
prior: decisions, preferences, lessons 1.0; people, tools, projects 0.8; untyped 0.5; events
0.3; +0.1 inside a theme), frequency 0.24 (log recalls), query diversity 0.15 (distinct
queries / 5), recency 0.15 (14-day half-life from the last recall), consolidation 0.10 (days
seen or recalled) and concept density 0.06; it promotes the best that pass every gate:
score >= 0.5, >= 3 recalls, >= 3 different queries, <= 30 days old, an ^id, not yet promoted,
at most 10 a run. OpenClaw uses 0.75-0.8 with embedding relevance; here the evidence is in the
recall gates every promotion passes anyway: with exactly 3 recalls for 3 questions over 3 days a
decision scores 0.78 the day after its last recall and 0.75 a week later, an untyped note 0.63,
an event 0.57; at 0.75 only fresh decisions would pass, so 0.5 (the seed's default) is a floor
against old, thin or one-day candidates.
Without --apply nothing is written (a preview). With --apply each promoted fact is filed in its
canonical home when not there yet and gets a clean index line in MEMORY.md linking it there
("- Text — [decisions](memory/semantic/decisions.md#^id) ^id": no time, type, tags or scores;
the trailing ^id marks lines memtier may remove again when the fact decays; events and untyped
entries link their log line), while MEMORY.md stays one line under its budget; past that,
MEMORY.md gets one index line to the home instead. Sources are re-read from the live files under the lock: a changed or deleted source
is not promoted. DREAMS.md gets a diary entry (staged, themes, promoted and why, held back);
templates/dream-diary.md lets an agent add narrative. A second run changes nothing.
Gates can also be set with MEMTIER_DREAM_MIN_SCORE, _MIN_RECALL_COUNT, _MIN_UNIQUE_QUERIES,
_MAX_AGE_DAYS, _LIMIT.`,
  flags: [
    { name: 'phase', type: 'string', value: 'PHASE', choices: ['light', 'rem', 'deep'], description: 'run one phase only (light and rem never write)' },
    { name: 'apply', type: 'boolean', description: 'write the promotions and the diary (default: preview)' },
    { name: 'dry-run', type: 'boolean', description: 'preview (the default without --apply)' },
    { name: 'explain', type: 'boolean', description: "show each candidate's signals and the gate it failed" },
    { name: 'min-score', type: 'number', value: 'X', description: `score gate (default ${DREAM_DEFAULTS.minScore})` },
    { name: 'min-recall-count', type: 'number', value: 'N', description: `recall gate (default ${DREAM_DEFAULTS.minRecallCount})` },
    { name: 'min-unique-queries', type: 'number', value: 'N', description: `distinct queries gate (default ${DREAM_DEFAULTS.minUniqueQueries})` },
    { name: 'max-age-days', type: 'number', value: 'N', description: `age gate and staging window (default ${DREAM_DEFAULTS.maxAgeDays})` },
    { name: 'limit', type: 'number', value: 'N', description: `most promotions per run (default ${DREAM_DEFAULTS.limit})` },
    IF_UPKEEP_FLAG,
  ],
  examples: ['memtier dream --explain', 'memtier dream --apply', 'memtier dream --phase rem', 'memtier dream --apply --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const skip = await upkeepSkip(ctx, args);
    if (skip) return skip;
    const phase = flagString(args, 'phase') as Phase | undefined;
    if (phase && !['light', 'rem', 'deep'].includes(phase)) throw new UsageError(`--phase must be light, rem or deep (got "${phase}")`);
    const n = (k: string) => flagNumber(args, k);
    const opts = {
      ...(phase ? { phase } : {}),
      apply: flagBool(args, 'apply') && !flagBool(args, 'dry-run'),
      ...(n('min-score') !== undefined ? { minScore: n('min-score')! } : {}),
      ...(n('min-recall-count') !== undefined ? { minRecallCount: n('min-recall-count')! } : {}),
      ...(n('min-unique-queries') !== undefined ? { minUniqueQueries: n('min-unique-queries')! } : {}),
      ...(n('max-age-days') !== undefined ? { maxAgeDays: n('max-age-days')! } : {}),
      ...(n('limit') !== undefined ? { limit: n('limit')! } : {}),
    };
    const r = runDream(ctx, opts);
    const lines = [r.message];
    for (const p of r.promoted) lines.push(`  ${r.applied ? 'promoted' : 'would promote'}: ${p.text} → ${p.to}`);
    for (const o of r.overflow) lines.push(`  overflow: ${o}`);
    for (const s of r.skipped) lines.push(`  skipped ${s.source}: ${s.why}`);
    if (r.themes.length) lines.push(`  themes: ${r.themes.map((t) => `${t.theme} (${t.count})`).join(', ')}`);
    if (flagBool(args, 'explain')) {
      for (const c of r.candidates) {
        const sig = c.signals ? Object.entries(c.signals).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ') : 'not scored';
        const verdict = c.promoted ? `promoted (${c.promoted})` : c.failed?.length ? `held: ${c.failed.map((g) => `${g} — ${GATE_WHY[g]}`).join('; ')}` : r.applied ? 'passed' : 'passes every gate';
        lines.push(`  ${c.path}:${c.line}${c.id ? ` ^${c.id}` : ''} score ${c.score?.toFixed(3) ?? '-'} recalls ${c.recallCount} queries ${c.uniqueQueries} days ${c.recallDays}\n    ${sig}\n    ${verdict}`);
      }
    }
    return { text: lines.join('\n'), json: r, commitSummary: r.promoted.length ? `dream: promoted ${r.promoted.map((p) => p.text.replace(/\s#\S+/g, '').slice(0, 60)).join('; ')}` : r.message };
  },
};
