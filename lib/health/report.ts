/**
 * Output of a health run: the text for a person (or, with --quiet, failures only for an agent),
 * the JSON document, and health.json (seed 000) written through the store.
 */
import { closeSync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ctx } from '../core/context.js';
import { tempPathFor } from '../store/fsync.js';
import { stateDirProblem } from '../store/state-dir.js';
import { PATHS } from '../format/layout.js';
import { openStore } from '../store/store.js';
import type { HealthReport } from './run.js';
import type { Finding } from './types.js';
import { HEALTH_SUMMARY_JSON } from './summary.js';

/** Where the last report is kept: derived state, rebuilt by every run, gitignored with .memtier/. */
export const HEALTH_JSON = `${PATHS.state}/health.json`;
/** The findings kept per file for `health --quiet` (lib/health/reuse.ts). */
export const HEALTH_FILES_JSON = `${PATHS.state}/health-files.json`;

const LABEL = { fail: 'FAIL', warn: 'WARN', info: 'info' } as const;

function where(f: Finding): string {
  return f.file ? `${f.file}${f.line ? `:${f.line}` : ''}: ` : '';
}

export function findingLine(f: Finding): string {
  return `${LABEL[f.severity]} ${f.check.padEnd(16)} ${where(f)}${f.message}${f.fix ? `\n     ${' '.repeat(16)} fix: ${f.fix}${f.fixable ? ' [--fix]' : ''}` : ''}`;
}

export function summaryLine(r: HealthReport): string {
  const c = r.counts;
  const parts = [`${c.fail} ${c.fail === 1 ? 'failure' : 'failures'}`, `${c.warn} ${c.warn === 1 ? 'warning' : 'warnings'}`];
  if (c.info) parts.push(`${c.info} info`);
  const skipped = c.skipped ? `, ${c.skipped} skipped` : '';
  return `memtier health: ${r.ok ? 'ok' : 'FAILED'}: ${parts.join(', ')}; ${c.passed} of ${c.checks} checks passed${skipped}`;
}

export function renderText(r: HealthReport, opts: { quiet?: boolean } = {}): string {
  const lines: string[] = [];
  if (opts.quiet) {
    for (const f of r.findings) if (f.severity === 'fail') lines.push(findingLine(f));
    if (!r.ok) lines.push(`memtier health: FAILED (${r.counts.fail} ${r.counts.fail === 1 ? 'failure' : 'failures'}): memory integrity check failed`);
    return lines.join('\n');
  }
  if (r.fixed.length) {
    lines.push('Repairs:');
    for (const l of r.fixed) lines.push(`  ${l}`);
    lines.push('');
  }
  for (const f of r.findings) lines.push(findingLine(f));
  for (const s of r.results) if (s.status === 'skipped') lines.push(`skip ${s.id.padEnd(16)} ${s.reason ?? ''}`);
  if (lines.length && lines[lines.length - 1] !== '') lines.push('');
  lines.push(summaryLine(r));
  if (!r.ok) lines.push('Memory integrity check failed: fix the FAIL lines before answering questions that depend on memory.');
  if (r.findings.some((f) => f.fixable)) lines.push('Run "memtier health --fix" to repair what is marked [--fix].');
  return lines.join('\n');
}

/**
 * Replace a derived cache file whole (a crash leaves the old one, or a torn one that does not
 * parse). `write` hands the text over in pieces, written as they come in blocks of ~64 kB (what is
 * written is garbage before the next one: a run's peak memory does not grow with the file).
 */
function writeCache(abs: string, write: (out: (chunk: string) => void) => void): void {
  const tmp = tempPathFor(abs);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx');
    let buf = '';
    write((chunk) => {
      buf += chunk;
      if (buf.length >= 1 << 16) { writeFileSync(fd!, buf); buf = ''; }
    });
    // writeFileSync on a descriptor writes all of it, at the file's position
    if (buf) writeFileSync(fd, buf);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, abs);
  } catch (e) {
    if (fd !== undefined) try { closeSync(fd); } catch { /* closing a failed write */ }
    try { unlinkSync(tmp); } catch { /* not created */ }
    throw e;
  }
}

/** The JSON document of a run (also the content of health.json). */
export function reportJson(r: HealthReport): Record<string, unknown> {
  return {
    ok: r.ok,
    time: r.time,
    exitCode: r.exitCode,
    counts: r.counts,
    results: r.results,
    findings: r.findings.map((f) => ({ check: f.check, severity: f.severity, file: f.file ?? null, line: f.line ?? null, message: f.message, fix: f.fix ?? null, fixable: f.fixable ?? false })),
    figures: r.figures,
    fixed: r.fixed,
  };
}

/**
 * A --quiet run's per-file findings (health-files.json) through the store, when they changed; the
 * last full report (health.json) stays. A failure comes back as a message for the log.
 */
export function writeKeptFindings(ctx: Ctx, r: HealthReport): string | undefined {
  if (!r.reuse || r.reuseKept) return undefined;
  try {
    openStore(ctx).mutate((tx) => { tx.write(HEALTH_FILES_JSON, JSON.stringify(r.reuse) + '\n'); });
    return undefined;
  } catch (e) {
    return `could not write ${HEALTH_FILES_JSON}: ${(e as Error).message}`;
  }
}

/**
 * Write .memtier/health.json through the store. A failure here (lock held too long, read-only
 * disk) must not hide the report: it comes back as a message for the log.
 */
export function writeHealthJson(ctx: Ctx, r: HealthReport): string | undefined {
  try {
    const body = JSON.stringify(reportJson(r), null, 2) + '\n';
    openStore(ctx).mutate((tx) => {
      tx.write(HEALTH_JSON, body);
      // the per-file findings --quiet reuses (reuse.ts), beside the report: one line, not for reading
      if (r.reuse && !r.reuseKept) tx.write(HEALTH_FILES_JSON, JSON.stringify(r.reuse) + '\n');
      // the per-file summaries of the cross-file checks (summary.ts), when a file changed: a
      // cache (megabytes, parts of the notes' text) that the next run checks before it trusts it,
      // written beside the store's guards and size limit, temp file and rename under the lock
      const summary = r.summary?.();
      if (summary !== undefined && !stateDirProblem(ctx.root)) writeCache(join(ctx.root, HEALTH_SUMMARY_JSON), summary);
    });
    return undefined;
  } catch (e) {
    return `could not write ${HEALTH_JSON}: ${(e as Error).message}`;
  }
}
