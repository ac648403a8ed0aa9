/**
 * Closure blocks (lib/format/closure.ts): for any day of entries, with or without part of a block
 * after them, what close-day appends completes the block, reads back as the values it was built
 * from, adds no entry, keeps every item apart, and a second close-day appends nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLOSURE_KEYS, closureAppend, closureStatus, dayEntries, isClosureLine, LINE_MAX, type ClosureValues } from '../../lib/format/closure.js';
import { ENTRY_TYPES, formatEntryLine, oneLine } from '../../lib/format/entry.js';
import { configure, entryId, line } from './settings.js';

configure(200);

const DAY = '2026-05-14';
const text = line.map(oneLine).filter((t) => t.length > 0);
const entry = fc.record({
  time: fc.constantFrom('08:00', '09:30', '12:00', '17:45'),
  type: fc.constantFrom(...ENTRY_TYPES, 'DECISION', 'LESSON', 'PROJ'),
  prefix: fc.constantFrom('', '', 'pending: ', 'blocker: ', 'done: '),
  text,
  id: entryId,
  struck: fc.boolean(),
}).map(({ prefix, struck, ...e }) => formatEntryLine({ ...e, text: prefix + e.text, tags: [], ...(struck ? { superseded: true } : {}) }));
/** A person's prose between entries (a line that is not a closure line: those are the block's). */
const prose = line.filter((l) => !isClosureLine(l) && !/^[-*] /.test(l));

const day = fc.record({
  lines: fc.array(fc.oneof({ weight: 3, arbitrary: entry }, { weight: 1, arbitrary: prose }), { maxLength: 12 }),
  partial: fc.subarray([...CLOSURE_KEYS]),
  value: text,
  newline: fc.boolean(),
}).map(({ lines, partial, value, newline }) => {
  let t = `# ${DAY}\n\n${lines.join('\n')}`;
  if (partial.length) t += `\n\n## Closure\n${partial.map((k) => `${k}: ${value}`).join('\n')}`;
  return newline ? t + '\n' : t;
});

/** What the store's append does: a last line without its newline gets one first. */
const appended = (t: string, add: string): string => (t === '' || t.endsWith('\n') ? t : t + '\n') + add;

describe('closure blocks (property)', () => {
  it('close-day completes the block, adds no entry, and a second close-day appends nothing', () => {
    fc.assert(fc.property(day, (t) => {
      const { append } = closureAppend(DAY, t);
      const after = append === undefined ? t : appended(t, append);
      expect(closureStatus(after).missing).toEqual([]);
      expect(closureAppend(DAY, after).append).toBeUndefined();
      expect(dayEntries(after).map((e) => e.raw)).toEqual(dayEntries(t).map((e) => e.raw));
    }));
  });

  it('a new block reads back as the values it was built from, one item per entry', () => {
    const fresh = day.filter((t) => closureStatus(t).have.size === 0);
    fc.assert(fc.property(fresh, (t) => {
      const { append, values } = closureAppend(DAY, t);
      const block = append!.split('\n').filter((l) => l.trim() !== '');
      expect(block[0]).toBe('## Closure');
      const read = Object.fromEntries(block.slice(1).map((l) => /^(\w+): (.*)$/.exec(l)!.slice(1, 3))) as unknown as ClosureValues;
      expect(read).toEqual(values);
      expect(values.Updated).toBe(DAY);
      const live = dayEntries(t).filter((e) => !e.superseded);
      for (const [key, type] of [['Decisions', 'DECISION'], ['Signal', 'LESSON']] as const) {
        const v = values[key];
        const want = live.filter((e) => e.type === type);
        if (want.length === 0) { expect(v).toBe('none'); continue; }
        const more = /; \+(\d+) more$/.exec(v);
        const parts = v.replace(/; \+\d+ more$/, '').split('; ');
        expect(parts.length + (more ? Number(more[1]) : 0)).toBe(want.length);
        parts.forEach((p, i) => expect(p.endsWith(` (^${want[i]!.id})`)).toBe(true));
        if (parts.length > 1) expect([...v.replace(/; \+\d+ more$/, '')].length).toBeLessThanOrEqual(LINE_MAX);
      }
    }));
  });
});
