/**
 * Traditional Chinese characters folded to simplified ones, for matching, never for display: a
 * note written in 機票 and a question asking about 机票 meet in search, in near-duplicate checks and
 * in time phrases (上週二 is 上周二).
 *
 * The table is OpenCC's character table (TSCharacters, ~3,000 pairs), generated into han-table.ts
 * from the opencc-js package by scripts/han-table.mjs (a test keeps the two equal): character for
 * character, no phrase conversion. Folding only has to be the same on both sides of a comparison,
 * so a character with several simplified forms takes the first, and a simplified text that happens
 * to use a traditional form (乾隆) folds the same way as its question. Only pairs inside U+3400–U+9FFF
 * are used, so the folded text has the original's length and every character keeps its place.
 * Japanese kanji fold the same way (東京 → 东京), on both sides alike.
 *
 * The lookup array is filled on first use, only for text holding a Han character.
 */
import { TS_PAIRS } from './han-table.js';

const BASE = 0x3400;
const HAN = /[\u3400-\u9fff]/;
let table: Uint16Array | undefined;

function load(): Uint16Array {
  const t = new Uint16Array(0xa000 - BASE);
  for (let i = 0; i + 1 < TS_PAIRS.length; i += 2) t[TS_PAIRS.charCodeAt(i) - BASE] = TS_PAIRS.charCodeAt(i + 1);
  return t;
}

/** `text` with each traditional character replaced by its simplified form (same length). */
export function toSimplified(text: string): string {
  if (!HAN.test(text)) return text;
  table ??= load();
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < BASE || c >= 0xa000) continue;
    const s = table[c - BASE]!;
    if (s) { out += text.slice(from, i) + String.fromCharCode(s); from = i + 1; }
  }
  return from === 0 ? text : out + text.slice(from);
}
