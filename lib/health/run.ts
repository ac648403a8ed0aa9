/**
 * The health pipeline: snapshot → run every check (a throw becomes a finding) → with --fix,
 * repair in FIX_ORDER and check again from a fresh snapshot → results, figures, exit code.
 */
import { localDate } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATHS } from '../format/layout.js';
import { LOCK_FILE, lockIsStale, lockKind } from '../store/lock.js';
import { openStore } from '../store/store.js';
import { watchMachine, type Host } from '../core/workers.js';
import { earlyWorker, fileTokens, firstPass, type PassOptions } from './first-pass.js';
import { CHECKS, FIX_ORDER } from './checks/index.js';
import { stateDirProblem } from '../store/state-dir.js';
import { limitsFrom, type Limits } from '../memory/limits.js';
import { loadSnapshot, type MemFile, type Snapshot } from '../memory/snapshot.js';
import { HEALTH_FILES_JSON } from './report.js';
import { FileMemo, HEALTH_SUMMARY_JSON } from './summary.js';
import { buildReuse, keptData, keptFindings, parseReuse, REUSED, reusedCheck, type Kept, type ReuseSection } from './reuse.js';
import type { Check, CheckEnv, CheckOutput, CheckResult, Finding, Severity } from './types.js';

export interface HealthOptions {
  /** Run only these check ids. */
  only?: string[];
  fix?: boolean;
  limits?: Partial<Limits>;
  /** Checks to use instead of the registry (tests). */
  checks?: readonly Check[];
  /**
   * Failures only (`health --quiet`): run the checks that can fail, syntax, secrets, wal-integrity's
   * torn lines and decision-links' links reused from health-files.json for files whose stats match
   * (reuse.ts), so unchanged files are not read.
   * Ignored with `fix` or `only`.
   */
  quiet?: boolean;
  /** The first pass's worker (tests: its module, the machine's load, told how many files it did; first-pass.ts). */
  firstPass?: Omit<PassOptions, 'early'>;
}

export interface HealthReport {
  time: string;
  root: string;
  ok: boolean;
  exitCode: 0 | 1;
  counts: { fail: number; warn: number; info: number; checks: number; passed: number; skipped: number };
  results: CheckResult[];
  findings: Finding[];
  figures: Record<string, Record<string, unknown>>;
  /** What --fix did, one line per repair (empty without --fix). */
  fixed: string[];
  /** 'failures': a --quiet run of the checks that can fail only (health.json is not rewritten from it). */
  scope?: 'failures';
  /** The per-file findings health.json keeps for the next --quiet run (full runs). */
  reuse?: ReuseSection;
  /** health-files.json already holds `reuse` (no need to write it again). */
  reuseKept?: boolean;
  /**
   * What writes health-summary.json's new text in pieces, or undefined when the kept one still
   * holds (full runs without --fix; summary.ts). Called once.
   */
  summary?: () => ((out: (chunk: string) => void) => void) | undefined;
}

/** Findings listed per check in the text report and health.json unless --all: a memory with 20,000 near-duplicates needs one line saying so, not 20,000 (--json lists every one). */
export const MAX_PER_CHECK = 50;

const RANK: Record<Severity, number> = { fail: 0, warn: 1, info: 2 };

