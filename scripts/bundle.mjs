#!/usr/bin/env node
// Bundle the compiled CLI (dist/lib, from tsc) into one file per command: dist/cli/NAME.js.
//
// An agent starts a process per action, so what a cold call loads is what it costs. Node 20 loads
// each ES module separately (resolve, read, package scope, compile: ~0.6 ms each, ~25 modules
// for `wal decide`), builds an ESM facade for every builtin imported (node:fs's loads the stream
// stack), and parses every byte it loads (a bundle of all commands costs more than it saves).
// So each command gets its own bundle holding the CLI core, that command and what it can reach,
// with builtins read through process.getBuiltinModule (no facade). bin/memtier.js loads
// dist/cli/NAME.js (CommonJS: it runs from a V8 code cache) when it exists, else
// dist/lib/cli/main.js, which stays the library, the help screens and the fallback.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const lib = join(repo, 'dist', 'lib');
const out = join(repo, 'dist', 'cli');

// `watch` and `mcp` are long-running servers: they run from dist/lib, so the commands they run
// share their modules (the freshness source in search/cache.js); their start time does not matter.
const LONG_RUNNING = new Set(['watch.js', 'mcp.js']);
const commands = readdirSync(join(lib, 'commands'))
  .filter((f) => f.endsWith('.js') && f !== 'index.js' && !LONG_RUNNING.has(f))
  .map((f) => f.slice(0, -3));

/**
 * `import { x } from 'node:m'` → `process.getBuiltinModule('node:m').x`: no ESM facade per
 * builtin (a facade reads every export, and node:fs's lazy getters load the stream stack). The
 * stand-in module exports each property as a pure expression, so esbuild keeps only those imported.
 */
