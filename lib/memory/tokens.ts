/**
 * Token estimate without a tokenizer (seed 002's "token estimate"): about 4 characters per
 * token for Latin-script text, about 1 token per CJK character (Han, kana, Hangul), the usual
 * rule of thumb for BPE tokenizers (cl100k/o200k-class). It is an estimate for budgeting, not a
 * count: real tokenizers differ by ±15% on prose and more on code or tables.
 *
 * One pass over the UTF-16 units, no array of characters and no regexp matches (health and stats
 * estimate every file of the memory): a surrogate pair is one character, and every CJK range
 * counted lies in the Basic Multilingual Plane.
 */
const isCjk = (c: number): boolean =>
  (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) ||
  (c >= 0xf900 && c <= 0xfaff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xff66 && c <= 0xff9f);

export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  let cjk = 0;
  let rest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x3040) { rest++; continue; }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
      rest++;
      continue;
    }
    if (isCjk(c)) cjk++; else rest++;
  }
  return cjk + Math.ceil(rest / 4);
}
