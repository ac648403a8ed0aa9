/**
 * Secondary query terms: words the question does not contain, searched below the question's own.
 * Two sources:
 *
 * - `also`: alternates the caller names (`--also`, the tools' `alternates`): an agent is a model
 *   and can give the other language's words, abbreviations and likely wordings in the same call;
 * - `cedict`: the dictionary bridge (bridge.ts): a Chinese word the memory rarely writes, read as
 *   its English glosses and its synonyms through them; an English word, as the Chinese words it glosses.
 *
 * How they weigh (search.ts): a secondary term weighs its source's share of its idf (ALSO_WEIGHT,
 * BRIDGE_WEIGHT), and its BM25 is added to the entry's; a term the question already holds is not
 * added again (a word counts once), and a secondary term never counts toward file coverage (the
 * share of the question's weight an entry's file holds, up to ×2) nor as a tag hit, never filters,
 * and goes through none of the question's readings (equivalents, kinds, time, intent). So an
 * entry holding a question word outranks one holding an alternate of the same rarity, and an entry
 * whose file covers the question outranks one found by alternates alone, while an alternate still
 * brings in an entry the question's words miss. Measured on test/fixtures/paraphrase (50
 * questions, alternates written blind): the alternates appended to the query (the first
 * try) gave hit@1/hit@5 0.80/1.00 but lost 2 of the 27 questions found first without them; added
 * as here at 0.9, 0.86/0.98 and lost none; at 0.7, 0.78/0.98. Tried and left out: scaling the
 * alternates' idf mass down to the question's (0.68/0.92: a short question muted them where they
 * were needed), max(question, alternates) instead of the sum (0.84/0.98), capping their part at
 * the question's weight (0.70-0.78), and muting them by how well the question's words were found
 * (0.74/0.92): none lost a question either.
 *
 * A word the tokenizer cuts in pieces (链路 → 链 路, "father-in-law" → father law) is searched as
 * all of its pieces in one entry.
 */
import type { IndexView } from './corpus.js';
import { bridgeTerms } from './bridge.js';

/** An alternate's share of its idf: just below a question word's (and without its file coverage). */
export const ALSO_WEIGHT = 0.9;
/** A dictionary term's share of its idf: below the hand table's equivalents (EQUIVALENT_WEIGHT 0.5), a dictionary's gloss being a guess. */
export const BRIDGE_WEIGHT = 0.4;
/** At most this many alternate terms are searched (the first ones): a list, not a document. */
export const MAX_ALSO_TERMS = 32;

export interface SecondaryTerm {
  /** The index terms an entry must all hold (one for most words; the pieces of a word the tokenizer cuts). */
  tokens: string[];
  /** The word as searched ("trace", "链路", "father-in-law"). */
  word: string;
  source: 'also' | 'cedict';
  /** For a dictionary term: the query word and the gloss it came through ("追踪 → trace"). */
  via?: string;
  /** Its weight in the ranking: its idf × its source's weight (× the alternates' scale). */
  weight: number;
}

/** The entries holding every one of `tokens`, as slot postings (slot, tf << 1) with tf the least of theirs. */
export function phrasePostings(view: IndexView, tokens: string[]): Int32Array[] {
  if (!tokens.length) return [];
  if (tokens.length === 1) return view.slotPostings(tokens[0]!);
  const byDf = [...tokens].sort((a, b) => view.df(a) - view.df(b));
  if (view.df(byDf[0]!) === 0) return [];
  let tf = new Map<number, number>();
  for (const c of view.slotPostings(byDf[0]!)) for (let i = 0; i < c.length; i += 2) tf.set(c[i]!, c[i + 1]! >> 1);
  for (const t of byDf.slice(1)) {
    const next = new Map<number, number>();
    for (const c of view.slotPostings(t)) for (let i = 0; i < c.length; i += 2) { const have = tf.get(c[i]!); if (have !== undefined) next.set(c[i]!, Math.min(have, c[i + 1]! >> 1)); }
    tf = next;
    if (!tf.size) return [];
  }
  const slots = [...tf.keys()].sort((a, b) => a - b);
  const out = new Int32Array(slots.length * 2);
  slots.forEach((s, i) => { out[2 * i] = s; out[2 * i + 1] = tf.get(s)! << 1; });
  return [out];
}

/** Live entries holding every one of `tokens`. */
export function phraseDf(view: IndexView, tokens: string[], live: Uint8Array, start: Int32Array): number {
  if (!tokens.length) return 0;
  if (tokens.length === 1) return view.df(tokens[0]!);
  let n = 0;
  for (const c of phrasePostings(view, tokens)) {
    let f = 0;
    for (let i = 0; i < c.length; i += 2) { const s = c[i]!; while (start[f + 1]! <= s) f++; if (live[f]) n++; }
  }
  return n;
}

/**
 * The secondary terms of a query: the alternates' words and the dictionary's, each not already a
 * term of the query (`primary`), each held by the memory; weights are 0 until rank() sets them.
 * `text` is the query's text without its time phrases, `asked` its tokens; `covered` the words the
 * equivalents table already bridged (not looked up again).
 */
export function secondaryTerms(view: IndexView, text: string, asked: string[], alternates: string | undefined, primary: Set<string>, covered: Set<string>, tokenize: (s: string) => string[], dict: boolean): SecondaryTerm[] {
  const out: SecondaryTerm[] = [];
  const have = new Set(primary);
  const fa = view.arrays();
  const df = (tokens: string[]): number => phraseDf(view, tokens, fa.live, fa.start);
  if (alternates?.trim()) {
    for (const t of tokenize(alternates)) {
      if (out.length >= MAX_ALSO_TERMS) break;
      if (have.has(t) || view.df(t) === 0) continue;
      have.add(t);
      out.push({ tokens: [t], word: t, source: 'also', weight: 0 });
    }
  }
  if (dict) {
    for (const b of bridgeTerms(text, asked, have, covered, tokenize, df)) {
      out.push({ tokens: b.tokens, word: b.word, source: 'cedict', via: `${b.from} → ${b.gloss}`, weight: 0 });
    }
  }
  return out;
}
