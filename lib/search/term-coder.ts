/**
 * A memory file's entries as numbers, for an index build: per entry its weighted length and its
 * terms as (term number, tf << 1 | tag) pairs, the same terms and weights as corpus.ts's Doc
 * (body, heading × 2, tags × 3, the entry id as a zero-weight `^id` term), in the same order
 * (first occurrence in the entry), without a Map, a Set or a string per token: a raw token is
 * looked up by its characters in a table of its own (RawTable), which gives its term number.
 *
 * Term numbers come from a Dictionary: the build's own in the main thread, or a worker's, whose
 * numbers the build translates (index-pool.ts) and which the worker empties when it grows large
 * (and says so: the build forgets its translation).
 */
import { aliasTerms, FIELD_WEIGHTS, ID_TERM_PREFIX } from './corpus.js';
import { latinTerm, own, tokenizeInto, type TokenSink } from './tokenize.js';
import { fileUnits } from './units.js';

/** Term ↔ number. */
export class Dictionary {
  readonly terms: string[] = [];
  private readonly ids = new Map<string, number>();
  /** The number of `term`, given one when new (the term is copied: a slice would keep its text alive). */
  id(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      term = own(term);
      this.terms.push(term);
      this.ids.set(term, id);
    }
    return id;
  }
  get size(): number { return this.terms.length; }
  clear(): void { this.terms.length = 0; this.ids.clear(); }
}

/** An Int32 list that grows. */
export class IntList {
  a: Int32Array;
  n = 0;
  constructor(cap = 1024) { this.a = new Int32Array(cap); }
  push(v: number): void {
    if (this.n === this.a.length) this.grow(this.n + 1);
    this.a[this.n++] = v;
  }
  grow(need: number): void {
    if (need <= this.a.length) return;
    const g = new Int32Array(Math.max(need, this.a.length * 2));
    g.set(this.a.subarray(0, this.n));
    this.a = g;
  }
  view(): Int32Array { return this.a.subarray(0, this.n); }
}

/** FNV-1a of s[start, end). */
function hashRange(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return h | 0;
}

/** Raw (folded) token → term number (−1: dropped), open addressing, emptied when full. */
class RawTable {
  private keys: (string | undefined)[];
  private hashes: Int32Array;
  private vals: Int32Array;
  private count = 0;
  constructor(private readonly maxBits: number, private bits = 12) {
    this.keys = new Array<string | undefined>(1 << bits);
    this.hashes = new Int32Array(1 << bits);
    this.vals = new Int32Array(1 << bits);
  }
  /** The value of s[start, end), or `miss(raw)` stored for it. */
  get(s: string, start: number, end: number, miss: (raw: string) => number): number {
    const h = hashRange(s, start, end);
    const len = end - start;
    let mask = this.keys.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const k = this.keys[i];
      if (k === undefined) break;
      if (this.hashes[i] === h && k.length === len) {
        let j = 0;
        while (j < len && k.charCodeAt(j) === s.charCodeAt(start + j)) j++;
        if (j === len) return this.vals[i]!;
      }
    }
    const raw = s.slice(start, end);
    const v = miss(raw);
    if (2 * (this.count + 1) > this.keys.length) {
      if (this.bits < this.maxBits) this.rehash(this.bits + 1);
      else this.clear();
    }
    mask = this.keys.length - 1;
    let i = h & mask;
    while (this.keys[i] !== undefined) i = (i + 1) & mask;
    this.keys[i] = own(raw);
    this.hashes[i] = h;
    this.vals[i] = v;
    this.count++;
    return v;
  }
  clear(): void { this.keys.fill(undefined); this.count = 0; }
  private rehash(bits: number): void {
    const { keys, hashes, vals } = this;
    this.bits = bits;
    this.keys = new Array<string | undefined>(1 << bits);
    this.hashes = new Int32Array(1 << bits);
    this.vals = new Int32Array(1 << bits);
    const mask = (1 << bits) - 1;
    for (let j = 0; j < keys.length; j++) {
      if (keys[j] === undefined) continue;
      let i = hashes[j]! & mask;
      while (this.keys[i] !== undefined) i = (i + 1) & mask;
      this.keys[i] = keys[j]; this.hashes[i] = hashes[j]!; this.vals[i] = vals[j]!;
    }
  }
}

