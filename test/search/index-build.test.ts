/**
 * The index cache v8 (index-format.ts, index-build.ts): built streamed, entries read back from
 * the memory files, no copy of the text on disk, an older cache rebuilt silently, and a build's
 * progress shown only on a terminal (or in memtier watch's log).
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateMemory } from '../../lib/bench/perf.js';
import { CACHE_VERSION, ChangedFileError, INDEX_DIR, openIndex, readManifest, rebuildIndex, scanFiles } from '../../lib/search/cache.js';
import { loadCorpusFresh, readAndIndex, readMemoryText } from '../../lib/search/corpus.js';
import { MAX_FILE_BYTES } from '../../lib/store/guards/text.js';
import { IndexBuilder } from '../../lib/search/index-build.js';
import { rank, search } from '../../lib/search/search.js';
import { warmMemory } from '../../lib/watch/warm.js';
import { BIN, rmTree, runBin, runCli, testCtx, tmpTree } from '../helpers.js';

const roots: string[] = [];
afterEach(() => { while (roots.length) rmTree(roots.pop()!); });
const tree = (files: Record<string, string>): string => { const r = tmpTree(files); roots.push(r); return r; };

const QUERIES = ['docker deploy failed', 'postgres backup restore', '部署 失败', 'billing invoice customer', 'coffee morning habit', 'what happened on 2023-01-20', 'kubernetes helm chart'];

/** A synthetic memory of `notes` notes (lib/bench/perf.ts), its files dated in the past. */
function synthetic(notes: number): string {
  const root = tree({});
  generateMemory(root, notes);
  return root;
}

/** Every file of the current build, as bytes. */
function buildFiles(root: string): Map<string, Buffer> {
  const m = readManifest(root)!;
  const dir = join(root, INDEX_DIR, m.build);
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
}

const ranked = (root: string, view: ReturnType<typeof openIndex>, q: string): string =>
  JSON.stringify(rank(testCtx(root), view, q, { k: 10 }).results) + "";

describe('index cache v8', () => {
  it('ranks exactly as the in-memory index, with entries read back from the files', () => {
    const root = synthetic(120);
    const built = rebuildIndex(testCtx(root));
    const cached = openIndex(testCtx(root));
    const fresh = loadCorpusFresh(root);
    for (const q of QUERIES) {
      const want = ranked(root, fresh, q);
      expect(JSON.parse(want).length, q).toBeGreaterThan(0);
      expect(ranked(root, cached, q), q).toEqual(want);
      expect(ranked(root, built, q), q).toEqual(want);
    }
  });

  it('holds no copy of the text: no units.json, and a sentence of a note is in no index file', () => {
    const root = tree({ 'MEMORY.md': '# Memory\n', 'memory/semantic/tools.md': '# Tools\n## Editor\nWe use the zanzibarish helix editor for quokkafied editing.\n' });
    rebuildIndex(testCtx(root));
    const files = buildFiles(root);
    expect([...files.keys()].sort()).toEqual(['files.bin', 't-0.bin']);
    for (const [, b] of files) expect(b.includes('zanzibarish helix editor')).toBe(false);
    expect(readFileSync(join(root, INDEX_DIR, 'manifest.json'), 'utf8')).not.toContain('helix editor');
  });

  it('writes the same shards whether postings are spilled to disk or not', () => {
    const root = synthetic(60);
    const build = (opts: { buckets: number; bucketPostings?: number }): Map<string, Buffer> => {
      const scan = scanFiles(root);
      const b = new IndexBuilder(root, 0, opts);
      for (const f of scan.files) { const r = readAndIndex(root, f.path); if (r) b.addFile(f.path, f.mtimeMs, f.size, r.docs); }
      b.finish(root, scan.dirs);
      return buildFiles(root);
    };
    const inMemory = build({ buckets: 4 });
    const spilled = build({ buckets: 4, bucketPostings: 64 });
    expect([...spilled.keys()].every((f) => !f.endsWith('.tmp'))).toBe(true);
    expect(spilled.size).toBe(inMemory.size);
    for (const [f, b] of inMemory) expect(spilled.get(f)?.equals(b), f).toBe(true);
  });

  it('a file changed between the freshness check and the read of its entries: ChangedFileError, and search sees the change', async () => {
    const root = tree({ 'MEMORY.md': '# Memory\n', 'memory/episodic/2026-04-01.md': '- 10:00 [EVENT] routine standup with the llama team ^st000001\n' });
    rebuildIndex(testCtx(root));
    const view = openIndex(testCtx(root));
    const f = view.paths.indexOf('memory/episodic/2026-04-01.md');
    appendFileSync(join(root, 'memory/episodic/2026-04-01.md'), '- 11:00 [EVENT] the llama team shipped ^st000002\n');
    expect(() => view.fileDocs(f)).toThrow(ChangedFileError);
    expect((await search(testCtx(root), 'llama team')).map((r) => r.id).sort()).toEqual(['st000001', 'st000002']);
  });

  it('rebuilds an index of the previous format on first use, without a word', () => {
    const root = tree({ 'MEMORY.md': '# Memory\n', 'memory/semantic/tools.md': '# Tools\n## Editor\nWe use helix for editing.\n' });
    // a v7 cache: its manifest and a build holding units.json, written more than 30 s ago
    const old = join(root, INDEX_DIR, 'bold7');
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, 'units.json'), '[[[3,4,"We use helix for editing.","Tools › Editor",[],0,0,0,0,0]]]');
    writeFileSync(join(root, INDEX_DIR, 'manifest.json'), JSON.stringify({ v: 7, tok: 'x', build: 'bold7', shards: 1, N: 1, totalLen: 4, slots: 1, nfiles: 1, paths: 'memory/semantic/tools.md', dirs: [], kinds: [] }));
    const past = new Date(Date.now() - 60_000);
    utimesSync(old, past, past);
    const r = runBin(['search', 'helix', '--root', root, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect((JSON.parse(r.stdout) as { results: { path: string }[] }).results.map((x) => x.path)).toEqual(['memory/semantic/tools.md']);
    expect(readManifest(root)?.v).toBe(CACHE_VERSION);
    expect(existsSync(old)).toBe(false);
  });
});

