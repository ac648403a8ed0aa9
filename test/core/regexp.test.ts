/**
 * nativeFirst: a pattern's first run over a 1,000-character blank, so V8 compiles machine code at
 * once. It must change no result: the same matches, `lastIndex` back at 0 for g and y patterns.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { nativeFirst } from '../../lib/core/regexp.js';
import { REPO } from '../helpers.js';

describe('nativeFirst', () => {
  it('returns the pattern, with lastIndex at 0, whether or not the blank matches', () => {
    for (const re of [/\s+/g, /x/g, /\s*/y, /^a/, / {3}/gu]) {
      const fresh = new RegExp(re.source, re.flags);
      expect(nativeFirst(re)).toBe(re);
      expect(re.lastIndex).toBe(0);
      const text = 'a  b   c x';
      expect(re.global ? [...text.matchAll(re)].map((m) => [m.index, m[0]]) : re.exec(text)?.[0]).toEqual(re.global ? [...text.matchAll(fresh)].map((m) => [m.index, m[0]]) : fresh.exec(text)?.[0]);
    }
  });

  it('runs the blank once per pattern', () => {
    const re = /b/g;
    nativeFirst(re);
    re.lastIndex = 2;
    expect(nativeFirst(re).lastIndex).toBe(2); // a second call does not run it again
  });

  it('makes this V8 compile the pattern to machine code on its first run (its long-subject tier-up)', () => {
    // the speed-up rests on a V8 heuristic: this says whether the running V8 still has it
    const mod = join(REPO, 'dist', 'lib', 'core', 'regexp.js');
    const r = spawnSync(process.execPath, ['--trace-regexp-tier-up', '--input-type=module', '-e', `import { nativeFirst } from ${JSON.stringify(mod)}; nativeFirst(/we (?:decided|agreed)/).test('we agreed');`], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Forcing tier-up for very long strings/);
  });
});
