#!/usr/bin/env node
// Thin entry: gather argv and streams, await main(), set the exit code.
// Any throw that escapes main() is a failure (exit 2).
//
// This file is CommonJS (bin/package.json) and memtier itself is ESM: require() of an ES module
// (Node 20.19+, 22.12+, 24) loads it synchronously, without starting Node's async ESM loader,
// which a cold call would pay for on every agent action (~8 ms). Older Nodes fall back to import().
'use strict';
const { existsSync, writeSync } = require('node:fs');

// Node 22.1+ caches compiled code between runs (every agent action is a cold process); a no-op on Node 20.
require('node:module').enableCompileCache?.();

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

function load(path) {
  try {
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
