/**
 * The package a user would install (`npm pack`) holds what the docs promise and nothing else: the
 * bin, the built dist/, the templates, the memory skeleton, the OpenClaw plugin manifest, README,
 * docs/, SECURITY.md and ARCHITECTURE.md (and package.json), and data/cedict-bridge.tsv (the dictionary
 * bridge's table, read at run time); no tests, no scripts, no bench data,
 * no CI, no code cache. Every relative link of its markdown leads to a file inside it.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers.js';
import { links, read } from './markdown.js';

const ALLOWED = [/^bin\//, /^dist\//, /^templates\//, /^memory-skeleton\//, /^data\/cedict-bridge\.tsv$/, /^docs\/[^/]+\.md$/, /^(package\.json|openclaw\.plugin\.json|README\.md|SECURITY\.md|ARCHITECTURE\.md)$/];
// bench data: the LoCoMo split, the bilingual set, annotated fixtures (the bench commands' code is dist/lib/bench/, runtime)
const NEVER = [/(^|\/)test\//, /^scripts\//, /^\.ci\//, /(^|\/)node_modules\//, /\.code-cache\//, /\.(jsonl|tgz)$/, /locomo[^/]*\.json$/i, /(^|\/)(cjk-dev|fixtures)\//, /\.test\.[jt]s$/, /(^|\/)\.git\//];

let files: string[] = [];
beforeAll(() => {
  // --ignore-scripts: the pack would run `prepare` (a whole build); dist/ is built already (pretest)
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO, encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path).sort();
}, 120_000);

describe('npm pack', () => {
  it('holds only the bin, dist, templates, skeleton, plugin manifest, README, docs, SECURITY.md and ARCHITECTURE.md', () => {
    expect(files.filter((f) => !ALLOWED.some((re) => re.test(f)))).toEqual([]);
    expect(files.filter((f) => NEVER.some((re) => re.test(f)))).toEqual([]);
  });

  it('holds what the docs promise', () => {
    const docs = readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
    for (const f of ['bin/memtier.js', 'dist/lib/cli/main.js', 'dist/lib/openclaw/entry.js', 'dist/cli/search.js', 'dist/build-id', 'data/cedict-bridge.tsv', 'templates/SKILL.md', 'templates/claude-code/README.md', 'memory-skeleton/FORMAT.md', 'memory-skeleton/MEMORY.md', 'openclaw.plugin.json', 'README.md', 'SECURITY.md', 'ARCHITECTURE.md', 'package.json', ...docs]) {
      expect(files, f).toContain(f);
    }
  });

  it('every file package.json names is in it (bin, main, types, exports, the OpenClaw extensions)', () => {
    const pkg = JSON.parse(read('package.json')) as { bin?: Record<string, string>; main?: string; types?: string; exports?: unknown; openclaw?: { extensions?: string[] } };
    const named = [...Object.values(pkg.bin ?? {}), pkg.main, pkg.types, ...JSON.stringify(pkg.exports ?? null).match(/"\.\/[^"]+"/g)?.map((x) => x.slice(1, -1)) ?? [], ...(pkg.openclaw?.extensions ?? [])];
    const missing = named.filter((x): x is string => x !== undefined).map((x) => normalize(x)).filter((x) => !files.includes(x));
    expect(missing).toEqual([]);
  });

  it('every relative link of its markdown leads inside the package', () => {
    const inside = new Set(files);
    const dirs = new Set(files.flatMap((f) => f.split('/').slice(0, -1).map((_, i, a) => a.slice(0, i + 1).join('/'))));
    const out: string[] = [];
    for (const md of files.filter((f) => f.endsWith('.md') && !f.startsWith('dist/'))) {
      for (const target of links(read(md))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
        const path = normalize(join(dirname(md), decodeURIComponent(target.split('#')[0]!))).replace(/\/$/, '');
        if (!inside.has(path) && !dirs.has(path)) out.push(`${md}: ${target}`);
      }
    }
    expect(out).toEqual([]);
  });
});
