/**
 * The lazy view of a cached build: its postings (term shards read on demand), its entries
 * (parsed again from a memory file when asked: the file was stat-checked unchanged since the
 * build), masked where files changed, plus an in-memory index of the changed files — one
 * IndexView for the ranking.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { classify, type FileInfo, type FileKind, type Tier } from '../format/layout.js';
import { Doc, fileDocsFromText, MemoryIndex, packInfo, STRIDE, type FileArrays, type IndexView } from './corpus.js';
import { ChangedFileError, INDEX_DIR, Shard, StaleBuildError, termHash, type FileTable, type Manifest } from './index-format.js';

/** What queries of one build can share in a long-running process: term shards and parsed entries. */
export interface SharedBuild { build: string; shards: Map<number, Shard>; docs: Map<number, Doc[]>; slotFile?: Int32Array }
/** The lazy view: cached postings of unchanged files + in-memory index of changed ones. */
export class CachedIndex implements IndexView {
  N: number;
  totalLen: number;
  paths: string[];
  slots: number;
  private readonly masked: Uint8Array;
  private readonly starts: Int32Array;
  private readonly shardCache: Map<number, Shard>;
  private readonly chunkCache = new Map<string, ArrayLike<number>[]>();
  private readonly dfCache = new Map<string, number>();
  private readonly pairsCache = new Map<string, Int32Array[]>();
  private readonly anyMasked: boolean;
  private readonly docsCache: Map<number, Doc[]>;
  private readonly infos: (FileInfo | undefined)[] = [];
  private readonly base: number;
  private fileArrays?: FileArrays;
  private readonly maskedList: string;

  /** `shared`: caches of the build kept across queries by a long-running process (else this view's own). */
  constructor(private readonly root: string, private readonly m: Manifest, private readonly ft: FileTable, basePaths: string[], masked: ArrayLike<number>, private readonly fresh: MemoryIndex, private readonly shared: SharedBuild = { build: m.build, shards: new Map(), docs: new Map() }) {
    this.shardCache = shared.shards;
    this.docsCache = shared.docs;
    this.base = m.nfiles;
    this.masked = new Uint8Array(this.base);
    this.starts = new Int32Array(this.base + fresh.paths.length + 1);
    let N = m.N;
    let len = m.totalLen;
    for (let j = 0; j < masked.length; j++) { const f = masked[j]!; this.masked[f] = 1; N -= ft.n[f]!; len -= ft.len[f]!; }
    this.maskedList = Array.from(masked).sort((a, b) => a - b).join(',');
    this.anyMasked = masked.length > 0;
    let s = 0;
    for (let i = 0; i < this.base; i++) { this.starts[i] = s; s += ft.n[i]!; }
    for (let i = 0; i < fresh.paths.length; i++) this.starts[this.base + i] = s + fresh.fileStart(i);
    this.slots = s + fresh.slots;
    this.starts[this.base + fresh.paths.length] = this.slots;
    this.N = N + fresh.N;
    this.totalLen = len + fresh.totalLen;
    this.paths = fresh.paths.length ? [...basePaths, ...fresh.paths] : basePaths;
  }

  /** The build, the files masked since it (changed or gone) and the changed files' stats. */
  state(): string {
    return `${this.m.build}\n${this.maskedList}\n${this.fresh.state()}`;
  }

  private shard(n: number): Shard {
    let s = this.shardCache.get(n);
    if (!s) {
      try {
        s = new Shard(readFileSync(join(this.root, INDEX_DIR, this.m.build, `t-${n}.bin`)));
      } catch (e) {
        throw new StaleBuildError(`index build ${this.m.build} vanished: ${(e as Error).message}`);
      }
      this.shardCache.set(n, s);
    }
    return s;
  }

  /** The file of each cached slot (built on first use). */
  private fileOfSlot(): Int32Array {
    if (!this.shared.slotFile) {
      const sf = new Int32Array(this.m.slots);
      const n = this.ft.n;
      let s = 0;
      for (let f = 0; f < this.base; f++) { sf.fill(f, s, s + n[f]!); s += n[f]!; }
      this.shared.slotFile = sf;
    }
    return this.shared.slotFile;
  }

  postingChunks(term: string): ArrayLike<number>[] {
    let c = this.chunkCache.get(term);
    if (c) return c;
    c = [];
    const pairs = this.shard(termHash(term) % this.m.shards).find(Buffer.from(term, 'utf8'));
    if (pairs) {
      const sf = this.fileOfSlot();
      const el = this.ft.entryLen;
      const out = new Int32Array((pairs.length >> 1) * STRIDE);
      for (let i = 0, o = 0; i < pairs.length; i += 2, o += STRIDE) {
        const slot = pairs[i]!;
        const v = pairs[i + 1]!;
        const file = sf[slot]!;
        out[o] = file; out[o + 1] = slot - this.starts[file]!; out[o + 2] = v >> 1; out[o + 3] = el[slot]!; out[o + 4] = v & 1;
      }
      c.push(out);
    }
    const fr = this.fresh.flat(term);
    if (fr) {
      const copy = fr.slice();
      for (let i = 0; i < copy.length; i += STRIDE) copy[i]! += this.base;
      c.push(copy);
    }
    this.chunkCache.set(term, c);
    return c;
  }

