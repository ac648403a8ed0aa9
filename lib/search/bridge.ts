/**
 * The dictionary bridge: CC-CEDICT (a maintained Chinese–English dictionary, CC BY-SA 4.0) read at
 * query time, for the words the question and the memory do not share across the two languages:
 * 链路追踪 ↔ tracing, 回调 ↔ callback, and through a shared gloss 岳父 ↔ 老丈人 ("father-in-law").
 *
 * - A Chinese word of the question (found by the longest match in the table: the segmenter cuts
 *   a word it does not know into characters) that the memory holds in at most BRIDGE_MAX_DF
 *   entries adds its English glosses, and the Chinese words sharing its first gloss (synonyms
 *   through English);
 * - an English word of the question the memory holds as rarely adds the Chinese words it glosses.
 * Each added word is a secondary term (secondary.ts): below the question's own words, never a
 * filter, shown in `--explain` with where it came from. Only words the memory holds are added, at
 * most BRIDGE_PER_WORD per query word and kind. The hand table of equivalents (equivalents.ts)
 * comes first: a word it already bridges is not looked up here.
 *
 * The table (data/cedict-bridge.tsv, 1.2 MB, made by scripts/cedict-table.mjs) is never loaded
 * whole: a lookup reads the one shard (~5 KB) its key hashes to, the first time a query needs it.
 * A question whose words the memory writes often reads nothing.
 */
import { fileURLToPath } from 'node:url';
import { termHash } from './index-format.js';
import { CJK_STOP } from './stopwords.js';

/** Glosses kept per headword (the first ones: CEDICT lists the common sense first). */
export const MAX_GLOSSES = 3;
/** A headword is listed under the English terms of its first this many glosses (its main senses). */
export const REVERSE_GLOSSES = 2;
/** Headwords kept per English term in the table (the most specific first). */
export const MAX_HEADWORDS = 5;
/** Words added per query word (those the memory holds, in the table's order). */
export const BRIDGE_PER_WORD = 3;
/** A Chinese query word written in at most this many entries is bridged to English (a word with hits is the memory's own). */
export const BRIDGE_MAX_DF = 2;

/**
 * Glosses too common to bridge anything (they gloss hundreds of headwords: 事情 "thing", 时候
 * "time", 已经 "already"): left out of the table by scripts/cedict-table.mjs, as the index's terms.
 */
export const COMMON_GLOSSES = `time times thing things people person way ways make do go come get give take say see know think want look use used find tell ask
work seem feel try leave put keep let begin show hear play run move live believe bring happen write sit stand lose pay meet include continue
set learn change lead understand watch follow stop create speak read allow add spend grow open walk win offer remember love consider appear
good new first last long great little old big high different small large next early young important few bad same right able whole sure
day days year years man men woman women world life hand part place case point group problem fact one two three matter affair business
state situation condition aspect kind type sort method means manner form side area level issue
now already still even ever always often together soon later again once almost quite rather enough
all every each many much more most other another such own here there very well also really just only
thing something anything nothing someone anyone everything everyone`.split(/\s+/).filter(Boolean);

/** The table is read in shards by a hash of the key (shardOf): a lookup reads one shard, ~5 KB. */
export const SHARDS = 256;

/** The shard of a key: the index's term hash (FNV-1a over UTF-16 code units; scripts/cedict-table.mjs groups the lines by it). */
export function shardOf(key: string): number {
  return termHash(key) % SHARDS;
}

const FILE = 'cedict-bridge.tsv';
/** From lib/search/ (sources) and dist/cli/ (bundles): ../../data; from dist/lib/search/: ../../../data. */
const PLACES = ['../../data/', '../../../data/'];

interface Table { fd: number; body: number; offsets: number[]; shards: Map<number, string> }
let table: Table | null | undefined;

/** The table's header (where each shard starts), read once; null when the file is not there (a build without data/). */
function open(): Table | null {
  if (table !== undefined) return table;
  table = null;
  const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
  for (const p of PLACES) {
    let fd: number;
    try { fd = fs.openSync(fileURLToPath(new URL(p + FILE, import.meta.url)), 'r'); } catch { continue; }
    const head = Buffer.alloc(8192);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    const text = head.toString('latin1', 0, n);
    const at = text.indexOf('\n#shards ');
    const end = at < 0 ? -1 : text.indexOf('\n', at + 1);
    if (end < 0) { fs.closeSync(fd); continue; }
    const offsets = text.slice(at + 9, end).split(' ').map(Number);
    if (offsets.length !== SHARDS + 1 || offsets.some((o) => !Number.isInteger(o))) { fs.closeSync(fd); continue; }
    table = { fd, body: end + 1, offsets, shards: new Map() };
    break;
  }
  return table;
}

/** Has the table been opened in this process (for the cold-start test)? */
export function bridgeLoaded(): boolean {
  return !!table;
}

