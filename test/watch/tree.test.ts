/**
 * The watched tree (lib/watch/tree.ts, fresh.ts) in process: after the cookie handshake, a search
 * through the watcher's freshness gives exactly what a search that stats every file gives, after
 * every kind of change a person or another process makes (append, editor rename, move, new
 * folders, deletes, a folder removed and re-created), with no wait between change and search.
 */
import { appendFileSync, mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setFreshnessSource } from '../../lib/search/cache.js';
import { search } from '../../lib/search/search.js';
import { WatchedFreshness } from '../../lib/watch/fresh.js';
import { WatchedTree } from '../../lib/watch/tree.js';
import { rmTree, testCtx, tmpTree } from '../helpers.js';

const roots: string[] = [];
const trees: WatchedTree[] = [];
afterEach(() => {
  setFreshnessSource(undefined);
  while (trees.length) trees.pop()!.close();
  while (roots.length) rmTree(roots.pop()!);
});

function memory(): string {
  const files: Record<string, string> = { 'MEMORY.md': '# Memory\n- [People](memory/semantic/people.md) — who is who\n' };
  for (let d = 1; d <= 9; d++) files[`memory/episodic/2026-05-0${d}.md`] = `- 10:00 [EVENT] routine standup number ${d} ^st00000${d}\n`;
  files['memory/semantic/people.md'] = '---\ntags: [people]\n---\n# People\n## Dana\nDana runs the billing team.\n';
  files['knowledge/tools.md'] = '# Tools\n## Docker\nDocker builds run on the ci host.\n';
  const root = tmpTree(files);
  roots.push(root);
  return root;
}

function watched(root: string, opts: { burstLimit?: number } = {}): { tree: WatchedTree; fresh: WatchedFreshness } {
  const tree = new WatchedTree(root, opts);
  trees.push(tree);
  tree.start();
  return { tree, fresh: new WatchedFreshness(tree) };
}

/** Results of `q` as path#line text, through the watcher (source set) or by stat'ing every file. */
async function hits(root: string, q: string, fresh?: WatchedFreshness): Promise<string[]> {
  setFreshnessSource(fresh);
  try {
    return (await search(testCtx(root), q, { k: 50 })).map((r) => `${r.path}#L${r.line} ${r.text}`);
  } finally {
    setFreshnessSource(undefined);
  }
}

