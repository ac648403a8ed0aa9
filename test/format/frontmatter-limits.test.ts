/** The frontmatter limits of FORMAT.md: each refusal is a FrontmatterError naming its rule, before any blow-up. */
import { describe, expect, it } from 'vitest';
import { FRONTMATTER_LIMITS, FrontmatterError, parseFrontmatter } from '../../lib/format/frontmatter.js';

const doc = (yaml: string): string => `---\n${yaml}\n---\nbody\n`;
const ruleOf = (text: string): string | undefined => {
  try { parseFrontmatter(text, 'memory/semantic/x.md'); return undefined; } catch (e) {
    expect(e).toBeInstanceOf(FrontmatterError);
    expect((e as FrontmatterError).file).toBe('memory/semantic/x.md');
    return (e as FrontmatterError).rule;
  }
};

describe('frontmatter limits', () => {
  it('refuses each hostile shape with its rule', () => {
    // 2 aliases a level, 20 levels: 40 aliases (under the alias count) but 2^20 values once followed
    const doubling = ['l0: &l0 [x, x]', ...Array.from({ length: 20 }, (_, i) => `l${i + 1}: &l${i + 1} [*l${i}, *l${i}]`)].join('\n');
    expect(ruleOf(doc(doubling))).toBe('frontmatter-aliases');
    expect(ruleOf(doc(`a: &a [x]\nb: [${Array(FRONTMATTER_LIMITS.aliases + 1).fill('*a').join(', ')}]`))).toBe('frontmatter-aliases');
    expect(ruleOf(doc(`a: ${'['.repeat(65)}${']'.repeat(65)}`))).toBe('frontmatter-depth');
    expect(ruleOf(doc(Array.from({ length: 70 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' 1'))).toBe('frontmatter-depth');
    expect(ruleOf(doc(`a: "${'x'.repeat(FRONTMATTER_LIMITS.bytes)}"`))).toBe('frontmatter-size');
    expect(ruleOf('---js\n{ a: 1 }\n---\n')).toBe('frontmatter-language');
    expect(ruleOf('---\na: 1\nbody without a closing fence\n')).toBe('frontmatter-unclosed');
  });

  it('accepts what people write: a few aliases, quoted stars, moderate nesting', () => {
    const ok = parseFrontmatter(doc('base: &b {host: db, port: 5432}\nprod: *b\nstaging: *b\nnote: "a * b and *c"\ntags: [a, b]\nnested: {a: {b: {c: [1, [2, [3]]]}}}'), 'n.md');
    expect(ok.data.prod).toEqual({ host: 'db', port: 5432 });
    expect(ok.data.note).toBe('a * b and *c');
  });
});