const require = createRequire(import.meta.url);
const builtins = {
  name: 'builtins-without-facade',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (a) => ({ path: a.path, namespace: 'builtin' }));
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (a) => {
      const mod = require(a.path);
      const names = Object.keys(mod).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default');
      const lines = [`const m = process.getBuiltinModule(${JSON.stringify(a.path)});`, 'export default m;'];
      // pure: an export nobody imports is dropped, so a lazy getter is read only when imported
      for (const k of names) lines.push(`export const ${k} = /* @__PURE__ */ (() => m.${k})();`);
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

/**
 * Modules a command loads only on one path (`extract --apply`'s selective capture, which needs the
 * whole search stack; `extract --validate`'s checks; superseding a contradicted entry): kept out
 * of the command's bundle and loaded from dist/lib/ when used, so the common path does not compile
 * them (the extract bundle: 150 → ~N KiB).
 */
const ON_DEMAND = /^\.\.\/(?:capture\/(?:capture|validate)|lifecycle\/entries)\.js$/;
const onDemand = {
  name: 'on-demand-modules',
  setup(b) {
    b.onResolve({ filter: ON_DEMAND }, (a) => (a.kind === 'dynamic-import' ? { path: `../lib/${a.path.slice(3)}`, external: true } : undefined));
  },
};

/**
 * The bundles are CommonJS (dist/cli/package.json says so): a script, which bin/memtier.js runs
 * with a V8 code cache, and which needs none of the ESM loader's work per module.
 * `import.meta.url` is the bundle's own file URL.
 */
const CJS = {
  format: 'cjs',
  // import() becomes require() (an ES module in dist/lib/ or node_modules loads through require(esm),
  // Node 20.19+): a script run from a code cache has no dynamic-import callback
  supported: { 'dynamic-import': false },
  banner: { js: 'var __memtier_import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
};

const META_URL = { 'import.meta.url': '__memtier_import_meta_url' };

rmSync(out, { recursive: true, force: true });
const results = await Promise.all(commands.map((name) => build({
  stdin: {
    contents: [
      `import * as command from './commands/${name}.js';`,
      `import { preloadCommand } from './commands/index.js';`,
      `preloadCommand(${JSON.stringify(name)}, command);`,
      `export { main } from './cli/main.js';`,
    ].join('\n'),
    resolveDir: lib,
    sourcefile: `cli-${name}.js`,
  },
  outfile: join(out, `${name}.js`),
  bundle: true,
  ...CJS,
  platform: 'node',
  target: 'node20',
  // npm packages stay in node_modules (gray-matter, unified and remark-parse load only when needed)
  external: ['gray-matter', 'unified', 'remark-parse', '@modelcontextprotocol/sdk', 'zod', 'diff'],
  define: { MEMTIER_BUNDLED: 'true', ...META_URL },
  plugins: [onDemand, builtins],
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
})));
/** A file bundled on its own, beside the command bundles. */
const alone = (entry, name, extra = {}) => build({
  entryPoints: [join(lib, ...entry.split('/'))],
  outfile: join(out, name),
  bundle: true,
  ...CJS,
  platform: 'node',
  target: 'node20',
  plugins: [builtins],
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  ...extra,
  define: { ...extra.define, ...META_URL },
});
// the client of `memtier watch`, loaded by bin/memtier.js before a search or recall (alone: small)
results.push(await alone('watch/client.js', '_client.js'));
// an index build's worker thread (lib/search/index-pool.ts starts ./_index-worker.js beside the bundle
// that builds; the underscore keeps it from being taken for a command): only a build loads it
results.push(await alone('search/index-worker.js', '_index-worker.js', { external: ['gray-matter'], define: { MEMTIER_BUNDLED: 'true' } }));
// health's first-pass worker thread (lib/health/first-pass.ts starts ./_health-worker.js beside the
// health bundle): only a large first run of `health` (or a full run after many changes) loads it
results.push(await alone('health/first-pass-worker.js', '_health-worker.js', { external: ['gray-matter', 'unified', 'remark-parse', 'diff'], define: { MEMTIER_BUNDLED: 'true' } }));
/**
 * ASCII-only bundles: esbuild escapes non-ASCII characters in strings but leaves them in regular
 * expression literals, comments and String.raw templates (the capture rules' and aliases' Chinese
 * words), and one such character makes Node decode the whole file as UTF-8 into a two-byte string,
 * on every call (~2 % of a cold `extract`). `\uXXXX` is the same code unit in a regular
 * expression, a string or a comment, and a backslash escaping the character (an identity escape,
 * as in `/\’s$/`) is dropped: `\’` and `\u2019` are the same. In a String.raw template the text
 * changes (`\u53C8` for 又): memtier's String.raw templates (lib/search/aliases.ts) are all
 * parts of regular expressions, where the two are the same.
 */
function asciiOnly(src) {
  let out = '';
  let from = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (c < 0x80) continue;
    let b = 0;
    while (src.charCodeAt(i - 1 - b) === 92) b++;
    out += src.slice(from, b % 2 ? i - 1 : i) + `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    from = i + 1;
  }
  return out + src.slice(from);
}
/**
 * An ES module's namespace as import() gives it. In a CommonJS bundle `import x from 'pkg'` and
 * `import('pkg')` become `__toESM(require('pkg'), 1)`, and esbuild's Node mode takes whatever
 * require() returns for a CommonJS `module.exports`, making it the default export. For an ES
 * module (unified, remark-parse: Node's require(esm)) require() returns the module namespace
 * itself, whose default export is its own: kept as it is, told apart by its "Module" tag.
 */
const TO_ESM = 'var __toESM = (mod, isNodeMode, target) =>';
function esmInterop(name, src) {
  if (!src.includes('__toESM(')) return src;
  if (!src.includes(TO_ESM)) throw new Error(`${name}: esbuild's __toESM helper has changed; see esmInterop in scripts/bundle.mjs`);
  return src.replace(TO_ESM, 'var __toESM = (mod, isNodeMode, target) => mod != null && mod[Symbol.toStringTag] === "Module" ? mod : __toCjsESM(mod, isNodeMode, target);\nvar __toCjsESM = (mod, isNodeMode, target) =>');
}
for (const f of readdirSync(out).filter((n) => n.endsWith('.js'))) {
  const file = join(out, f);
  const src = readFileSync(file, 'utf8');
  const done = esmInterop(f, /[^\x00-\x7f]/.test(src) ? asciiOnly(src) : src);
  if (done !== src) writeFileSync(file, done);
}
writeFileSync(join(out, 'package.json'), '{ "type": "commonjs" }\n');
// a new id per build: a `memtier watch` started from older code declines, and the CLI runs the request itself
writeFileSync(join(repo, 'dist', 'build-id'), `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}\n`);
const bytes = results.reduce((n, r) => n + Object.values(r.metafile.outputs).reduce((m, o) => m + o.bytes, 0), 0);
if (!process.argv.includes('--quiet')) console.log(`bundled ${commands.length} commands into ${relative(repo, out)}/ (${Math.round(bytes / 1024)} KiB)`);
