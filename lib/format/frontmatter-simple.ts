/**
 * The frontmatter memtier and most people write — `key: value` lines of plain words, quoted
 * strings, dates and `[a, b]` lists — read without YAML: a whole-memory scan (`verify` over
 * 10,000 notes) otherwise spends most of its time in js-yaml.
 *
 * Exact or nothing: a block is read here only when every line is in that small subset, where the
 * result is what parseFrontmatter (gray-matter + js-yaml 3, dates as strings) returns; anything
 * else — a comment, a blank line, a number, `true`, a date that does not exist, a repeated key,
 * a nested value — returns undefined and the caller uses parseFrontmatter, which also reports the
 * errors. test/format/frontmatter-simple.test.ts holds the two to the same answers.
 */
import type { Frontmatter } from './frontmatter.js';

/** Keys: a letter, then letters, digits, `_` or `-` (no `<<` merge key, no `__proto__`). */
const KEY = /^([A-Za-z][A-Za-z0-9_-]{0,63}):(?: +(.*?))? *$/;
/** A plain scalar of ASCII words that YAML resolves as a string (null and booleans are left to YAML). */
const WORDS = /^[A-Za-z][A-Za-z0-9_-]*(?: [A-Za-z0-9_-]+)*$/;
const WORD = /^[A-Za-z][A-Za-z0-9_-]*$/;
const NOT_STRINGS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);
/** Quoted without escapes or characters YAML refuses (control characters, lone surrogates, BOM). */
const DOUBLE = /^"([^"\\\x00-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe\uffff]*)"$/;
const SINGLE = /^'([^'\x00-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe\uffff]*)'$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The longest block read here (FORMAT.md's limit is 64 KB; a block this simple is far smaller). */
const MAX_CHARS = 8192;

function word(s: string): string | undefined {
  return WORD.test(s) && !NOT_STRINGS.has(s) ? s : undefined;
}

/** One value in the subset, or undefined when YAML might read it otherwise. */
function value(raw: string): unknown {
  if (WORDS.test(raw)) return NOT_STRINGS.has(raw) ? undefined : raw;
  const d = DATE.exec(raw);
  if (d) {
    // YAML makes a Date of it (parseFrontmatter writes it back as YYYY-MM-DD); only a real day round-trips
    const t = new Date(Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3])));
    return !Number.isNaN(t.getTime()) && t.toISOString().slice(0, 10) === raw ? raw : undefined;
  }
  const q = DOUBLE.exec(raw) ?? SINGLE.exec(raw);
  if (q) return q[1];
  if (raw.startsWith('[') && raw.endsWith(']')) {
    const inner = raw.slice(1, -1).trim();
    if (!inner) return [];
    const items = inner.split(',').map((x) => word(x.trim()));
    return items.every((x) => x !== undefined) ? items : undefined;
  }
  return undefined;
}

/**
 * The frontmatter of `text` (LF line ends, as decodeStrict returns it) when it opens with a
 * plain `---` and is all simple `key: value` lines; undefined otherwise (then use parseFrontmatter).
 */
export function parseSimpleFrontmatter(text: string): Frontmatter | undefined {
  if (!text.startsWith('---\n')) return undefined;
  const data: Record<string, unknown> = {};
  let start = 4;
  for (let line = 2; ; line++) {
    if (start > MAX_CHARS) return undefined;
    const nl = text.indexOf('\n', start);
    const l = nl < 0 ? text.slice(start) : text.slice(start, nl);
    if (/^---[ \t]*$/.test(l)) {
      return { data, body: nl < 0 ? '' : text.slice(nl + 1), hasFrontmatter: true, bodyLine: line + 1 };
    }
    if (nl < 0) return undefined; // never closed: parseFrontmatter says so
    const m = KEY.exec(l);
    if (!m || m[2] === undefined || Object.hasOwn(data, m[1]!)) return undefined;
    const v = value(m[2]);
    if (v === undefined) return undefined;
    data[m[1]!] = v;
    start = nl + 1;
  }
}
