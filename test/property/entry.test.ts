/**
 * Entry lines (lib/format/entry.ts): what memtier writes reads back as written, and reading then
 * writing any bullet line is a normalization that a second pass leaves alone (rotation rewrites
 * buffer lines this way and finds them again by their bytes).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENTRY_TYPES, extractTags, formatEntryLine, oneLine, parseEntryLine, type Entry } from '../../lib/format/entry.js';
import { configure, entryId, line } from './settings.js';

configure(300);

const hhmm = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const day = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));

/** An entry as memtier writes one: time, type and id always, text through oneLine (never empty). */
const written: fc.Arbitrary<Entry> = fc.record({
  date: fc.option(day, { nil: undefined }),
  time: hhmm,
  type: fc.constantFrom(...ENTRY_TYPES),
  text: line.map(oneLine).filter((t) => t.length > 0),
  id: entryId,
  struck: fc.option(fc.option(entryId, { nil: undefined }), { nil: null }),
}).map(({ struck, ...e }) => {
  const out: Entry = { ...e, tags: extractTags(e.text) };
  if (out.date === undefined) delete out.date;
  if (struck !== null) { out.superseded = true; if (struck) out.supersededBy = struck; }
  return out;
});

describe('entry lines (property)', () => {
  it('an entry memtier writes reads back as written', () => {
    fc.assert(fc.property(written, (e) => {
      const l = formatEntryLine(e);
      expect(l.includes('\n')).toBe(false);
      expect(parseEntryLine(l)).toEqual(e);
    }));
  });

  it('any bullet line: parse → format is a normalization, stable on a second pass', () => {
    const bullet = fc.tuple(fc.constantFrom('- ', '* '), line).map(([b, l]) => b + l).filter((l) => parseEntryLine(l) !== undefined);
    fc.assert(fc.property(bullet, (l) => {
      const e = parseEntryLine(l)!;
      const once = formatEntryLine(e);
      expect(parseEntryLine(once)).toEqual(e);
      expect(formatEntryLine(parseEntryLine(once)!)).toBe(once);
    }));
  });
});
