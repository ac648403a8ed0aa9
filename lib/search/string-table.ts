/**
 * Strings numbered in the order they are added, without a JS string, Map entry or array slot per
 * string: their UTF-16 code units in one growing pool (Uint16Array), each string's start and
 * FNV-1a hash in typed arrays by number, and an open-addressing table of numbers (with the hashes
 * beside them, so a probe rarely leaves the table). An index build's term dictionary holds
 * 500,000 terms at 50,000 notes; as Map<string, number> plus a string[] they cost over 100 bytes
 * each, here about 40. A string is looked up by a range of a text (`find(s, start, end)`), so a
 * token needs no string of its own to be found.
 *
 * The hash is index-format.ts's termHash (as a signed 32-bit value): the build buckets and shards
 * terms by it without hashing them again.
 */

/** FNV-1a of s[start, end) (index-format.ts termHash, as a signed 32-bit value). */
export function hashRange(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return h | 0;
}

export class StringTable {
  /** Strings held. */
  size = 0;
  private chars: Uint16Array;
  private used = 0;
  /** starts[k]: where string k begins in chars (starts[size] = used). */
  private starts: Int32Array;
  private hashes: Int32Array;
  /** Per slot: a string's number, −1 when empty; slotHash its hash. */
  private slots: Int32Array;
  private slotHash: Int32Array;

  constructor(bits = 12) {
    this.chars = new Uint16Array(8 << bits);
    this.starts = new Int32Array((1 << (bits - 1)) + 1);
    this.hashes = new Int32Array(1 << (bits - 1));
    this.slots = new Int32Array(1 << bits).fill(-1);
    this.slotHash = new Int32Array(1 << bits);
  }

  /** Slots in the open-addressing table (it holds at most half as many strings). */
  get capacity(): number { return this.slots.length; }

  /** The number of s[start, end) (its hash `h`, hashRange), or −1. */
  find(s: string, start: number, end: number, h: number): number {
    const { slots, slotHash, chars, starts } = this;
    const len = end - start;
    const mask = slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const k = slots[i]!;
      if (k < 0) return -1;
      if (slotHash[i] !== h) continue;
      const at = starts[k]!;
      if (starts[k + 1]! - at !== len) continue;
      let j = 0;
      while (j < len && chars[at + j] === s.charCodeAt(start + j)) j++;
      if (j === len) return k;
    }
  }

  /** Add s[start, end) (not already held; its hash `h`) and return its number. */
  add(s: string, start: number, end: number, h: number): number {
    const k = this.size;
    const len = end - start;
    if (2 * (k + 1) > this.slots.length) this.resize(this.slots.length * 2);
    if (k + 1 >= this.starts.length) {
      const n = this.starts.length * 2;
      const st = new Int32Array(n); st.set(this.starts); this.starts = st;
      const hs = new Int32Array(n); hs.set(this.hashes); this.hashes = hs;
    }
    if (this.used + len > this.chars.length) {
      const c = new Uint16Array(Math.max(this.used + len, this.chars.length * 2));
      c.set(this.chars.subarray(0, this.used));
      this.chars = c;
    }
    const chars = this.chars;
    let o = this.used;
    for (let i = start; i < end; i++) chars[o++] = s.charCodeAt(i);
    this.used = o;
    this.starts[k + 1] = o;
    this.hashes[k] = h;
    this.place(k, h);
    this.size = k + 1;
    return k;
  }

  private place(k: number, h: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = h & mask;
    while (slots[i]! >= 0) i = (i + 1) & mask;
    slots[i] = k;
    this.slotHash[i] = h;
  }

  private resize(n: number): void {
    this.slots = new Int32Array(n).fill(-1);
    this.slotHash = new Int32Array(n);
    for (let k = 0; k < this.size; k++) this.place(k, this.hashes[k]!);
  }

  /** String k's hash (hashRange). */
  hash(k: number): number { return this.hashes[k]!; }
  /** String k's length in UTF-16 code units. */
  length(k: number): number { return this.starts[k + 1]! - this.starts[k]!; }

  /** String k. */
  string(k: number): string {
    const from = this.starts[k]!;
    const to = this.starts[k + 1]!;
    let s = '';
    // in pieces: fromCharCode's arguments are bounded
    for (let i = from; i < to; i += 4096) s += String.fromCharCode(...this.chars.subarray(i, Math.min(to, i + 4096)));
    return s;
  }

  /**
   * String k in UTF-8 at buf[at] (room for 3 bytes per code unit), as Buffer.write would put it
   * (a lone surrogate becomes U+FFFD); returns the bytes written.
   */
  utf8(k: number, buf: Uint8Array, at: number): number {
    const chars = this.chars;
    const to = this.starts[k + 1]!;
    let p = at;
    for (let i = this.starts[k]!; i < to; i++) {
      let c = chars[i]!;
      if (c < 0x80) { buf[p++] = c; continue; }
      if (c < 0x800) { buf[p++] = 0xc0 | (c >> 6); buf[p++] = 0x80 | (c & 63); continue; }
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < to ? chars[i + 1]! : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          buf[p++] = 0xf0 | (cp >> 18); buf[p++] = 0x80 | ((cp >> 12) & 63); buf[p++] = 0x80 | ((cp >> 6) & 63); buf[p++] = 0x80 | (cp & 63);
          i++;
          continue;
        }
        c = 0xfffd;
      }
      buf[p++] = 0xe0 | (c >> 12); buf[p++] = 0x80 | ((c >> 6) & 63); buf[p++] = 0x80 | (c & 63);
    }
    return p - at;
  }

  /** Forget every string (the arrays are kept, and reused). */
  clear(): void {
    this.size = 0;
    this.used = 0;
    this.slots.fill(-1);
  }
}
