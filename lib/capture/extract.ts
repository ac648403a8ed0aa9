/**
 * Extraction (seed 002, keyword mode): conversation text → proposed typed entries, with no model
 * call. Each sentence goes through, in order:
 *
 *   private      a "don't remember" marker: this sentence and the next are never proposed
 *   secret       a credential (the store's secret table)
 *   noise        greetings, thanks, acknowledgements, transient chatter
 *   question     a question is not a fact
 *   speculation  might, maybe, 可能, 也许 …
 *   short        under 10 characters (a CJK character counts as two)
 *   type rules   lib/capture/rules.ts, first match wins → a proposal; none → "no-rule" (they read
 *                a quotation as empty: `Kim said "we're switching to Notion"` is not the writer's)
 *   importance   below 0.45 (importance()) → "low-importance"
 *
 * A proposal's text has its relative dates made absolute against the clock, its tags come from
 * memory/TAGS.md only, and its home is the type's canonical file. What is left out for privacy
 * (private, secret) is reported by reason and position only: its text is never in the result.
 */
import { toSimplified } from '../format/han.js';
import { nativeFirst } from '../core/regexp.js';
import { CANONICAL_HOME, type EntryType } from '../format/entry.js';
import { displayWidth } from '../format/width.js';
import { scanSecrets } from '../store/guards/secrets.js';
import { absoluteDates } from './dates.js';
import { anyMatches, caseless, matches, NOISE, PRIVATE_MARKERS, QUESTION, SPECULATION, TYPE_RULES } from './rules.js';

export interface Message { role: string; content: string }

export interface Position {
  /** 0-based index of the message in the input. */
  message: number;
  /** 0-based index of the sentence in that message. */
  sentence: number;
}

export interface Proposal extends Position {
  type: EntryType;
  /** The sentence as it will be written (relative dates made absolute). */
  text: string;
  tags: string[];
  /** The type's canonical home (FORMAT.md). */
  home: string;
  /** The rule that fired (lib/capture/rules.ts). */
  rule: string;
  /** Days named in the sentence, absolute. */
  dates: string[];
  /** How much it is worth keeping (importance(): type, specifics, an explicit "remember"). */
  importance: number;
}

/** Below this a typed sentence is skipped as "low-importance". */
export const IMPORTANCE_THRESHOLD = 0.45;
const TYPE_BASE: Record<string, number> = { DECISION: 0.55, LESSON: 0.55, PREF: 0.55, PEOPLE: 0.5, EVENT: 0.5, PROJ: 0.45, TECH: 0.4, TEMP: 0.3 };

/**
 * A word that starts with a capital and goes on with a letter, digit or "-" (/^[A-Z][\p{L}\d-]/u).
 * An ASCII second character is decided without the pattern: compiling \p{L} (every letter of
 * Unicode) is costly in a cold process, and most words are ASCII.
 */
function capitalized(w: string): boolean {
  const c0 = w.charCodeAt(0);
  if (!(c0 >= 65 && c0 <= 90) || w.length < 2) return false;
  const c = w.charCodeAt(1);
  if (c < 128) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45;
  return /^[A-Z][\p{L}\d-]/u.test(w);
}

/**
 * A proposal's importance: its type's base (decisions, lessons and preferences matter most; a
 * tool or host named without anything specific least), +0.1 for a number or a date, +0.1 for a
 * name or technical term (a capitalized word after the first, a dotted or mixed-case term, Latin
 * words inside Chinese), +0.1 for a sentence of 20 or more characters (CJK counting two), +0.2
 * when the text asks to remember it. Documented threshold: 0.45, so a
 * TECH sentence needs something specific ("we use it" is skipped, "we use Grafana" kept).
 */
export function importance(type: string, text: string, rule: string): number {
  let s = TYPE_BASE[type] ?? 0.4;
  if (/\d/.test(text)) s += 0.1;
  const words = text.split(/\s+/);
  const han = /[\u3400-\u9fff]/.test(text);
  if (words.slice(1).some(capitalized) || /\b\w+\.\w+\b|\b[a-z]+[A-Z]\w*\b/.test(text) || (han && /[A-Za-z]{2,}/.test(text))) s += 0.1;
  if (width(text) >= 20) s += 0.1; // a sentence of some length says something particular
  if (rule.startsWith('remember')) s += 0.2;
  return Math.round(s * 100) / 100;
}

export type SkipReason = 'private' | 'secret' | 'noise' | 'question' | 'speculation' | 'short' | 'no-rule' | 'low-importance' | 'repeated';

export interface Skip extends Position {
  reason: SkipReason;
  /** The sentence; absent for privacy skips (private, secret), which are never echoed. */
  text?: string;
  /** For a secret: the rule of the secret table (never the value). */
  rule?: string;
}

