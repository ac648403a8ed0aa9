import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { MemtierError, UsageError } from '../core/errors.js';
import type { Io } from './spec.js';

/**
 * The most an input (standard input, --file, --messages) may hold: a conversation or a text to
 * remember, never a disk image. Bounds the memory a command can be made to use.
 */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

function tooBig(what: string, file?: string): MemtierError {
  return new MemtierError(`${what} is over the ${MAX_INPUT_BYTES / 1024 / 1024} MiB input limit; nothing was read into memory`, { code: 'usage', rule: 'max-input-size', ...(file !== undefined ? { file } : {}), hint: 'give a smaller text (split a long conversation; long content belongs in a note)' });
}

/** The whole of standard input, for a TEXT or FILE given as "-" (at most MAX_INPUT_BYTES). */
export async function readStdin(io: Io): Promise<string> {
  if (!io.stdin) throw new UsageError('"-" reads from standard input, but none is available');
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of io.stdin as AsyncIterable<Buffer | string>) {
    const b = typeof c === 'string' ? Buffer.from(c) : c;
    n += b.length;
    if (n > MAX_INPUT_BYTES) throw tooBig('standard input');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * An input file named on the command line (`--file F`, `--messages F`; relative to `cwd`): a
 * regular file of at most MAX_INPUT_BYTES. A FIFO, a device (/dev/zero) or a folder is refused
 * before any read, so the command never blocks or grows without bound.
 */
export function readInputFile(cwd: string, file: string, flag: string): string {
  const fail = (why: string, hint: string, cause?: unknown): never => {
    throw new MemtierError(`cannot read ${flag} ${file}: ${why}`, { code: 'usage', file, hint, ...(cause !== undefined ? { cause } : {}) });
  };
  if (file.includes('\0')) fail('the path holds a NUL character', 'give the path of a text file');
  let fd: number;
  try {
    fd = openSync(resolve(cwd, file), constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return fail((e as Error).message, 'give the path of a text file', e);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) fail(st.isDirectory() ? 'it is a folder' : 'it is not a regular file (a FIFO, a device or a socket)', 'give the path of a text file; to pipe text, use "-" and standard input');
    if (st.size > MAX_INPUT_BYTES) throw tooBig(`${flag} ${file} (${st.size} bytes)`, file);
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    for (let k; off < buf.length && (k = readSync(fd, buf, off, buf.length - off, off)) > 0;) off += k;
    return buf.toString('utf8', 0, off);
  } finally {
    closeSync(fd);
  }
}

/** The conversation a --messages FILE gives ("-": standard input): a JSON list of {role, content}, or {"messages": [...]}. */
export async function readMessages(io: Io, cwd: string, file: string): Promise<{ role: string; content: unknown }[]> {
  let raw: string;
  try {
    raw = file === '-' ? await readStdin(io) : readInputFile(cwd, file, '--messages');
  } catch (e) {
    if (e instanceof MemtierError) throw e;
    throw new MemtierError(`cannot read --messages ${file}: ${(e as Error).message}`, { code: 'usage', file, hint: 'give a JSON file holding a list of {role, content} objects', cause: e });
  }
  let msgs: unknown;
  try { msgs = JSON.parse(raw); } catch (e) {
    // JSON.parse's message quotes the input ("Unexpected token 'x', "xyz…" is not valid JSON"):
    // say where, never what (a conversation may hold anything, credentials included)
    const at = /at position (\d+)/.exec((e as Error).message)?.[1] ?? (raw.trim() === '' ? undefined : firstBadJson(raw));
    throw new MemtierError(`--messages ${file} is not valid JSON${raw.trim() === '' ? ' (it is empty)' : at !== undefined ? ` (at character ${at})` : ''}`, { code: 'usage', file, hint: 'expected a JSON list such as [{"role":"user","content":"…"}]' });
  }
  const list = Array.isArray(msgs) ? msgs : msgs && typeof msgs === 'object' && Array.isArray((msgs as { messages?: unknown }).messages) ? (msgs as { messages: unknown[] }).messages : undefined;
  if (!list) throw new MemtierError(`--messages ${file} is not a list of messages`, { code: 'usage', file, hint: 'expected [{"role":"user","content":"…"}, …] (or {"messages": [...]})' });
  return list as { role: string; content: unknown }[];
}

/** Offset of the first character a JSON document cannot hold there (a rough pointer, never the text). */
function firstBadJson(raw: string): string | undefined {
  const i = raw.search(/\S/);
  return i >= 0 && !/[[{"\-\d tfn]/.test(raw[i]!) ? String(i) : undefined;
}
