/**
 * Text guards: what may be written into a memory file, and what may be read from one.
 */
import { MemtierError } from '../../core/errors.js';

/** Largest memory file memtier reads or writes. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Largest single appended entry. One write() of this size is atomic in practice on local filesystems. */
export const MAX_ENTRY_BYTES = 16 * 1024;

// C0 controls except TAB and LF (CR is normalized away first), DEL, C1 controls.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Normalize text for writing: CRLF/CR → LF, strip control characters (NUL included). */
export function sanitizeText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL, '');
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Decode a file's bytes strictly: refuses NUL bytes (binary), invalid UTF-8 and oversized files,
 * naming the file and the line. Strips a UTF-8 BOM; normalizes CRLF to LF.
 */
export function decodeStrict(buf: Uint8Array, file: string): string {
  if (buf.length > MAX_FILE_BYTES) {
    throw new MemtierError(`file is ${buf.length} bytes, over the ${MAX_FILE_BYTES}-byte limit`, { code: 'oversized', rule: 'max-file-size', file, hint: 'split it into smaller notes, or archive old parts' });
  }
  const nul = buf.indexOf(0);
  if (nul >= 0) {
    throw new MemtierError('file contains a NUL byte (binary, not markdown)', { code: 'binary', rule: 'no-binary', file, line: lineAt(buf, nul), hint: 'move binary files out of the memory root' });
  }
  let text: string;
  try {
    text = decoder.decode(buf);
  } catch (e) {
    throw new MemtierError('file is not valid UTF-8', { code: 'encoding', rule: 'utf-8', file, line: firstBadUtf8Line(buf), hint: 're-save the file as UTF-8', cause: e });
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

function lineAt(buf: Uint8Array, index: number): number {
  let n = 1;
  for (let i = 0; i < index && i < buf.length; i++) if (buf[i] === 10) n++;
  return n;
}

function firstBadUtf8Line(buf: Uint8Array): number {
  let start = 0;
  let line = 1;
  for (let i = 0; i <= buf.length; i++) {
    if (i === buf.length || buf[i] === 10) {
      try { decoder.decode(buf.subarray(start, i)); } catch { return line; }
      start = i + 1;
      line++;
    }
  }
  return line;
}
