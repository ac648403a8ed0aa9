import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tmpTree, writeTree } from '../helpers.js';

// What a fresh memory holds besides memory: template guidance in HTML comments, the tag
// vocabulary, the format contract and generated palace views. None of it is an answer.
describe('search leaves out what is not memory', () => {
  it('comments, TAGS.md, FORMAT.md and palace views are not results; the entry they echo is', async () => {
    const root = tmpTree({
      'MEMORY.md': '# Memory\n\n## Open questions\n<!-- At most 5 questions; answer them in the weekly review. -->\n',
      'TAGS.md': '# Tags\n- infrastructure: qdrant, tailscale\n',
      'FORMAT.md': '# Format\n\nA qdrant example line explains the entry grammar.\n',
      // where a memory made before they moved to the root holds them (until health --fix moves them)
      'memory/TAGS.md': '# Tags\n- infrastructure: qdrant, tailscale\n',
      'memory/FORMAT.md': '# Format\n\nA qdrant example line explains the entry grammar.\n',
      'memory/palace/technology.md': '# Technology\n- qdrant runs on port 6333 (memory/episodic/2026-05-14.md#^abc1234567)\n',
      'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 09:00 [TECH] qdrant runs on port 6333 #qdrant ^abc1234567\n',
    });
    const r = await runCli(['search', 'qdrant', '--root', root, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const paths = (JSON.parse(r.stdout).results as { path: string }[]).map((x) => x.path);
    expect(paths).toEqual(['memory/episodic/2026-05-14.md']);
    const q = await runCli(['search', 'weekly review questions', '--root', root, '--json']);
    expect(JSON.parse(q.stdout).results).toEqual([]); // the words exist only inside a comment
  });

  it('words only the format contract and the tag vocabulary hold find nothing, wherever they live (root or memory/)', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    // a second copy where a memory made before the move keeps them
    writeTree(root, { 'memory/FORMAT.md': readFileSync(join(root, 'FORMAT.md'), 'utf8'), 'memory/TAGS.md': readFileSync(join(root, 'TAGS.md'), 'utf8') });
    for (const q of ['nesting flow indentation levels', 'frontmatter-aliases', 'troubleshooting']) {
      const r = await runCli(['search', q, '--root', root, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).results, q).toEqual([]);
      const rc = JSON.parse((await runCli(['recall', q, '--root', root, '--json'])).stdout);
      expect([...rc.hot, ...rc.results], `recall ${q}`).toEqual([]);
    }
    // the same words in an entry are found (the query can match: only the reference files are left out)
    writeTree(root, { 'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 09:00 [LESSON] troubleshooting the nesting of indentation levels took an hour ^abc1234567\n' });
    const hit = JSON.parse((await runCli(['search', 'troubleshooting nesting indentation levels', '--root', root, '--json'])).stdout);
    expect((hit.results as { path: string }[]).map((x) => x.path)).toEqual(['memory/episodic/2026-05-14.md']);
  });

  it("a table with column names and no rows yet (the skeleton's project tracker) is not a result; once it has a row it is", async () => {
    const tracker = '---\ntags: [projects]\n---\n# Project tracker\n\n<!-- One row per project. -->\n\n| project | status | next step | updated |\n| --- | --- | --- | --- |\n';
    const root = tmpTree({ 'knowledge/project-tracker.md': tracker, 'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 09:00 [EVENT] the status page was updated after the outage ^abc1234567\n' });
    const r = await runCli(['search', 'status updated', '--root', root, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout).results as { path: string }[]).map((x) => x.path)).toEqual(['memory/episodic/2026-05-14.md']);
    const filled = tmpTree({ 'MEMORY.md': '# Memory\n', 'knowledge/project-tracker.md': tracker + '| website | live | status page | 2026-05-14 |\n' });
    const f = await runCli(['search', 'status updated', '--root', filled, '--json']);
    expect((JSON.parse(f.stdout).results as { path: string }[]).map((x) => x.path)).toEqual(['knowledge/project-tracker.md']);
  });
});

describe('superseded entries', () => {
  it('are out of search by default and back with --include-superseded', async () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n', 'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 09:00 [DECISION] database: use MySQL ^old1234567\n' });
    const sup = await runCli(['supersede', '^old1234567', '--by', 'database: use Postgres for JSONB', '--root', root]);
    expect(sup.code, sup.stderr).toBe(0);
    const r = JSON.parse((await runCli(['search', 'database', '--root', root, '--json'])).stdout) as { results: { id?: string; text: string }[] };
    expect(r.results.map((x) => x.text).join('\n')).toContain('Postgres');
    expect(r.results.some((x) => x.id === 'old1234567')).toBe(false);
    const all = JSON.parse((await runCli(['search', 'database', '--include-superseded', '--root', root, '--json'])).stdout) as { results: { id?: string }[] };
    expect(all.results.some((x) => x.id === 'old1234567')).toBe(true);
  });
});
