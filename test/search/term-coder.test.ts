/**
 * The index build's fast path (term-coder.ts, index-build.ts addText/addFiles, index-pool.ts):
 * a file encoded as numbers gives the same terms, weights and order as corpus.ts's Doc, and a
 * build made on worker threads, in the main thread, or from Docs is the same byte for byte,
 * also when a worker's dictionary is emptied midway or the workers never answer.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateMemory } from '../../lib/bench/perf.js';
import { INDEX_DIR, readManifest, scanFiles } from '../../lib/search/cache.js';
import { fileDocsFromText, readAndIndex } from '../../lib/search/corpus.js';
import { IndexBuilder } from '../../lib/search/index-build.js';
import { AUTO_WORKER_BYTES, AUTO_WORKER_FILES, poolSize } from '../../lib/search/index-pool.js';
import { Dictionary, IntList, TermCoder } from '../../lib/search/term-coder.js';
import { setCjkMode } from '../../lib/search/tokenize.js';
import { rmTree, tmpTree } from '../helpers.js';

const roots: string[] = [];
afterEach(() => { while (roots.length) rmTree(roots.pop()!); setCjkMode(undefined); });

const NOTE = [
  '---', 'tags: [infra, on-call]', 'type: TECH', '---', '# Servers', '',
  '## Proxy', "The nginx proxy's config: port 8443, v2.3.1 on 2026-05-15; Straße ÉCOLE ＤＯＣＫＥＲ.", '',
  '## 部署', 'Docker 部署失败，回滚到 3.5 版本。東京の会議はキャンセルされました。', '',
  '- 10:00 [DECISION] rollback the deploy, the the the deploy ^ab12cd34 #release', '  indented continuation deploy',
].join('\n');
const LOG = '# 2026-05-15\n- 09:00 [EVENT] standup; deploy deploy\n- 10:00 [LESSON] rock\'n\'roll and O\'Neil\'s 12,000,000ab 1:2:3\n- plain bullet in a log\n';

/** What Doc gives, as the coder's numbers: per entry [len, n, (term, tf << 1 | tag)…] with terms spelled out. */
function viaDocs(rel: string, text: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const d of fileDocsFromText(rel, text)) {
    out.push(d.len, d.tf.size);
    for (const [t, tf] of d.tf) out.push(t, (tf << 1) | (d.tagTerms.has(t) ? 1 : 0));
  }
  return out;
}

function viaCoder(coder: TermCoder, rel: string, text: string): (string | number)[] {
  const buf = new IntList(4);
  const entries = coder.encodeFile(rel, text, buf);
  const a = buf.view();
  const out: (string | number)[] = [];
  for (let e = 0, at = 0; e < entries; e++) {
    const n = a[at + 1]!;
    out.push(a[at]!, n);
    at += 2;
    for (let k = 0; k < n; k++, at += 2) out.push(coder.dict.term(a[at]!), a[at + 1]!);
  }
  return out;
}

describe('TermCoder', () => {
  it('gives the terms, weights, tag flags and order of Doc, for notes, logs, CJK and ids', () => {
    for (const mode of ['icu', 'bigram'] as const) {
      setCjkMode(mode);
      const coder = new TermCoder(new Dictionary());
      for (const [rel, text] of [['memory/semantic/servers.md', NOTE], ['memory/episodic/2026-05-15.md', LOG], ['memory/semantic/servers.md', NOTE]] as const) {
        const want = viaDocs(rel, text);
        expect(want.length).toBeGreaterThan(10);
        expect(viaCoder(coder, rel, text), `${mode} ${rel}`).toEqual(want);
      }
    }
  });

  it('starts its numbering again after reset, with the same terms', () => {
    const coder = new TermCoder(new Dictionary(), 4); // a raw-token table of 8 slots: emptied often
    const first = viaCoder(coder, 'memory/semantic/servers.md', NOTE);
    coder.reset();
    expect(coder.dict.size).toBe(0);
    expect(viaCoder(coder, 'memory/semantic/servers.md', NOTE)).toEqual(first);
    expect(first).toEqual(viaDocs('memory/semantic/servers.md', NOTE));
  });
});

