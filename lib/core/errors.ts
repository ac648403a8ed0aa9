/**
 * Errors that carry what a person (or agent) needs to fix the problem:
 * the file, the line, the rule that was broken, and a hint.
 *
 * Exit codes: 0 ok, 1 findings, 2 usage error or failure.
 */
export interface ErrorDetails {
  /** Stable machine-readable code, e.g. `secret`, `path-escape`, `frontmatter`, `usage`, `lock`. */
  code: string;
  /** File (relative to the memory root where possible) the error is about. */
  file?: string;
  /** 1-based line number in `file`. */
  line?: number;
  /** Rule id (for guards such as the secret scanner). */
  rule?: string;
  /** What to do next. */
  hint?: string;
  cause?: unknown;
}

export class MemtierError extends Error {
  readonly code: string;
  readonly file?: string;
  readonly line?: number;
  readonly rule?: string;
  readonly hint?: string;
  /** Process exit code this error maps to. */
  readonly exitCode: number = 2;

  constructor(message: string, details: ErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'MemtierError';
    this.code = details.code;
    if (details.file !== undefined) this.file = details.file;
    if (details.line !== undefined) this.line = details.line;
    if (details.rule !== undefined) this.rule = details.rule;
    if (details.hint !== undefined) this.hint = details.hint;
  }

  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.file !== undefined) out.file = this.file;
    if (this.line !== undefined) out.line = this.line;
    if (this.rule !== undefined) out.rule = this.rule;
    if (this.hint !== undefined) out.hint = this.hint;
    return out;
  }
}

/** Bad command-line usage: unknown flag, missing argument, bad value. */
export class UsageError extends MemtierError {
  constructor(message: string, hint?: string) {
    super(message, hint === undefined ? { code: 'usage' } : { code: 'usage', hint });
    this.name = 'UsageError';
  }
}

export function isMemtierError(e: unknown): e is MemtierError {
  return e instanceof MemtierError;
}
