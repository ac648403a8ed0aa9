/**
 * withSmallYoungGeneration (lib/core/heap.ts), compiled, in a process of its own (V8's flags are
 * per process): a pass whose young objects survive (as an index build's scan) leaves the young
 * generation at its starting size, where the same pass outside it grows it; after it, the young
 * generation may grow again; a process started with the flag keeps the given value.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers.js';

const HEAP = pathToFileURL(join(REPO, 'dist/lib/core/heap.js')).href;

/** The young generation's capacity (MB) after a pass keeping 400,000 small objects alive, run `how`. */
function youngAfter(how: 'plain' | 'small' | 'small-then-plain', nodeArgs: string[] = []): number {
  const script = `
    import v8 from 'node:v8';
    const { withSmallYoungGeneration } = await import(${JSON.stringify(HEAP)});
    const keep = [];
    const pass = () => { for (let i = 0; i < 400000; i++) keep.push({ i, s: 'x' + i }); };
    const how = ${JSON.stringify(how)};
    if (how === 'plain') pass();
    else withSmallYoungGeneration(pass);
    if (how === 'small-then-plain') { keep.length = 0; pass(); }
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(young.space_size / 1048576));
  `;
  return Number(execFileSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('withSmallYoungGeneration', () => {
  it('keeps the young generation at its starting size for the pass, and lets it grow after', () => {
    const plain = youngAfter('plain');
    const small = youngAfter('small');
    expect(plain).toBeGreaterThanOrEqual(8);
    expect(small).toBeLessThanOrEqual(plain / 4);
    expect(youngAfter('small-then-plain')).toBeGreaterThan(small);
  });

  it('leaves a growth factor given to node alone', () => {
    const given = youngAfter('small', ['--semi-space-growth-factor=2']);
    expect(given).toBeGreaterThanOrEqual(8);
  });
});
