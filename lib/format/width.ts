/**
 * Display width of text in a terminal or a fixed-width column: a CJK (or full-width) character
 * takes two cells. Used to align columns (stats) and to measure short sentences (capture).
 */
export function displayWidth(s: string): number {
  let w = 0;
  // a character at a time by its code (a pattern test per character cost a cold `extract` more
  // than the rest of its width checks); a character beyond U+FFFF is one cell, as before
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++; // a surrogate pair: one character
      w += 1;
      continue;
    }
    w += wide(c) ? 2 : 1;
  }
  return w;
}

/** U+1100–115F, U+2E80–A4CF, U+AC00–D7A3, U+F900–FAFF, U+FE30–FE4F, U+FF00–FF60, U+FFE0–FFE6: two cells. */
const wide = (c: number): boolean =>
  c >= 0x1100 && ((c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6));

/** `s` padded with spaces to `width` display cells. */
export function padDisplay(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - displayWidth(s)));
}
