/**
 * Text guards: what may be written into a memory file, and what may be read from one.
 */
import { MemtierError } from '../../core/errors.js';
import { Buffer, isUtf8 } from 'node:buffer';
import { sanitizeText } from '../../format/text.js';

/** Largest memory file memtier reads or writes. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Largest single appended entry. One write() of this size is atomic in practice on local filesystems. */
export const MAX_ENTRY_BYTES = 16 * 1024;

/** Bidi embedding, override and isolate controls (U+202A-202E, U+2066-2069): text that displays in another order than it reads. */
export const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;

/**
 * Normalize text for writing: the format layer's `sanitizeText` (lib/format/text.ts): CRLF/CR → LF,
 * terminal escapes removed whole, other control and bidi characters stripped. Stripped, not
 * refused: a person's hand-written line holding one must not stop rotation or archiving.
 */
export { sanitizeText };

/** Is this UTF-16 code unit shown escaped: C0 controls but TAB and LF, DEL, C1 controls, bidi controls? */
function hidden(c: number): boolean {
  return (c < 0x20 && c !== 0x09 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/** Replace the code units `hidden` selects (and, with `alsoC0` false, only non-C0 ones) by `\\uXXXX`. */
/** Does the text hold a code unit `hidden` selects (with or without the C0 controls)? A native scan: most output holds none. */
// eslint-disable-next-line no-control-regex
const ANY_HIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
const ANY_HIDDEN_BUT_C0 = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

function escapeHidden(text: string, alsoC0: boolean): string {
  if (!(alsoC0 ? ANY_HIDDEN : ANY_HIDDEN_BUT_C0).test(text)) return text;
  let out: string | undefined;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!hidden(c) || (!alsoC0 && c < 0x20)) continue;
    out = (out ?? '') + text.slice(from, i) + `\\u${c.toString(16).padStart(4, '0')}`;
    from = i + 1;
  }
  return out === undefined ? text : out + text.slice(from);
}

/**
 * Text shown on a terminal: control characters (ESC included, so no escape sequence reaches the
 * terminal), and bidi controls appear as visible `\\u001b`-style escapes. TAB and LF are kept.
 */
export function printable(text: string): string {
  return escapeHidden(text, true);
}

/** JSON output: the same string values, with C1 and bidi controls written as `\\u202e` escapes (JSON.stringify escapes the C0 controls itself). */
export function printableJson(json: string): string {
  return escapeHidden(json, false);
}

/**
 * Characters that do not show, or show as a plain space, on a terminal: controls, format characters
 * (zero-width space, joiners, bidi marks, soft hyphen), the other default-ignorable code points
 * (Hangul fillers, variation selectors, U+034F) and every space but U+0020. The Hangul fillers
 * (U+115F, U+1160, U+3164, U+FFA0) are also named: not every engine's Unicode tables count them
 * default-ignorable. The secret scanner removes the same set (IGNORABLE in ./secrets.ts).
 */
const INVISIBLE_SOURCE = '[\\p{Cc}\\p{Cf}\\p{Default_Ignorable_Code_Point}\\p{Zs}\\p{Zl}\\p{Zp}\\u115f\\u1160\\u3164\\uffa0]';
/** Made on first use: their Unicode tables cost a cold process that never quotes a value. */
let invisible: RegExp | undefined;
let invisibleG: RegExp | undefined;

/** Does `text` hold a character showInvisible escapes? */
export function hasInvisible(text: string): boolean {
  return (invisible ??= new RegExp(INVISIBLE_SOURCE, 'u')).test(text.replace(/ /g, ''));
}

/**
 * `text` with every invisible character (INVISIBLE, but the plain space) written as its escape,
 * `\u200b` (`\u{e0041}` past U+FFFF): a value quoted back in a message shows what it holds, so
 * a look-alike ("infra\u200bstructure") is told from the real one.
 */
export function showInvisible(text: string): string {
  return text.replace((invisibleG ??= new RegExp(INVISIBLE_SOURCE, 'gu')), (c) => {
    if (c === ' ') return c;
    const cp = c.codePointAt(0)!;
    return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
  });
}

/**
 * UTF-8 validated by node:buffer's isUtf8 and decoded by Buffer: what a fatal TextDecoder does,
 * without loading Node's encoding module and an ICU converter in every cold process.
 */
function decodeUtf8(buf: Uint8Array): string | undefined {
  if (!isUtf8(buf)) return undefined;
  const text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // TextDecoder drops one BOM
}

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
  let text = decodeUtf8(buf);
  if (text === undefined) {
    throw new MemtierError('file is not valid UTF-8', { code: 'encoding', rule: 'utf-8', file, line: firstBadUtf8Line(buf), hint: 're-save the file as UTF-8' });
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
      if (!isUtf8(buf.subarray(start, i))) return line;
      start = i + 1;
      line++;
    }
  }
  return line;
}