/**
 * Encodes files into `out`: per entry, its weighted length, its number of terms, then its
 * (term, tf << 1 | tag) pairs.
 */
export class TermCoder implements TokenSink {
  private readonly raw: RawTable;
  /** Term numbers of the field being tokenized. */
  private readonly ids = new IntList(256);
  // per term number: the entry it was last seen in, its tf there, and whether it is a tag term
  private stamp = new Int32Array(1024);
  private tf = new Int32Array(1024);
  private tag = new Uint8Array(1024);
  private readonly seen = new IntList(256);
  private entry = 0;
  private len = 0;
  // a file's entries often share their heading and tags: their term numbers, kept from the last entry
  private lastHeading = '';
  private headingIds = new Int32Array(0);
  private lastTags = '';
  private tagIds = new Int32Array(0);
  private readonly newTerm = (raw: string): number => { const t = latinTerm(raw); return t ? this.dict.id(t) : -1; };

  /** `rawBits`: the raw-token table holds at most 2^(rawBits − 1) tokens (it is emptied when full). */
  constructor(readonly dict: Dictionary, rawBits = 18) {
    this.raw = new RawTable(rawBits);
  }

  /** Empty the dictionary: term numbers start again from 0. */
  reset(): void {
    this.dict.clear();
    this.raw.clear();
    this.lastHeading = this.lastTags = '';
  }

  latin(s: string, start: number, end: number): void {
    const id = this.raw.get(s, start, end, this.newTerm);
    if (id >= 0) this.ids.push(id);
  }

  term(t: string): void { this.ids.push(this.dict.id(t)); }

  private fieldIds(text: string): Int32Array {
    this.ids.n = 0;
    tokenizeInto(text, this);
    return this.ids.view();
  }

  private count(ids: Int32Array, w: number, isTag: boolean): void {
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      if (id >= this.stamp.length) this.growScratch(id + 1);
      if (this.stamp[id] !== this.entry) { this.stamp[id] = this.entry; this.tf[id] = 0; this.tag[id] = 0; this.seen.push(id); }
      this.tf[id]! += w;
      if (isTag) this.tag[id] = 1;
      this.len += w;
    }
  }

  private growScratch(need: number): void {
    const n = Math.max(need, this.stamp.length * 2);
    const s = new Int32Array(n); s.set(this.stamp); this.stamp = s;
    const t = new Int32Array(n); t.set(this.tf); this.tf = t;
    const g = new Uint8Array(n); g.set(this.tag); this.tag = g;
  }

  /** Append the entries of file `rel` (its text) to `out`; returns their number. */
  encodeFile(rel: string, text: string, out: IntList): number {
    const units = fileUnits(rel, text);
    for (const u of units) {
      this.entry++;
      this.seen.n = 0;
      this.len = 0;
      this.count(this.fieldIds(u.text), FIELD_WEIGHTS.body, false);
      if (u.heading) {
        if (u.heading !== this.lastHeading) { this.headingIds = this.fieldIds(u.heading).slice(); this.lastHeading = u.heading; }
        this.count(this.headingIds, FIELD_WEIGHTS.heading, false);
      }
      const tags = [...u.tags.map((t) => t.replace(/[-_/]/g, ' ')), u.type ?? ''].join(' ');
      if (tags !== this.lastTags) { this.tagIds = this.fieldIds(tags).slice(); this.lastTags = tags; }
      this.count(this.tagIds, FIELD_WEIGHTS.tags, true);
      const len = this.len;
      // the entry id as a zero-weight term `^id`: findable (hot tier, citations), never scored
      if (u.id) { this.count(Int32Array.of(this.dict.id(ID_TERM_PREFIX + u.id.toLowerCase())), 0, false); }
      // the names it declares for one another, zero-weight too (search/aliases.ts)
      if (u.aliases || /[（(=＝]/.test(u.text)) for (const t of aliasTerms(u)) this.count(Int32Array.of(this.dict.id(t)), 0, false);
      const n = this.seen.n;
      out.grow(out.n + 2 + 2 * n);
      const a = out.a;
      let o = out.n;
      a[o++] = Math.max(1, len);
      a[o++] = n;
      for (let k = 0; k < n; k++) {
        const id = this.seen.a[k]!;
        a[o++] = id;
        a[o++] = (this.tf[id]! << 1) | this.tag[id]!;
      }
      out.n = o;
    }
    return units.length;
  }
}