describe('watched tree', () => {
  it('lists the same files the index covers, and sees each kind of change right after it', async () => {
    const root = memory();
    await hits(root, 'standup'); // builds the cache
    const { tree, fresh } = watched(root);
    expect(tree.status().files).toBe(12);
    const changes: [string, () => void, string, boolean][] = [
      ['append in place', () => appendFileSync(join(root, 'memory/episodic/2026-05-03.md'), '- 11:00 [EVENT] quokka sighting\n'), 'quokka', true],
      ['editor rename over', () => { writeFileSync(join(root, 'memory/semantic/.people.md.swp'), '# People\n## Dana\nDana now runs the wombat team.\n'); renameSync(join(root, 'memory/semantic/.people.md.swp'), join(root, 'memory/semantic/people.md')); }, 'wombat', true],
      ['old text gone after the rename', () => {}, 'billing', false],
      ['move to another folder', () => { mkdirSync(join(root, 'knowledge/moved')); renameSync(join(root, 'knowledge/tools.md'), join(root, 'knowledge/moved/tools.md')); }, 'docker', true],
      ['new nested folder and file at once', () => { mkdirSync(join(root, 'memory/semantic/deep/er'), { recursive: true }); writeFileSync(join(root, 'memory/semantic/deep/er/x.md'), '# X\nplatypus facts\n'); }, 'platypus', true],
      ['file appended in the new folder', () => appendFileSync(join(root, 'memory/semantic/deep/er/x.md'), 'echidna too\n'), 'echidna', true],
      ['delete a file', () => unlinkSync(join(root, 'memory/episodic/2026-05-03.md')), 'quokka', false],
      ['remove a folder tree', () => rmSync(join(root, 'memory/semantic/deep'), { recursive: true }), 'platypus', false],
      ['re-create it with other content', () => { mkdirSync(join(root, 'memory/semantic/deep')); writeFileSync(join(root, 'memory/semantic/deep/y.md'), '# Y\nplatypus again\n'); }, 'platypus', true],
      ['rename a folder with its files', () => renameSync(join(root, 'memory/semantic/deep'), join(root, 'knowledge/deeper')), 'platypus', true],
      ['a file appended in the renamed folder', () => appendFileSync(join(root, 'knowledge/deeper/y.md'), 'bilby too\n'), 'bilby', true],
      ['a folder moved out of the memory', () => renameSync(join(root, 'knowledge/deeper'), join(root, 'outside')), 'platypus', false],
      ['and moved back in', () => renameSync(join(root, 'outside'), join(root, 'memory/back')), 'bilby', true],
      ['a root file', () => appendFileSync(join(root, 'MEMORY.md'), '- [Zebra](memory/semantic/zebra.md) — zebra crossing\n'), 'zebra', true],
      ['dot folders and non-md files are not memory', () => { mkdirSync(join(root, 'memory/.hidden')); writeFileSync(join(root, 'memory/.hidden/h.md'), 'narwhal\n'); writeFileSync(join(root, 'memory/n.txt'), 'narwhal\n'); }, 'narwhal', false],
    ];
    for (const [what, change, word, present] of changes) {
      change();
      await tree.sync();
      const viaWatch = await hits(root, word, fresh);
      expect(viaWatch.length > 0, what).toBe(present);
      expect(viaWatch, what).toEqual(await hits(root, word));
    }
    expect(tree.status().rescans).toBe(1); // the start; every change came through events
  });

  it('agrees with a stat of every file over a random sequence of changes', async () => {
    const root = memory();
    await hits(root, 'standup');
    const { tree, fresh } = watched(root);
    let seed = 7;
    const rnd = (n: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    const dirs = ['memory/episodic', 'memory/semantic', 'memory/semantic/a', 'memory/semantic/a/b', 'knowledge', 'knowledge/c'];
    const live = new Set<string>();
    for (let step = 0; step < 60; step++) {
      const word = `tok${step}x`;
      const dir = dirs[rnd(dirs.length)]!;
      const file = `${dir}/f${rnd(6)}.md`;
      const op = rnd(5);
      mkdirSync(join(root, dir), { recursive: true });
      if (op === 0 && live.size) { const f = [...live][rnd(live.size)]!; rmSync(join(root, f), { force: true }); live.delete(f); }
      else if (op === 1 && live.size) { const f = [...live][rnd(live.size)]!; renameSync(join(root, f), join(root, file)); live.delete(f); live.add(file); }
      else if (op === 2 && rnd(4) === 0) { rmSync(join(root, 'memory/semantic/a'), { recursive: true, force: true }); for (const f of [...live]) if (f.startsWith('memory/semantic/a/')) live.delete(f); }
      else { appendFileSync(join(root, file), `# Note ${step}\n${word} entry\n`); live.add(file); }
      await tree.sync();
      const probe = step % 3 === 0 ? 'entry' : word;
      expect(await hits(root, probe, fresh), `step ${step}`).toEqual(await hits(root, probe));
    }
  });

  it('a burst as large as the kernel could drop makes it rescan everything', async () => {
    const root = memory();
    const { tree } = watched(root, { burstLimit: 20 });
    for (let i = 0; i < 40; i++) writeFileSync(join(root, `memory/semantic/n${i}.md`), `# N${i}\nburst\n`);
    await tree.sync();
    tree.refresh();
    expect(tree.status().rescans).toBe(2);
    expect(tree.status().lastRescan).toMatch(/burst of \d+ events/);
    expect(tree.status().files).toBe(52);
  });

  it('a memory folder created after the start is watched', async () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n' });
    roots.push(root);
    const { tree, fresh } = watched(root);
    mkdirSync(join(root, 'knowledge/sub'), { recursive: true });
    writeFileSync(join(root, 'knowledge/sub/k.md'), '# K\nkiwi\n');
    await tree.sync();
    expect(await hits(root, 'kiwi', fresh)).toHaveLength(1);
    appendFileSync(join(root, 'knowledge/sub/k.md'), 'kumquat\n');
    await tree.sync();
    expect(await hits(root, 'kumquat', fresh)).toHaveLength(1);
    expect(tree.status().rescans).toBe(1);
  });
});