describe('index build on worker threads', () => {
  // the compiled worker (npm run build): vitest runs the TypeScript sources, which a worker cannot load
  const url = new URL('../../dist/lib/search/index-worker.js', import.meta.url);
  const memory = (): string => { const r = tmpTree({}); roots.push(r); generateMemory(r, 150); return r; };

  /** Every file of the build just written, and its manifest without the build's name and the folders' times (removing .memtier changes the root's). */
  function build(root: string, how: (b: IndexBuilder, files: ReturnType<typeof scanFiles>['files']) => Int32Array, onWorkers = 0): Map<string, string> {
    rmSync(join(root, INDEX_DIR), { recursive: true, force: true });
    const scan = scanFiles(root);
    const b = new IndexBuilder(root, 0, { buckets: 4, bucketPostings: 256 });
    const at = how(b, scan.files);
    expect(Array.from(at).filter((x) => x < 0)).toEqual([]);
    // on workers (-1): the workers take their batches and the main thread every (W + 1)-th
    if (onWorkers === -1) expect([b.workerFiles > 0, b.workerFiles < scan.files.length]).toEqual([true, true]);
    else expect(b.workerFiles).toBe(onWorkers);
    b.finish(root, scan.dirs);
    const m = readManifest(root)!;
    const dir = join(root, INDEX_DIR, m.build);
    const out = new Map(readdirSync(dir).map((f) => [f, createHash('sha256').update(readFileSync(join(dir, f))).digest('hex').slice(0, 16)]));
    out.set('manifest', createHash('sha256').update(JSON.stringify({ ...m, build: '', dirs: [] })).digest('hex').slice(0, 16));
    return out;
  }

  it('writes the same index as the main thread alone and as Docs, also when a worker empties its dictionary', () => {
    const root = memory();
    const docs = build(root, (b, files) => Int32Array.from(files, (f) => { const r = readAndIndex(root, f.path)!; const i = b.paths.length; b.addFile(f.path, f.mtimeMs, f.size, r.docs); return i; }));
    const main = build(root, (b, files) => b.addFiles(root, files, 0));
    const workers = build(root, (b, files) => b.addFiles(root, files, 2, undefined, { url }), -1);
    const resets = build(root, (b, files) => b.addFiles(root, files, 3, undefined, { url, maxTerms: 50, batchBytes: 8 * 1024 }), -1);
    expect(docs.size).toBeGreaterThan(3);
    expect(main).toEqual(docs);
    expect(workers).toEqual(docs);
    expect(resets).toEqual(docs);
  });

  it('goes on in the main thread when the workers never answer', () => {
    const root = memory();
    const main = build(root, (b, files) => b.addFiles(root, files, 0));
    const silent = new URL('data:text/javascript,setInterval(() => {}, 1000)');
    let ticks = 0;
    const fallback = build(root, (b, files) => b.addFiles(root, files, 2, () => { ticks++; }, { url: silent, stallMs: 100 }));
    expect(fallback).toEqual(main);
    expect(ticks).toBe(scanFiles(root).files.length);
  });
});

describe('how many workers a build takes', () => {
  const idle = { cores: 2, load: 0.3 };
  it('one beside the main thread for a large build on a machine with a core idle, none otherwise, or as MEMTIER_INDEX_WORKERS says', () => {
    const big = { files: 10_000, bytes: 40 * 1024 * 1024 };
    expect(poolSize({}, big, idle)).toBe(1);
    expect(poolSize({}, { files: 300, bytes: AUTO_WORKER_BYTES - 1 }, idle)).toBe(0); // small: the worker's start costs more
    expect(poolSize({}, { files: AUTO_WORKER_FILES + 1, bytes: 200 * 1024 * 1024 }, idle)).toBe(0); // its heap would pass the 200 MB ceiling
    expect(poolSize({}, big, { cores: 2, load: 1.5 })).toBe(0); // no core idle
    expect(poolSize({}, big, { cores: 2, load: 1 })).toBe(0); // one busy elsewhere: the build's own thread takes the other
    expect(poolSize({}, big, { cores: 1, load: 0 })).toBe(0);
    expect(poolSize({}, big, { cores: 8, load: 3 })).toBe(1);
    expect(poolSize({ MEMTIER_INDEX_WORKERS: '0' }, big, idle)).toBe(0);
    expect(poolSize({ MEMTIER_INDEX_WORKERS: '3' }, { files: 1, bytes: 1 }, { cores: 1, load: 9 })).toBe(3);
    expect(poolSize({ MEMTIER_INDEX_WORKERS: '99' }, big, idle)).toBe(4);
  });
});
