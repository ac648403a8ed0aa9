import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool, flagNumber } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { applyPlanned, read } from '../lifecycle/common.js';
import { verify } from '../lifecycle/verify.js';

export const command: CommandSpec = {
  name: 'verify',
  summary: 'find drift: dead paths, relative dates, contradictions, stale facts',
  usage: ['verify [--days N] [--stale-days N] [--dry-run]'],
  description: `Checks durable notes (MEMORY.md, SESSION-STATE.md, todos.md, semantic, procedural, graph,
knowledge) for what is no longer true: links and back-ticked paths that no longer exist (and
#^id anchors with no such entry); relative dates ("yesterday", "last week", "明天", "上周") with the
absolute date they meant; contradictions (one subject and attribute with two values, two
SESSION-STATE values for one key, a decision reversed later without a superseded mark); notes
whose last_verified is older than 30 days; files whose frontmatter does not parse (reported, never
rewritten). Fenced code and HTML comments are not checked; logs are history, so episodic days
are checked (for paths only) just with --days N (the last N days). Writes memory/reviews/verify-YYYY-MM-DD.md (unchanged
when the findings are the same) and exits 1 when anything is found. templates/verify-review.md
is a prompt for an agent to resolve the findings.`,
  flags: [
    { name: 'days', type: 'number', value: 'N', description: 'also check paths and links in the episodic days of the last N days (default 0)' },
    { name: 'stale-days', type: 'number', value: 'N', description: 'last_verified older than N days is stale (default 30)' },
    { name: 'dry-run', type: 'boolean', description: 'report only on stdout, write no report file' },
    { name: 'no-report', type: 'boolean', description: 'same as --dry-run' },
  ],
  examples: ['memtier verify', 'memtier verify --json', 'memtier verify --dry-run', 'memtier verify --days 7'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const dry = flagBool(args, 'dry-run') || flagBool(args, 'no-report');
    const days = flagNumber(args, 'days');
    const staleDays = flagNumber(args, 'stale-days');
    const r = verify(ctx, { ...(days !== undefined ? { days } : {}), ...(staleDays !== undefined ? { staleDays } : {}) });
    const applied = applyPlanned(ctx, () => {
      const cur = read(ctx, r.report);
      return { ops: cur === r.reportText ? [] : [{ kind: 'write' as const, rel: r.report, content: r.reportText, expected: cur ?? null }], result: null };
    }, { dryRun: dry });
    const summary = r.ok
      ? 'verify: nothing found'
      : `verify: ${r.findings.length} finding(s): ${Object.entries(r.counts).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(', ')}`;
    const where = dry ? '' : applied.applied ? ` → ${r.report}` : ` (${r.report} unchanged)`;
    const text = [summary + where, ...r.findings.slice(0, 30).map((f) => `  ${f.file}:${f.line} ${f.kind}: ${f.message}`), ...(r.findings.length > 30 ? [`  … ${r.findings.length - 30} more in the report`] : [])].join('\n');
    return { text, json: { ok: r.ok, date: r.date, counts: r.counts, findings: r.findings, report: dry ? null : r.report, written: applied.applied }, exitCode: r.ok ? 0 : 1 };
  },
};
