#!/usr/bin/env node
// Thin entry: gather argv and streams, await main(), set the exit code.
// Any throw that escapes main() is a failure (exit 2).
//
// This file is CommonJS (bin/package.json). A command runs from its bundle, dist/cli/NAME.js
// (CommonJS too, scripts/bundle.mjs), else from dist/lib/, which is ESM: require() of an ES module
// (Node 20.19+, 22.12+, 24) loads it synchronously, without starting Node's async ESM loader,
// which a cold call would pay for on every agent action (~8 ms). Older Nodes fall back to import().
'use strict';
const { existsSync, writeSync } = require('node:fs');

// Node 22.1+ caches compiled code between runs (every agent action is a cold process): used for
// what loads from dist/lib/; the command bundles have their own cache (loadWithCodeCache below).
const moduleApi = require('node:module');
moduleApi.enableCompileCache?.();

/**
 * Standard output and error written synchronously with fs.writeSync: building process.stdout
 * for a pipe loads the stream stack (~6 ms per cold call). A non-blocking descriptor that
 * would block (EAGAIN) hands the rest to the stream; a closed reader (EPIPE, `| head`) ends the output.
 */
function syncOut(fd, stream) {
  let fallback = false;
  let closed = false;
  return {
    get isTTY() { return require('node:tty').isatty(fd); },
    write(s) {
      if (closed) return true;
      if (fallback) return stream().write(s);
      let buf = Buffer.from(String(s), 'utf8');
      while (buf.length > 0) {
        try {
          buf = buf.subarray(writeSync(fd, buf));
        } catch (e) {
          if (e.code === 'EAGAIN') { fallback = true; return stream().write(buf); }
          if (e.code === 'EPIPE') { closed = true; return true; }
          throw e;
        }
      }
      return true;
    },
  };
}

// Global flags that take a value (GLOBAL_FLAGS in lib/cli/args.ts; a test keeps the two equal):
// `memtier --root DIR wal …` names the command after DIR.
const VALUE_FLAGS = ['--root', '--now'];

/** The command's name: the first word that is neither a flag nor a global flag's value. */
function commandOf(argv) {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('-')) { if (VALUE_FLAGS.includes(a)) i++; continue; }
    return /^[a-z][a-z-]*$/.test(a) ? a : undefined;
  }
  return undefined;
}
const argv = process.argv.slice(2);
const COMMAND = commandOf(argv);

/** dist/cli/NAME.js, the bundle of the command NAME (scripts/bundle.mjs), else the whole CLI in dist/lib/. */
function entryFor(name) {
  const bundle = `${__dirname}/../dist/cli/${name}.js`;
  return name && existsSync(bundle) ? bundle : '../dist/lib/cli/main.js';
}

/**
 * A cold call would parse and compile every function of its command's bundle anew (about a fifth
 * of a cold `extract`): Node 20 has no compile cache, and Node 22+'s holds only what was compiled
 * before the module ran, so the functions compiled while it runs (most of them) are compiled on
 * every call. So the bundle (CommonJS, scripts/bundle.mjs) runs as a vm.Script with a V8 code
 * cache made after the command ran, dist/cli/.code-cache/NAME.BUILD.NODE.ARCH.v8: written to a
 * temporary file then renamed (two processes never see half a file), and never trusted blindly:
 * V8 rejects a cache made by another V8, other flags or a source of another length (the cache is
 * then written again), and the name holds the build's id (dist/build-id), so a rebuilt bundle
 * never reads an older cache. A cache that cannot be read or written (a read-only install, a full
 * disk) only means none. MEMTIER_CODE_CACHE=off turns it off; MEMTIER_CODE_CACHE=DIR keeps it in DIR.
 */
const CACHE_SETTING = process.env.MEMTIER_CODE_CACHE;
const CODE_CACHE = CACHE_SETTING !== 'off';

/** How many runs write a command's cache (the first, then the next ones that use it). */
const CACHE_WRITES = 3;

