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

let cachedBuild: string | undefined;

/**
 * The build this code comes from: dist/build-id, written by scripts/bundle.mjs on every build.
 * What is kept between runs and is only as good as the code that made it (a `memtier watch`
 * server, health's summaries) names it. 'unknown' when missing.
 */
export function buildId(): string {
  if (cachedBuild !== undefined) return cachedBuild;
  cachedBuild = 'unknown';
  // a command bundle dist/cli/NAME.js, dist/lib/core/version.js, lib/core/version.ts (tests)
  for (const up of ['../build-id', '../../build-id', '../../dist/build-id']) {
    try {
      cachedBuild = readFileSync(fileURLToPath(new URL(up, import.meta.url)), 'utf8').trim() || 'unknown';
      break;
    } catch { /* next */ }
  }
  return cachedBuild;
}
