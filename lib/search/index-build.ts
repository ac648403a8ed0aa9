/**
 * The index cache's writer (the format is index-format.ts): a build streamed file by file, so its
 * memory stays bounded whatever the memory's size. Each file is read, indexed and let go; its
 * postings go to one of B term buckets (termHash % B), and a bucket's buffer is appended to the
 * build's one spill file whenever it fills (one file for all buckets: creating a file costs ~0.8 ms
 * of system time on the reference VM, and a file per bucket was 64 of them). At the end the number of shards S (a power of
 * two, a multiple of B) is chosen from the postings counted, and each bucket in turn is read back,
 * grouped by term (a counting sort, slots stay ascending) and written as its S / B shards
 * (termHash % S ≡ bucket mod B), then removed. What stays in memory: the term dictionary, one
 * bucket's postings while its shards are written, and the per-file and per-entry numbers of
 * files.bin. Errors are the caller's (a cache is optional: cache.ts then builds in memory).
 */
import { closeSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { classify, type FileInfo } from '../format/layout.js';
import { packInfo, type Doc } from './corpus.js';
import { Dictionary, IntList, TermCoder } from './term-coder.js';
import { readMemoryText } from './corpus.js';
import { tokenizerConfigKey } from './tokenize.js';
import { encodeOnWorkers, workerUrl, type PoolFile, type PoolOptions } from './index-pool.js';
import { CACHE_VERSION, fileTableBytes, INDEX_DIR, newBuildName, NOENT, putVarint, SHARD_POSTINGS, tokenizerKey, type DirRow, type Manifest } from './index-format.js';

/** Term buckets at most. */
const MAX_BUCKETS = 64;
/** Postings a bucket buffers before it is appended to the spill file. */
const BUCKET_POSTINGS = 8 * 1024;
/** Most shards a build is split into. */
const MAX_SHARDS = 4096;

function pow2AtLeast(x: number, cap: number): number {
  let p = 1;
  while (p < cap && p < x) p *= 2;
  return p;
}

class Grow<T extends Int32Array | Float64Array> {
  n = 0;
  constructor(public a: T, private readonly make: (n: number) => T) {}
  push(v: number): void {
    if (this.n === this.a.length) { const g = this.make(this.a.length * 2); g.set(this.a); this.a = g; }
    this.a[this.n++] = v;
  }
  view(): T { return this.a.subarray(0, this.n) as T; }
}

const i32 = (n: number): Int32Array => new Int32Array(n);
const f64 = (n: number): Float64Array => new Float64Array(n);

export class IndexBuilder {
  readonly build = newBuildName();
  readonly dir: string;
  N = 0;
  totalLen = 0;
  slots = 0;
  readonly paths: string[] = [];
  private readonly B: number;
  /** log2 of B. */
  private readonly logB: number;
  /** The build's terms, numbered in the order they are met. */
  readonly dict = new Dictionary();
  /** Per term number: its bucket-local id (local << log2 B | bucket), −1 before its first posting. */
  private loc = new Int32Array(4096).fill(-1);
  private coder?: TermCoder;
  /** Files read and encoded on worker threads (the rest in this thread). */
  workerFiles = 0;
  private readonly enc = new IntList(16 * 1024);
  /** Per bucket: its terms' numbers (of this.dict), in the order of their first posting. */
  private readonly bucketTerms: IntList[];
  /** Per bucket: (local term id, slot, tf << 1 | tag) triples not yet spilled. */
  private readonly buf: Int32Array[];
  private readonly fill: Int32Array;
  private readonly spilled: number[];
  /** Per bucket: where its spilled buffers are in the spill file (byte offset, ints; pairs). */
  private readonly chunks: number[][];
  private fd: number | undefined;
  private spillEnd = 0;
  private postings = 0;
  private readonly mtime = new Grow(f64(1024), f64);
  private readonly size = new Grow(f64(1024), f64);
  private readonly nEntries = new Grow(i32(1024), i32);
  private readonly fileLen = new Grow(i32(1024), i32);
  private readonly info = new Grow(i32(1024), i32);
  private readonly entryLen = new Grow(i32(4096), i32);
  private readonly kinds: Manifest['kinds'] = [];
  private readonly kindAt = new Map<string, number>();

  private readonly bucketCap: number;

  /** `estBytes`: the memory's size, to size the buckets (small memories get few); `opts` for tests. */
  constructor(root: string, estBytes: number, opts: { buckets?: number; bucketPostings?: number } = {}) {
    this.bucketCap = 3 * (opts.bucketPostings ?? BUCKET_POSTINGS);
    this.dir = join(root, INDEX_DIR, this.build);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // about one posting per 9 bytes of markdown
    this.B = opts.buckets ?? pow2AtLeast(estBytes / 9 / SHARD_POSTINGS, MAX_BUCKETS);
    this.logB = Math.log2(this.B);
    if (!Number.isInteger(this.logB)) throw new Error(`index build: ${this.B} buckets, not a power of two`);
    this.bucketTerms = Array.from({ length: this.B }, () => new IntList(256));
    this.buf = Array.from({ length: this.B }, () => new Int32Array(0));
    this.fill = new Int32Array(this.B);
    this.spilled = new Array<number>(this.B).fill(0);
    this.chunks = Array.from({ length: this.B }, () => []);
  }

  /** Index one file's entries (their computed terms are dropped once read). */
  addFile(path: string, mtimeMs: number, size: number, docs: Doc[], info: FileInfo = classify(path)): void {
    const first = this.slots;
    let flen = 0;
    for (const d of docs) {
      const len = d.len;
      const slot = first + d.pos;
      flen += len;
      this.entryLen.push(len);
      const tags = d.tagTerms;
      for (const [t, tf] of d.tf) this.post(this.dict.id(t), slot, (tf << 1) | (tags.has(t) ? 1 : 0));
      d.forget();
    }
    this.fileDone(path, mtimeMs, size, docs.length, flen, info);
  }

  /**
   * Read and index `files` in order, on `workers` worker threads when more than 0 (index-pool.ts;
   * the same build), calling `tick(done)` as files are done. Returns each file's number in the
   * build, −1 for one that could not be read (vanished, not a regular file, too large). The stats
   * stored are the files' given ones (the scan's, taken before the read: a change after them is
   * seen by the next query). `pool`: for tests (the worker's module, its bounds).
   */
  addFiles(root: string, files: (PoolFile & { mtimeMs: number })[], workers: number, tick: (done: number) => void = () => {}, pool: Partial<PoolOptions> = {}): Int32Array {
    const at = new Int32Array(files.length).fill(-1);
    let next = 0;
    const url = workers > 0 ? pool.url ?? workerUrl() : undefined;
    const own = (from: number, to: number): void => {
      for (let i = from; i < to; i++) {
        const f = files[i]!;
        const r = readMemoryText(root, f.path, f);
        if (r) { at[i] = this.paths.length; this.addText(f.path, f.mtimeMs, f.size, r.text); }
        tick(i + 1);
      }
    };
    if (url) {
      let mine = 0;
      next = encodeOnWorkers(root, files, this.dict, { cjk: tokenizerConfigKey(), own: (from, to) => { own(from, to); mine += to - from; }, ...pool, count: workers, url }, (i, entries, data, from) => {
        const f = files[i]!;
        if (entries >= 0) { at[i] = this.paths.length; this.addEncoded(f.path, f.mtimeMs, f.size, classify(f.path), entries, data, from); }
        tick(i + 1);
      });
      this.workerFiles += next - mine;
    }
    own(next, files.length);
    return at;
  }

  /** Index one file from its text (the same postings as addFile of its Docs, without them). */
  addText(path: string, mtimeMs: number, size: number, text: string, info: FileInfo = classify(path)): void {
    this.coder ??= new TermCoder(this.dict);
    this.enc.n = 0;
    const entries = this.coder.encodeFile(path, text, this.enc);
    this.addEncoded(path, mtimeMs, size, info, entries, this.enc.a, 0);
  }

  /**
   * Index one file encoded by a TermCoder (term-coder.ts) from `data[at]` on, its term numbers
   * those of this.dict; returns where its data ends.
   */
  addEncoded(path: string, mtimeMs: number, size: number, info: FileInfo, entries: number, data: Int32Array, at: number): number {
    const first = this.slots;
    let flen = 0;
    for (let e = 0; e < entries; e++) {
      const len = data[at++]!;
      const n = data[at++]!;
      const slot = first + e;
      flen += len;
      this.entryLen.push(len);
      for (let k = 0; k < n; k++, at += 2) this.post(data[at]!, slot, data[at + 1]!);
    }
    this.fileDone(path, mtimeMs, size, entries, flen, info);
    return at;
  }

  private fileDone(path: string, mtimeMs: number, size: number, entries: number, flen: number, info: FileInfo): void {
    this.paths.push(path);
    this.mtime.push(mtimeMs);
    this.size.push(size);
    this.nEntries.push(entries);
    this.fileLen.push(flen);
    this.info.push(packInfo(info, this.kinds, this.kindAt));
    this.slots += entries;
    this.N += entries;
    this.totalLen += flen;
  }

  /** A posting of term number `term` (of this.dict). */
  private post(term: number, slot: number, v: number): void {
    if (term >= this.loc.length) { const g = new Int32Array(Math.max(term + 1, this.loc.length * 2)).fill(-1); g.set(this.loc); this.loc = g; }
    const mask = this.B - 1;
    let id = this.loc[term]!;
    if (id === -1) {
      const b = this.dict.hash(term) & mask;
      id = (this.bucketTerms[b]!.n << this.logB) | b;
      this.bucketTerms[b]!.push(term);
      this.loc[term] = id;
    }
    const b = id & mask;
    let buf = this.buf[b]!;
    let k = this.fill[b]!;
    if (k === buf.length) {
      if (buf.length < this.bucketCap) {
        const g = new Int32Array(Math.min(this.bucketCap, Math.max(3 * 256, buf.length * 2)));
        g.set(buf);
        this.buf[b] = buf = g;
      } else { this.spill(b); k = 0; }
    }
    buf[k] = id >>> this.logB; buf[k + 1] = slot; buf[k + 2] = v;
    this.fill[b] = k + 3;
    this.postings++;
  }

  private spill(b: number): void {
    const fd = this.fd ??= openSync(join(this.dir, 'spill.tmp'), 'w+');
    const buf = this.buf[b]!;
    const bytes = Buffer.from(buf.buffer, buf.byteOffset, this.fill[b]! * 4);
    for (let o = 0; o < bytes.length;) o += writeSync(fd, bytes, o, bytes.length - o, this.spillEnd + o);
    this.chunks[b]!.push(this.spillEnd, this.fill[b]!);
    this.spillEnd += bytes.length;
    this.spilled[b]! += this.fill[b]!;
    this.fill[b] = 0;
  }

  /** Bucket b's triples (into `into`, grown when short): its chunks of the spill file read back, then what is still buffered. */
  private bucket(b: number, into: Int32Array): Int32Array {
    // (a view of `into` when it is long enough)
    const n = this.spilled[b]! + this.fill[b]!;
    const all = into.length >= n ? into.subarray(0, n) : new Int32Array(n);
    const ch = this.chunks[b]!;
    const bytes = Buffer.from(all.buffer, all.byteOffset, this.spilled[b]! * 4);
    for (let c = 0, to = 0; c < ch.length; c += 2) {
      const from = ch[c]!;
      const len = ch[c + 1]! * 4;
      for (let o = 0; o < len;) {
        const r = readSync(this.fd!, bytes, to + o, len - o, from + o);
        if (r <= 0) throw new Error('index spill file is short');
        o += r;
      }
      to += len;
    }
    this.chunks[b] = [];
    all.set(this.buf[b]!.subarray(0, this.fill[b]!), this.spilled[b]!);
    this.buf[b] = new Int32Array(0);
    return all;
  }

  /** Write the shards and files.bin, then point the manifest at this build. */
  finish(root: string, dirs: DirRow[]): Manifest {
    const S = Math.max(this.B, pow2AtLeast(this.postings / SHARD_POSTINGS, MAX_SHARDS));
    const per = S / this.B;
    // scratch arrays sized once for the largest bucket, reused from bucket to bucket and shard to
    // shard (a garbage buffer is freed only by a later GC: growing them would add to the peak)
    this.coder = undefined; // (its tables are garbage now)
    let most = 0;
    let mostTerms = 0;
    for (let b = 0; b < this.B; b++) { most = Math.max(most, this.spilled[b]! + this.fill[b]!); mostTerms = Math.max(mostTerms, this.bucketTerms[b]!.n); }
    const triplesBuf = new Int32Array(most);
    const pairs = new Int32Array((most / 3) * 2);
    const startBuf = new Int32Array(mostTerms + 1);
    const atBuf = new Int32Array(mostTerms);
    let out = Buffer.allocUnsafe(64 * 1024);
    const dict = this.dict;
    for (let b = 0; b < this.B; b++) {
      const terms = this.bucketTerms[b]!.view();
      const triples = this.bucket(b, triplesBuf);
      // counting sort by term (stable: each term's slots stay ascending)
      const start = startBuf.subarray(0, terms.length + 1).fill(0);
      for (let k = 0; k < triples.length; k += 3) start[triples[k]! + 1]!++;
      for (let t = 0; t < terms.length; t++) start[t + 1]! += start[t]!;
      const at = atBuf.subarray(0, terms.length);
      at.set(start.subarray(0, terms.length));
      for (let k = 0; k < triples.length; k += 3) { const o = at[triples[k]!]!++ * 2; pairs[o] = triples[k + 1]!; pairs[o + 1] = triples[k + 2]!; }
      // the bucket's terms by shard
      const byShard: number[][] = Array.from({ length: per }, () => []);
      for (let t = 0; t < terms.length; t++) byShard[Math.floor((dict.hash(terms[t]!) & (S - 1)) / this.B)]!.push(t);
      for (let j = 0; j < per; j++) {
        const ids = byShard[j]!;
        let n = 0;
        let tableBytes = 0;
        for (const t of ids) { n += start[t + 1]! - start[t]!; tableBytes += 10 + 3 * dict.length(terms[t]!); }
        const need = 8 + n * 10 + tableBytes;
        if (out.length < need) out = Buffer.allocUnsafe(Math.max(need, out.length * 2));
        let p = 8;
        const offs = new Array<number>(ids.length);
        for (let x = 0; x < ids.length; x++) {
          const t = ids[x]!;
          offs[x] = p - 8;
          let prev = 0;
          for (let k = start[t]! * 2, end = start[t + 1]! * 2; k < end; k += 2) {
            p = putVarint(out, p, pairs[k]! - prev);
            prev = pairs[k]!;
            p = putVarint(out, p, pairs[k + 1]!);
          }
        }
        const tableAt = p;
        for (let x = 0; x < ids.length; x++) {
          const t = ids[x]!;
          out.writeUInt32LE(offs[x]!, p);
          out.writeUInt32LE(start[t + 1]! - start[t]!, p + 4);
          const len = dict.utf8(terms[t]!, out, p + 10);
          out.writeUInt16LE(len, p + 8);
          p += 10 + len;
        }
        out.writeUInt32LE(ids.length, 0);
        out.writeUInt32LE(tableAt, 4);
        writeFileSync(join(this.dir, `t-${b + j * this.B}.bin`), out.subarray(0, p));
      }
    }
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
      unlinkSync(join(this.dir, 'spill.tmp'));
    }
    const nf = this.paths.length;
    const ft = Buffer.alloc(fileTableBytes(nf, this.slots));
    const f = new Float64Array(ft.buffer, ft.byteOffset, 2 * nf);
    f.set(this.mtime.view(), 0);
    f.set(this.size.view(), nf);
    const i = new Int32Array(ft.buffer, ft.byteOffset + 16 * nf, 3 * nf + this.slots);
    i.set(this.nEntries.view(), 0);
    i.set(this.fileLen.view(), nf);
    i.set(this.info.view(), 2 * nf);
    i.set(this.entryLen.view(), 3 * nf);
    writeFileSync(join(this.dir, 'files.bin'), ft);
    const m: Manifest = { v: CACHE_VERSION, tok: tokenizerKey(), build: this.build, shards: S, N: this.N, totalLen: this.totalLen, slots: this.slots, nfiles: nf, paths: this.paths.join('\n'), dirs, kinds: this.kinds };
    const idxDir = join(root, INDEX_DIR);
    const tmp = join(idxDir, `manifest.json.${this.build}.tmp`);
    writeFileSync(tmp, JSON.stringify(m));
    renameSync(tmp, join(idxDir, 'manifest.json'));
    // remove other builds, but not one another process may still be writing or reading (< 30 s
    // old); a reader whose build vanished anyway falls back to the files and rebuilds
    const now = Date.now();
    for (const d of readdirSync(idxDir)) {
      if (d === this.build || !/^b[0-9a-z]+$/.test(d)) continue;
      const st = statSync(join(idxDir, d), NOENT);
      if (st && now - st.mtimeMs > 30_000) rmSync(join(idxDir, d), { recursive: true, force: true });
    }
    return m;
  }

  /** Give up: close the spill file and remove the build folder. */
  abort(): void {
    if (this.fd !== undefined) try { closeSync(this.fd); } catch { /* ignore */ }
    this.fd = undefined;
    try { rmSync(this.dir, { recursive: true, force: true }); } catch { /* ignore */ }
  }
}
