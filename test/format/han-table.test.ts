/**
 * lib/format/han-table.ts is generated from opencc-js (scripts/han-table.mjs): it must say what the
 * library says, so updating the library without regenerating the table fails here.
 */
import { describe, expect, it } from 'vitest';
import { TS_PAIRS } from '../../lib/format/han-table.js';

describe('the traditional → simplified table', () => {
  it('equals opencc-js TSCharacters (single BMP characters, first simplified form)', async () => {
    const { default: raw } = await import('opencc-js/dict/TSCharacters' as string) as { default: string };
    // a plain .mjs helper shared with the generator script
    const { tsPairs } = await import('../../scripts/han-pairs.mjs');
    expect(TS_PAIRS).toBe(tsPairs(raw));
    expect(TS_PAIRS.length).toBeGreaterThan(5000);
    const at = (trad: string): string => TS_PAIRS[TS_PAIRS.indexOf(trad) + 1]!;
    expect([at('機'), at('親'), at('週'), at('後'), at('節')]).toEqual(['机', '亲', '周', '后', '节']);
  });
});
