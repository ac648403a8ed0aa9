/**
 * The tokenizer, shared by the index and the query side so both agree token for token.
 *
 * - Unicode: NFKC normalization and case folding (lower case plus ß → ss, ς → σ); accents are kept.
 * - Latin-script words: English stop words dropped, possessive `'s` dropped, then Porter
 *   stemming with Porter2 (Snowball English, `wink-porter2-stemmer`) for ASCII words ("running" →
 *   "run", "studies" → "studi", "deploy" and "deployment" → "deploy"; Porter v1 made "deploy"
 *   "deploi" and "deployment" "deploy", so neither found the other).
 * - Numbers and dates are kept whole: `2023`, `3.5`, `2026-05-15`, `v2`.
 * - Chinese and Japanese runs are segmented into words with `Intl.Segmenter` (full ICU); when
 *   ICU lacks the CJK dictionaries (small-icu builds) or MEMTIER_CJK=bigram, a run becomes
 *   overlapping character bigrams ("部署失败" → 部署 署失 失败). Single Han characters that
 *   stand alone are kept; CJK stop words dropped.
 * - A finished action said the short way is read as the words it is written with (completion.ts:
 *   升完 → 升级 完成, 部署完了 → 部署 完成), and a title mark 《 or 〈 adds the term 《》 (TITLE_TERM).
 * - Mixed script ("Docker 部署失败") is split into runs first, so each part gets its own rule.
 */
import { toSimplified } from '../format/han.js';
import stem from 'wink-porter2-stemmer';
import { completionRoles, completionTerms, segmentTerms } from './completion.js';
import { CJK_STOP, EN_STOP } from './stopwords.js';

/** Bump when tokenization changes: the on-disk index is rebuilt on mismatch. */
export const TOKENIZER_VERSION = 9;

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc\u3005]+/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
// a date, a number (with . or , groups), or a word (letters/marks/digits, inner apostrophes)
export const LATIN_TOKEN = /\d{4}-\d{2}-\d{2}|\d+(?:[.,:]\d+)*[\p{L}]*|[\p{L}\p{M}][\p{L}\p{M}\p{N}_]*(?:['’][\p{L}]+)*/gu;
const HIRAGANA_ONLY = /^\p{Script=Hiragana}+$/u;
const SPLIT_CJK = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc\u3005]+)/u;

let segMode: 'icu' | 'bigram' | undefined;
let forcedMode: 'icu' | 'bigram' | undefined;
const segmenters = new Map<string, Intl.Segmenter>();

function segmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: 'word' });
    segmenters.set(locale, s);
  }
  return s;
}

/**
 * Which CJK strategy is in force: `icu` (dictionary word breaks) or `bigram`. MEMTIER_CJK=bigram|icu
 * in `env` (ctx.env) forces one; otherwise the runtime is probed once.
 */
export function cjkMode(env: NodeJS.ProcessEnv = {}): 'icu' | 'bigram' {
  if (forcedMode) return forcedMode;
  if (env.MEMTIER_CJK === 'bigram') return 'bigram';
  if (env.MEMTIER_CJK === 'icu') return 'icu';
  if (segMode) return segMode;
  try {
    const parts = [...segmenter('zh').segment('我们讨论部署')].map((p) => p.segment);
    segMode = parts.length >= 2 && parts.length < 6 ? 'icu' : 'bigram';
  } catch {
    segMode = 'bigram';
  }
  return segMode;
}

/**
 * A cheap key for the tokenizer configuration (no ICU probe): the forced mode, or `auto`
 * (probed on first CJK text). Stored in the index manifest so a mode change rebuilds it.
 */
export function tokenizerConfigKey(): string {
  return forcedMode ?? (typeof Intl.Segmenter === 'function' ? 'auto' : 'bigram');
}

/** Force a CJK mode (undefined = detect); search applies MEMTIER_CJK from ctx.env through it. */
export function setCjkMode(mode: 'icu' | 'bigram' | undefined): void {
  forcedMode = mode;
}

function bigrams(run: string, emit: (t: string) => void): void {
  const chars = [...run];
  if (chars.length === 1) {
    if (!CJK_STOP.has(run)) emit(run);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) emit(chars[i]! + chars[i + 1]!);
}

