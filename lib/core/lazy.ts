/**
 * Lazy module loading that does not start Node's asynchronous ESM loader.
 *
 * Every agent action is a fresh process, so what a cold call loads is what it costs. On Node 20
 * an `import()` costs ~9 ms more than `require()` of the same ES module (Node 20.19+, 22.12+
 * and 24 load ES modules with require, synchronously). Compiled code therefore loads lazily
 * with require; source run by vitest (`.ts`, resolved by vite), a Node without require(esm),
 * and a module the layout does not have fall back to the `viaImport` callback.
 *
 * `libPath` is relative to the lib root (`dist/lib/`, one folder above this module). The CLI
 * bundles (scripts/bundle.mjs) inline every module a command can reach, so there `viaImport`
 * costs nothing and is used directly.
 */
import type { createRequire as CreateRequire } from 'node:module';

/** Set by scripts/bundle.mjs (esbuild `define`): in a bundle, `viaImport` is inlined, nothing to load. */
declare const MEMTIER_BUNDLED: boolean | undefined;

type Require = ReturnType<typeof CreateRequire>;
let req: Require | undefined;
let requireEsm = true;

/** Load the module at `libPath` (e.g. `search/cache.js`); `viaImport` is `() => import(…)` of the same module, written at the call site. */
export function lazyImport<T>(libPath: string, viaImport: () => Promise<T>): Promise<T> {
  if (typeof MEMTIER_BUNDLED !== 'undefined' || !requireEsm || !import.meta.url.endsWith('.js')) return viaImport();
  if (!req) {
    const { createRequire } = process.getBuiltinModule('node:module') as typeof import('node:module');
    req = createRequire(new URL('../', import.meta.url));
  }
  try {
    return Promise.resolve(req(`./${libPath}`) as T);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // No require(esm) (Node 22.0-22.11), top-level await, or not in this layout: the async loader can.
    if (code === 'ERR_REQUIRE_ESM') requireEsm = false;
    if (code === 'ERR_REQUIRE_ESM' || code === 'ERR_REQUIRE_ASYNC_MODULE' || (code === 'MODULE_NOT_FOUND' && String((e as Error).message).includes(libPath))) {
      return viaImport();
    }
    return Promise.reject(e);
  }
}

/** Is this error "the module file does not exist" from either loader? */
export function isModuleNotFound(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}
