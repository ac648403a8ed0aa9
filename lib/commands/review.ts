import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { IF_UPKEEP_FLAG, upkeepSkip } from '../lifecycle/upkeep-role.js';
import { runReview } from '../lifecycle/review.js';

export const command: CommandSpec = {
  name: 'review',
  summary: 'weekly review: decisions and lessons to their homes, freshness, report',
  usage: ['review [--week YYYY-Www] [--apply] [--dry-run]'],
  description: `The weekly review (seed 004; cron: Monday 09:00). Reads the last 7 days of episodic
entries (or the ISO week given; an archived day of that week is read in memory/archive/), then: copies decisions to memory/semantic/decisions.md and
lessons plus recurring #friction (two or more friction entries sharing a tag or a text) to
memory/procedural/lessons-learned.md, each fact once in its home (deduplicated by ^id and by
text); archives episodic days past their TTL; adds the week's open items (closure "Open:"
lines) to MEMORY.md's "Open questions" (at most 5, within MEMORY.md's budget) and refreshes
its "Last reviewed:" line; rotates a stale working buffer; writes memory/reviews/YYYY-Www.md
with health, stale notes and sublimation suggestions (3+ lesson or preference entries sharing a
tag or a topic word, a word of 5+ letters or a Chinese word, → a proposed knowledge/ playbook). When nothing meaningful changed it says "No meaningful
changes" and writes nothing. A file a person edits during the review keeps their edit (the
review re-reads and redoes its change).
Free-form notes (paragraphs, untyped bullets and an outliner's nested bullets a person or
OpenClaw wrote) go through the extraction rules (memtier extract --help): what they find is
listed in the week's report (also without --apply: a scheduled review runs without it, and
MEMORY.md's "Last reviewed:" line links the report); with --apply it is filed into its home as a new line ending "(from PATH#Lline)" (the
line its sentence is on; "- 2026-11-24 [DECISION] …": the note's day, no time it did not give),
the note itself never rewritten, each sentence once. Checklist items ("- [ ] …", "- [x] …") and
Logseq's tasks ("TODO …", "DONE …") are the person's tasks and are not filed. A daily note of the
person's own under memory/ (memory/Daily/2026-11-20.md, a Logseq graph's
memory/journals/2026_11_20.md) is read as its day, and so is a note dated by what it says (a
frontmatter date: or created:, a Notion page's "Date:" or "Created:" line under its title; its
properties are not its text).`,
  flags: [
    { name: 'week', type: 'string', value: 'YYYY-Www', description: 'review this ISO week instead of the last 7 days' },
    { name: 'apply', type: 'boolean', description: 'also file what extraction finds in the week\'s free-form notes' },
    { name: 'dry-run', type: 'boolean', description: 'show what would change, write nothing' },
    IF_UPKEEP_FLAG,
  ],
  examples: ['memtier review', 'memtier review --week 2026-W19 --dry-run', 'memtier review --json'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const skip = await upkeepSkip(ctx, args);
    if (skip) return skip;
    const week = flagString(args, 'week');
    const r = await runReview(ctx, { dryRun: flagBool(args, 'dry-run'), applyExtracted: flagBool(args, 'apply'), ...(week ? { week } : {}) });
    const lines = [r.message];
    for (const x of r.extracted) lines.push(`  ${x.filed ? (r.dryRun ? 'would file' : 'filed') : 'found'} [${x.type}] ${x.text} → ${x.home}`);
    for (const s of r.sublimation) lines.push(`  suggestion: ${s.count} entries ${s.kind === 'tag' ? `tagged #${s.tag}` : `about "${s.tag}"`} → merge into ${s.target}?`);
    if (r.openQuestions.parked.length) lines.push(`  ${r.openQuestions.parked.length} open item(s) did not fit in MEMORY.md: see the report`);
    return { text: lines.join('\n'), json: r };
  },
};
