/**
 * The index cache format (lib/search/index-format.ts): an index written to .memtier/index/ and
 * opened again (the lazy view, lib/search/index-view.ts) is the index that was written: the same
 * files, statistics, per-file and per-entry arrays, the same postings for every term, and the
 * same entries parsed again from the memory files (version 8 keeps no copy of the text).
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryIndex, readAndIndex } from '../../lib/search/corpus.js';
import { IndexBuilder } from '../../lib/search/index-build.js';
import { openManifest } from '../../lib/search/index-format.js';
import { CachedIndex } from '../../lib/search/index-view.js';
import { classify } from '../../lib/format/layout.js';
import { trackTemp } from '../helpers.js';
import { configure, entryId, line } from './settings.js';

configure(60);

const RAM = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const day = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
/**
 * A file name: any characters but "/", NUL and a line break (the manifest lists paths one per
 * line: FORMAT.md, ".memtier/").
 */
const name = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).map((s) => s.replace(/[/\n\r\u0000]/g, '_')).filter((s) => s !== '.' && s !== '..');
const path = fc.oneof(
  day.map((d) => `memory/episodic/${d}.md`),
  day.map((d) => `memory/archive/${d.slice(0, 4)}/${d.slice(5, 7)}/${d}.md`),
  name.map((n) => `memory/semantic/${n}.md`),
  name.map((n) => `knowledge/${n}/${n}.md`),
  fc.constantFrom('MEMORY.md', 'SESSION-STATE.md', 'memory/working-buffer.md', 'memory/procedural/lessons-learned.md'),
);
const fileLine = fc.oneof(
  fc.tuple(fc.constantFrom('', '09:30 ', '2026-05-14 10:00 '), fc.constantFrom('', '[DECISION] ', '[LESSON] ', '[PEOPLE] '), line, fc.option(entryId, { nil: undefined }))
    .map(([t, ty, l, id]) => `- ${t}${ty}${l}${id ? ` ^${id}` : ''}`),
  line.map((l) => `## ${l}`),
  line,
  fc.constant(''),
);
const content = fc.tuple(fc.boolean(), fc.array(fileLine, { maxLength: 10 })).map(([fm, ls]) => (fm ? '---\ntags: [alpha, beta]\ncreated: 2026-05-01\n---\n' : '') + ls.join('\n'));
const files = fc.uniqueArray(fc.record({ path, content }), { selector: (f) => f.path, maxLength: 8 });

describe('index cache format (property)', () => {
  it('an index written and opened again is the index that was written', () => {
    fc.assert(fc.property(files, (fs) => {
      const root = trackTemp(mkdtempSync(join(RAM, 'memtier-prop-')));
      for (const f of fs) { mkdirSync(dirname(join(root, f.path)), { recursive: true }); writeFileSync(join(root, f.path), f.content); }
      // the files as the build reads them (stats, BOM and line ends), twice: the builder drops its docs' terms
      const idx = new MemoryIndex(fs.map((f) => readAndIndex(root, f.path)!));
      const builder = new IndexBuilder(root, 0, { buckets: 2, bucketPostings: 4 });
      for (const f of fs) { const r = readAndIndex(root, f.path)!; builder.addFile(r.path, r.mtimeMs, r.size, r.docs); }
      builder.finish(root, []);
      const om = openManifest(root)!;
      expect(om).toBeDefined();
      const view = new CachedIndex(root, om.m, om.ft, om.paths, [], new MemoryIndex());
      expect(view.paths).toEqual(idx.paths);
      expect([view.N, view.totalLen, view.slots]).toEqual([idx.N, idx.totalLen, idx.slots]);
      expect(Array.from(om.ft.mtimeMs)).toEqual(idx.files.map((f) => f.mtimeMs));
      expect(Array.from(om.ft.size)).toEqual(idx.files.map((f) => f.size));
      const a = idx.arrays();
      const b = view.arrays();
      expect([Array.from(b.start), Array.from(b.entryLen), b.classes]).toEqual([Array.from(a.start), Array.from(a.entryLen), a.classes]);
      expect(Array.from(b.info)).toEqual(Array.from(a.info));
      for (let f = 0; f < idx.paths.length; f++) {
        expect(view.docCount(f)).toBe(idx.docCount(f));
        expect(view.fileDocs(f).map((d) => d.u)).toEqual(idx.fileDocs(f).map((d) => d.u));
        const info = view.info(f);
        expect({ rel: info.rel, kind: info.kind, tier: info.tier, date: info.date }).toEqual({ date: undefined, ...classify(idx.paths[f]!) });
      }
      for (const t of idx.terms()) {
        const got = view.slotPostings(t).flatMap((c) => Array.from(c));
        expect(got, t).toEqual(Array.from(idx.pairs(t)!));
        expect(view.df(t)).toBe(idx.df(t));
      }
      expect(view.slotPostings('zz-no-such-term-zz')).toEqual([]);
    }));
  });
});
