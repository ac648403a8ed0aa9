/**
 * `memtier health --fix --dry-run`: every change --fix would make, shown before it is made.
 *
 * The fixes run for real on a copy of the memory (the same code, the same clock), and the copy
 * is compared with the original file by file: a unified diff per changed file, added and removed
 * files, and moves (a file gone from one place and the same bytes at another: an archive, a trash
 * move). So the preview cannot miss a change a fix would make, and the memory itself is not
 * touched: no file, no lock, no health.json, no commit. `.git` and the index cache are not copied
 * (a rebuilt index is derived state; the fix lines say when it would be rebuilt).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { Ctx } from '../core/context.js';
import { runHealth, type HealthOptions, type HealthReport } from './run.js';

export interface PlannedChange {
  path: string;
  change: 'modified' | 'added' | 'removed' | 'moved';
  /** For a move: where the file goes. */
  to?: string;
  /** Unified diff of a modified file (or the content of an added one). */
  diff?: string;
}

export interface FixPreview {
  /** The report of the fixes as they ran on the copy (findings before, repairs made). */
  report: HealthReport;
  changes: PlannedChange[];
}

/** Every file under `dir` (root-relative, '/'-separated) except .git, the index cache and state bookkeeping. */
function listFiles(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (abs: string): void => {
    for (const d of readdirSync(abs, { withFileTypes: true })) {
      const p = join(abs, d.name);
      const rel = relative(dir, p).split(sep).join('/');
      if (rel === '.git' || rel.startsWith('.memtier')) continue;
      if (d.isDirectory()) walk(p);
      else if (d.isFile()) out.set(rel, readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

export async function previewFix(ctx: Ctx, opts: Omit<HealthOptions, 'fix'> = {}): Promise<FixPreview> {
  const copy = mkdtempSync(join(tmpdir(), 'memtier-fix-preview-'));
  try {
    cpSync(ctx.root, copy, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (src) => {
        const rel = relative(ctx.root, src).split(sep).join('/');
        return rel !== '.git' && rel !== '.memtier/index' && !rel.startsWith('.memtier/index/') && rel !== '.memtier/commit-pending' && !rel.startsWith('.memtier/commit-pending/');
      },
    });
    const quiet = { info: () => undefined, warn: () => undefined };
    const report = await runHealth({ ...ctx, root: copy, log: quiet, env: { ...ctx.env, MEMTIER_GIT: 'off' } }, { ...opts, fix: true });
    const before = listFiles(ctx.root);
    const after = listFiles(copy);
    const { createTwoFilesPatch } = await import('diff');
    const changes: PlannedChange[] = [];
    const removed = [...before.keys()].filter((p) => !after.has(p));
    const added = new Set([...after.keys()].filter((p) => !before.has(p)));
    for (const p of removed) {
      const to = [...added].find((a) => after.get(a)!.equals(before.get(p)!));
      if (to) { added.delete(to); changes.push({ path: p, change: 'moved', to }); }
      else changes.push({ path: p, change: 'removed' });
    }
    for (const [p, b] of before) {
      const a = after.get(p);
      if (!a || a.equals(b)) continue;
      changes.push({ path: p, change: 'modified', diff: createTwoFilesPatch(`a/${p}`, `b/${p}`, b.toString('utf8'), a.toString('utf8'), '', '', { context: 3 }) });
    }
    for (const p of added) changes.push({ path: p, change: 'added', diff: createTwoFilesPatch('/dev/null', `b/${p}`, '', after.get(p)!.toString('utf8'), '', '', { context: 3 }) });
    changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    return { report: { ...report, root: ctx.root, fixed: report.fixed.map((l) => l.split(copy).join('.')) }, changes };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The preview as text: what each fix would do, then the diff of each file. */
export function renderPreview(p: FixPreview): string {
  const lines: string[] = [];
  if (p.changes.length === 0) {
    lines.push('memtier health --fix --dry-run: --fix would change nothing');
    return lines.join('\n');
  }
  lines.push(`memtier health --fix --dry-run: --fix would change ${p.changes.length} file(s); nothing was written`);
  // the fixes ran on a copy of the memory: what they did there is what --fix would do here
  if (p.report.fixed.length) lines.push('  on a copy of the memory, --fix:');
  for (const l of p.report.fixed) lines.push(`    ${l}`);
  lines.push('');
  for (const c of p.changes) {
    if (c.change === 'moved') lines.push(`would move: ${c.path} → ${c.to}`);
    else if (c.change === 'removed') lines.push(`would remove: ${c.path}`);
    else lines.push(c.diff!.replace(/^=+\n/, '').trimEnd());
  }
  return lines.join('\n');
}
