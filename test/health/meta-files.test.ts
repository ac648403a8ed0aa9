/**
 * #31 finding 5: memtier's reference files (TAGS.md, FORMAT.md) live at the root, where memory
 * indexers (OpenClaw's memory-core reads memory/**) do not take them for memory. A memory made
 * before keeps working with memory/TAGS.md, `health` warns (meta-files), and `health --fix` moves
 * them and rewrites the links to them, nothing else; the move is committed like every fix.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify, isMemoryPath, listMemoryFiles, tagsFile } from '../../lib/format/layout.js';
import { rewriteMetaLinks } from '../../lib/health/checks/meta-files.js';
import { runHealth } from '../../lib/health/run.js';
import { readTree, runCli, testCtx, tmpTree, writeTree } from '../helpers.js';

const BOTH = new Map([['memory/TAGS.md', 'TAGS.md'], ['memory/FORMAT.md', 'FORMAT.md']]);
const cli = (root: string, args: string[]) => runCli([...args, '--root', root], { env: { MEMTIER_WATCH: 'off' } });
const git = (root: string, ...args: string[]): string => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

/** A memory as an earlier `memtier init` made it: TAGS.md and FORMAT.md under memory/, MEMORY.md linking there. */
async function oldLayout(opts: { git?: boolean } = {}): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root, ...(opts.git ? ['--git'] : [])])).code).toBe(0);
  renameSync(join(root, 'TAGS.md'), join(root, 'memory/TAGS.md'));
  renameSync(join(root, 'FORMAT.md'), join(root, 'memory/FORMAT.md'));
  const memory = readFileSync(join(root, 'MEMORY.md'), 'utf8');
  writeTree(root, { 'MEMORY.md': memory.replace('[Tags](TAGS.md)', '[Tags](memory/TAGS.md)').replace('Format: FORMAT.md -->', 'Format: memory/FORMAT.md -->') });
  if (opts.git) { git(root, 'add', '-A'); git(root, 'commit', '-q', '-m', 'a memory made before the move'); }
  return root;
}

describe('the file model', () => {
  it('TAGS.md and FORMAT.md are meta files at the root, and still at their old places under memory/', () => {
    for (const [rel, kind] of [['TAGS.md', 'tags'], ['FORMAT.md', 'format'], ['memory/TAGS.md', 'tags'], ['memory/FORMAT.md', 'format']] as const) {
      expect(classify(rel), rel).toEqual({ rel, kind, tier: 'meta' });
      expect(isMemoryPath(rel), rel).toBe(true);
    }
    const root = tmpTree({ 'MEMORY.md': '# M\n', 'TAGS.md': '- a: b\n', 'FORMAT.md': '# F\n', 'memory/TAGS.md': '- c: d\n', 'README.md': '# not memory\n' });
    expect(listMemoryFiles(root)).toEqual(['FORMAT.md', 'MEMORY.md', 'TAGS.md', 'memory/TAGS.md']);
  });

  it('the vocabulary read is TAGS.md, else an unmoved memory/TAGS.md', () => {
    expect(tagsFile(tmpTree({ 'TAGS.md': '', 'memory/TAGS.md': '' }))).toBe('TAGS.md');
    expect(tagsFile(tmpTree({ 'memory/TAGS.md': '' }))).toBe('memory/TAGS.md');
    expect(tagsFile(tmpTree({ 'MEMORY.md': '' }))).toBe('TAGS.md');
  });
});

