import { UsageError } from '../core/errors.js';
import type { Io } from './spec.js';

/** The whole of standard input, for a TEXT or FILE given as "-". */
export async function readStdin(io: Io): Promise<string> {
  if (!io.stdin) throw new UsageError('"-" reads from standard input, but none is available');
  const chunks: Buffer[] = [];
  for await (const c of io.stdin as AsyncIterable<Buffer | string>) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}