function cjk(run: string, emit: (t: string) => void): void {
  if (cjkMode() === 'bigram') {
    bigrams(run, emit);
    completionTerms(run, emit);
    return;
  }
  const roles = completionRoles(run);
  const seg = segmenter(KANA.test(run) ? 'ja' : 'zh');
  for (const p of seg.segment(run)) {
    if (!p.isWordLike) continue;
    const w = p.segment;
    if (CJK_STOP.has(w)) continue;
    if (w.length <= 2 && HIRAGANA_ONLY.test(w)) continue; // particles and verb endings
    if (roles) segmentTerms(w, p.index, roles, emit);
    else emit(w);
  }
}

/**
 * The term of a title mark: a work named in 《…》 or 〈…〉 (Chinese title marks: books, films, songs,
 * articles, games) gives this term once per title, so a question about a book finds the line that
 * names one (kinds.ts). 「…」 and 『…』 are quotation marks in traditional Chinese and Japanese: no title.
 */
export const TITLE_TERM = '《》';
const TITLE_OPEN = /[《〈]/g;

/**
 * Unicode case folding: NFKC (full-width → ASCII, ligatures), lower case, traditional Chinese
 * characters to simplified (lib/format/han.ts: 機票 and 机票 meet), then the full folds lower-casing
 * misses (ß → ss, final sigma → σ), so "STRASSE", "Straße" and "strasse" meet.
 */
export function fold(text: string): string {
  const t = toSimplified(text.normalize('NFKC').toLowerCase());
  return /[ßς]/.test(t) ? t.replace(/ß/g, 'ss').replace(/ς/g, 'σ') : t;
}

const stemCache = new Map<string, string>();
/** Longer words are kept as they are (not stemmed). */
export const MAX_STEM_LEN = 64;

