/**
 * Regular expressions compiled straight to machine code, for short-lived commands that run a
 * table of patterns over many sentences (extraction, classification).
 *
 * V8 first compiles a pattern to bytecode and interprets it, then compiles it again to machine
 * code once it runs a second time ("tier-up"). A cold `extract` over 200 messages uses ~35
 * patterns thousands of times, so it pays both compilations for every one of them: measured on
 * Node 20, the first pass over 200 messages took ~44 ms with tier-up and ~25 ms without, later
 * passes 5 ms either way. The flag is process-wide and only affects patterns compiled after it is
 * set; a long-running host (the OpenClaw gateway, `memtier watch`) never calls this.
 */
import { setFlagsFromString } from 'node:v8';

let done = false;

export function compileRegexpsNatively(): void {
  if (done) return;
  done = true;
  setFlagsFromString('--no-regexp-tier-up');
  setFlagsFromString('--no-regexp-optimization');
}
