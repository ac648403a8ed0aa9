/**
 * Token estimate without a tokenizer (seed 002's "token estimate"): about 4 characters per
 * token for Latin-script text, about 1 token per CJK character (Han, kana, Hangul), the usual
 * rule of thumb for BPE tokenizers (cl100k/o200k-class). It is an estimate for budgeting, not a
 * count: real tokenizers differ by ±15% on prose and more on code or tables.
 *
 * One pass over the UTF-16 units, no array of characters and no regexp matches (health and stats
 * estimate every file of the memory): the regexp engine skips the runs below U+3040 (a test, no
 * match made), the loop reads the rest; a surrogate pair is one character, and every CJK range
 * counted lies in the Basic Multilingual Plane.
 */
const isCjk = (c: number): boolean =>
  (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) ||
  (c >= 0xf900 && c <= 0xfaff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xff66 && c <= 0xff9f);

export function estimateTokens(text: string): number {
  const n = text.length;
  if (n === 0) return 0;
  let cjk = 0;
  let rest = 0;
  let i = 0;
  for (;;) {
    // the next unit from U+3040 on, found by the regexp engine (most of a memory is below it)
    HIGH.lastIndex = i;
    if (!HIGH.test(text)) { rest += n - i; break; }
    const at = HIGH.lastIndex - 1;
    rest += at - i;
    // then unit by unit while they stay from U+3040 on
    for (i = at; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x3040) break;
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) i++;
        rest++;
        continue;
      }
      if (isCjk(c)) cjk++; else rest++;
    }
    if (i >= n) break;
  }
  return cjk + Math.ceil(rest / 4);
}

/** A UTF-16 unit from U+3040 on (no `u` flag: a surrogate is a unit of its own here). */
const HIGH = /[^\x00-\u303f]/g;
