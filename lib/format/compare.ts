/**
 * Text folded for comparing facts (duplicates, near-duplicates, "already filed"), never for
 * display: full-width forms to ASCII (NFKC), traditional characters to simplified (母親節 and 母亲节
 * are one word), Chinese numerals to digits (三点 and 3 点 are one
 * time), and no spaces around CJK characters (spacing between Chinese and a number or a Latin word
 * is a matter of style). CJK runs compare by character pairs, as Chinese has no spaces between words.
 */
import { toSimplified } from './han.js';

const CN_DIGIT: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
const HAN = /[\u3400-\u9fff]/;

/** 0-99 in Arabic or Chinese numerals (三, 十, 十一, 二十, 二十三, 廿三, 两); NaN when not one. */
export function cnNumber(s: string): number {
  if (/^\d+$/.test(s)) return Number(s);
  const t = s.replace(/^廿/, '二十');
  const m = /^([零〇一二两三四五六七八九])?(十)?([一二三四五六七八九])?$/.exec(t);
  if (!m || (!m[1] && !m[2] && !m[3])) return NaN;
  if (!m[2]) return m[3] ? NaN : CN_DIGIT[m[1]!]!;
  return (m[1] ? CN_DIGIT[m[1]]! : 1) * 10 + (m[3] ? CN_DIGIT[m[3]]! : 0);
}

/** A run of Chinese numerals as digits: a number when it is one (二十三 → 23), else digit by digit (一二 → 12). */
function cnRun(run: string): string {
  const n = cnNumber(run);
  return Number.isNaN(n) ? [...run].map((c) => String(CN_DIGIT[c] ?? c)).join('') : String(n);
}

export function foldForCompare(text: string): string {
  let t = text.normalize('NFKC');
  if (!HAN.test(t)) return t;
  t = toSimplified(t);
  t = t.replace(/[零〇一二两三四五六七八九十]+/g, (run) => cnRun(run));
  return t.replace(/\s+(?=[\u3400-\u9fff])|(?<=[\u3400-\u9fff])\s+/g, '');
}

/** The words of a folded key: space-separated words, each CJK run as its character pairs. */
export function compareWords(key: string): string[] {
  const out: string[] = [];
  for (const w of key.split(' ')) {
    if (!w) continue;
    if (!HAN.test(w)) { out.push(w); continue; }
    for (const part of w.split(/([\u3400-\u9fff]+)/)) {
      if (!part) continue;
      if (!HAN.test(part)) { out.push(part); continue; }
      const cs = [...part];
      if (cs.length === 1) out.push(part);
      for (let i = 0; i + 1 < cs.length; i++) out.push(cs[i]! + cs[i + 1]!);
    }
  }
  return out;
}
