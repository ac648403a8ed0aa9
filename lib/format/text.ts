/**
 * What text may hold once written: no control characters, no terminal escapes, no bidi controls.
 * One rule, applied where a command builds an entry line (`oneLine`, so the line it reports is the
 * line stored) and again by the store on every write (lib/store/guards/text.ts).
 */

// C0 controls except TAB and LF (CR is normalized away first), DEL, C1 controls.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** A whole terminal escape sequence: CSI (ESC [ … final byte, or C1 CSI) and OSC (ESC ] … BEL or ESC \\). */
const ANSI = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[\u0020-\u002f]*[\u0030-\u007e]/g;
/** Bidi embedding, override and isolate controls (U+202A-202E, U+2066-2069). */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * Normalize text for writing: CRLF/CR → LF, terminal escape sequences removed whole
 * (`ESC[31m` leaves nothing behind), other control characters (NUL included) and bidi
 * embedding/override/isolate characters (text that displays in another order than it reads)
 * stripped.
 */
export function sanitizeText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(ANSI, '').replace(CONTROL, '').replace(BIDI_CONTROLS, '');
}
