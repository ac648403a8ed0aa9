/**
 * Random characters for entry ids, temp names and lock tokens.
 *
 * Math.random, not node:crypto: these must be unique, not secret, and loading node:crypto costs
 * ~5 ms on every cold call. V8 seeds Math.random per process from Node's entropy source
 * (OpenSSL's RAND_bytes), so two processes started at the same instant still draw different
 * sequences; each character carries log2(36) ≈ 5.2 bits.
 */
const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';

/** `n` random characters from [0-9a-z]. */
export function randomChars(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += DIGITS[Math.floor(Math.random() * 36)];
  return s;
}

/** mulberry32: a small deterministic PRNG in [0, 1), for synthetic memories and generated tests (a failure repeats). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