describe('index build progress', () => {
  const env = { MEMTIER_PROGRESS_AFTER_MS: '0', MEMTIER_WATCH: 'off' };
  const memory = (): string => synthetic(40);

  it('is shown on a terminal (a pseudo-terminal through script(1)) and cleared at the end', () => {
    const root = memory();
    const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
    if (!hasScript) return; // util-linux missing: the in-process terminal test below still runs
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} search docker --root ${JSON.stringify(root)} >/dev/null`;
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { env: { ...process.env, ...env, MEMTIER_NOW: '2026-05-15T14:30:00Z' }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\rindexing memory: [\d,]+\/41 files, [\d,]+ files\/s, about \d+ s left/);
    expect(r.stdout).toContain('\r\x1b[K');
  });

  it('goes to a terminal stderr in process, never to a pipe, --json or --quiet', async () => {
    const root = memory();
    const tty = async (args: string[]): Promise<string> => {
      let err = '';
      const { main } = await import('../../lib/cli/main.js');
      await main({ argv: [...args, '--root', root], env: { ...env, MEMTIER_NOW: '2026-05-15T14:30:00Z', MEMTIER_TZ: 'UTC' }, cwd: root, stdout: { write: () => true }, stderr: { isTTY: true, write: (s: string) => { err += s; return true; } } as NodeJS.WritableStream & { isTTY: boolean } });
      return err;
    };
    const shown = await tty(['search', 'docker']);
    expect(shown).toMatch(/^\rindexing memory: [\d,]+\/41 files/);
    expect(shown.endsWith('\r\x1b[K')).toBe(true); // the line cleared
    rmTree(join(root, '.memtier'));
    expect(await tty(['search', 'docker', '--json'])).toBe('');
    rmTree(join(root, '.memtier'));
    expect(await tty(['search', 'docker', '--quiet'])).toBe('');
    rmTree(join(root, '.memtier'));
    expect((await runCli(['search', 'docker', '--root', root], { env })).stderr).toBe(''); // a stream without isTTY
    rmTree(join(root, '.memtier'));
    const piped = runBin(['search', 'docker', '--root', root], { env });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
  });

  it('is logged as lines by memtier watch (its warm build)', async () => {
    const root = memory();
    const lines: string[] = [];
    const ctx = { ...testCtx(root, undefined, undefined, env), log: { info: (m: string) => lines.push(m), warn: () => {} } };
    const warm = await warmMemory(ctx);
    warm.close();
    expect(lines.some((l) => /^indexing memory: [\d,]+\/41 files/.test(l))).toBe(true);
    expect(lines.some((l) => /^indexed memory: 41 files in [\d.]+ s$/.test(l))).toBe(true);
    expect(statSync(join(root, INDEX_DIR, 'manifest.json')).isFile()).toBe(true);
  });
});

describe('readMemoryText with the scan\'s stats (no fstat)', () => {
  it('reads the whole file, keeps the scan\'s stats, and refuses what is no longer a small regular file', () => {
    const root = tree({ 'memory/a.md': '\ufeffone\r\ntwo\n', 'memory/b.md': 'short' });
    const scanned = { mtimeMs: 1234, size: 5 };
    // the same text as with the fstat
    expect(readMemoryText(root, 'memory/a.md', { mtimeMs: 1, size: statSync(join(root, 'memory/a.md')).size })?.text).toBe(readMemoryText(root, 'memory/a.md')?.text);
    // grown since the scan: read to its end, the scan's stats returned (the next query sees the change)
    appendFileSync(join(root, 'memory/b.md'), ' and longer'.repeat(10_000));
    expect(readMemoryText(root, 'memory/b.md', scanned)).toEqual({ text: 'short' + ' and longer'.repeat(10_000), ...scanned });
    // now a folder, or over the limit: not read
    mkdirSync(join(root, 'memory/c.md'));
    expect(readMemoryText(root, 'memory/c.md', scanned)).toBeUndefined();
    expect(readMemoryText(root, 'memory/b.md', { mtimeMs: 1, size: MAX_FILE_BYTES + 1 })).toBeUndefined();
    writeFileSync(join(root, 'memory/b.md'), 'x'.repeat(MAX_FILE_BYTES + 1));
    expect(readMemoryText(root, 'memory/b.md', scanned)).toBeUndefined();
  });
});
