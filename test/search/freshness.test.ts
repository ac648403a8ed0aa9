/**
 * The v4 cache's freshness check (cache.ts checkFreshness): unchanged folders are not listed
 * again, but every file is stat'ed, so every kind of hand edit is seen by the next search.
 */
import { appendFileSync, mkdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { indexStatus, openIndex, RACY_MS, rebuildIndex, type LoadReport } from '../../lib/search/cache.js';
import { search } from '../../lib/search/search.js';
import { classify } from '../../lib/format/layout.js';
import { rmTree, testCtx, tmpTree } from '../helpers.js';

const roots: string[] = [];
afterEach(() => { while (roots.length) rmTree(roots.pop()!); });

const OLD = new Date('2026-05-01T10:00:00Z');

/** A memory whose files and folders are all older than the racy window, indexed. */
function indexed(): string {
  const files: Record<string, string> = { 'MEMORY.md': '# Memory\n- [Dana](memory/semantic/people/dana.md) — who Dana is\n' };
  for (let d = 1; d <= 6; d++) files[`memory/episodic/2026-04-0${d}.md`] = `- 10:00 [EVENT] routine standup number ${d} ^st00000${d}\n`;
  files['memory/semantic/people/dana.md'] = '---\ntags: [people]\n---\n# Dana\nDana runs the billing team.\n';
  files['memory/semantic/tools.md'] = '# Tools\n## Editor\nWe use helix for editing.\n';
  const root = tmpTree(files);
  roots.push(root);
  const age = (rel: string): void => utimesSync(join(root, rel), OLD, OLD);
  for (const f of Object.keys(files)) age(f);
  for (const d of ['memory/episodic', 'memory/semantic/people', 'memory/semantic', 'memory']) age(d);
  rebuildIndex(testCtx(root));
  return root;
}
const cites = async (root: string, q: string) => (await search(testCtx(root), q)).map((r) => `${r.path}#L${r.line}`);
const report = (root: string): LoadReport => { const r: LoadReport = { mode: 'fresh', changed: 0, files: 0 }; openIndex(testCtx(root), r); return r; };

describe('cache freshness', () => {
  it('reads the cache untouched when nothing changed', () => {
    const root = indexed();
    expect(report(root)).toEqual({ mode: 'cache', changed: 0, files: 9 });
  });

  it('sees an fs.appendFileSync whose mtime stays in the same second (only the size differs)', async () => {
    const root = indexed();
    const f = join(root, 'memory/episodic/2026-04-03.md');
    const before = statSync(f);
    appendFileSync(f, '- 11:00 [EVENT] zeppelin hangar inspection ^zp000001\n');
    utimesSync(f, before.atime, before.mtime); // same mtime as at build time
    expect(statSync(f).mtimeMs).toBe(before.mtimeMs);
    expect((await cites(root, 'zeppelin hangar'))[0]).toBe('memory/episodic/2026-04-03.md#L2');
    expect(report(root)).toMatchObject({ mode: 'cache', changed: 1 });
  });

  it('sees a rename inside a folder (old path gone, new path found)', async () => {
    const root = indexed();
    renameSync(join(root, 'memory/semantic/tools.md'), join(root, 'memory/semantic/editors.md'));
    expect(await cites(root, 'helix editing')).toEqual(['memory/semantic/editors.md#L2']);
  });

  it('sees a new file in a new folder', async () => {
    const root = indexed();
    mkdirSync(join(root, 'memory/semantic/places'), { recursive: true });
    writeFileSync(join(root, 'memory/semantic/places/lisbon.md'), '# Lisbon\nThe offsite happens in Lisbon near the tram depot.\n');
    expect(await cites(root, 'tram depot')).toEqual(['memory/semantic/places/lisbon.md#L1']);
    expect(indexStatus(root)).toMatchObject({ changed: 1, files: 10 });
  });

  it('forgets a deleted folder', async () => {
    const root = indexed();
    expect(await cites(root, 'billing team')).toContain('memory/semantic/people/dana.md#L4');
    rmSync(join(root, 'memory/semantic/people'), { recursive: true });
    expect(await cites(root, 'billing team')).toEqual([]);
    expect(indexStatus(root)).toMatchObject({ changed: 1, files: 8 });
  });

  it('lists a folder changed within the racy window again, even if its mtime is later restored', async () => {
    const root = indexed();
    const dir = join(root, 'memory/semantic');
    utimesSync(dir, new Date(), new Date()); // modified "now": racy at build time
    rebuildIndex(testCtx(root));
    const st = statSync(dir);
    writeFileSync(join(dir, 'quiet.md'), '# Quiet\nA note about the marmalade cellar.\n');
    utimesSync(dir, st.atime, st.mtime); // as if created in the same timestamp tick as the scan
    expect(await cites(root, 'marmalade cellar')).toEqual(['memory/semantic/quiet.md#L1']);
    expect(RACY_MS).toBeGreaterThan(0);
  });

  it('sees a root file (SESSION-STATE.md) created after the build', async () => {
    const root = indexed();
    writeFileSync(join(root, 'SESSION-STATE.md'), '# Session\n- current task: migrate the quokka service\n');
    expect(await cites(root, 'quokka')).toEqual(['SESSION-STATE.md#L2']);
  });

  it('gives the same file classes and days from the cache as classify() from the path', () => {
    const root = indexed();
    mkdirSync(join(root, 'memory/archive'), { recursive: true });
    writeFileSync(join(root, 'memory/archive/2025-12-30.md'), '- 09:00 [EVENT] old thing\n');
    mkdirSync(join(root, 'knowledge'), { recursive: true });
    writeFileSync(join(root, 'knowledge/k.md'), '# K\nknowledge text\n');
    rebuildIndex(testCtx(root));
    const view = openIndex(testCtx(root));
    expect(view.paths.length).toBe(11);
    // the cache's infos format their date lazily (a getter): compare the fields
    const fields = (i: { rel: string; kind: string; tier: string; date?: string }) => ({ rel: i.rel, kind: i.kind, tier: i.tier, date: i.date });
    for (let f = 0; f < view.paths.length; f++) expect(fields(view.info(f))).toEqual(fields(classify(view.paths[f]!)));
    expect(view.info(view.paths.indexOf('memory/archive/2025-12-30.md')).date).toBe('2025-12-30');
  });
});
