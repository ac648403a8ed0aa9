/**
 * Fixture kit: a fixture is a folder under test/health/fixtures/ holding a memory that states
 * its own expected findings:
 *   - `<!-- expect: CHECK -->` at the end of a line: a finding of CHECK at that line;
 *   - `<!-- expect: CHECK -->` alone on a line: a finding of CHECK at the next line;
 *   - a finding without a line matches any marker of its check in its file;
 *   - an `EXPECT` file (not copied) for markers that cannot live in the file:
 *     `expect: CHECK FILE[:LINE]`, and `env: NAME=VALUE` for the run's environment.
 * Folders `_memtier/` and `_git/` become `.memtier/` and `.git/` (git ignores the real names),
 * `{{HOST}}` becomes this host's name, and every file's mtime is set to an hour before FIXED_NOW.
 */
import { cpSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync, existsSync, mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXED_NOW, trackTemp } from '../helpers.js';
import type { Finding } from '../../lib/health/types.js';

export const FIXTURES = join(import.meta.dirname, 'fixtures');

export interface Marker { check: string; file: string; line?: number }

function walk(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...walk(dir, r));
    else out.push(r);
  }
  return out.sort();
}

export function fixtureNames(): string[] {
  return readdirSync(FIXTURES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
}

/** Copy a fixture to a fresh temp root; returns the root. */
export function copyFixture(name: string): string {
  const root = trackTemp(mkdtempSync(join(tmpdir(), `memtier-health-${name}-`)));
  trackTemp(`${root}.EXPECT`);
  cpSync(join(FIXTURES, name), root, { recursive: true });
  try { renameSync(join(root, 'EXPECT'), join(root, '..', `${root.split('/').pop()}.EXPECT`)); } catch { /* none */ }
  for (const [from, to] of [['_memtier', '.memtier'], ['_git', '.git']] as const) if (existsSync(join(root, from))) renameSync(join(root, from), join(root, to));
  const t = new Date(Date.parse(FIXED_NOW) - 3_600_000);
  for (const rel of walk(root)) {
    const abs = join(root, rel);
    const text = readFileSync(abs, 'utf8');
    if (text.includes('{{HOST}}')) writeFileSync(abs, text.replaceAll('{{HOST}}', hostname()));
    utimesSync(abs, t, t);
  }
  return root;
}

/** The markers and environment a fixture declares. Paths are as they are in the copied root. */
export function expectations(name: string): { markers: Marker[]; env: Record<string, string> } {
  const dir = join(FIXTURES, name);
  const markers: Marker[] = [];
  const env: Record<string, string> = {};
  const real = (rel: string): string => rel.replace(/^_memtier\//, '.memtier/').replace(/^_git\//, '.git/');
  for (const rel of walk(dir)) {
    if (rel === 'EXPECT') continue;
    const lines = readFileSync(join(dir, rel), 'utf8').split('\n');
    lines.forEach((l, i) => {
      for (const m of l.matchAll(/<!--\s*expect:\s*([a-z0-9-]+)\s*-->/g)) {
        const own = l.trim() === m[0];
        markers.push({ check: m[1]!, file: real(rel), line: own ? i + 2 : i + 1 });
      }
    });
  }
  const ex = join(dir, 'EXPECT');
  if (existsSync(ex) && statSync(ex).isFile()) {
    for (const l of readFileSync(ex, 'utf8').split('\n')) {
      const e = /^expect:\s*(\S+)\s+(\S+?)(?::(\d+))?\s*$/.exec(l);
      if (e) markers.push({ check: e[1]!, file: e[2]!, ...(e[3] ? { line: Number(e[3]) } : {}) });
      const v = /^env:\s*([A-Z0-9_]+)=(.*)$/.exec(l);
      if (v) env[v[1]!] = v[2]!;
    }
  }
  return { markers, env };
}

const show = (x: { check: string; file?: string; line?: number; message?: string }): string => `${x.check} ${x.file ?? '-'}${x.line ? `:${x.line}` : ''}${x.message ? ` (${x.message})` : ''}`;

/**
 * Compare findings (warn and fail, and an info one a marker names: a check whose finding is info,
 * such as episodic-count's "archive due") with markers: every finding must be expected by a marker,
 * every marker must be met by a finding. Returns readable lines for both kinds of mismatch.
 */
export function compare(findings: Finding[], markers: Marker[]): { unexpected: string[]; missing: string[] } {
  const relevant = findings.filter((f) => f.severity !== 'info' || markers.some((m) => meets(f, m)));
  function meets(f: Finding, m: Marker): boolean { return f.check === m.check && (f.file ?? '.') === m.file && (f.line === undefined || m.line === undefined || f.line === m.line); }
  return {
    unexpected: relevant.filter((f) => !markers.some((m) => meets(f, m))).map(show),
    missing: markers.filter((m) => !relevant.some((f) => meets(f, m))).map(show),
  };
}
