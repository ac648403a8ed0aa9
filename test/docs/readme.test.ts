/**
 * The README stays a page of minutes: under 300 lines, a quick start per host, its headline figures
 * taken from docs/benchmarks.md (every number of the table is there), and the quality gate reading
 * its floors where they live now (docs/benchmarks.md).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers.js';
import { anchors, read } from './markdown.js';

const readme = read('README.md');
const benchmarks = read('docs/benchmarks.md');

describe('README.md', () => {
  it('is under 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(300);
  });

  it('says what memtier is and is not, the files, install, a quick start per host, exit codes', () => {
    const h = anchors(readme);
    for (const a of ['the-files-in-30-seconds', 'install', 'quick-start', 'plain-shell-any-agent-with-a-shell', 'openclaw', 'claude-code', 'codex', 'any-mcp-client', 'numbers', 'exit-codes', 'documentation']) expect(h, a).toContain(a);
    expect(readme).toMatch(/\*\*When to use it:\*\*/);
    expect(readme).toMatch(/\*\*When not:\*\*/);
    expect(readme).toMatch(/```mermaid\n[\s\S]*working-buffer[\s\S]*episodic[\s\S]*archive[\s\S]*\n```/);
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toMatch(/^npm test\b/m);
  });

  it('every figure of its headline table is the one docs/benchmarks.md states', () => {
    const table = /<!-- headline:start[^>]*-->\n([\s\S]*?)<!-- headline:end -->/.exec(readme)?.[1];
    expect(table).toBeDefined();
    const rows = table!.trim().split('\n').slice(2);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    const missing: string[] = [];
    for (const row of rows) {
      const figure = row.split('|')[2]!;
      for (const n of figure.match(/\d+(?:[.,]\d+)*(?:–\d+(?:[.,]\d+)*)?/g) ?? []) if (!benchmarks.includes(n)) missing.push(`${n} (${figure.trim()})`);
    }
    expect(missing).toEqual([]);
  });
});

describe('docs/benchmarks.md', () => {
  it('keeps the sections others add to: Recall and Scale', () => {
    const h = anchors(benchmarks);
    for (const a of ['recall', 'scale', 'quality-floors', 'locomo', 'the-bilingual-memory', 'search-speed', 'health-and-the-upkeep-commands']) expect(h, a).toContain(a);
  });

  it('states the quality floors the gate reads, and scripts/quality-gate.mjs finds them there', () => {
    expect(benchmarks).toMatch(/LoCoMo dev overall R@10 `[\d.]+`; cjk-dev hit@1 `[\d.]+`/);
    // without the data the gate skips both benchmarks; it still reads (or fails to find) the floors first
    const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'quality-gate.mjs')], { encoding: 'utf8', env: { ...process.env, MEMTIER_BENCH_DATA: join(REPO, 'no-such-bench-data') } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/LoCoMo skipped/);
    expect(r.stderr).not.toMatch(/states no floor/);
  });
});