export interface Extraction { proposals: Proposal[]; skipped: Skip[] }

export interface ExtractOptions {
  now: Date;
  tz: string;
  /** memory/TAGS.md's vocabulary (lower-case); no tags when empty. */
  vocabulary?: Set<string>;
  /** Roles whose messages are read (default: user). */
  roles?: string[];
  /** The day the text was written (YYYY-MM-DD) when it is not the clock's: relative dates in a note of a past day ("明天", "tomorrow") are read against it. */
  day?: string;
}

export const MIN_CHARS = 10;

/** Display width: a CJK character counts as two. */
export const width = displayWidth;

/** The sentences of a message: split at line ends and sentence ends (., !, ?, ;, 。, ！, ？, ；). */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const rawLine of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = rawLine.replace(/^\s*(?:[-*+•]|\d+[.)])\s+/, '').replace(/^#+\s+/, '').trim();
    if (!line) continue;
    // a sentence end: ". " / "! " / "? " / "; " before more text, or a CJK end mark anywhere
    const parts = line.split(/(?<=[.!?;](?=\s+\S))\s+|(?<=[。！？；])/u);
    for (const p of parts) {
      const s = p.trim();
      if (s) out.push(s);
    }
  }
  return out;
}

const FILLER = /^(?:so|ok(?:ay)?|well|um+|uh+|also|and|btw|by the way|oh)[,\s]+/i;
/** A sentence without its leading filler word ("so, …", "ok …"); the pattern, an `i` one, is tried only where it can match (a Latin first letter): compiled for Chinese text it costs a case table per letter. */
const clean = (s: string): string => {
  const t = s.replace(/\s+/g, ' ');
  const c = t.charCodeAt(0) | 0x20;
  return (c >= 97 && c <= 122 ? t.replace(FILLER, '') : t).replace(/^[,，\s]+/, '').trim();
};

// eslint-disable-next-line no-control-regex
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * The key two sentences repeat each other by: lower case without spaces and punctuation (what
 * /[\s\p{P}]+/gu removes). ASCII text is keyed by an ASCII pattern (the same characters), other
 * text a character at a time, the characters spaceOrPunct answers for without compiling \p{P}:
 * built, its set of Unicode's punctuation cost a cold extract of Chinese text ~3M instructions.
 */
