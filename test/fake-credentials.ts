/**
 * Deterministic fake credential text for the secret-table tests (never a real key): the same
 * generator for the store's guard tests and the hostile corpus.
 */
export function fake(len: number, alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789', seed = 7): string {
  let x = seed;
  let s = '';
  for (let i = 0; i < len; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += alphabet[x % alphabet.length];
  }
  return s;
}
export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
export const HEX = '0123456789abcdef';
export const b64url = (len: number, seed: number): string => fake(len, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-', seed);
