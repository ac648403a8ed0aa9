/** lib/cli/json-out.ts: --json written in pieces is JSON.stringify(value, null, 2), byte for byte. */
import { describe, expect, it } from 'vitest';
import { writeJson } from '../../lib/cli/json-out.js';

const pieces = (v: unknown, map?: (s: string) => string): { text: string; n: number; ok: boolean } => {
  let text = '';
  let n = 0;
  const ok = writeJson(v, (s) => { text += s; n++; }, map);
  return { text, n, ok };
};

class Point { constructor(public x: number, public y: number) {} }

describe('writeJson', () => {
  const cases: [string, unknown][] = [
    ['a flat object', { ok: true, n: 1, s: 'a\nb "c" \u202e', nil: null }],
    ['empty containers', { a: [], o: {}, deep: { a: [], o: {} }, list: [[], {}] }],
    ['undefined, functions and symbols', { u: undefined, f: () => 1, y: Symbol('s'), list: [undefined, () => 1, Symbol('t'), 2], nested: { u: undefined, list: [undefined] } }],
    ['toJSON at every level', { d: new Date(Date.UTC(2026, 4, 15)), list: [new Date(0), { toJSON: (k: string) => `key ${k}` }], o: { toJSON: (k: string) => ({ from: k }) } }],
    ['a toJSON giving undefined', { gone: { toJSON: () => undefined }, list: [{ toJSON: () => undefined }] }],
    ['class instances, Maps and Sets', { p: new Point(1, 2), list: [new Point(3, 4)], m: new Map([[1, 2]]), s: new Set([1]) }],
    ['deep nesting with line breaks in strings', { a: { b: { c: { d: ['x\ny', { e: [1, [2, [3]]] }] } } }, list: [{ a: { b: ['multi\nline'] } }] }],
    ['numbers', { list: [0, -0, 1.5, 1e21, NaN, Infinity, -1e-7] }],
    ['a top-level array', [1, { a: [1, 2] }, [3, [4]], 'x']],
    ['top-level primitives', 'just a string'],
    ['null', null],
    ['a null-prototype object', Object.assign(Object.create(null) as object, { a: 1, b: [2] })],
  ];
  for (const [name, v] of cases) {
    it(`${name}: the same text as JSON.stringify`, () => {
      expect(pieces(v).text).toBe(JSON.stringify(v, null, 2));
    });
  }

  it('has no JSON for undefined, as JSON.stringify', () => {
    expect(pieces(undefined)).toEqual({ text: '', n: 0, ok: false });
  });

  it('writes a large result in many pieces, each through the escape, with the same text', () => {
    const big = { ok: true, candidates: Array.from({ length: 5000 }, (_, i) => ({ key: `k${i}`, text: `entry ${i} \u202e with a bidi control`, sources: [`a.md#L${i}`], score: i / 7, failed: i % 2 ? ['age'] : [] })) };
    const esc = (s: string): string => s.replace(/\u202e/g, '\\u202e');
    const r = pieces(big, esc);
    expect(r.n).toBeGreaterThan(5);
    expect(r.text).toBe(esc(JSON.stringify(big, null, 2)));
  });
});
