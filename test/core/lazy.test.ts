/**
 * lazyImport (lib/core/lazy.ts) as compiled: dist/lib loads lazily with require (no async
 * ESM loader); a module the layout does not have falls back to the import() callback.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers.js';

type Lazy = { lazyImport<T>(libPath: string, viaImport: () => Promise<T>): Promise<T> };
const compiled = async (): Promise<Lazy> => (await import(pathToFileURL(join(REPO, 'dist/lib/core/lazy.js')).href)) as Lazy;

describe('lazyImport (compiled)', () => {
  it('loads a dist/lib module with require, without calling the import() fallback', async () => {
    const { lazyImport } = await compiled();
    let fallback = 0;
    const mod = await lazyImport<{ randomChars(n: number): string }>('core/random.js', async () => { fallback++; return { randomChars: () => '' }; });
    expect(fallback).toBe(0);
    expect(mod.randomChars(12)).toMatch(/^[0-9a-z]{12}$/);
  });

  it('falls back to the import() callback for a module this layout does not have', async () => {
    const { lazyImport } = await compiled();
    expect(await lazyImport('nowhere/missing.js', async () => 'via import()')).toBe('via import()');
  });

  it('passes on any other failure of the module it loads instead of falling back', async () => {
    const { lazyImport } = await compiled();
    const bad = join(REPO, 'dist/lib/core/__lazy-test-throws.js');
    writeFileSync(bad, "export const x = 1;\nthrow new Error('boom at load');\n");
    try {
      await expect(lazyImport('core/__lazy-test-throws.js', async () => 'fallback')).rejects.toThrow('boom at load');
    } finally {
      rmSync(bad, { force: true });
    }
  });
});