/** The values of `key`'s line ('' when none). */
function lookup(key: string): string {
  const t = open();
  if (!t) return '';
  const s = shardOf(key);
  let text = t.shards.get(s);
  if (text === undefined) {
    const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
    const from = t.offsets[s]!;
    const buf = Buffer.alloc(t.offsets[s + 1]! - from);
    fs.readSync(t.fd, buf, 0, buf.length, t.body + from);
    text = '\n' + buf.toString('utf8');
    t.shards.set(s, text);
  }
  const at = text.indexOf(`\n${key}\t`);
  if (at < 0) return '';
  const from = at + key.length + 2;
  const end = text.indexOf('\n', from);
  return text.slice(from, end < 0 ? text.length : end);
}

/** A Chinese headword's English glosses, in dictionary order ("链路" → ["link"]). */
export function glossesOf(word: string): string[] {
  const v = lookup(word);
  return v ? v.split('|') : [];
}

/** The Chinese headwords glossed by an English term (its stem, or a hyphenated word as written: "trace", "father-in-law"). */
export function headwordsOf(term: string): string[] {
  const v = lookup(term);
  return v ? v.split(' ') : [];
}

const HAN_RUN = /\p{Script=Han}+/gu;
const HAN = /\p{Script=Han}/u;
/** The single-character Chinese stop words (stopwords.ts): particles, pronouns, prepositions. */
const PARTICLE = new Set([...CJK_STOP].filter((w) => w.length === 1));
const HYPHENATED = /[a-z]+(?:-[a-z]+)+/g;
const LATIN = /^[a-z][a-z'-]*$/;

/** A bridged word: its tokens, as written, and the query word and gloss it came from. */
export interface BridgeTerm { tokens: string[]; word: string; from: string; gloss: string }

/**
 * The dictionary's words in a Chinese run, by the longest match in the table (3 characters, then
 * 2; a character no word starts at is skipped): the tokenizer's segmenter cuts words it does not
 * know into characters (链路 → 链 路), the dictionary knows them.
 */
export function dictionaryWords(run: string): string[] {
  const chars = [...run];
  const out: string[] = [];
  for (let i = 0; i < chars.length - 1;) {
    let taken = 0;
    for (const n of [3, 2]) {
      if (i + n > chars.length) continue;
      const w = chars.slice(i, i + n).join('');
      if (glossesOf(w).length) { out.push(w); taken = n; break; }
    }
    i += taken || 1;
  }
  return out;
}

/**
 * The dictionary's secondary terms for a query. `text` is the query's folded text (time phrases
 * out), `asked` its tokens, `have` the terms already searched (not added again; the added ones
 * join it), `covered` the words the equivalents table already bridged, `df` the entries holding
 * all of a word's tokens.
 */
export function bridgeTerms(text: string, asked: string[], have: Set<string>, covered: Set<string>, tokenize: (s: string) => string[], df: (tokens: string[]) => number): BridgeTerm[] {
  const out: BridgeTerm[] = [];
  // a Chinese headword as the index holds it: whole when the segmenter knows it, else its
  // characters (it cuts a word it does not know so: 回调 → 回 调); never the segmenter itself,
  // whose dictionary an English query in an English memory would load for nothing (~40 ms)
  const hanTokens = (h: string): string[] => (df([h]) > 0 ? [h] : [...h]);
  const add = (word: string, from: string, gloss: string, room: { n: number }): void => {
    if (room.n <= 0) return;
    const tokens = HAN.test(word) ? hanTokens(word) : tokenize(word);
    const key = tokens.join(' ');
    if (!tokens.length || have.has(key) || df(tokens) === 0) return;
    have.add(key);
    out.push({ tokens, word, from, gloss });
    room.n--;
  };
  for (const run of text.match(HAN_RUN) ?? []) {
    for (const w of dictionaryWords(run)) {
      // a word the memory writes in its own language is found as it is (and a stop word is none)
      const own = tokenize(w);
      // a word that starts or ends in a particle (到了 in 查到了吗) is the longest match running
      // across a word's end, not a word of the question
      if (!own.length || PARTICLE.has(w[0]!) || PARTICLE.has(w.at(-1)!) || covered.has(w) || df(own) > BRIDGE_MAX_DF) continue;
      const glosses = glossesOf(w);
      const room = { n: BRIDGE_PER_WORD };
      for (const g of glosses) add(g, w, g, room);
      // its synonyms through its first gloss, its main sense (岳父 → "father-in-law" → 老丈人)
      const synonyms = { n: BRIDGE_PER_WORD };
      const main = glosses[0];
      const key = main === undefined ? undefined : main.includes('-') ? main : tokenize(main)[0];
      if (key) for (const h of headwordsOf(key)) if (h !== w) add(h, w, main!, synonyms);
    }
  }
  // an English word the memory writes often is found as it is (as a Chinese one); only the Chinese
  // words the memory holds are added (df): a memory without Chinese adds none
  const english = [...(text.match(HYPHENATED) ?? []), ...asked.filter((w) => LATIN.test(w))].filter((w) => !covered.has(w) && df(tokenize(w)) <= BRIDGE_MAX_DF);
  for (const w of english) {
    const room = { n: BRIDGE_PER_WORD };
    for (const h of headwordsOf(w)) add(h, w, w, room);
  }
  return out;
}