export const repeatKey = (text: string): string => {
  const lower = text.toLowerCase();
  if (ASCII_ONLY.test(lower)) return lower.replace(/[\t-\r !-#%-*,-/:;?@[-\]_{}]+/g, '');
  let out = '';
  let from = 0;
  for (let i = 0; i < lower.length;) {
    const cp = lower.codePointAt(i)!;
    const n = cp > 0xffff ? 2 : 1;
    if (spaceOrPunct(cp) ?? (spaceOrPunctRe ??= /^[\s\p{P}]$/u).test(String.fromCodePoint(cp))) {
      out += lower.slice(from, i);
      from = i + n;
    }
    i += n;
  }
  return out + lower.slice(from);
};

/** One space or punctuation mark of any script (made on first use: creating it already builds its Unicode tables). */
let spaceOrPunctRe: RegExp | undefined;

/** Blocks spaceOrPunct answers for beyond ASCII: Latin-1, general punctuation, CJK symbols and kana, CJK compatibility and small forms, half- and full-width forms. */
const PUNCT_BLOCKS = [0x80, 0xff, 0x2000, 0x206f, 0x3000, 0x30ff, 0xfe10, 0xfe1f, 0xfe30, 0xfe6f, 0xff00, 0xffef];
/** The spaces and punctuation marks of those blocks, as ranges (first, last, …). */
const PUNCT_RANGES = [
  0xa0, 0xa1, 0xa7, 0xa7, 0xab, 0xab, 0xb6, 0xb7, 0xbb, 0xbb, 0xbf, 0xbf, 0x2000, 0x200a, 0x2010, 0x2029, 0x202f, 0x2043, 0x2045, 0x2051,
  0x2053, 0x205f, 0x3000, 0x3003, 0x3008, 0x3011, 0x3014, 0x301f, 0x3030, 0x3030, 0x303d, 0x303d, 0x30a0, 0x30a0, 0x30fb, 0x30fb,
  0xfe10, 0xfe19, 0xfe30, 0xfe52, 0xfe54, 0xfe61, 0xfe63, 0xfe63, 0xfe68, 0xfe68, 0xfe6a, 0xfe6b, 0xff01, 0xff03, 0xff05, 0xff0a,
  0xff0c, 0xff0f, 0xff1a, 0xff1b, 0xff1f, 0xff20, 0xff3b, 0xff3d, 0xff3f, 0xff3f, 0xff5b, 0xff5b, 0xff5d, 0xff5d, 0xff5f, 0xff65,
];

/**
 * Whether a character is a space or punctuation (/[\s\p{P}]/u), for ASCII, the CJK ideographs
 * (none is) and PUNCT_BLOCKS, without compiling \p{P}; undefined for any other character. A test
 * checks every character it answers for against the pattern.
 */
export function spaceOrPunct(cp: number): boolean | undefined {
  if (cp < 0x80) return (cp >= 9 && cp <= 13) || cp === 32 || (cp >= 33 && cp <= 47 && cp !== 36 && cp !== 43) || (cp >= 58 && cp <= 64 && cp !== 60 && cp !== 61 && cp !== 62) || (cp >= 91 && cp <= 96 && cp !== 94 && cp !== 96) || cp === 123 || cp === 125;
  if ((cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf)) return false;
  for (let b = 0; b < PUNCT_BLOCKS.length; b += 2) {
    if (cp < PUNCT_BLOCKS[b]! || cp > PUNCT_BLOCKS[b + 1]!) continue;
    for (let r = 0; r < PUNCT_RANGES.length; r += 2) if (cp >= PUNCT_RANGES[r]! && cp <= PUNCT_RANGES[r + 1]!) return true;
    return false;
  }
  return undefined;
}

/** One letter or digit of any script (made on first use: creating it already builds its Unicode tables). */
let letterOrDigit: RegExp | undefined;

/**
 * Whether a character of Chinese text is a letter or digit, for the characters that text is
 * mostly made of, without compiling \p{L}\p{N} (a cold process's largest pattern): the CJK
 * ideograph blocks (every one a letter, Lo), the ideographic space and punctuation U+3000–3004 and
 * U+3008–3020, and the full-width punctuation marks (none a letter or digit). Undefined for any
 * other character. A test checks every character it answers for against the Unicode pattern.
 */
export function cjkLetter(cp: number): boolean | undefined {
  if ((cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf)) return true;
  if ((cp >= 0x3000 && cp <= 0x3004) || (cp >= 0x3008 && cp <= 0x3020)) return false;
  if ((cp >= 0xff01 && cp <= 0xff0f) || (cp >= 0xff1a && cp <= 0xff20) || (cp >= 0xff3b && cp <= 0xff40) || (cp >= 0xff5b && cp <= 0xff65)) return false;
  return undefined;
}

/**
 * What /[\p{L}\p{N}][\p{L}\p{N}_/-]*\/gu matches in `text`: runs that start with a letter or digit
 * and go on over letters, digits, "_", "/" and "-". Scanned by hand, each character outside ASCII
 * tested alone: compiled, that pattern is ~3,300 bytecodes over two of Unicode's largest tables, and
 * a cold process paid for it (with its tier-up) on the first non-ASCII sentence naming a tag.
 */
export function unicodeWords(text: string): Set<string> {
  const out = new Set<string>();
  let start = -1;
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    const ln = cp < 128 ? (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122) : cjkLetter(cp) ?? (letterOrDigit ??= /^[\p{L}\p{N}]$/u).test(String.fromCodePoint(cp));
    if (start < 0) {
      if (ln) start = i;
    } else if (!ln && cp !== 95 && cp !== 47 && cp !== 45) {
      out.add(text.slice(start, i));
      start = -1;
    }
    i += cp > 0xffff ? 2 : 1;
  }
  if (start >= 0) out.add(text.slice(start));
  return out;
}

/** Wikilinks as the names they show: `[[Priya]]` → Priya, `[[Priya Shah|Priya]]` → Priya (Obsidian, Logseq). */
function unlinked(text: string): string {
  return text.replace(/\[\[([^\]|]*)(?:\|([^\]]*))?\]\]/g, (_m, target: string, shown: string | undefined) => shown ?? target);
}

