/**
 * `memtier health`: check the memory's invariants (seed 004's nine and more), write
 * .memtier/health.json, and with --fix repair what is safe to repair.
 */
import type { Args, CommandResult, CommandSpec, FlagSpec } from '../cli/spec.js';
import { flagBool, flagList, flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MemtierError, UsageError } from '../core/errors.js';
import { CHECKS } from '../health/checks/index.js';
import { renderText, reportJson, writeHealthJson, writeKeptFindings, HEALTH_FILES_JSON, HEALTH_JSON } from '../health/report.js';
import { capFindings, runHealth, selectChecks } from '../health/run.js';
import { HEALTH_SUMMARY_JSON } from '../health/summary.js';
import { checkDoc, checksTableBlock } from '../health/table.js';

const flags: FlagSpec[] = [
  { name: 'fix', type: 'boolean', description: 'repair what is safe: finish an interrupted rotation, quarantine torn lines, remove orphan temp files, trash stale locks, rotate an oversized buffer, archive overdue days, append missing closure blocks, rebuild a stale index' },
  { name: 'dry-run', type: 'boolean', description: 'with --fix: show every change --fix would make (a unified diff per file, moves, new files) and write nothing' },
  { name: 'only', type: 'list', value: 'ID,ID', description: 'run only these checks (see --list)' },
  { name: 'all', type: 'boolean', description: 'list every finding in the text report (by default each check lists at most 50; counts are always complete; --json lists every one)' },
  { name: 'list', type: 'boolean', description: 'list the checks (id, severity, --fix, description) and exit' },
  { name: 'markdown', type: 'boolean', description: 'with --list: print the table of checks for docs/guide.md (between its markers)' },
  { name: 'explain', type: 'string', value: 'ID', description: 'print the doc entry of one check: trigger, failing and fixed examples, why it matters' },
];

export const command: CommandSpec = {
  name: 'health',
  summary: 'check the invariants; --fix repairs what is safe',
  usage: ['health [--fix [--dry-run]] [--only ID,ID] [--all] [--quiet] [--json]', 'health --list [--markdown]', 'health --explain ID'],
  description: [
    'Runs every check over one read of the memory and prints each finding with its file, line and fix.',
    'FAIL means the memory cannot be trusted (a file that does not parse, a torn or inconsistent WAL, a',
    'credential on disk, a dead link in MEMORY.md): fix it before answering questions that depend on memory.',
    'Upkeep that is due (closure blocks, TTL, tags, budgets, …) is a WARN: WARN and info never fail the run.',
    'The report is also written to ' + HEALTH_JSON + '.',
    '',
    '--fix never removes or rewrites what a person wrote: it lets the store recover from a crash,',
    'moves torn lines and stale locks to memory/.trash/, rotates the buffer, appends the closure block',
    '"memtier close-day" would write (only to days that are all typed entries: it never writes a claim about',
    'text it did not parse), moves overdue days unchanged to memory/archive/YYYY/MM/, rebuilds',
    'the search index, and reports everything else (secrets, duplicates, dead links, stale notes).',
    'A second --fix finds nothing to fix. --fix --dry-run shows every change first, as a diff per file, and',
    'writes nothing (the fixes run on a copy of the memory). --quiet prints failures only (for agents): it runs',
    'the checks that can fail (FAIL in --list, and the FAIL part of the others: disk\'s memory that cannot be',
    'written), reuses the findings the last run (full or --quiet)',
    'kept in ' + HEALTH_FILES_JSON + ' for files whose size and mtime are unchanged (so it reads only what',
    'changed), keeps there what it read, and leaves ' + HEALTH_JSON + ' as the last full run wrote it. A full run takes what the',
    'cross-file checks need of each unchanged file from ' + HEALTH_SUMMARY_JSON + ' the same way.',
    'On a terminal, a first run over a large memory says how far it is on stderr ("checking memory: …").',
    '',
    'Exit codes: 0 every check passed (warnings allowed), 1 a check failed, 2 health could not run.',
  ].join('\n'),
  flags,
  // --list and --explain work without a memory; a run checks for one itself (exit 2 when absent)
  needsRoot: false,
  examples: ['memtier health', 'memtier health --quiet', 'memtier health --fix --dry-run', 'memtier health --fix', 'memtier health --only buffer-size,wal-integrity --json', 'memtier health --list --markdown', 'memtier health --explain closure-block'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const explain = flagString(args, 'explain');
    if (explain !== undefined) {
      const [c] = selectChecks([explain]);
      return { text: checkDoc(c!), json: { ...c!, run: undefined, fix: undefined } };
    }
    if (flagBool(args, 'list')) {
      if (flagBool(args, 'markdown')) return { text: checksTableBlock(), json: { markdown: checksTableBlock() } };
      const w = Math.max(...CHECKS.map((c) => c.id.length));
      return {
        text: CHECKS.map((c) => `${c.id.padEnd(w)}  ${c.severity.padEnd(4)}  ${c.fixable ? 'fix' : '   '}  ${c.description}`).join('\n'),
        json: CHECKS.map((c) => ({ id: c.id, description: c.description, severity: c.severity, fixable: c.fixable, source: c.source, doc: c.doc })),
      };
    }
    if (flagBool(args, 'markdown')) throw new UsageError('--markdown goes with --list', 'memtier health --list --markdown');
    if (!existsSync(join(ctx.root, 'MEMORY.md')) && !existsSync(join(ctx.root, 'memory'))) {
      throw new MemtierError(`no memory found at ${ctx.root}`, { code: 'no-memory', file: ctx.root, hint: 'run "memtier init" to create one, or pass --root DIR / set MEMTIER_ROOT' });
    }
    const only = flagList(args, 'only');
    if (flagBool(args, 'dry-run')) {
      if (!flagBool(args, 'fix')) throw new UsageError('--dry-run goes with --fix', 'memtier health --fix --dry-run');
      const { previewFix, renderPreview } = await import('../health/preview.js');
      const p = await previewFix(ctx, only ? { only } : {});
      return { text: renderPreview(p), json: { ok: true, dryRun: true, fixed: p.report.fixed, changes: p.changes, counts: p.report.counts } };
    }
    const report = await runHealth(ctx, { fix: flagBool(args, 'fix'), quiet: args.quiet, ...(only ? { only } : {}) });
    const listed = flagBool(args, 'all') ? report : capFindings(report);
    // health.json keeps the cut list (it must stay a small file); --json prints every finding;
    // a --quiet run checked only what can fail and leaves the last full report in place
    if (report.scope !== 'failures') {
      const problem = writeHealthJson(ctx, capFindings(report));
      if (problem) ctx.log.warn(problem);
    } else {
      // it keeps what it read, so the next --quiet reads only the files changed since
      const problem = writeKeptFindings(ctx, report);
      if (problem) ctx.log.warn(problem);
    }
    return { exitCode: report.exitCode, text: renderText(listed, { quiet: args.quiet }), json: reportJson(report) };
  },
};
