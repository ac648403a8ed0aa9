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
import { asciiSpans, isAscii, latinTerm, lowerAsciiBytes, tokenizeInto, type TokenSink } from './tokenize.js';
import { hashRange, StringTable } from './string-table.js';
import { fileUnits } from './units.js';

/** Term ↔ number (a StringTable: a term's number is the order it was first met in). */
export class Dictionary extends StringTable {
  /** The number of `term`, given one when new. */
  id(term: string): number {
    const h = hashRange(term, 0, term.length);
    const k = this.find(term, 0, term.length, h);
    return k >= 0 ? k : this.add(term, 0, term.length, h);
  }
  /** Term number k. */
  term(k: number): string { return this.string(k); }
  /** Terms k, k + 1, … (a worker's new terms, sent to the build). */
  termsFrom(k: number): string[] {
    const out: string[] = [];
    for (; k < this.size; k++) out.push(this.string(k));
    return out;
  }
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

/**
 * Raw (folded) token → term number (−1: dropped), emptied when it holds 2^(maxBits − 1) tokens.
 * Looked up once per word of the memory, so laid out for few cache misses: per slot its token's
 * hash, start in the pool of characters, length and value side by side (one cache line), then
 * the characters themselves.
 */
class RawTable {
  /** Per slot: hash, start, length (0: empty), value. */
  private slots: Int32Array;
  private chars = new Uint16Array(1 << 16);
  private used = 0;
  private count = 0;
  constructor(private readonly maxBits: number, private bits = Math.min(12, maxBits)) {
    this.slots = new Int32Array(4 << bits);
  }
  /** The value of s[start, end), or `miss(raw)` stored for it. */
  get(s: string, start: number, end: number, miss: (raw: string) => number): number {
    const h = hashRange(s, start, end);
    const len = end - start;
    const slots = this.slots;
    const chars = this.chars;
    const mask = (1 << this.bits) - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const o = i << 2;
      const l = slots[o + 2]!;
      if (l === 0) break;
      if (slots[o] !== h || l !== len) continue;
      const at = slots[o + 1]!;
      let j = 0;
      while (j < len && chars[at + j] === s.charCodeAt(start + j)) j++;
      if (j === len) return slots[o + 3]!;
    }
    return this.insert(s, start, end, h, miss);
  }

  /** Store `miss(raw)` for the token s[start, end) (not held; its hash h) and return it. */
  private insert(s: string, start: number, end: number, h: number, miss: (raw: string) => number): number {
    const len = end - start;
    const v = miss(start === 0 && end === s.length ? s : s.slice(start, end));
    let slots = this.slots;
    let mask = (1 << this.bits) - 1;
    if (2 * (this.count + 1) > 1 << this.bits) {
      if (this.bits < this.maxBits) this.rehash(this.bits + 1);
      else this.clear();
      slots = this.slots;
      mask = (1 << this.bits) - 1;
    }
    if (this.used + len > this.chars.length) this.growChars(this.used + len);
    let i = h & mask;
    while (slots[(i << 2) + 2] !== 0) i = (i + 1) & mask;
    const o = i << 2;
    slots[o] = h; slots[o + 1] = this.used; slots[o + 2] = len; slots[o + 3] = v;
    for (let k = start, c = this.chars, u = this.used; k < end; k++) c[u++] = s.charCodeAt(k);
    this.used += len;
    this.count++;
    return v;
  }
  /** The value of the ASCII token b[start, end), or `miss(raw)` stored for it (as get). */
  getBytes(b: Uint8Array, start: number, end: number, miss: (raw: string) => number): number {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) { h ^= b[i]!; h = Math.imul(h, 0x01000193); }
    const len = end - start;
    const slots = this.slots;
    const chars = this.chars;
    const mask = (1 << this.bits) - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const o = i << 2;
      const l = slots[o + 2]!;
      if (l === 0) break;
      if (slots[o] !== h || l !== len) continue;
      const at = slots[o + 1]! - start;
      let j = start;
      while (j < end && chars[at + j] === b[j]) j++;
      if (j === end) return slots[o + 3]!;
    }
    return this.insert(String.fromCharCode.apply(null, b.subarray(start, end) as unknown as number[]), 0, len, h | 0, miss);
  }

  clear(): void { this.slots.fill(0); this.count = 0; this.used = 0; }
  private growChars(need: number): void {
    const c = new Uint16Array(Math.max(need, this.chars.length * 2));
    c.set(this.chars.subarray(0, this.used));
    this.chars = c;
  }
  private rehash(bits: number): void {
    const old = this.slots;
    this.bits = bits;
    const slots = (this.slots = new Int32Array(4 << bits));
    const mask = (1 << bits) - 1;
    for (let o = 0; o < old.length; o += 4) {
      if (old[o + 2] === 0) continue;
      let i = old[o]! & mask;
      while (slots[(i << 2) + 2] !== 0) i = (i + 1) & mask;
      const n = i << 2;
      slots[n] = old[o]!; slots[n + 1] = old[o + 1]!; slots[n + 2] = old[o + 2]!; slots[n + 3] = old[o + 3]!;
    }
  }
}

