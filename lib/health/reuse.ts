/**
 * Findings kept between runs, in `.memtier/health-files.json` (written with health.json by every
 * full run): for each file its size,
 * its mtime and the findings of the checks that depend on that file alone (syntax, but for a
 * `superseded by ^id` naming an entry elsewhere, secrets, and wal-integrity's torn last line), plus what a check asked to keep
 * about one file (CheckOutput.keep: decision-links keeps MEMORY.md's links as remark parsed them).
 * Every run after trusts them where a file's stats still match, so it reads, scans and parses
 * only the files that changed since the last full run: `health --quiet` does not read the others
 * at all, a full run reads them for the checks that look across files.
 * A file changed within RACY_MS of the run that wrote them is left out (a second change in the
 * same instant would keep its stats), and another memtier version's findings are not used.
 */
import { version } from '../core/version.js';
import type { MemFile, Snapshot } from '../memory/snapshot.js';
import { fileFindings as secretFindings } from './checks/secrets.js';
import { allIds, danglingFindings, fileFindings as syntaxFindings, isFileLocal } from './checks/syntax.js';
import { isTornFinding, tornLine } from './checks/wal-integrity.js';
import { isConflictBlockFinding } from './checks/sync.js';
import type { CheckEnv, Finding, Severity } from './types.js';

/** The checks whose per-file findings are kept. */
export const REUSED: readonly string[] = ['syntax', 'secrets'];

/** Which kept findings depend on their file alone, by check: syntax's and secrets' (reused whole), wal-integrity's torn last lines, sync's conflict blocks. */
const LOCAL: Record<string, (x: Finding) => boolean> = { syntax: isFileLocal, secrets: () => true, 'wal-integrity': isTornFinding, sync: isConflictBlockFinding };

/** A change this close to the run (ms) is not trusted to show in the stats. */
export const RACY_MS = 2000;

type Stored = [check: string, severity: Severity, line: number | null, message: string, fix: string | null];

export interface ReuseSection {
  version: string;
  /** Path → [size, mtimeMs, findings]. */
  files: Record<string, [number, number, Stored[]]>;
  /** Check id → [path, size, mtimeMs, what the check kept about that file]. */
  checks?: Record<string, [string, number, number, unknown]>;
}

/** What the last full run kept, read back from health-files.json. */
export interface Kept {
  files: Map<string, { size: number; mtimeMs: number; findings: Finding[] }>;
  checks: Map<string, { rel: string; size: number; mtimeMs: number; data: unknown }>;
}

/**
 * health-files.json's content from a full run's findings (`byCheck`) and kept data (`keep`, by
 * check) over `snap`, read at `atMs`.
 */
export function buildReuse(snap: Snapshot, byCheck: Map<string, Finding[]>, atMs: number, keep: Map<string, { file: string; data: unknown }> = new Map()): ReuseSection {
  const byFile = new Map<string, Stored[]>();
  for (const [id, local] of Object.entries(LOCAL)) {
    for (const x of byCheck.get(id) ?? []) {
      if (!x.file || !local(x)) continue;
      const l = byFile.get(x.file) ?? [];
      l.push([x.check, x.severity, x.line ?? null, x.message, x.fix ?? null]);
      byFile.set(x.file, l);
    }
  }
  const settled = (f: MemFile | undefined): f is MemFile => f !== undefined && f.mtimeMs < atMs - RACY_MS;
  const files: ReuseSection['files'] = {};
  for (const f of snap.files) if (settled(f)) files[f.rel] = [f.size, f.mtimeMs, byFile.get(f.rel) ?? []];
  const checks: NonNullable<ReuseSection['checks']> = {};
  for (const [id, k] of keep) {
    const f = snap.byRel.get(k.file);
    if (settled(f)) checks[id] = [f.rel, f.size, f.mtimeMs, k.data];
  }
  return { version: version(), files, ...(Object.keys(checks).length ? { checks } : {}) };
}

/**
 * The findings about `f` that depend on it alone, as a full run keeps them (LOCAL) for the checks
 * of `ids`: syntax's (but a `superseded by` naming no entry, which depends on the other files),
 * secrets', wal-integrity's torn last line.
 */
export async function localFindings(snap: Snapshot, f: MemFile, ids: ReadonlySet<string>): Promise<Finding[]> {
  const out = ids.has('syntax') ? await syntaxFindings(snap, f) : [];
  if (ids.has('secrets')) out.push(...secretFindings(f));
  if (ids.has('wal-integrity') && (f.kind === 'buffer' || f.kind === 'episodic')) out.push(...tornLine(snap, f));
  return out;
}

/** The kept findings in health-files.json's text, when this memtier wrote them. */
export function parseReuse(json: string | undefined): Kept | undefined {
  if (!json) return undefined;
  let sec: ReuseSection | undefined;
  try { sec = JSON.parse(json) as ReuseSection; } catch { return undefined; }
  if (!sec || sec.version !== version() || typeof sec.files !== 'object' || sec.files === null) return undefined;
  const files: Kept['files'] = new Map();
  for (const [rel, rec] of Object.entries(sec.files)) {
    if (!Array.isArray(rec) || rec.length !== 3 || !Array.isArray(rec[2])) continue;
    files.set(rel, {
      size: rec[0], mtimeMs: rec[1],
      findings: rec[2].map(([check, severity, line, message, fix]) => ({ check, severity, file: rel, ...(line !== null ? { line } : {}), message, ...(fix !== null ? { fix } : {}) })),
    });
  }
  const checks: Kept['checks'] = new Map();
  for (const [id, rec] of Object.entries(sec.checks ?? {})) {
    if (Array.isArray(rec) && rec.length === 4) checks.set(id, { rel: rec[0], size: rec[1], mtimeMs: rec[2], data: rec[3] });
  }
  return { files, checks };
}

/**
 * env.keptFindings over what the last full run kept: `check`'s findings about `f` alone while f's
 * stats match (wal-integrity: its torn last line, if any).
 */
export function keptFindings(kept: Kept | undefined): (check: string, f: MemFile) => Finding[] | undefined {
  return (check, f) => {
    const k = kept?.files.get(f.rel);
    return k && k.size === f.size && k.mtimeMs === f.mtimeMs ? k.findings.filter((x) => x.check === check) : undefined;
  };
}

/** env.kept over what the last full run kept: a check's data about `f` while f's stats match. */
export function keptData(kept: Kept | undefined): (check: string, f: MemFile) => unknown {
  return (check, f) => {
    const k = kept?.checks.get(check);
    return k && k.rel === f.rel && k.size === f.size && k.mtimeMs === f.mtimeMs ? k.data : undefined;
  };
}

/**
 * One reused check's findings over `snap`: kept ones where the stats match, the file read and
 * checked otherwise. With `all` (a full run), syntax also reports every file's `superseded by`
 * naming no entry of the memory (which the kept findings leave out: it depends on other files).
 */
export async function reusedCheck(id: string, snap: Snapshot, kept: Kept | undefined, all = false, env?: CheckEnv): Promise<Finding[]> {
  const out: Finding[] = [];
  const ids = all && id === 'syntax' ? allIds(snap, env) : undefined;
  for (const f of snap.files) {
    const k = kept?.files.get(f.rel);
    if (k && k.size === f.size && k.mtimeMs === f.mtimeMs) {
      for (const x of k.findings) if (x.check === id) out.push(x);
      if (ids) out.push(...danglingFindings(snap, f, ids, env));
      continue;
    }
    out.push(...(id === 'syntax' ? await syntaxFindings(snap, f, ids) : secretFindings(f)));
  }
  return out;
}
