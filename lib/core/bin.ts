/**
 * This package's bin/memtier.js, found upward from this module (lib/core/, dist/lib/core/ or a
 * bundle in dist/cli/): what a command spawns to run memtier again (benchmarks, `watch --detach`)
 * and what schedulers are given as an absolute path.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The absolute path of bin/memtier.js next to this package's package.json, or undefined. */
export function findBin(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const bin = join(dir, 'bin', 'memtier.js');
    if (existsSync(bin) && existsSync(join(dir, 'package.json'))) return bin;
    dir = dirname(dir);
  }
  return undefined;
}
