import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagBool } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { applyPlanned, read } from '../lifecycle/common.js';
import { verify } from '../lifecycle/verify.js';

export const command: CommandSpec = {
  name: 'verify',
  summary: 'find drift: dead paths, relative dates, contradictions, stale facts',
  usage: ['verify [--dry-run] [--no-report]'],
  description: `Checks durable notes (MEMORY.md, SESSION-STATE.md, todos.md, semantic, procedural, graph,
knowledge) for what is no longer true: links and back-ticked paths that no longer exist (and
#^id anchors with no such entry); relative dates ("yesterday", "last week", "明天", "上周") with the
absolute date they meant; contradictions (one subject and attribute with two values, two
SESSION-STATE values for one key, a decision reversed later without a superseded mark); notes
whose last_verified is older than 30 days. Writes memory/reviews/verify-YYYY-MM-DD.md (unchanged
when the findings are the same) and exits 1 when anything is found. templates/verify-review.md
is a prompt for an agent to resolve the findings.`,
  flags: [
    { name: 'dry-run', type: 'boolean', description: 'report only on stdout, write no report file' },
    { name: 'no-report', type: 'boolean', description: 'same as --dry-run' },
  ],
  examples: ['memtier verify', 'memtier verify --json', 'memtier verify --dry-run'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const dry = flagBool(args, 'dry-run') || flagBool(args, 'no-report');
    const r = verify(ctx);
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
