/**
 * Findings kept between runs, in `.memtier/health-files.json` (written with health.json by every
 * full run): for each file its size,
 * its mtime and the findings of the checks that depend on that file alone (syntax, but for a
 * `superseded by ^id` naming an entry elsewhere, and secrets). `health --quiet` trusts them where a
 * file's stats still match, so it reads only the files that changed since the last full run.
 * A file changed within RACY_MS of the run that wrote them is left out (a second change in the
 * same instant would keep its stats), and another memtier version's findings are not used.
 */
import { version } from '../core/version.js';
import type { MemFile, Snapshot } from '../memory/snapshot.js';
import { fileFindings as secretFindings } from './checks/secrets.js';
import { fileFindings as syntaxFindings, isFileLocal } from './checks/syntax.js';
import type { Finding, Severity } from './types.js';

/** The checks whose per-file findings are kept. */
export const REUSED: readonly string[] = ['syntax', 'secrets'];

/** A change this close to the run (ms) is not trusted to show in the stats. */
export const RACY_MS = 2000;

type Stored = [check: string, severity: Severity, line: number | null, message: string, fix: string | null];

export interface ReuseSection {
  version: string;
  /** Path → [size, mtimeMs, findings]. */
  files: Record<string, [number, number, Stored[]]>;
}

/** health-files.json's content from a full run's findings (`byCheck`) over `snap`, read at `atMs`. */
export function buildReuse(snap: Snapshot, byCheck: Map<string, Finding[]>, atMs: number): ReuseSection {
  const byFile = new Map<string, Stored[]>();
  for (const id of REUSED) {
    for (const x of byCheck.get(id) ?? []) {
      if (!x.file || (id === 'syntax' && !isFileLocal(x))) continue;
      const l = byFile.get(x.file) ?? [];
      l.push([x.check, x.severity, x.line ?? null, x.message, x.fix ?? null]);
      byFile.set(x.file, l);
    }
  }
  const files: ReuseSection['files'] = {};
  for (const f of snap.files) if (f.mtimeMs < atMs - RACY_MS) files[f.rel] = [f.size, f.mtimeMs, byFile.get(f.rel) ?? []];
  return { version: version(), files };
}

/** The kept findings in health-files.json's text, when this memtier wrote them. */
export function parseReuse(json: string | undefined): Map<string, { size: number; mtimeMs: number; findings: Finding[] }> | undefined {
  if (!json) return undefined;
  let sec: ReuseSection | undefined;
  try { sec = JSON.parse(json) as ReuseSection; } catch { return undefined; }
  if (!sec || sec.version !== version() || typeof sec.files !== 'object' || sec.files === null) return undefined;
  const out = new Map<string, { size: number; mtimeMs: number; findings: Finding[] }>();
  for (const [rel, rec] of Object.entries(sec.files)) {
    if (!Array.isArray(rec) || rec.length !== 3 || !Array.isArray(rec[2])) continue;
    out.set(rel, {
      size: rec[0], mtimeMs: rec[1],
      findings: rec[2].map(([check, severity, line, message, fix]) => ({ check, severity, file: rel, ...(line !== null ? { line } : {}), message, ...(fix !== null ? { fix } : {}) })),
    });
  }
  return out;
}

/** One reused check's findings over `snap`: kept ones where the stats match, the file read and checked otherwise. */
export async function reusedCheck(id: string, snap: Snapshot, kept: ReturnType<typeof parseReuse>): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const f of snap.files) {
    const k = kept?.get(f.rel);
    if (k && k.size === f.size && k.mtimeMs === f.mtimeMs) { out.push(...k.findings.filter((x) => x.check === id)); continue; }
    out.push(...(await fresh(id, snap, f)));
  }
  return out;
}

async function fresh(id: string, snap: Snapshot, f: MemFile): Promise<Finding[]> {
  return id === 'syntax' ? syntaxFindings(snap, f) : secretFindings(f);
}