/** An entry's tags field as corpus.ts's Doc has it: its tags (- _ / as spaces) and its type, space-separated. */
function tagText(tags: string[], type: string | undefined): string {
  let s = '';
  for (const t of tags) s += (/[-_/]/.test(t) ? t.replace(/[-_/]/g, ' ') : t) + ' ';
  return s + (type ?? '');
}

/**
 * Encodes files into `out`: per entry, its weighted length, its number of terms, then its
 * (term, tf << 1 | tag) pairs.
 */
export class TermCoder implements TokenSink {
  private readonly raw: RawTable;
  /** Term numbers of the field being tokenized (one of the next three). */
  private ids: IntList;
  private readonly bodyIds = new IntList(256);
  // per term number, side by side (one cache line): the entry it was last seen in, and its tf there << 1 | whether it is a tag term
  private acc = new Int32Array(2048);
  private readonly seen = new IntList(256);
  // the ASCII field being tokenized, as bytes, and its tokens' spans
  private bytes: Buffer = Buffer.allocUnsafe(4096);
  private spans = new Int32Array(8192);
  private entry = 0;
  private len = 0;
  // a file's entries often share their heading and tags: their term numbers, kept from the last entry
  private lastHeading = '';
  private readonly headingIds = new IntList(64);
  private lastTags = '';
  private readonly tagIds = new IntList(64);
  private readonly newTerm = (raw: string): number => { const t = latinTerm(raw); return t ? this.dict.id(t) : -1; };

  /** `rawBits`: the raw-token table holds at most 2^(rawBits − 1) tokens (it is emptied when full). */
  constructor(readonly dict: Dictionary, rawBits = 18) {
    this.raw = new RawTable(rawBits);
    this.ids = this.bodyIds;
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

  /** The term numbers of a field's text, in `into` (emptied first). */
  private fieldIds(text: string, into: IntList): IntList {
    this.ids = into;
    into.n = 0;
    if (isAscii(text)) this.asciiIds(text);
    else tokenizeInto(text, this);
    return into;
  }

  /** tokenizeInto's ASCII path (the same tokens), on the text's bytes: no string per token, nor a lower-cased copy. */
  private asciiIds(text: string): void {
    const n = text.length;
    const b = (this.bytes = lowerAsciiBytes(text, this.bytes));
    if (this.spans.length < 2 * n) this.spans = new Int32Array(Math.max(2 * n, 2 * this.spans.length));
    const spans = this.spans;
    const k = asciiSpans(b, n, spans);
    const raw = this.raw;
    const ids = this.ids;
    for (let j = 0; j < k; j += 2) {
      const id = raw.getBytes(b, spans[j]!, spans[j + 1]!, this.newTerm);
      if (id >= 0) ids.push(id);
    }
  }

  private count(list: IntList, w: number, isTag: boolean): void {
    const ids = list.a;
    for (let k = 0; k < list.n; k++) this.countOne(ids[k]!, w, isTag);
  }

  private countOne(id: number, w: number, isTag: boolean): void {
    if (2 * id >= this.acc.length) this.growScratch(2 * id + 2);
    const acc = this.acc;
    const o = 2 * id;
    if (acc[o] !== this.entry) { acc[o] = this.entry; acc[o + 1] = 0; this.seen.push(id); }
    acc[o + 1] = (acc[o + 1]! + (w << 1)) | (isTag ? 1 : 0);
    this.len += w;
  }

  private growScratch(need: number): void {
    const a = new Int32Array(Math.max(need, this.acc.length * 2));
    a.set(this.acc);
    this.acc = a;
  }

  /** Append the entries of file `rel` (its text) to `out`; returns their number. */
  encodeFile(rel: string, text: string, out: IntList): number {
    const units = fileUnits(rel, text);
    for (const u of units) {
      this.entry++;
      this.seen.n = 0;
      this.len = 0;
      this.count(this.fieldIds(u.text, this.bodyIds), FIELD_WEIGHTS.body, false);
      if (u.heading) {
        if (u.heading !== this.lastHeading) { this.fieldIds(u.heading, this.headingIds); this.lastHeading = u.heading; }
        this.count(this.headingIds, FIELD_WEIGHTS.heading, false);
      }
      const tags = tagText(u.tags, u.type);
      if (tags !== this.lastTags) { this.fieldIds(tags, this.tagIds); this.lastTags = tags; }
      this.count(this.tagIds, FIELD_WEIGHTS.tags, true);
      const len = this.len;
      // the entry id as a zero-weight term `^id`: findable (hot tier, citations), never scored
      if (u.id) this.countOne(this.dict.id(ID_TERM_PREFIX + u.id.toLowerCase()), 0, false);
      // the names it declares for one another, zero-weight too (search/aliases.ts)
      if (u.aliases || /[（(=＝]/.test(u.text)) for (const t of aliasTerms(u)) this.countOne(this.dict.id(t), 0, false);
      const n = this.seen.n;
      out.grow(out.n + 2 + 2 * n);
      const a = out.a;
      let o = out.n;
      a[o++] = Math.max(1, len);
      a[o++] = n;
      for (let k = 0; k < n; k++) {
        const id = this.seen.a[k]!;
        a[o++] = id;
        a[o++] = this.acc[2 * id + 1]!;
      }
      out.n = o;
    }
    return units.length;
  }
}
