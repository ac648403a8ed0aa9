/**
 * Entry lines: regressions found by the property tests (test/property/entry.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { extractTags, forEachTag, formatEntryLine, parseEntries, parseEntryLine, TAG_RE, type LocatedEntry } from '../../lib/format/entry.js';
import { seededRandom } from '../../lib/core/random.js';

describe('entry lines', () => {
  it('an entry that is only its id stays a bullet when written back (was "-  ^id", no longer an entry)', () => {
    const e = parseEntryLine('- ^abcdef123456')!;
    expect(e).toEqual({ text: '', tags: [], id: 'abcdef123456' });
    expect(formatEntryLine(e)).toBe('- ^abcdef123456');
    expect(parseEntryLine(formatEntryLine(e))).toEqual(e);
  });

  it('a day without a time before a type is the entry\'s day (a note\'s sentence filed with no made-up time); before other text it stays text', () => {
    const e = parseEntryLine('- 2026-11-24 [DECISION] Decided to go with Astro (from memory/Daily/2026-11-24.md#L3)')!;
    expect(e).toEqual({ text: 'Decided to go with Astro (from memory/Daily/2026-11-24.md#L3)', tags: [], date: '2026-11-24', type: 'DECISION' });
    expect(formatEntryLine(e)).toBe('- 2026-11-24 [DECISION] Decided to go with Astro (from memory/Daily/2026-11-24.md#L3)');
    expect(parseEntryLine('- 2026-11-24 shipped the beta')).toEqual({ text: '2026-11-24 shipped the beta', tags: [] });
    expect(parseEntryLine('- 2026-11-24 [draft] notes')).toEqual({ text: '2026-11-24 [draft] notes', tags: [] });
    // a day with no type is not written alone (it would read back as text)
    expect(formatEntryLine({ date: '2026-11-24', text: 'x', tags: [] })).toBe('- x');
    expect(parseEntryLine('- ~~2026-05-01 [DECISION] use MySQL~~ superseded by ^abc123 ^old123')).toMatchObject({ date: '2026-05-01', type: 'DECISION', text: 'use MySQL', superseded: true });
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

describe('inline tags', () => {
  // the pattern's own matches, as extractTags found them before it scanned from the markers
  const byRegex = (text: string): string[] => [...text.matchAll(TAG_RE)].map((m) => m[1]!);
  const scanned = (text: string): string[] => { const out: string[] = []; forEachTag(text, (t) => out.push(t)); return out; };

  it('finds what TAG_RE matches, in order, on crafted and random texts', () => {
    const cases = ['#a #b', '#a#b', 'x#a (#b) ＃中文 #c-d/ #_no #1no', '(#x', '\u00a0#nbsp\u3000＃wide', 'a ＃#b #＃c', '#', '# a', '🙂#x 🙂 #y', '##x ＃＃y', ''];
    let seed = 11;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const alphabet = ['#', '＃', ' ', '(', 'a', 'Z', '1', '_', '/', '-', '中', '🙂', '\n', '\u3000', ')'];
    for (let k = 0; k < 3000; k++) cases.push(Array.from({ length: 1 + Math.floor(rnd() * 24) }, () => alphabet[Math.floor(rnd() * alphabet.length)]!).join(''));
    for (const c of cases) expect(scanned(c), JSON.stringify(c)).toEqual(byRegex(c));
  });

  it('extractTags lower-cases, trims trailing / and -, and keeps each once', () => {
    expect(extractTags('#Deploy #deploy #infra/ #on-call- (#X) mid#no')).toEqual(['deploy', 'infra', 'on-call', 'x']);
  });
});
