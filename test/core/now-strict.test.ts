/** --now / MEMTIER_NOW are read strictly: real calendar dates and times, years 1970–9999. */
import { describe, expect, it } from 'vitest';
import { parseInstant } from '../../lib/core/clock.js';
import { UsageError } from '../../lib/core/errors.js';

describe('parseInstant', () => {
  it.each(['2026-02-30', '2025-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '0000-01-01', '1969-12-31T23:59:59Z', '+275760-01-01', '275760-09-13', '10000-01-01',
    '2026-05-15T24:00', '2026-05-15T12:60', '2026-05-15T12:00:61Z', '2026-05-15T12:00+15:00', 'May 15 2026', '2026/05/15', '1747319400000', '', 'tomorrowish'])('refuses %j', (v) => {
    expect(() => parseInstant(v, '--now')).toThrow(UsageError);
  });

  it('accepts ISO dates and date-times, leap days included', () => {
    expect(parseInstant('2024-02-29', '--now').toISOString()).toBe('2024-02-29T12:00:00.000Z');
    expect(parseInstant('2026-05-15T14:30:00Z', '--now').toISOString()).toBe('2026-05-15T14:30:00.000Z');
    expect(parseInstant('2026-05-15T14:30:00+02:00', '--now').toISOString()).toBe('2026-05-15T12:30:00.000Z');
    expect(parseInstant('2026-05-15T14:30:00.250Z', '--now').toISOString()).toBe('2026-05-15T14:30:00.250Z');
    expect(parseInstant('1970-01-01T00:00:00Z', '--now').getTime()).toBe(0);
    expect(parseInstant('9999-12-31', '--now').getUTCFullYear()).toBe(9999);
  });
});
