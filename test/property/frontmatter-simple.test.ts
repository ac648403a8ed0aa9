/**
 * The YAML-free frontmatter reader (lib/format/frontmatter-simple.ts) against the real one
 * (parseFrontmatter: gray-matter + js-yaml): whenever it answers, it answers exactly what
 * parseFrontmatter returns — and parseFrontmatter does not throw — over blocks built from the
 * pieces where YAML is surprising (booleans, nulls, numbers, impossible dates, comments, tabs,
 * repeated keys, nested lists). It answers for the frontmatter memtier writes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../lib/format/frontmatter.js';
import { parseSimpleFrontmatter } from '../../lib/format/frontmatter-simple.js';
import { configure, line } from './settings.js';

configure(400);

const KEYS = ['tags', 'type', 'created', 'last_verified', 'title', 'a', 'A-b', 'x_1', 'true', 'null', 'No', '__proto__', 'constructor', '<<', 'k y', '1a', 'ключ'];
const VALUES = [
  'review', 'LESSON', 'two words', 'a - b', 'x -', 'true', 'True', 'FALSE', 'null', 'Null', '~', 'yes', 'no', 'on', 'off', 'y', 'NaN', '.inf', '.nan',
  '1', '-1', '1.5', '0x1F', '0o17', '017', '1_000', '1e3', '1:20', '2026-05-15', '2026-02-29', '2024-02-29', '2026-13-01', '0099-01-01', '2026-5-1',
  '2026-05-15T10:00:00Z', '2026-05-15 10:00', '"quoted: # yes"', "'single: * [x]'", '"with \\" escape"', "'it''s'", '""', "''", '"a\tb"', '"é 部署"',
  '[a, b]', '[]', '[ a , b ]', '[a,]', '[a b]', '[true, x]', '[1, a]', '[[a]]', '[a, [b]]', '{a: b}', '&x a', '*x', '!!str x', '|', '>', 'a # comment',
  'a: b', 'a:b', '- item', '@at', '`tick`', 'ümlaut', '部署', 'x  y', ' lead', 'trail ', '',
];
const SEPS = [': ', ':', ':  ', ':\t', ' : '];

/** One line of a block: a key, a separator and a value, or something else YAML may meet. */
const yamlLine = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...SEPS), fc.constantFrom(...VALUES)).map(([k, s, v]) => `${k}${s}${v}`) },
  { weight: 1, arbitrary: fc.constantFrom('', '# comment', '  indented: x', '- item', '...', '---x', 'key:', '\ttab: x') },
  { weight: 1, arbitrary: line },
);
/** Mostly `key: value`, so that most blocks are in the subset save for one piece. */
const plainLine = fc.tuple(fc.constantFrom(...KEYS.slice(0, 6)), fc.constantFrom(...VALUES)).map(([k, v]) => `${k}: ${v}`);
const block = fc.tuple(
  fc.constantFrom('---', '---', '---', '---yaml', '--- ', '\ufeff---'),
  fc.oneof(fc.array(yamlLine, { maxLength: 6 }), fc.array(plainLine, { maxLength: 4 })),
  fc.constantFrom('---', '---', '---', '--- ', '---\t', '----', ''),
  fc.array(line, { maxLength: 3 }),
).map(([open, ls, close, body]) => [open, ...ls, close, ...body].join('\n'));

describe('simple frontmatter (property)', () => {
  it('answers only what parseFrontmatter answers', () => {
    let runs = 0;
    let answered = 0;
    fc.assert(fc.property(block, (text) => {
      runs++;
      const simple = parseSimpleFrontmatter(text);
      if (simple === undefined) return;
      answered++;
      expect(parseFrontmatter(text, 'memory/semantic/x.md')).toEqual(simple);
    }));
    // the blocks are built to be mostly simple enough: a property that never compared would prove nothing
    expect(answered).toBeGreaterThan(runs / 20);
  });

  it('answers for the frontmatter memtier and people write', () => {
    const texts = [
      '---\ntags: [quakaxi, contract]\ntype: LESSON\ncreated: 2025-12-15\n---\n# Title\nbody\n',
      '---\ntitle: "Deploy: the checklist"\nlast_verified: 2026-05-01\ntags: []\n---\n',
      "---\nsummary: 'what we use, and why'\nstatus: active\n---",
      '---\n---\nbody',
    ];
    for (const t of texts) {
      const simple = parseSimpleFrontmatter(t);
      expect(simple, t).toBeDefined();
      expect(simple).toEqual(parseFrontmatter(t, 'x.md'));
    }
  });
});