export function selectChecks(only: string[] | undefined, all: readonly Check[] = CHECKS): readonly Check[] {
  if (!only || only.length === 0) return all;
  const ids = new Set(all.map((c) => c.id));
  const unknown = only.filter((id) => !ids.has(id));
  if (unknown.length) throw new UsageError(`unknown check${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, `see "memtier health --list"; known: ${[...ids].join(', ')}`);
  return all.filter((c) => only.includes(c.id));
}

interface Pass { results: CheckResult[]; findings: Finding[]; figures: Record<string, Record<string, unknown>>; byCheck: Map<string, Finding[]>; keep: Map<string, { file: string; data: unknown }> }

async function runChecks(checks: readonly Check[], snap: Snapshot, env: CheckEnv): Promise<Pass> {
  const results: CheckResult[] = [];
  const findings: Finding[] = [];
  const figures: Record<string, Record<string, unknown>> = {};
  const byCheck = new Map<string, Finding[]>();
  const keep = new Map<string, { file: string; data: unknown }>();
  for (const c of checks) {
    let out: CheckOutput;
    try {
      const r = await c.run(snap, env);
      out = Array.isArray(r) ? { findings: r } : r;
    } catch (e) {
      out = { findings: [{ check: c.id, severity: 'fail', message: `check ${c.id} threw: ${(e as Error)?.message ?? String(e)}`, fix: 'this is a bug in memtier; report it with the file named in the message, if any' }] };
    }
    const fs = out.findings.map((f) => ({ ...f, check: c.id, fixable: f.fixable ?? false }));
    fs.sort((a, b) => RANK[a.severity] - RANK[b.severity] || (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0));
    const status = out.skipped && fs.length === 0 ? 'skipped' : fs.some((f) => f.severity === 'fail') ? 'fail' : fs.some((f) => f.severity === 'warn') ? 'warn' : 'pass';
    const res: CheckResult = { id: c.id, status, findings: fs.length };
    if (out.skipped) res.reason = out.skipped;
    results.push(res);
    findings.push(...fs);
    byCheck.set(c.id, fs);
    if (out.figures) figures[c.id] = out.figures;
    if (out.keep) keep.set(c.id, out.keep);
  }
  return { results, findings, figures, byCheck, keep };
}

export function checkEnv(ctx: Ctx, limits?: Partial<Limits>): CheckEnv {
  return { ctx, today: localDate(ctx.clock.now(), ctx.clock.tz), limits: { ...limitsFrom(ctx.env), ...limits } };
}

/** health-files.json's text, or undefined. */
function readKeptText(ctx: Ctx): string | undefined {
  try { return readFileSync(join(ctx.root, HEALTH_FILES_JSON), 'utf8'); } catch { return undefined; }
}

/** What the last full run kept (health-files.json), or undefined. */
function readKept(ctx: Ctx, text = readKeptText(ctx)): Kept | undefined {
  return parseReuse(text);
}

/** The per-file summaries the last full run kept (health-summary.json; an unreadable or foreign file keeps none). */
function readMemo(ctx: Ctx, atMs: number): FileMemo {
  let text: string | undefined;
  try { text = readFileSync(join(ctx.root, HEALTH_SUMMARY_JSON), 'utf8'); } catch { /* none kept */ }
  return new FileMemo(text, atMs);
}

/** The checks with syntax and secrets taking the kept findings of unchanged files (`all`: a full run's syntax). */
function reusing(checks: readonly Check[], kept: Kept | undefined, all: boolean): Check[] {
  return checks.map((c): Check => (REUSED.includes(c.id) ? { ...c, run: (s, env) => reusedCheck(c.id, s, kept, all, env) } : c));
}

export async function runHealth(ctx: Ctx, opts: HealthOptions = {}): Promise<HealthReport> {
  if (opts.quiet && !opts.fix && !opts.only?.length) return runFailures(ctx, opts);
  // the registry's checks reuse what the last full run kept about unchanged files (reuse.ts)
  const keptText = opts.checks ? undefined : readKeptText(ctx);
  let kept = opts.checks ? undefined : readKept(ctx, keptText);
  const selected = opts.checks ? selectChecks(opts.only, opts.checks) : selectChecks(opts.only);
  // the registry's cross-file checks take unchanged files' summaries (summary.ts); not with
  // --fix, whose passes check files the repairs changed
  const readAt = Date.now();
  const memo = opts.checks || opts.fix ? undefined : readMemo(ctx, readAt);
  const fixed: string[] = [];
  // Taking the store's lock first lets the store do its own crash recovery (a dead holder's
  // torn append cut back exactly, its temp files swept); report it, then check what is left.
  if (opts.fix) fixed.push(...storeRecovery(ctx));
  // with summaries, a file is read only when its summaries are not kept, once, by summarizeFiles
  // whether a core is idle for a first pass's worker, watched over the walk (core/workers.ts)
  const host = memo ? watchMachine() : undefined;
  // the first pass's worker, started while the walk finds the files the pass will read (first-pass.ts)
  const early = memo ? earlyWorker(ctx.env, opts.firstPass) : undefined;
  const seen = early && memo ? (f: MemFile): void => early.seen(f.size, !unchanged(f, kept, memo)) : undefined;
  let snap = loadSnapshot(ctx.root, { lazy: memo !== undefined, ...(seen ? { seen } : {}) });
  if (memo) kept = await summarizeFiles(selected, snap, { ...checkEnv(ctx, opts.limits), memo }, kept, { ...opts.firstPass, host: opts.firstPass?.host ?? host!, ...(early?.worker() ? { early: early.worker()! } : {}) });
  // stopped whether the pass used it (it is done with it) or not (no file to read, or no core idle)
  void early?.worker()?.worker.terminate();
  const checks = opts.checks ? selected : reusing(selected, kept, true);
  const env: CheckEnv = { ...checkEnv(ctx, opts.limits), ...(kept ? { kept: keptData(kept), keptFindings: keptFindings(kept) } : {}), ...(memo ? { memo } : {}) };
  let pass = await runChecks(checks, snap, env);
  if (opts.fix) {
    const order = [...checks].sort((a, b) => rank(a.id) - rank(b.id));
    let changed = false;
    for (const c of order) {
      const todo = (pass.byCheck.get(c.id) ?? []).filter((f) => f.fixable);
      if (!c.fix || todo.length === 0) continue;
      try {
        const lines = await c.fix(todo, snap, env);
        fixed.push(...lines.map((l) => `${c.id}: ${l}`));
        changed = true;
      } catch (e) {
        const err = e as { message?: string; file?: string };
        fixed.push(`${c.id}: fix failed: ${err.file ? `${err.file}: ` : ''}${err.message ?? String(e)}`);
        changed = true;
      }
    }
    if (changed) {
      snap = loadSnapshot(ctx.root);
      pass = await runChecks(checks, snap, env);
      // derived state (the index) is rebuilt after the repairs that changed the files
      let again = false;
      for (const c of checks) {
        const todo = (pass.byCheck.get(c.id) ?? []).filter((f) => f.fixable);
        if (!c.rerunAfterFixes || !c.fix || todo.length === 0) continue;
        try {
          fixed.push(...(await c.fix(todo, snap, env)).map((l) => `${c.id}: ${l}`));
        } catch (e) {
          fixed.push(`${c.id}: fix failed: ${(e as Error)?.message ?? String(e)}`);
        }
        again = true;
      }
      if (again) {
        snap = loadSnapshot(ctx.root);
        pass = await runChecks(checks, snap, env);
      }
    }
  }
  const memory = memoryFigures(snap, env);
  const full = !opts.only?.length && !opts.checks;
  const reuse = full ? buildReuse(snap, pass.byCheck, readAt, pass.keep) : undefined;
  // the files' stats only: the snapshot's text is not kept alive until health.json is written
  const stats = full && memo ? snap.files.map(({ rel, size, mtimeMs }) => ({ rel, size, mtimeMs })) : [];
  const summary = full && memo ? (): ReturnType<FileMemo['writer']> => memo.writer(stats, readAt) : undefined;
  // health-files.json is rewritten only when what it keeps changed
  const reuseKept = reuse !== undefined && keptText !== undefined && keptText === JSON.stringify(reuse) + '\n';
  return { ...report(ctx, pass, { memory, ...pass.figures }, fixed), ...(reuse ? { reuse } : {}), ...(reuseKept ? { reuseKept } : {}), ...(summary ? { summary } : {}) };
}

/** Do the file's kept findings and summaries hold (it is left out of the first pass)? */
function unchanged(f: MemFile, kept: Kept | undefined, memo: FileMemo): boolean {
  const k = kept?.files.get(f.rel);
  return k !== undefined && k.size === f.size && k.mtimeMs === f.mtimeMs && memo.keeps(f);
}

/**
 * The first pass over the files whose summaries or kept findings do not hold (every file on a
 * first run; first-pass.ts). Returns `kept` with those files' findings in it.
 */
async function summarizeFiles(checks: readonly Check[], snap: Snapshot, env: CheckEnv, kept: Kept | undefined, o: PassOptions): Promise<Kept | undefined> {
  const memo = env.memo!;
  const todo = snap.files.filter((f) => !unchanged(f, kept, memo));
  if (todo.length === 0) return kept;
  return firstPass(checks, snap, env, kept, todo, o);
}

/**
 * `health --quiet`: the checks that can fail, over a lazy snapshot; syntax and secrets take the
 * findings health.json kept for files whose stats match, so only changed files are read.
 */
async function runFailures(ctx: Ctx, opts: HealthOptions): Promise<HealthReport> {
  const readAt = Date.now();
  const snap = loadSnapshot(ctx.root, { lazy: true });
  const keptText = opts.checks ? undefined : readKeptText(ctx);
  const kept = opts.checks ? undefined : readKept(ctx, keptText);
  const env: CheckEnv = { ...checkEnv(ctx, opts.limits), ...(kept ? { kept: keptData(kept), keptFindings: keptFindings(kept) } : {}) };
  const checks = reusing(failingChecks(opts.checks ?? CHECKS), kept, false);
  const pass = await runChecks(checks, snap, env);
  // what it read it keeps, as a full run does (syntax's and secrets' per-file findings): an agent
  // that only ever runs --quiet reads each file once, not every call (issue #33); what a full run
  // kept for its own checks (pass.keep) stays as it was
  if (opts.checks) return { ...report(ctx, pass, pass.figures, []), scope: 'failures' };
  const fresh = buildReuse(snap, pass.byCheck, readAt, pass.keep);
  // kept (parsed above, this version's only) already holds the full run's checks section
  const before = kept?.checks.size ? Object.fromEntries([...kept.checks].map(([id, c]) => [id, [c.rel, c.size, c.mtimeMs, c.data] as [string, number, number, unknown]])) : undefined;
  const reuse: ReuseSection = before ? { ...fresh, checks: { ...before, ...fresh.checks } } : fresh;
  const reuseKept = keptText !== undefined && keptText === JSON.stringify(reuse) + '\n';
  return { ...report(ctx, pass, pass.figures, []), scope: 'failures', reuse, ...(reuseKept ? { reuseKept } : {}) };
}

/**
 * What `health --quiet` runs: every check that can FAIL — those whose main finding is a FAIL
 * whole, the others' FAIL part alone (Check.failures: disk's memory that cannot be written).
 * A quiet run is the agent's check before an answer: it must never pass what a full run fails.
 */
export function failingChecks(checks: readonly Check[]): Check[] {
  const out: Check[] = [];
  for (const c of checks) {
    if (c.severity === 'fail') out.push(c);
    else if (c.failures) { const failures = c.failures.bind(c); out.push({ ...c, run: (snap, env) => failures(snap, env) }); }
  }
  return out;
}

function report(ctx: Ctx, pass: Pass, figures: Record<string, Record<string, unknown>>, fixed: string[]): HealthReport {
  const count = (s: Severity): number => pass.findings.filter((f) => f.severity === s).length;
  const fail = count('fail');
  return {
    time: ctx.clock.now().toISOString(),
    root: ctx.root,
    ok: fail === 0,
    exitCode: fail === 0 ? 0 : 1,
    counts: {
      fail,
      warn: count('warn'),
      info: count('info'),
      checks: pass.results.length,
      passed: pass.results.filter((r) => r.status === 'pass').length,
      skipped: pass.results.filter((r) => r.status === 'skipped').length,
    },
    results: pass.results,
    findings: pass.findings,
    figures,
    fixed,
  };
}

/** Whole-memory figures for health.json: files, bytes, tokens loaded every session and in all. */
function memoryFigures(snap: Snapshot, env: CheckEnv): Record<string, unknown> {
  let bytes = 0;
  let hotTokens = 0;
  let tokens = 0;
  for (const f of snap.files) {
    bytes += f.size;
    const t = fileTokens(env, f);
    if (t < 0) continue;
    tokens += t;
    if (f.tier === 'hot') hotTokens += t;
  }
  return { files: snap.files.length, bytes, hotTokens, tokens };
}


function storeRecovery(ctx: Ctx): string[] {
  const lock = join(ctx.root, LOCK_FILE);
  // no lock can be taken past a linked .memtier/ or a folder at the lock's path: the file-types
  // check reports them (and its fix moves such a lock aside)
  if (stateDirProblem(ctx.root) || lockKind(lock)) return [];
  const stale = existsSync(lock) && lockIsStale(lock);
  const asides = (): string[] => { try { return readdirSync(join(ctx.root, PATHS.state)).filter((n) => n.startsWith('lock.stale-')); } catch { return []; } };
  const before = asides();
  const store = openStore(ctx);
  store.mutate(() => undefined);
  const r = store.lastRepair;
  const after = new Set(asides());
  return [
    ...(stale ? [`store: broke the stale lock ${LOCK_FILE} (its holder is gone)`] : []),
    ...before.filter((n) => !after.has(n)).map((n) => `store: removed the lock leftover ${PATHS.state}/${n}`),
    ...r.torn.map((t) => `store: cut the torn append at the end of ${t.file} (saved to ${t.savedTo})`),
    ...r.temps.map((t) => `store: removed the orphan temp file ${t}`),
  ];
}

/** The report with at most MAX_PER_CHECK findings per check, each cut list ending in a "N more" finding. Counts stay complete. */
export function capFindings(r: HealthReport, max = MAX_PER_CHECK): HealthReport {
  const byCheck = new Map<string, Finding[]>();
  for (const f of r.findings) {
    const l = byCheck.get(f.check);
    if (l) l.push(f); else byCheck.set(f.check, [f]);
  }
  const out: Finding[] = [];
  for (const [id, fs] of byCheck) {
    out.push(...fs.slice(0, max));
    if (fs.length > max) {
      const rest = fs.slice(max);
      const worst = rest.reduce<Severity>((w, f) => (RANK[f.severity] < RANK[w] ? f.severity : w), 'info');
      out.push({ check: id, severity: worst, message: `${rest.length} more findings of this check not listed`, fix: `run "memtier health --only ${id} --all" (or --json) to list them all`, fixable: rest.some((f) => f.fixable) });
    }
  }
  return { ...r, findings: out };
}

function rank(id: string): number {
  const i = FIX_ORDER.indexOf(id);
  return i < 0 ? FIX_ORDER.length : i;
}