/** Normalize one Latin-script word: possessive, stop word, stem. Returns '' when dropped. */
export function normalizeWord(w: string): string {
  let t = w.replace(/’/g, "'");
  if (EN_STOP.has(t)) return '';
  if (t.endsWith("'s")) t = t.slice(0, -2);
  else if (t.endsWith("'")) t = t.slice(0, -1);
  if (t.includes("'")) t = t.replace(/'/g, '');
  if (!t || EN_STOP.has(t)) return '';
  if (/^[a-z]+$/.test(t)) {
    let s = stemCache.get(t);
    if (s === undefined) {
      // the stemmer's time grows with the square of a word's length (a 20,000-letter "word" took
      // 12 s and held the watch server's loop): no English word has more than 45 letters
      s = t.length > 2 && t.length <= MAX_STEM_LEN ? stem(t) : t;
      if (stemCache.size < 50_000) stemCache.set(t, s);
    }
    return s;
  }
  return t;
}

/** Each Latin-script word's token ('' when dropped), so an index build normalizes a word once. */
const tokenCache = new Map<string, string>();
const TOKEN_CACHE_MAX = 100_000;

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * `s` as a string of its own: V8 makes a long slice a view into its parent, so a term or cache
 * key kept from a slice would keep the whole text it was cut from (an index build's dictionary
 * would hold every file's text). Concatenating and slicing again leaves a parent one character longer.
 */
export function own(s: string): string {
  return (' ' + s).slice(1);
}

/** The term of a raw Latin-script token (a LATIN_TOKEN match): '' when dropped. Not cached: see latinToken and TokenSink. */
export function latinTerm(raw: string): string {
  return raw.charCodeAt(0) <= 57 ? raw.replace(/[.,:]$/, '') : normalizeWord(raw);
}

/** A raw Latin-script token as a term, through the cache. */
function latinToken(raw: string, out: string[]): void {
  let t = tokenCache.get(raw);
  if (t === undefined) {
    t = own(latinTerm(raw));
    if (tokenCache.size >= TOKEN_CACHE_MAX) tokenCache.clear();
    tokenCache.set(own(raw), t);
  }
  if (t) out.push(t);
}

/**
 * Where tokenizeInto sends the tokens of a text, in order: a Latin-script token as its raw
 * (folded) characters `s[start, end)`, for the sink to map to its term (latinTerm) through a cache
 * of its own, without a string per token; a CJK token as its term.
 */
export interface TokenSink {
  latin(s: string, start: number, end: number): void;
  term(t: string): void;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isLetter = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

/**
 * LATIN_TOKEN's matches in ASCII text, found without the regular expression (an index build
 * tokenizes every word of the memory): a date, a number (with . , : groups) and the letters right
 * after it, or a word (letters, digits, _, and 'letters groups). The text is its bytes b[0, n),
 * with b[n] = 0 (no token character: the scanner reads one byte past a token without a bound
 * check); each token's [start, end) goes to `spans` (room for 2n values), and the number of values
 * written is returned. The same tokens as matchAll(LATIN_TOKEN) on ASCII (tokenize.test.ts compares them).
 */
export function asciiSpans(b: Uint8Array, n: number, spans: Int32Array): number {
  let i = 0;
  let k = 0;
  while (i < n) {
    const c = b[i]!;
    const start = i;
    if (isDigit(c)) {
      if (i + 10 <= n && isDigit(b[i + 1]!) && isDigit(b[i + 2]!) && isDigit(b[i + 3]!) && b[i + 4] === 45 && isDigit(b[i + 5]!) && isDigit(b[i + 6]!) && b[i + 7] === 45 && isDigit(b[i + 8]!) && isDigit(b[i + 9]!)) {
        i += 10;
      } else {
        while (isDigit(b[i]!)) i++;
        for (;;) {
          const d = b[i];
          if ((d === 46 || d === 44 || d === 58) && i + 1 < n && isDigit(b[i + 1]!)) {
            i += 2;
            while (isDigit(b[i]!)) i++;
          } else break;
        }
        while (isLetter(b[i]!)) i++;
      }
    } else if (isLetter(c)) {
      i++;
      for (;;) {
        const d = b[i]!;
        if (isLetter(d) || isDigit(d) || d === 95) i++;
        else break;
      }
      while (b[i] === 39 && i + 1 < n && isLetter(b[i + 1]!)) {
        i += 2;
        while (isLetter(b[i]!)) i++;
      }
    } else { i++; continue; }
    spans[k++] = start;
    spans[k++] = i;
  }
  return k;
}

/** Is `text` ASCII only? */
export function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

/**
 * ASCII `text`'s bytes, lower-cased, in `into` (a larger buffer when it is short, returned) with
 * a 0 after them, ready for asciiSpans.
 */
export function lowerAsciiBytes(text: string, into: Buffer): Buffer {
  const n = text.length;
  const b = into.length > n ? into : Buffer.allocUnsafe(Math.max(n + 1, 2 * into.length));
  b.write(text, 0, n, 'latin1');
  for (let i = 0; i < n; i++) { const c = b[i]!; if (c >= 65 && c <= 90) b[i] = c + 32; }
  b[n] = 0;
  return b;
}

let scanBytes: Buffer = Buffer.allocUnsafe(1024);
let scanSpans = new Int32Array(2048);

/** asciiTokens of ASCII text already folded (lower case), to the sink. */
function asciiTokens(s: string, sink: TokenSink): void {
  const n = s.length;
  const b = (scanBytes = lowerAsciiBytes(s, scanBytes));
  if (scanSpans.length < 2 * n) scanSpans = new Int32Array(2 * n);
  const spans = scanSpans;
  const k = asciiSpans(b, n, spans);
  for (let j = 0; j < k; j += 2) sink.latin(s, spans[j]!, spans[j + 1]!);
}

/** The tokens of `text`, in order, to `sink` (an index build maps them to term numbers). */
export function tokenizeInto(text: string, sink: TokenSink): void {
  // ASCII (most of a memory): NFKC, the Han table and the full folds leave it as it is, and there is no CJK run
  if (!NON_ASCII.test(text)) { asciiTokens(text.toLowerCase(), sink); return; }
  const norm = fold(text);
  const parts = CJK_RUN.test(norm) ? norm.split(SPLIT_CJK) : [norm];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (!part) continue;
    if (parts.length > 1 && i % 2 === 1) { cjk(part, (t) => sink.term(t)); continue; }
    if (!NON_ASCII.test(part)) { asciiTokens(part, sink); continue; }
    if (part.includes('《') || part.includes('〈')) for (let n = part.match(TITLE_OPEN)!.length; n > 0; n--) sink.term(TITLE_TERM);
    for (const m of part.matchAll(LATIN_TOKEN)) sink.latin(part, m.index, m.index + m[0].length);
  }
}

/** Tokens of `text` in order (duplicates kept, for term frequency). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  tokenizeInto(text, { latin: (s, start, end) => latinToken(s.slice(start, end), out), term: (t) => out.push(t) });
  return out;
}

/** Distinct tokens of a query, in first-seen order. */
export function queryTokens(text: string): string[] {
  return [...new Set(tokenize(text))];
}