  /**
   * The cached pairs as stored (a cached slot is the view's slot: cached files come first, in
   * build order), then the fresh files' pairs moved past them.
   */
  slotPostings(term: string): Int32Array[] {
    let c = this.pairsCache.get(term);
    if (c) return c;
    c = [];
    const pairs = this.shard(termHash(term) % this.m.shards).find(Buffer.from(term, 'utf8'));
    if (pairs) c.push(pairs);
    const fr = this.fresh.pairs(term);
    if (fr) {
      const at = this.starts[this.base]!;
      for (let i = 0; i < fr.length; i += 2) fr[i]! += at;
      c.push(fr);
    }
    this.pairsCache.set(term, c);
    return c;
  }

  df(term: string): number {
    let n = this.dfCache.get(term);
    if (n === undefined) {
      n = 0;
      const { start, live } = this.arrays();
      for (const c of this.slotPostings(term)) {
        if (!this.anyMasked) { n += c.length >> 1; continue; } // every posting is live: no loop
        // slots ascend: walk the files along (as rank() does)
        let f = 0;
        for (let i = 0; i < c.length; i += 2) {
          const slot = c[i]!;
          if (slot < start[f]!) f = 0;
          while (start[f + 1]! <= slot) f++;
          n += live[f]!;
        }
      }
      this.dfCache.set(term, n);
    }
    return n;
  }

  arrays(): FileArrays {
    if (!this.fileArrays) {
      const nFresh = this.fresh.paths.length;
      let info = this.ft.info;
      let entryLen = this.ft.entryLen;
      const classes = this.m.kinds.slice();
      if (nFresh) {
        // a changed or new file: its class from its path, its entries' lengths from the fresh index
        const classAt = new Map<string, number>(classes.map(([k, t], i) => [`${k}\t${t}`, i]));
        info = new Int32Array(this.base + nFresh);
        info.set(this.ft.info);
        for (let i = 0; i < nFresh; i++) info[this.base + i] = packInfo(this.fresh.info(i), classes, classAt);
        entryLen = new Int32Array(this.slots);
        entryLen.set(this.ft.entryLen);
        entryLen.set(this.fresh.arrays().entryLen, this.starts[this.base]!);
      }
      const live = new Uint8Array(this.base + nFresh).fill(1);
      if (this.anyMasked) for (let f = 0; f < this.base; f++) if (this.masked[f]) live[f] = 0;
      this.fileArrays = { start: this.starts, live, info, classes, entryLen };
    }
    return this.fileArrays;
  }

  live(file: number): boolean { return file >= this.base || this.masked[file] === 0; }
  fileStart(file: number): number { return this.starts[file]!; }

  docCount(file: number): number {
    return file < this.base ? (this.masked[file] ? 0 : this.ft.n[file]!) : this.fresh.docCount(file - this.base);
  }

  fileDocs(file: number): Doc[] {
    if (file >= this.base) return this.fresh.fileDocs(file - this.base);
    if (this.masked[file] || this.ft.n[file] === 0) return [];
    let d = this.docsCache.get(file);
    if (!d) {
      d = readDocs(this.root, this.paths[file]!, this.ft.mtimeMs[file]!, this.ft.size[file]!);
      if (d.length !== this.ft.n[file]) throw new ChangedFileError(`${this.paths[file]} does not hold the entries indexed`);
      this.docsCache.set(file, d);
    }
    return d;
  }

  info(file: number): FileInfo {
    let i = this.infos[file];
    if (!i) {
      if (file >= this.base) i = classify(this.paths[file]!);
      else {
        const v = this.ft.info[file]!;
        const [kind, tier] = this.m.kinds[v & 31]!;
        i = new PackedInfo(this.paths[file]!, kind, tier, v >>> 5);
      }
      this.infos[file] = i;
    }
    return i;
  }
}

/**
 * A file's class from the file table, its day (YYYYMMDD) formatted only when asked: a cold query
 * at 50k notes asks the kind of tens of thousands of files and the date of few.
 */
export class PackedInfo implements FileInfo {
  #date: string | undefined | null = null;
  constructor(readonly rel: string, readonly kind: FileKind, readonly tier: Tier, private readonly day: number) {}
  get date(): string | undefined {
    if (this.#date === null) {
      const d = this.day;
      this.#date = d ? `${Math.floor(d / 10000)}-${String(Math.floor(d / 100) % 100).padStart(2, '0')}-${String(d % 100).padStart(2, '0')}` : undefined;
    }
    return this.#date;
  }
}


/**
 * A cached file's entries, parsed from the file itself (the same read and parse as the build's,
 * corpus.ts readAndIndex), on the descriptor whose stats are checked against the build's: a file
 * changed since the freshness check is a ChangedFileError (the query runs again), never entries
 * that do not match the postings.
 */
function readDocs(root: string, rel: string, mtimeMs: number, size: number): Doc[] {
  let text: string;
  try {
    const fd = openSync(join(root, rel), 'r');
    try {
      const st = fstatSync(fd);
      if (st.mtimeMs !== mtimeMs || st.size !== size) throw new ChangedFileError(`${rel} changed since the freshness check`);
      const buf = Buffer.allocUnsafe(size);
      for (let o = 0; o < size;) {
        const r = readSync(fd, buf, o, size - o, o);
        if (r <= 0) throw new ChangedFileError(`${rel} is shorter than its stats`);
        o += r;
      }
      text = buf.toString('utf8');
    } finally { closeSync(fd); }
  } catch (e) {
    if (e instanceof ChangedFileError) throw e;
    throw new ChangedFileError(`${rel} cannot be read: ${(e as Error).message}`);
  }
  return fileDocsFromText(rel, text.replace(/^\ufeff/, '').replace(/\r\n?/g, '\n'));
}
