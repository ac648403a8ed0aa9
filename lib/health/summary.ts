/**
 * What the checks that look across files worked out from each file alone, kept between full runs
 * in `.memtier/health-summary.json`: a file's entry ids, its fact keys and compared words, its
 * tags, its `last_verified` line, its closure block's state, its token count (see each check's
 * `summaryOf` call). A full run takes a file's summaries from there while its size and mtime
 * match what they were, and reads and parses only the files that changed, so an unchanged
 * memory is checked without reading its notes; what depends on other files or on the day (a
 * fact in two files, a near-duplicate pair, an old `last_verified`) is still decided every run
 * from the summaries.
 * Like health-files.json (reuse.ts): written by full runs only, a file changed within RACY_MS of
 * the run is left out, and a file another build of memtier wrote, or one that does not parse, is
 * ignored; a kept summary of the wrong shape is worked out again from the file, never trusted.
 */
import { PATHS } from '../format/layout.js';
import { buildId, version } from '../core/version.js';
import type { MemFile } from '../memory/snapshot.js';
import { Vocab } from './key-words.js';
import { RACY_MS } from './reuse.js';
import type { CheckEnv } from './types.js';

/** Where the summaries are kept: derived state, rewritten by a full run when a file changed. */
export const HEALTH_SUMMARY_JSON = `${PATHS.state}/health-summary.json`;

/** The file's shape: `words` numbers the compared words (near-duplicates) of every file. */
interface Stored {
  build: string;
  words: string[];
  /** Path → [size, mtimeMs, summary by name]. */
  files: Record<string, [number, number, Record<string, unknown>]>;
  /** Name → [key, result]: what a check worked out from many files' summaries, and what from (FileMemo.across). */
  across?: Record<string, [string, unknown]>;
}

/** This memtier's version and build (new on every build): summaries are only as good as the code that made them. */
export const summaryBuild = (): string => `${version()}+${buildId()}`;

/** The summaries of one run: those kept by the last full run, and those worked out now. */
export class FileMemo {
  /**
   * The compared words of this run (near-duplicates numbers words here): the kept file's words
   * first, with the numbers they had, so kept summaries are used as they are.
   */
  vocab = new Vocab();
  /** How many of vocab's words came from the kept file (kept word numbers are below it). */
  keptWords = 0;
  private readonly kept = new Map<string, [number, number, Record<string, unknown>]>();
  private keptAcross: Record<string, [string, unknown]> = {};
  /** Summary name → path → this run's summary. */
  private readonly made = new Map<string, Map<string, unknown>>();
  /** Name → [key, result] of this run's results across files (kept when the key is defined). */
  private readonly madeAcross = new Map<string, [string | undefined, unknown]>();
  /** Was any summary worked out from a file this run? */
  private fresh = false;

  /**
   * Over health-summary.json's text (undefined, unparsable or another build's: nothing kept);
   * `atMs`: when the run began reading the memory (a file changed since RACY_MS before is not settled).
   */
  constructor(json?: string, readonly atMs = Date.now()) {
    if (!json) return;
    let s: Stored | undefined;
    try { s = JSON.parse(json) as Stored; } catch { return; }
    if (!s || typeof s !== 'object' || s.build !== summaryBuild() || !Array.isArray(s.words) || typeof s.files !== 'object' || s.files === null) return;
    // the words, numbered as kept: a list that is not distinct strings keeps none
    for (let i = 0; i < s.words.length; i++) {
      const w = s.words[i];
      if (typeof w !== 'string' || this.vocab.id(w) !== i) { this.vocab = new Vocab(); return; }
    }
    this.keptWords = s.words.length;
    for (const rel in s.files) {
      const rec = s.files[rel];
      if (Array.isArray(rec) && rec.length === 3 && typeof rec[0] === 'number' && typeof rec[1] === 'number' && typeof rec[2] === 'object' && rec[2] !== null && !Array.isArray(rec[2])) this.kept.set(rel, rec);
    }
    const a = s.across;
    if (typeof a === 'object' && a !== null && !Array.isArray(a)) this.keptAcross = a;
  }

  /** Did the last full run keep summaries? */
  get hasKept(): boolean { return this.kept.size > 0; }

  /** Did the last full run keep f's summaries, its size and mtime as they are now? */
  keeps(f: Pick<MemFile, 'rel' | 'size' | 'mtimeMs'>): boolean {
    const k = this.kept.get(f.rel);
    return k !== undefined && k[0] === f.size && k[1] === f.mtimeMs;
  }

