import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package version, from the nearest package.json above this module (works from lib/ and dist/lib/). */
export function version(): string {
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(fileURLToPath(new URL(up, import.meta.url)), 'utf8')) as { name?: string; version: string };
      if (pkg.name === 'memtier') return pkg.version;
    } catch { /* try the next level */ }
  }
  return '0.0.0';
}
