/**
 * What every command receives: the memory root, the clock and a logger.
 * Commands never touch `process`; tests build a Ctx with a temp root and a fixed clock.
 */
import type { Clock } from './clock.js';

export interface Logger {
  /** Progress and notes for a person; goes to stderr, silenced under --json or --quiet. */
  info(msg: string): void;
  warn(msg: string): void;
  /**
   * Where a long task (an index build) reports its progress, or absent: nobody should see it (a
   * pipe, --json, --quiet). The CLI sets it only when stderr is a terminal.
   */
  readonly progress?: ProgressSink | undefined;
}

/**
 * `tty`: each status replaces the previous one on the same line ('' clears it), written often;
 * `log`: each status is a line of its own (a log file), written every few seconds.
 */
export interface ProgressSink { mode: 'tty' | 'log'; write(line: string): void }

export interface Ctx {
  /** Absolute path of the memory root (the folder holding MEMORY.md). */
  root: string;
  clock: Clock;
  log: Logger;
  env: NodeJS.ProcessEnv;
  /** Working directory of the invocation (for resolving relative user paths such as --messages FILE). */
  cwd: string;
  /** True when stderr is a terminal and output is not JSON (progress bars allowed). */
  interactive: boolean;
}

export const silentLogger: Logger = { info() {}, warn() {} };

export function makeTestCtx(root: string, clock: Clock, env: NodeJS.ProcessEnv = {}): Ctx {
  return { root, clock, log: silentLogger, env, cwd: root, interactive: false };
}