function loadWithCodeCache(path) {
  const { readFileSync, writeFileSync, renameSync, mkdirSync, rmSync } = require('node:fs');
  const { basename, dirname, join } = require('node:path');
  const vm = require('node:vm');
  const source = readFileSync(path, 'utf8');
  let file;
  try {
    const build = readFileSync(join(dirname(path), '..', 'build-id'), 'utf8').trim();
    file = join(CACHE_SETTING || join(dirname(path), '.code-cache'), `${basename(path, '.js')}.${build}.${process.version}.${process.arch}.v8`);
  } catch { /* no build id: no cache */ }
  // the file: one byte counting the runs that wrote it, then V8's data
  let cachedData;
  let writes = 0;
  if (file) {
    try {
      const bytes = readFileSync(file);
      writes = bytes[0];
      cachedData = bytes.subarray(1);
    } catch { /* the first run */ }
  }
  const script = new vm.Script(moduleApi.wrap(source), { filename: path, cachedData });
  const mod = { exports: {}, filename: path };
  script.runInThisContext().call(mod.exports, mod.exports, moduleApi.createRequire(path), mod, path, dirname(path));
  const used = cachedData !== undefined && !script.cachedDataRejected;
  if (process.env.MEMTIER_CODE_CACHE_TRACE) writeSync(2, `code cache: ${used ? 'used' : cachedData ? 'rejected' : 'none'} (${file ?? 'no build id'})\n`);
  // Written again by the next few runs that use it: a cache holds the functions compiled when it
  // was made (those it was loaded with, and those the run compiled), so a first run that took a
  // short path (--help, an empty input) does not decide for good what later runs find compiled.
  if (file && (!used || writes < CACHE_WRITES)) {
    process.once('beforeExit', () => {
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(tmp, Buffer.concat([Buffer.from([used ? writes + 1 : 1]), script.createCachedData()]));
        renameSync(tmp, file);
      } catch {
        try { rmSync(tmp, { force: true }); } catch { /* nothing to clean */ }
      }
    });
  }
  return mod.exports;
}

function load(path) {
  try {
    if (CODE_CACHE && path.startsWith(`${__dirname}/../dist/cli/`)) return Promise.resolve(loadWithCodeCache(path));
    return Promise.resolve(require(path));
  } catch (e) {
    if (e.code === 'ERR_REQUIRE_ESM' || e.code === 'ERR_REQUIRE_ASYNC_MODULE') return import(path);
    return Promise.reject(e);
  }
}

/**
 * A search or recall goes to the root's `memtier watch` when one runs (lib/watch/client.ts): its
 * index is warm and it needs no stat per file. Otherwise (or when it declines) the CLI runs it.
 */
let client; // lib/watch/client.ts, once loaded: it may hold standard input it read for a request the server did not take
function viaWatch() {
  if (COMMAND !== 'search' && COMMAND !== 'recall') return Promise.resolve(undefined);
  if (process.env.MEMTIER_WATCH === 'off') return Promise.resolve(undefined);
  const bundle = `${__dirname}/../dist/cli/_client.js`;
  return load(existsSync(bundle) ? bundle : '../dist/lib/watch/client.js')
    .then((c) => { client = c; return c.delegate(COMMAND, argv, process.env, process.cwd()); });
}

const stdout = syncOut(1, () => process.stdout);
const stderr = syncOut(2, () => process.stderr);
viaWatch()
  .then((served) => {
    if (served) {
      stdout.write(served.out);
      stderr.write(served.err);
      return served.code;
    }
    // stdin is a getter: touching process.stdin builds a stream (5-15 ms), which only `wal -` and `recall --messages -` need.
    return load(entryFor(COMMAND)).then(({ main }) => main({ argv, env: process.env, cwd: process.cwd(), stdout, stderr, get stdin() { return client?.consumedStdin() ?? process.stdin; } }));
  })
  .then((code) => { process.exitCode = code; })
  .catch((err) => { stderr.write(`memtier: internal error: ${err?.stack ?? err}\n`); process.exitCode = 2; });