describe('rewriteMetaLinks', () => {
  it('rewrites root-relative and file-relative links to the moved files, anchors kept', () => {
    expect(rewriteMetaLinks('- [Tags](memory/TAGS.md) — the vocabulary\n- [T](./memory/TAGS.md#tech)\n', 'MEMORY.md', BOTH))
      .toEqual({ text: '- [Tags](TAGS.md) — the vocabulary\n- [T](./TAGS.md#tech)\n', changed: 2 });
    expect(rewriteMetaLinks('see [the vocabulary](../TAGS.md) and [the format](../FORMAT.md)\n', 'memory/semantic/x.md', BOTH))
      .toEqual({ text: 'see [the vocabulary](../../TAGS.md) and [the format](../../FORMAT.md)\n', changed: 2 });
    expect(rewriteMetaLinks('[tags](./TAGS.md) [tags](memory/TAGS.md)\n', 'memory/2026-05-14.md', BOTH))
      .toEqual({ text: '[tags](../TAGS.md) [tags](TAGS.md)\n', changed: 2 });
    expect(rewriteMetaLinks('[tags]: memory/TAGS.md\n', 'MEMORY.md', BOTH)).toEqual({ text: '[tags]: TAGS.md\n', changed: 1 });
    expect(rewriteMetaLinks('<!-- Index lines: - [Title](path). Format: memory/FORMAT.md -->\n', 'MEMORY.md', BOTH))
      .toEqual({ text: '<!-- Index lines: - [Title](path). Format: FORMAT.md -->\n', changed: 1 });
  });

  it('leaves everything else as it is: other links, code, prose, and links to a file that did not move', () => {
    const text = [
      '# Notes',
      'The vocabulary is in memory/TAGS.md (prose, not a link). Format: memory/FORMAT.md',
      '- [Decisions](memory/semantic/decisions.md) — [old](memory/TAGS.md.bak) [web](https://example.com/memory/TAGS.md)',
      '- `[Tags](memory/TAGS.md)` in a code span',
      '```',
      '- [Tags](memory/TAGS.md)',
      '```',
      '- [here](TAGS.md) from the root already',
      '',
    ].join('\n');
    expect(rewriteMetaLinks(text, 'MEMORY.md', BOTH)).toEqual({ text, changed: 0 });
    // only TAGS.md moved: the FORMAT.md link and comment stay
    const only = new Map([['memory/TAGS.md', 'TAGS.md']]);
    expect(rewriteMetaLinks('- [Tags](memory/TAGS.md)\n- [Format](memory/FORMAT.md)\n<!-- Format: memory/FORMAT.md -->\n', 'MEMORY.md', only))
      .toEqual({ text: '- [Tags](TAGS.md)\n- [Format](memory/FORMAT.md)\n<!-- Format: memory/FORMAT.md -->\n', changed: 1 });
  });
});

