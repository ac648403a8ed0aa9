#!/usr/bin/env node
// Thin entry: gather argv and streams, await main(), set the exit code.
// Any throw that escapes main() is a failure (exit 2).
import { main } from '../dist/lib/cli/main.js';

main({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr, stdin: process.stdin })
  .then((code) => { process.exitCode = code; })
  .catch((err) => { process.stderr.write(`memtier: internal error: ${err?.stack ?? err}\n`); process.exitCode = 2; });
