/**
 * The shapes every health check shares: a check is data (id, description, severity, doc)
 * plus a `run` over the shared snapshot and an optional `fix` that repairs through the store.
 */
import type { Ctx } from '../core/context.js';
import type { MemFile, Snapshot } from '../memory/snapshot.js';
import type { Limits } from '../memory/limits.js';
import type { FileMemo } from './summary.js';

/** `fail` makes `memtier health` exit 1; `warn` and `info` never do. */
export type Severity = 'fail' | 'warn' | 'info';

export interface Finding {
  check: string;
  severity: Severity;
  /** Root-relative path, when the finding is about a file. */
  file?: string;
  /** 1-based line, when the finding is about a line. */
  line?: number;
  message: string;
  /** What to do next (one line). */
  fix?: string;
  /** True when `memtier health --fix` repairs this finding. */
  fixable?: boolean;
}

export interface CheckDoc {
  /** What triggers the check. */
  trigger: string;
  /** A failing example (markdown/text). */
  failing: string;
  /** The same example, fixed. */
  fixed: string;
  /** Why it matters. */
  why: string;
}

export interface CheckEnv {
  ctx: Ctx;
  /** Today in the memory's time zone, `YYYY-MM-DD`. */
  today: string;
  limits: Limits;
  /** What the last full run kept for this check about a file (CheckOutput.keep), when the file's stats still match. */
  kept?(check: string, f: MemFile): unknown;
  /** The findings the last full run kept for this check about `f` alone (reuse.ts), when the file's stats still match. */
  keptFindings?(check: string, f: MemFile): Finding[] | undefined;
  /** Per-file summaries, kept between full runs (summary.ts; use summaryOf): set on full runs. */
  memo?: FileMemo;
}

/** What a check returns besides findings: figures for health.json, or a skip reason. */
export interface CheckOutput {
  findings: Finding[];
  figures?: Record<string, unknown>;
  /** Set when the check could not apply (e.g. "no index"): reported as skipped, never as a failure. */
  skipped?: string;
  /**
   * What the check worked out from one file's text alone, kept in health-files.json for the next
   * run (env.kept gives it back while the file's size and mtime match). JSON data.
   */
  keep?: { file: string; data: unknown };
}

export interface Check {
  id: string;
  /** One line, shown by `health --list` and in the README table. */
  description: string;
  /** The severity of this check's main finding. */
  severity: Severity;
  /** Whether `--fix` can repair (some of) its findings. */
  fixable: boolean;
  /**
   * Run again (and fix again) after the other checks' repairs changed files: for checks of
   * derived state such as the index cache.
   */
  rerunAfterFixes?: boolean;
  /** Seed or rule this check comes from, for the table. */
  source: string;
  doc: CheckDoc;
  run(snap: Snapshot, env: CheckEnv): CheckOutput | Finding[] | Promise<CheckOutput | Finding[]>;
  /**
   * A check whose main finding is milder (WARN, info) but that can FAIL too: the part of run()
   * that finds its FAILs, what `health --quiet` runs instead of the whole check (a quiet run must
   * never pass what a full run fails). A check that can FAIL has severity 'fail' or this.
   */
  failures?(snap: Snapshot, env: CheckEnv): Finding[] | Promise<Finding[]>;
  /**
   * What run() takes of each file through summaryOf (summary.ts), worked out a file at a time:
   * a full run whose summaries of some files are not kept calls it once, then what it returns for
   * each such file while the file's text is at hand, before any check runs, and lets go of the
   * text after each file (so a first run never holds every file's text at once: run() finds every
   * summary made). It must make the summaries run() makes of the file, under the same conditions.
   * Undefined (returned): run() makes none this run.
   */
  summarize?(snap: Snapshot, env: CheckEnv): ((f: MemFile) => void) | undefined;
  /**
   * The check's summary named as the check holds numbers of env.memo.vocab's words: this
   * translates one (made with another vocabulary, on a worker thread) through `map`, old number →
   * new, returning it renumbered (first-pass.ts).
   */
  renumberSummary?(summary: unknown, map: Int32Array): unknown;
  /**
   * Repair this check's fixable findings through the store (openStore(env.ctx).mutate, or an
   * exported helper of the module that owns the operation). Returns one line per repair done.
   * Never removes or rewrites text a person wrote.
   */
  fix?(findings: Finding[], snap: Snapshot, env: CheckEnv): string[] | Promise<string[]>;
}

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skipped';

export interface CheckResult {
  id: string;
  status: CheckStatus;
  findings: number;
  /** Why the check was skipped. */
  reason?: string;
}
