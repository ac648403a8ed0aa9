/**
 * Entry lines: regressions found by the property tests (test/property/entry.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { formatEntryLine, parseEntryLine } from '../../lib/format/entry.js';

describe('entry lines', () => {
  it('an entry that is only its id stays a bullet when written back (was "-  ^id", no longer an entry)', () => {
    const e = parseEntryLine('- ^abcdef123456')!;
    expect(e).toEqual({ text: '', tags: [], id: 'abcdef123456' });
    expect(formatEntryLine(e)).toBe('- ^abcdef123456');
    expect(parseEntryLine(formatEntryLine(e))).toEqual(e);
  });
});
