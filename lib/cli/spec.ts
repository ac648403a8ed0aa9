/**
 * One table per command drives parsing, validation and --help.
 */
import type { Ctx } from '../core/context.js';

export type FlagType = 'string' | 'boolean' | 'number' | 'list';

export interface FlagSpec {
  /** Long name without dashes, e.g. `max-chars`. */
  name: string;
  type: FlagType;
  short?: string;
  /** Placeholder shown in help, e.g. `N`, `DIR`. */
  value?: string;
  description: string;
  default?: string | number | boolean;
  /** Allowed values for string flags. */
  choices?: readonly string[];
  /** Number flags: the smallest value allowed (default 0: no number flag takes a negative). */
  min?: number;
  /** Number flags: whole numbers only. */
  integer?: boolean;  /** String flags: may be given more than once; the value is then the list of them, in order. */
  multiple?: boolean;
}

export type FlagValue = string | number | boolean | string[] | undefined;

export interface Args {
  flags: Record<string, FlagValue>;
  positionals: string[];
  /** Global flags every command gets. */
  json: boolean;
  quiet: boolean;
}

export interface CommandResult {
  /** 0 ok, 1 findings; failures are thrown as MemtierError (exit 2). */
  exitCode?: 0 | 1;
  /** Text for a person (stdout). */
  text?: string;
  /** The same result as data, printed under --json. */
  json?: unknown;
  /** One line for the git commit message when the memory is a repository (default: the text's first line). */
  commitSummary?: string;
}

export interface Io {
  stdin?: NodeJS.ReadableStream;
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  /**
   * The CLI's own entry, handed to a command that runs other commands (memtier watch answers
   * the CLI's calls through it): commands never import the layer above them (ARCHITECTURE.md).
   */
  main?: Main;
}

/** What the CLI's entry (lib/cli/main.ts) takes: the streams plus argv, environment and working directory. */
export interface MainParams extends Io {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The CLI's entry: runs one command, returns its exit code. */
export type Main = (p: MainParams) => Promise<number>;

export interface CommandSpec {
  name: string;
  summary: string;
  /** Usage lines without the leading `memtier `, e.g. `wal decide TEXT`. */
  usage: string[];
  /** Paragraphs shown under the usage. */
  description?: string;
  flags: FlagSpec[];
  /** Subcommands documented in help (name → summary). */
  subcommands?: Record<string, string>;
  examples?: string[];
  /** Commands such as init and bench run without an existing memory. Default true. */
  needsRoot?: boolean;
  /**
   * A host runs it and reads a failure as "block" (Claude Code's hooks: exit 2 erases the prompt):
   * whatever goes wrong — no memory, bad input, a bad clock — the message goes to standard error
   * and the exit code is 0.
   */
  neverFails?: boolean;
  run(ctx: Ctx, args: Args, io: Io): Promise<CommandResult>;
}

export function flagString(args: Args, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === 'string' ? v : undefined;
}
export function flagNumber(args: Args, name: string): number | undefined {
  const v = args.flags[name];
  return typeof v === 'number' ? v : undefined;
}
export function flagBool(args: Args, name: string): boolean {
  return args.flags[name] === true;
}
/** A `multiple` string flag's values (one given once is a list of one). */
export function flagStrings(args: Args, name: string): string[] | undefined {
  const v = args.flags[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : undefined;
}
export function flagList(args: Args, name: string): string[] | undefined {
  const v = args.flags[name];
  return Array.isArray(v) ? v : undefined;
}
