/**
 * Frontmatter (lib/format/frontmatter.ts): fields written as YAML read back as written, with the
 * body and its first line exact whatever the body holds; a text without a fence is all body; and
 * whatever follows an opening fence, the reader answers or throws its own error with a line,
 * never anything else.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrontmatterError, parseFrontmatter } from '../../lib/format/frontmatter.js';
import { configure, line } from './settings.js';

configure(200);

const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/);
/** A string field: one line of anything (written as a JSON string, which is a YAML double-quoted scalar). */
const str = line;
const day = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
const scalar = fc.oneof(str, fc.integer(), fc.boolean(), fc.constant(null));
/** A field and how it is written: strings and lists as JSON (valid YAML), a day plain (read back as the same string). */
const field = fc.oneof(
  scalar.map((v) => ({ value: v as unknown, yaml: JSON.stringify(v) })),
  fc.array(str, { maxLength: 4 }).map((v) => ({ value: v as unknown, yaml: JSON.stringify(v) })),
  day.map((d) => ({ value: d as unknown, yaml: d })),
);
const body = fc.array(fc.oneof(line, fc.constantFrom('---', '...', '', '# Title', '---js')), { maxLength: 8 }).map((ls) => ls.join('\n'));

describe('frontmatter (property)', () => {
  it('fields written as YAML read back as written; the body and its first line are exact', () => {
    fc.assert(fc.property(fc.uniqueArray(fc.tuple(key, field), { selector: ([k]) => k, maxLength: 6 }), body, fc.constantFrom('---', '---yaml', '\ufeff---'), (fields, b, fence) => {
      const text = `${fence}\n${fields.map(([k, f]) => `${k}: ${f.yaml}`).join('\n')}${fields.length ? '\n' : ''}---\n${b}`;
      const fm = parseFrontmatter(text, 'note.md');
      expect(fm.hasFrontmatter).toBe(true);
      expect(fm.data).toEqual(Object.fromEntries(fields.map(([k, f]) => [k, f.value])));
      expect(fm.body).toBe(b);
      expect(fm.bodyLine).toBe(fields.length + 3);
      // the body starts on that line of the text
      expect(text.replace(/^\ufeff/, '').split('\n').slice(fm.bodyLine - 1).join('\n')).toBe(b);
    }));
  });

  it('a text that does not open with a fence is all body', () => {
    fc.assert(fc.property(body.filter((b) => !b.startsWith('---') || b.startsWith('----')), (b) => {
      expect(parseFrontmatter(b, 'note.md')).toEqual({ data: {}, body: b, hasFrontmatter: false, bodyLine: 1 });
    }));
  });

  it('whatever follows an opening fence, the reader answers or throws a FrontmatterError with its line', () => {
    const junk = fc.array(fc.oneof(line, fc.constantFrom('a: [', 'a: {', '&x [*x]', '- - -', ': :', '!!js/function x', '"', 'a: b: c', '  - x', '\t- y', '---', '...', 'key: |', '   text')), { maxLength: 8 });
    fc.assert(fc.property(junk, fc.boolean(), (lines, closed) => {
      const text = `---\n${lines.join('\n')}\n${closed ? '---\n' : ''}body`;
      try {
        const fm = parseFrontmatter(text, 'note.md');
        expect(typeof fm.data).toBe('object');
        expect(fm.bodyLine).toBeGreaterThan(1);
      } catch (e) {
        expect(e).toBeInstanceOf(FrontmatterError);
        const err = e as FrontmatterError;
        expect(err.line).toBeGreaterThanOrEqual(1);
        expect(err.line).toBeLessThanOrEqual(lines.length + 2);
      }
    }));
  });
});
