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
const lower = (c: number): number => (c >= 65 && c <= 90 ? c + 32 : c);

/** Words ↔ numbers (first seen, first numbered). */
export class Vocab {
  readonly words: string[] = [];
  private hashes: number[] = [];
  private slots = new Int32Array(1 << 12);

  get size(): number { return this.words.length; }

  /** The number of `word` (exactly as written). */
  id(word: string): number {
    let h = FNV;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
    return this.find(h, word, 0, word.length, false);
  }

  /** The number of text[s, e) lower-cased (A–Z only: the text is ASCII). */
  idLower(text: string, s: number, e: number): number {
    let h = FNV;
    for (let i = s; i < e; i++) h = Math.imul(h ^ lower(text.charCodeAt(i)), 0x01000193);
    return this.find(h, text, s, e, true);
  }

  private find(h: number, text: string, s: number, e: number, fold: boolean): number {
    const mask = this.slots.length - 1;
    let slot = h & mask;
    for (;;) {
      const v = this.slots[slot]!;
      if (v === 0) break;
      const id = v - 1;
      if (this.hashes[id] === h && same(this.words[id]!, text, s, e, fold)) return id;
      slot = (slot + 1) & mask;
    }
    const id = this.words.length;
    // a copy, not a slice: V8 keeps a slice's whole text (a file's) alive while the word lives
    const w = flat(text.slice(s, e));
    this.words.push(fold ? w.toLowerCase() : w);
    this.hashes.push(h);
    this.slots[slot] = id + 1;
    if (this.words.length * 2 > this.slots.length) this.grow();
    return id;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.words.length; id++) {
      let slot = this.hashes[id]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }
}

/** `s` in a string of its own (V8 makes a slice of 13 characters or more a view of the string sliced). */
function flat(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

function same(w: string, text: string, s: number, e: number, fold: boolean): boolean {
  if (w.length !== e - s) return false;
  for (let i = 0; i < w.length; i++) if (w.charCodeAt(i) !== (fold ? lower(text.charCodeAt(s + i)) : text.charCodeAt(s + i))) return false;
  return true;
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

  /** The word t[start, i), if a word starts (start ≥ 0) and keyWords keeps it; returns -1 (no word started). */
  private word(t: string, start: number, i: number): number {
    if (start >= 0 && (i - start > 1 || t.charCodeAt(start) <= 57)) this.push(this.vocab.idLower(t, start, i));
    return -1;
  }

  /** The one-pass reduction; false (stopped) at the first non-ASCII character. */
  private ascii(t: string): boolean {
    const n = t.length;
    // `start` stays a local of this loop (a closure over it would keep it in a heap context)
    let start = -1;
    let i = 0;
    while (i < n) {
      const c = lower(t.charCodeAt(i));
      if (c > 127) return false;
      // a tag: "#" at the start or after a space, then a letter
      const hashAt = c === 35 && i === 0 ? 0 : isAsciiSpace(c) && t.charCodeAt(i + 1) === 35 ? i + 1 : -1;
      if (hashAt >= 0) {
        const l = lower(t.charCodeAt(hashAt + 1));
        if (l >= 97 && l <= 122) {
          start = this.word(t, start, i);
          let j = hashAt + 2;
          while (j < n && isTagChar(lower(t.charCodeAt(j)))) j++;
          i = j;
          continue;
        }
      }
      if (c === 94) {
        // an id: "^" and 3 to 64 of [a-z0-9-] (a longer run keeps its rest)
        start = this.word(t, start, i);
        let j = i + 1;
        while (j < n && j - i - 1 < 64 && isIdChar(lower(t.charCodeAt(j)))) j++;
        i = j - i - 1 >= 3 ? j : i + 1;
        continue;
      }
      if (isAlnum(c)) { if (start < 0) start = i; } else start = this.word(t, start, i);
      i++;
    }
    this.word(t, start, n);
    return true;
  }
}
