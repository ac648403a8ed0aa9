/**
 * Display width of text in a terminal or a fixed-width column: a CJK (or full-width) character
 * takes two cells. Used to align columns (stats) and to measure short sentences (capture).
 */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch) ? 2 : 1;
  return w;
}

/** `s` padded with spaces to `width` display cells. */
export function padDisplay(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - displayWidth(s)));
}
