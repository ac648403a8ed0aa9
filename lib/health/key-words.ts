/**
 * The compared words of an entry (near-duplicates), as numbers: keyWords(normalizeFact(text)),
 * without building the key and splitting it again. Words are interned in a Vocab, an
 * open-addressing table looked up straight from the entry's characters, so the common ASCII
 * entry costs one pass over its text and no string per word it has seen before.
 */
import { normalizeFact } from './markdown.js';
import { compareWords } from '../format/compare.js';

const HAN = /[\u3400-\u9fff]/;

/** The words compared of a fact key: one-letter words carry nothing, but numbers do ("decision 1" is not "decision 2"). */
export function keyWords(key: string): string[] {
  // without CJK, compareWords is the key's words
  const all = HAN.test(key) ? compareWords(key) : key.split(' ');
  const seen = new Set<string>();
  for (const w of all) if (w.length > 1 || (w.length === 1 && ((w >= '0' && w <= '9') || HAN.test(w)))) seen.add(w);
  return [...seen];
}

const FNV = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const SEED2 = 0x9747b28c;
const PRIME2 = 0x5bd1e995;
const lower = (c: number): number => (c >= 65 && c <= 90 ? c + 32 : c);

/**
 * Words ↔ numbers (first seen, first numbered). A word is found by two 32-bit hashes of its
 * characters (FNV-1a and a second multiplicative one) and its length, not by comparing it
 * character by character: that comparison was a third pass over every word of every entry,
 * a quarter of a first health run's word numbering on years of daily logs. Two words of a
 * memory sharing both hashes and the length (odds about n² / 2⁶⁵: one in 10⁹ for 100,000
 * words) would count as one word in near-duplicates' similarity, which only warns.
 */
export class Vocab {
  readonly words: string[] = [];
  /** Per word: its second hash and its length (the first hash is in its slot). */
  private meta: Int32Array = new Int32Array(1 << 12);
  /** Open addressing: per slot, the first hash of its word and the word's number + 1 (0: empty). */
  private slots = new Int32Array(1 << 13);

  get size(): number { return this.words.length; }

  /** The number of `word` (exactly as written). */
  id(word: string): number {
    let a = FNV;
    let b = SEED2;
    for (let i = 0; i < word.length; i++) {
      const c = word.charCodeAt(i);
      a = Math.imul(a ^ c, FNV_PRIME);
      b = Math.imul(b ^ c, PRIME2);
    }
    return this.find(a, b, word, 0, word.length, false);
  }

  /**
   * The number of text[s, e) (lower-cased when `fold`: A–Z only, the text is ASCII), whose hashes
   * `a`, `b` the caller computed as id() does, over the lower-cased characters: KeyWordIds hashes a
   * word while it scans it. A slot holds the first hash beside the number, so
   * a probe reads one place in memory, and the word's own figures one more (not its string).
   */
  find(a: number, b: number, text: string, s: number, e: number, fold: boolean): number {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    const len = e - s;
    let slot = a & mask;
    for (;;) {
      const v = slots[2 * slot + 1]!;
      if (v === 0) break;
      if (slots[2 * slot] === a) {
        const id = v - 1;
        if (this.meta[2 * id] === b && this.meta[2 * id + 1] === len) return id;
      }
      slot = (slot + 1) & mask;
    }
    const id = this.words.length;
    // a copy, not a slice: V8 keeps a slice's whole text (a file's) alive while the word lives
    const w = flat(text.slice(s, e));
    this.words.push(fold ? w.toLowerCase() : w);
    if (2 * id + 2 > this.meta.length) { const m = new Int32Array(this.meta.length * 2); m.set(this.meta); this.meta = m; }
    this.meta[2 * id] = b;
    this.meta[2 * id + 1] = len;
    slots[2 * slot] = a;
    slots[2 * slot + 1] = id + 1;
    if (this.words.length * 4 > slots.length) this.grow();
    return id;
  }

  /** Twice the slots (at most half of them full), every word put in again. */
  private grow(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    const mask = (slots.length >> 1) - 1;
    for (let k = 0; k < old.length; k += 2) {
      if (old[k + 1] === 0) continue;
      let slot = old[k]! & mask;
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = old[k]!;
      slots[2 * slot + 1] = old[k + 1]!;
    }
    this.slots = slots;
  }
}