  /**
   * Summary `name` of `f`: the kept one while f's size and mtime match and `revive` accepts it
   * (returning it as this run uses it), else make() (which reads f). Worked out once per run.
   */
  of<T>(name: string, f: MemFile, make: () => T, revive: (kept: unknown) => T | undefined): T {
    let made = this.made.get(name);
    if (!made) this.made.set(name, (made = new Map()));
    const had = made.get(f.rel);
    if (had !== undefined) return had as T;
    let v: T | undefined;
    const k = this.kept.get(f.rel);
    if (k && k[0] === f.size && k[1] === f.mtimeMs) {
      // JSON holds no undefined: a name the file does not have reads as undefined
      const x = k[2][name];
      if (x !== undefined) v = revive(x);
    }
    if (v === undefined) { v = make(); this.fresh = true; }
    made.set(f.rel, v);
    return v;
  }

  /** Is f's summary sure to be of its present content (changed before RACY_MS ahead of the run)? */
  settled(f: Pick<MemFile, 'mtimeMs'>): boolean { return f.mtimeMs < this.atMs - RACY_MS; }

  /**
   * Result `name` worked out from many files' summaries: the kept one while it was kept under
   * the same `key` (which names everything it depends on: the files, their sizes and mtimes, the
   * limits) and `revive` accepts it, else make(). Kept for the next run only with a key (undefined:
   * a file it depends on is not settled).
   */
  across<T>(name: string, key: string | undefined, make: () => T, revive: (kept: unknown) => T | undefined): T {
    let v: T | undefined;
    const k = this.keptAcross[name];
    if (key !== undefined && Array.isArray(k) && k.length === 2 && k[0] === key) v = revive(k[1]);
    if (v === undefined) {
      v = make();
      if (key !== undefined) this.fresh = true;
    }
    this.madeAcross.set(name, [key, v]);
    return v;
  }

  /**
   * The summaries made this run of the file at `rel`, by name (what a worker thread hands back:
   * adopt()), let go of here: the worker hands them over in batches and keeps none.
   */
  takeOf(rel: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, made] of this.made) {
      const v = made.get(rel);
      if (v !== undefined) { out[name] = v; made.delete(rel); }
    }
    return out;
  }

  /** Another thread's words so far (adopt's `words`) → their numbers in this vocabulary. */
  private adopted: number[] = [];

  /**
   * Summaries another thread made this run (a worker's FileMemo: takeOf() of each of its files),
   * its words numbered in a vocabulary of its own, of which `words` are those it has added since
   * the previous call (the first call: all of them): taken as this run's, the words numbered in
   * this one's vocabulary (renumber, by summary name: what translates a summary holding word
   * numbers through `map`, old number → new).
   */
  adopt(words: readonly string[], files: readonly [rel: string, summaries: Record<string, unknown>][], renumber: ReadonlyMap<string, (x: unknown, map: Int32Array) => unknown>): void {
    for (const w of words) this.adopted.push(this.vocab.id(w));
    const map = Int32Array.from(this.adopted);
    for (const [rel, data] of files) {
      for (const name in data) {
        let made = this.made.get(name);
        if (!made) this.made.set(name, (made = new Map()));
        const r = renumber.get(name);
        made.set(rel, r ? r(data[name], map) : data[name]);
      }
    }
    this.fresh = true;
  }

  /** Replace the vocabulary (near-duplicates renumbering its words: the summaries holding numbers are renumbered by the caller). */
  renumbered(vocab: Vocab): void {
    this.vocab = vocab;
    this.fresh = true;
  }

  /**
   * What writes health-summary.json for the memory's `files` read at `atMs` (settled files only),
   * or undefined when the kept one still holds (every summary came from it and no file it covers
   * changed or went). The writer hands the text over in pieces, a file at a time, and lets go of
   * each file's summaries once written: the whole text (megabytes) and the whole of its JSON
   * object are never held at once.
   */
  writer(files: readonly Pick<MemFile, 'rel' | 'size' | 'mtimeMs'>[], atMs: number): ((out: (chunk: string) => void) => void) | undefined {
    const settled = files.filter((f) => f.mtimeMs < atMs - RACY_MS);
    if (!this.fresh && settled.length === this.kept.size && settled.every((f) => { const k = this.kept.get(f.rel); return k !== undefined && k[0] === f.size && k[1] === f.mtimeMs; })) return undefined;
    return (out) => {
      // the text JSON.stringify({ build, words, files }) gives, built a file at a time
      out(`{"build":${JSON.stringify(summaryBuild())},"words":${JSON.stringify(this.vocab.words)},"files":{`);
      this.kept.clear();
      let sep = '';
      for (const f of settled) {
        const data: Record<string, unknown> = {};
        for (const [name, made] of this.made) {
          const v = made.get(f.rel);
          if (v !== undefined) { data[name] = v; made.delete(f.rel); }
        }
        out(`${sep}${JSON.stringify(f.rel)}:${JSON.stringify([f.size, f.mtimeMs, data])}`);
        sep = ',';
      }
      out('}');
      let across = '';
      for (const [name, [key, v]] of this.madeAcross) if (key !== undefined) across += `${across ? ',' : ''}${JSON.stringify(name)}:${JSON.stringify([key, v])}`;
      out(across ? `,"across":{${across}}}\n` : '}\n');
    };
  }

  /** health-summary.json's text (as writer() writes it), or undefined when the kept one still holds. */
  json(files: readonly Pick<MemFile, 'rel' | 'size' | 'mtimeMs'>[], atMs: number): string | undefined {
    const w = this.writer(files, atMs);
    if (!w) return undefined;
    const parts: string[] = [];
    w((c) => parts.push(c));
    return parts.join('');
  }
}

