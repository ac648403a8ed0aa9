import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MemtierError, UsageError } from '../core/errors.js';
import type { Io } from './spec.js';

/** The whole of standard input, for a TEXT or FILE given as "-". */
export async function readStdin(io: Io): Promise<string> {
  if (!io.stdin) throw new UsageError('"-" reads from standard input, but none is available');
  const chunks: Buffer[] = [];
  for await (const c of io.stdin as AsyncIterable<Buffer | string>) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}

/** The conversation a --messages FILE gives ("-": standard input): a JSON list of {role, content}, or {"messages": [...]}. */
export async function readMessages(io: Io, cwd: string, file: string): Promise<{ role: string; content: unknown }[]> {
  let raw: string;
  try {
    raw = file === '-' ? await readStdin(io) : readFileSync(resolve(cwd, file), 'utf8');
  } catch (e) {
    throw new MemtierError(`cannot read --messages ${file}: ${(e as Error).message}`, { code: 'usage', file, hint: 'give a JSON file holding a list of {role, content} objects', cause: e });
  }
  let msgs: unknown;
  try { msgs = JSON.parse(raw); } catch (e) {
    throw new MemtierError(`--messages ${file} is not valid JSON: ${(e as Error).message}`, { code: 'usage', file, hint: 'expected a JSON list such as [{"role":"user","content":"…"}]', cause: e });
  }
  const list = Array.isArray(msgs) ? msgs : msgs && typeof msgs === 'object' && Array.isArray((msgs as { messages?: unknown }).messages) ? (msgs as { messages: unknown[] }).messages : undefined;
  if (!list) throw new MemtierError(`--messages ${file} is not a list of messages`, { code: 'usage', file, hint: 'expected [{"role":"user","content":"…"}, …] (or {"messages": [...]})' });
  return list as { role: string; content: unknown }[];
}
