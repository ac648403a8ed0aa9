/**
 * The index cache's freshness from a WatchedTree instead of a stat per file (freshness.ts
 * FreshnessSource): the set of files whose stats differ from the manifest's is kept up to date
 * from the tree's changes, so a query served by `memtier watch` costs the changed files only.
 */
import { statSync } from 'node:fs';
import type { ProgressSink } from '../core/context.js';
import { join } from 'node:path';
import { INDEX_DIR, type FileTable, type Freshness, type FreshnessSource, type Manifest, type OpenManifest, type SharedBuild } from '../search/cache.js';
import { readAndIndex, type FileRecord } from '../search/corpus.js';
import type { WatchedTree } from './tree.js';

/** Parsed entries of this many files, at most, are kept between queries. */
const MAX_SHARED_DOCS = 5000;

export class WatchedFreshness implements FreshnessSource {
  private base: { build: string; at: Map<string, number>; ft: FileTable } | undefined;
  /** Paths whose current stats differ from the manifest's (changed, new or gone). */
  private readonly diff = new Set<string>();
  private readonly records = new Map<string, { gen: number; rec: FileRecord | undefined }>();
  private opened: { key: string; o: OpenManifest | undefined } | undefined;
  private sharedBuild: SharedBuild | undefined;

  /** Set by warmMemory: index builds log their progress to the server's log. */
  progress: ProgressSink | undefined;

  constructor(readonly tree: WatchedTree) {}

  get root(): string { return this.tree.root; }

  /** The manifest, parsed again only when manifest.json changed (another process rebuilt the cache). */
  manifest(open: () => OpenManifest | undefined): OpenManifest | undefined {
    const st = statSync(join(this.root, INDEX_DIR, 'manifest.json'), { throwIfNoEntry: false });
    const key = st ? `${st.ino}:${st.mtimeMs}:${st.size}` : '';
    if (!this.opened || this.opened.key !== key || !key) this.opened = { key, o: key ? open() : undefined };
    return this.opened.o;
  }

  freshness(m: Manifest, ft: FileTable, paths: string[]): Freshness {
    this.tree.refresh();
    if (this.base?.build !== m.build || this.base.ft !== ft) {
      const at = new Map<string, number>();
      paths.forEach((p, i) => at.set(p, i));
      this.base = { build: m.build, at, ft };
      this.diff.clear();
      this.tree.takeChanged();
      for (const p of paths) this.check(p);
      for (const p of this.tree.files.keys()) if (!at.has(p)) this.diff.add(p);
    } else {
      for (const p of this.tree.takeChanged()) this.check(p);
    }
    const fr: Freshness = { changed: [], masked: [], gone: 0, bytes: 0, files: this.tree.files.size };
    for (const p of this.diff) {
      const i = this.base.at.get(p);
      const cur = this.tree.files.get(p);
      if (i !== undefined) fr.masked.push(i);
      if (cur) { fr.changed.push(p); fr.bytes += cur.size; } else fr.gone++;
    }
    for (const p of this.records.keys()) if (!this.diff.has(p)) this.records.delete(p);
    return fr;
  }

  /** A changed file's entries, parsed again only after an event on it. */
  record(rel: string): FileRecord | undefined {
    const gen = this.tree.generation.get(rel) ?? 0;
    const r = this.records.get(rel);
    if (r && r.gen === gen) return r.rec;
    const rec = readAndIndex(this.root, rel);
    this.records.set(rel, { gen, rec });
    return rec;
  }

  shared(build: string): SharedBuild {
    if (this.sharedBuild?.build !== build) this.sharedBuild = { build, shards: new Map(), docs: new Map() };
    else if (this.sharedBuild.docs.size > MAX_SHARED_DOCS) this.sharedBuild.docs.clear();
    return this.sharedBuild;
  }

  private check(p: string): void {
    const i = this.base!.at.get(p);
    const cur = this.tree.files.get(p);
    const ft = this.base!.ft;
    if (i === undefined ? !cur : cur !== undefined && cur.mtimeMs === ft.mtimeMs[i] && cur.size === ft.size[i]) this.diff.delete(p);
    else this.diff.add(p);
  }
}
