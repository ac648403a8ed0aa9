/**
 * Token estimate without a tokenizer (seed 002's "token estimate"): about 4 characters per
 * token for Latin-script text, about 1 token per CJK character (Han, kana, Hangul), the usual
 * rule of thumb for BPE tokenizers (cl100k/o200k-class). It is an estimate for budgeting, not a
 * count: real tokenizers differ by ±15% on prose and more on code or tables.
 */
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff66-\uff9f]/gu;

export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  const cjk = text.match(CJK)?.length ?? 0;
  const rest = [...text].length - cjk;
  return cjk + Math.ceil(rest / 4);
}