describe('a memory made before TAGS.md and FORMAT.md moved to the root', () => {
  it('health warns about each, --fix moves them and rewrites the links to them, a second --fix does nothing, and the move is committed', async () => {
    const root = await oldLayout({ git: true });
    writeTree(root, { 'memory/semantic/tagging.md': '---\ntags: [references]\n---\n# Tagging\n- how we tag: [the vocabulary](../TAGS.md)\n' });
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'a note linking the vocabulary');
    const before = readTree(root);

    const h = await cli(root, ['health', '--only', 'meta-files']);
    expect(h.code, h.stderr).toBe(0); // a warning
    expect(h.stdout).toContain("memory/TAGS.md: memtier's reference file (the tag vocabulary) under memory/, where memory indexers (OpenClaw's memory-core) read it as memory: it belongs at the root as TAGS.md");
    expect(h.stdout).toContain("memory/FORMAT.md: memtier's reference file (the file-format contract) under memory/, where memory indexers (OpenClaw's memory-core) read it as memory: it belongs at the root as FORMAT.md");
    const j = JSON.parse((await cli(root, ['health', '--only', 'meta-files', '--json'])).stdout);
    expect(j.findings.map((f: { file: string; severity: string; fixable: boolean }) => [f.file, f.severity, f.fixable]).sort()).toEqual([['memory/FORMAT.md', 'warn', true], ['memory/TAGS.md', 'warn', true]]);

    const fix = await cli(root, ['health', '--fix']);
    expect(fix.code, fix.stderr + fix.stdout).toBe(0);
    const after = readTree(root);
    expect(after['TAGS.md']).toBe(before['memory/TAGS.md']);
    expect(after['FORMAT.md']).toBe(before['memory/FORMAT.md']);
    expect(existsSync(join(root, 'memory/TAGS.md'))).toBe(false);
    expect(existsSync(join(root, 'memory/FORMAT.md'))).toBe(false);
    expect(after['MEMORY.md']).toBe(before['MEMORY.md']!.replace('[Tags](memory/TAGS.md)', '[Tags](TAGS.md)').replace('Format: memory/FORMAT.md -->', 'Format: FORMAT.md -->'));
    expect(after['MEMORY.md']).toContain('- [Tags](TAGS.md) — the frozen tag vocabulary\n');
    expect(after['memory/semantic/tagging.md']).toBe(before['memory/semantic/tagging.md']!.replace('](../TAGS.md)', '](../../TAGS.md)'));
    for (const [rel, text] of Object.entries(before)) {
      if (!['MEMORY.md', 'memory/TAGS.md', 'memory/FORMAT.md', 'memory/semantic/tagging.md'].includes(rel)) expect(after[rel], rel).toBe(text);
    }
    // committed: nothing left over, the command's own commit holds the move and the rewritten links
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(git(root, 'log', '--format=%s', '-1')).toMatch(/^memtier /);
    const changed = git(root, 'diff', '--no-renames', '--name-only', 'HEAD~1', 'HEAD').trim().split('\n').sort();
    expect(changed).toEqual(['FORMAT.md', 'MEMORY.md', 'TAGS.md', 'memory/FORMAT.md', 'memory/TAGS.md', 'memory/semantic/tagging.md']);

    const head = git(root, 'rev-parse', 'HEAD');
    const again = JSON.parse((await cli(root, ['health', '--fix', '--json'])).stdout);
    expect(again.fixed ?? []).toEqual([]);
    expect(again.findings.filter((f: { check: string }) => f.check === 'meta-files' || f.check === 'decision-links')).toEqual([]);
    expect(readTree(root)).toEqual(after);
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
    // the moved vocabulary is the one read now
    const r = await cli(root, ['add', '--tags', 'kubernetez', 'the cluster runs 1.29']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/tag "kubernetez" not in TAGS\.md \(the frozen vocabulary\)/);
  });

  it('a root file that already holds the same bytes: the copy under memory/ goes to the trash and the links are rewritten', async () => {
    const root = await oldLayout();
    writeTree(root, { 'TAGS.md': readFileSync(join(root, 'memory/TAGS.md'), 'utf8') });
    const report = await runHealth(testCtx(root), { fix: true });
    expect(report.fixed).toEqual([
      'meta-files: TAGS.md already holds the same text: moved memory/TAGS.md to memory/.trash/2026-05-15T143000/memory/TAGS.md',
      'meta-files: moved memory/FORMAT.md → FORMAT.md',
      'meta-files: rewrote 2 links in MEMORY.md to TAGS.md and FORMAT.md',
    ]);
    expect(existsSync(join(root, 'memory/TAGS.md'))).toBe(false);
    expect(readFileSync(join(root, 'memory/.trash/2026-05-15T143000/memory/TAGS.md'), 'utf8')).toBe(readFileSync(join(root, 'TAGS.md'), 'utf8'));
    expect(report.findings.filter((f) => f.check === 'meta-files' || f.check === 'decision-links')).toEqual([]);
  });

  it('a root TAGS.md with other content: nothing moved, no link rewritten, and the finding says why (no fix offered)', async () => {
    const root = await oldLayout();
    writeTree(root, { 'TAGS.md': '# Tags\n\n- mine: a, b\n' });
    const before = readTree(root);
    const report = await runHealth(testCtx(root), { fix: true });
    expect(report.fixed).toEqual(['meta-files: moved memory/FORMAT.md → FORMAT.md', 'meta-files: rewrote 1 link in MEMORY.md to FORMAT.md']);
    expect(readTree(root)['memory/TAGS.md']).toBe(before['memory/TAGS.md']);
    expect(readTree(root)['TAGS.md']).toBe(before['TAGS.md']);
    expect(readTree(root)['MEMORY.md']).toContain('- [Tags](memory/TAGS.md) — the frozen tag vocabulary\n');
    expect(report.findings.filter((f) => f.check === 'meta-files')).toEqual([{
      check: 'meta-files', severity: 'warn', file: 'memory/TAGS.md',
      message: "memtier's reference file (the tag vocabulary) under memory/, where memory indexers (OpenClaw's memory-core) read it as memory; TAGS.md already exists with other content, so it is not moved (memtier reads TAGS.md)",
      fix: 'merge what memory/TAGS.md holds into TAGS.md by hand, then remove memory/TAGS.md',
      fixable: false,
    }]);
  });
});