/**
 * Summary `name` of `f` through env.memo (a full run), else made now: what a check works out from
 * one file's text alone. `make` must read the file only through `f` and the snapshot, return JSON
 * data (no undefined inside) and not depend on the day, the limits or another file.
 */
export function summaryOf<T>(env: CheckEnv, name: string, f: MemFile, make: () => T, revive: (kept: unknown) => T | undefined): T {
  return env.memo ? env.memo.of(name, f, make, revive) : make();
}

/** Revivers for the common shapes. */
export const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
export const isStr = (x: unknown): x is string => typeof x === 'string';
export const asBool = (x: unknown): boolean | undefined => (typeof x === 'boolean' ? x : undefined);
/** An array whose items all pass `ok`, else undefined. */
export function arrayOf<T>(x: unknown, ok: (y: unknown) => y is T): T[] | undefined {
  return Array.isArray(x) && x.every(ok) ? (x as T[]) : undefined;
}

let packBuf = Buffer.allocUnsafe(1 << 16);

/**
 * Non-negative integers as text for JSON: LEB128 bytes (7 bits a byte, small numbers one byte)
 * in base64, a few bytes a number where a JSON array takes more and parses far slower.
 */
export function packInts(a: ArrayLike<number>): string {
  // one buffer for every call (a run packs thousands of files' numbers)
  if (packBuf.length < a.length * 5) packBuf = Buffer.allocUnsafe(Math.max(a.length * 5, packBuf.length * 2));
  const buf = packBuf;
  let at = 0;
  for (let i = 0; i < a.length; i++) {
    let v = a[i]!;
    while (v >= 0x80) { buf[at++] = (v & 0x7f) | 0x80; v >>>= 7; }
    buf[at++] = v;
  }
  return buf.toString('base64', 0, at);
}

let unpackBuf = Buffer.allocUnsafe(1 << 14);
let unpackOut = new Int32Array(1 << 14);

/**
 * packInts' numbers back, or undefined when `s` is not what packInts makes. With `shared`, in
 * arrays reused from call to call (good until the next such call: no garbage per call).
 */
export function unpackInts(s: unknown, shared = false): Int32Array | undefined {
  if (typeof s !== 'string') return undefined;
  let buf: Buffer;
  let out: Int32Array;
  if (shared) {
    const most = Math.ceil((s.length * 3) / 4);
    if (unpackBuf.length < most) { unpackBuf = Buffer.allocUnsafe(most * 2); unpackOut = new Int32Array(most * 2); }
    buf = unpackBuf.subarray(0, unpackBuf.write(s, 'base64'));
    out = unpackOut;
  } else {
    buf = Buffer.from(s, 'base64');
    out = new Int32Array(buf.length);
  }
  let n = 0;
  let v = 0;
  let shift = 0;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (shift > 28) return undefined;
    v |= (b & 0x7f) << shift;
    if (b & 0x80) { shift += 7; continue; }
    if (v < 0) return undefined;
    out[n++] = v;
    v = 0;
    shift = 0;
  }
  return shift === 0 ? out.subarray(0, n) : undefined;
}

/** Is f readable (its text decoded)? Kept per file: tests by kind need not read the file. */
export function readable(env: CheckEnv, f: MemFile): boolean {
  return summaryOf(env, 'readable', f, () => f.text !== undefined, asBool);
}