/** A double quotation mark that opens a quotation: straight, curly, CJK corner brackets. */
const QUOTE_MARK = /["\u201c\u300c\u300e]/;

/**
 * The text without what it quotes ("…", “…”, 「…」, 『…』 emptied): a quotation is someone's words
 * (`Kim said "we're switching to Notion" but nobody agreed`, 小金说“以后都放Notion”), not what
 * the writer decided, prefers or learned. An unclosed mark is left as it is.
 */
function unquoted(text: string): string {
  return text.replace(/"[^"]*"|\u201c[^\u201d]*\u201d|\u300c[^\u300d]*\u300d|\u300e[^\u300f]*\u300f/g, (q) => q[0] + (q.at(-1) ?? ''));
}

/**
 * The vocabulary as tagsIn reads it: its tags in order, which are CJK (found as substrings), made
 * once. An array walked by index: a cold process runs tagsIn in the interpreter, where a `for…of`
 * over the Set allocated a result object per tag per sentence (~160 KB of young garbage on 200
 * messages, a scavenge of its own).
 */
const tagLists = new WeakMap<Set<string>, { tags: string[]; cjk: boolean[] }>();

/** Tags of the vocabulary the sentence names (whole words; CJK tags as substrings), at most 3, in the vocabulary's order. */
export function tagsIn(text: string, vocabulary: Set<string> | undefined): string[] {
  if (!vocabulary?.size) return [];
  let v = tagLists.get(vocabulary);
  if (!v) {
    const tags = [...vocabulary].filter((t) => t.length >= 2 && t !== 'friction');
    v = { tags, cjk: tags.map((t) => /[\u3000-\u9fff]/.test(t)) };
    tagLists.set(vocabulary, v);
  }
  const lower = text.toLowerCase();
  let words: Set<string> | undefined;
  const out: string[] = [];
  for (let i = 0; i < v.tags.length && out.length < 3; i++) {
    const t = v.tags[i]!;
    if (!lower.includes(t)) continue; // a whole word is a substring too: most tags are not even that
    if (v.cjk[i]) out.push(t);
    else {
      // ASCII text: letters and digits are [a-z0-9] (no \p{L}, \p{N} to compile)
      words ??= ASCII_ONLY.test(lower) ? new Set(lower.match(/[a-z0-9][a-z0-9_/-]*/g) ?? []) : unicodeWords(lower);
      if (words.has(t)) out.push(t);
    }
  }
  return out;
}

export function extract(messages: Message[], o: ExtractOptions): Extraction {
  const roles = new Set((o.roles ?? ['user']).map((r) => r.toLowerCase()));
  const proposals: Proposal[] = [];
  const skipped: Skip[] = [];
  const seen = new Set<string>();
  let privateNext = false;
  messages.forEach((msg, mi) => {
    if (!roles.has(String(msg.role).toLowerCase())) return;
    sentences(String(msg.content ?? '')).forEach((raw, si) => {
      const pos = { message: mi, sentence: si };
      const marked = anyMatches(PRIVATE_MARKERS, toSimplified(raw));
      if (marked || privateNext) {
        skipped.push({ ...pos, reason: 'private' });
        privateNext = marked;
        return;
      }
      const secret = scanSecrets(raw)[0];
      if (secret) { skipped.push({ ...pos, reason: 'secret', rule: secret.rule }); return; }
      const text = clean(raw);
      const skip = (reason: SkipReason): void => { skipped.push({ ...pos, reason, text }); };
      const lower = caseless(text);
      const simple = toSimplified(text); // 嗎 is 吗 to the filters too
      if (anyMatches(NOISE, simple, lower)) return skip('noise');
      if (anyMatches(QUESTION, simple, lower)) return skip('question');
      if (anyMatches(SPECULATION, simple, lower)) return skip('speculation');
      if (width(text) < MIN_CHARS) return skip('short');
      // a rule of one script is not tried on text without that script (no compile, no scan)
      const han = /[\u3400-\u9fff]/.test(text);
      const latin = /[A-Za-z]/.test(text);
      // the rules read a wikilinked name as the name ("[[Priya]] owns the website" is "Priya owns
      // the website"); the proposal keeps the link as written
      // and what the sentence quotes as someone's words (Kim said "we're switching to Notion") is
      // not the writer's decision, preference or lesson: the rules read it without the quotation
      const linked = text.includes('[[') ? unlinked(text) : text;
      const unq = QUOTE_MARK.test(linked) ? unquoted(linked) : linked;
      // traditional characters read as simplified (same length, format/han.ts): 我們決定 is 我们决定
      // to rules written in simplified; the proposal keeps the text as written
      const probe = han ? toSimplified(unq) : unq;
      const probeLower = probe === text ? lower : caseless(probe);
      const rule = TYPE_RULES.find((r) => (r.script === 'zh' ? han : r.script === 'en' ? latin : true) && (r.needs === undefined || (typeof r.needs === 'string' ? probe.includes(r.needs) : typeof r.needs === 'function' ? r.needs(probe) : r.needs.test(probe))) && (r.caseless ? matches(r.re, probe, probeLower) : nativeFirst(r.re).test(probe)));
      if (!rule) return skip('no-rule');
      const score = importance(rule.type, text, rule.id);
      if (score < IMPORTANCE_THRESHOLD) return skip('low-importance');
      const key = repeatKey(text);
      if (seen.has(key)) return skip('repeated');
      seen.add(key);
      const abs = absoluteDates(text.replace(/[.;。；]+$/u, ''), o.now, o.tz, { bareWeekdays: rule.type === 'EVENT', ...(o.day ? { today: o.day } : {}) });
      proposals.push({ ...pos, type: rule.type, text: abs.text, tags: tagsIn(text, o.vocabulary), home: CANONICAL_HOME[rule.type], rule: rule.id, dates: abs.dates, importance: score });
    });
  });
  return { proposals, skipped };
}