/** `s` in a string of its own (V8 makes a slice of 13 characters or more a view of the string sliced). */
function flat(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

const isAsciiSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);
const isAlnum = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
const isTagChar = (c: number): boolean => isAlnum(c) || c === 95 || c === 47 || c === 45;
const isIdChar = (c: number): boolean => isAlnum(c) || c === 45;

/**
 * The distinct words of keyWords(normalizeFact(text)) as numbers, in order of first appearance,
 * appended to one pool for all the entries (`ids[start, start + count)`: no array per entry).
 * An ASCII text without a link takes one pass (asciiFactWords' rules on the lower-cased
 * characters, then keyWords' rule: words of two or more characters, or one digit); any other
 * text goes through normalizeFact and keyWords themselves.
 */
export class KeyWordIds {
  /** The pool: entries' word numbers one after the other (ids.length may exceed `length`). */
  ids = new Int32Array(1 << 16);
  length = 0;
  private mark = new Int32Array(1024);
  private stamp = 0;

  constructor(readonly vocab: Vocab) {}

  /** Append the words of `text` to the pool; returns where they start. */
  add(text: string): number {
    const start = this.length;
    this.stamp++;
    if (text.includes('](') || !this.ascii(text)) {
      this.stamp++;
      this.length = start;
      for (const w of keyWords(normalizeFact(text))) this.push(this.vocab.id(w));
    }
    return start;
  }

  /** The word numbers of `text` (added, then taken off the pool again). */
  of(text: string): number[] {
    const start = this.add(text);
    const out = Array.from(this.ids.subarray(start, this.length));
    this.length = start;
    return out;
  }

  private push(id: number): void {
    if (id >= this.mark.length) { const m = new Int32Array(Math.max(id + 1, this.mark.length * 2)); m.set(this.mark); this.mark = m; }
    if (this.mark[id] === this.stamp) return;
    this.mark[id] = this.stamp;
    if (this.length === this.ids.length) { const a = new Int32Array(this.ids.length * 2); a.set(this.ids); this.ids = a; }
    this.ids[this.length++] = id;
  }

  /** The word t[start, i) hashed `a`, `b` (Vocab.find's), if a word starts (start ≥ 0) and keyWords keeps it; returns -1 (no word started). */
  private word(t: string, start: number, i: number, a: number, b: number): number {
    if (start >= 0 && (i - start > 1 || t.charCodeAt(start) <= 57)) this.push(this.vocab.find(a, b, t, start, i, true));
    return -1;
  }

  /** The one-pass reduction (each word hashed as it is read); false (stopped) at the first non-ASCII character. */
  private ascii(t: string): boolean {
    const n = t.length;
    // `start` stays a local of this loop (a closure over it would keep it in a heap context)
    let start = -1;
    let a = FNV;
    let b = SEED2;
    let i = 0;
    while (i < n) {
      const c = lower(t.charCodeAt(i));
      if (c > 127) return false;
      // a tag: "#" at the start or after a space, then a letter
      const hashAt = c === 35 && i === 0 ? 0 : isAsciiSpace(c) && t.charCodeAt(i + 1) === 35 ? i + 1 : -1;
      if (hashAt >= 0) {
        const l = lower(t.charCodeAt(hashAt + 1));
        if (l >= 97 && l <= 122) {
          start = this.word(t, start, i, a, b);
          let j = hashAt + 2;
          while (j < n && isTagChar(lower(t.charCodeAt(j)))) j++;
          i = j;
          continue;
        }
      }
      if (c === 94) {
        // an id: "^" and 3 to 64 of [a-z0-9-] (a longer run keeps its rest)
        start = this.word(t, start, i, a, b);
        let j = i + 1;
        while (j < n && j - i - 1 < 64 && isIdChar(lower(t.charCodeAt(j)))) j++;
        i = j - i - 1 >= 3 ? j : i + 1;
        continue;
      }
      if (isAlnum(c)) {
        if (start < 0) { start = i; a = FNV; b = SEED2; }
        a = Math.imul(a ^ c, FNV_PRIME);
        b = Math.imul(b ^ c, PRIME2);
      } else start = this.word(t, start, i, a, b);
      i++;
    }
    this.word(t, start, n, a, b);
    return true;
  }
}
