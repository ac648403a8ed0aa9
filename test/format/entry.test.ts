/**
 * Entry lines: regressions found by the property tests (test/property/entry.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { formatEntryLine, parseEntries, parseEntryLine, type LocatedEntry } from '../../lib/format/entry.js';
import { seededRandom } from '../../lib/core/random.js';

describe('entry lines', () => {
  it('an entry that is only its id stays a bullet when written back (was "-  ^id", no longer an entry)', () => {
    const e = parseEntryLine('- ^abcdef123456')!;
    expect(e).toEqual({ text: '', tags: [], id: 'abcdef123456' });
    expect(formatEntryLine(e)).toBe('- ^abcdef123456');
    expect(parseEntryLine(formatEntryLine(e))).toEqual(e);
  });

  it('parseEntries finds what parsing every line of the split text finds (line numbers, ids at the start or the end)', () => {
    const reference = (text: string): LocatedEntry[] => text.split('\n').flatMap((raw, i) => {
      const e = parseEntryLine(raw);
      return e ? [{ ...e, line: i + 1, raw }] : [];
    });
    const rnd = seededRandom(5);
    const pieces = ['\n', '- ', '* ', '-', '*', ' ', '09:10 ', '[DECISION] ', 'use SQLite', ' #infra', ' ^k2j3mx0a', '^abc', '~~old~~ superseded by ^k2j3mx0a', '\t', '\r', '2026-05-14 ', '会议', ''];
    for (let k = 0; k < 5000; k++) {
      let s = '';
      const n = Math.floor(rnd() * 16);
      for (let j = 0; j < n; j++) s += pieces[Math.floor(rnd() * pieces.length)];
      expect(parseEntries(s), JSON.stringify(s)).toEqual(reference(s));
    }
    expect(parseEntryLine('- ^abc123 ^def456')).toEqual({ text: '^abc123', tags: [], id: 'def456' });
  });
});
