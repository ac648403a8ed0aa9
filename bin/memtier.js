#!/usr/bin/env node
// Thin entry: gather argv and streams, await main(), set the exit code.
// Any throw that escapes main() is a failure (exit 2).
import module from 'node:module';

// Node 22.1+ caches compiled code between runs (every agent action is a cold process); a no-op on Node 20.
module.enableCompileCache?.();
const { main } = await import('../dist/lib/cli/main.js');

// stdin is a getter: touching process.stdin builds a stream (5-15 ms), which only `wal -` and `recall --messages -` need.
main({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr, get stdin() { return process.stdin; } })
  .then((code) => { process.exitCode = code; })
  .catch((err) => { process.stderr.write(`memtier: internal error: ${err?.stack ?? err}\n`); process.exitCode = 2; });
