/**
 * Aliases the memory declares itself: "Hayate Express（东京合作方）", "小林（林晓）", "Robert (aka
 * Bob)", "Bob = Robert" as a bullet of its own, a note's `aliases:` frontmatter (its title is the
 * name). Found at index time: each declaration is indexed as two zero-weight terms, ALIAS_PREFIX +
 * the tokens of each name, so a query naming one side finds the declaring entries by a term lookup,
 * reads their declarations again and also searches the other name's words (at EQUIVALENT_WEIGHT),
 * so "东京合作方" finds the lines that say only "Hayate". Never a guess: a parenthesis counts only
 * when it reads as a second name (short, no digits; a Latin name with a name of the other script,
 * or two short Chinese names, "小林（林晓）"), so "(待确认)" or "(driver app)" declare nothing.
 */

/** Prefix of the zero-weight terms that index a declared name. */
export const ALIAS_PREFIX = '≡';

const CAP_NAME = String.raw`[A-Z][\p{L}\p{N}'’&.-]*(?:\s+[A-Z][\p{L}\p{N}'’&.-]*){0,3}`;
const HAN_NAME = String.raw`\p{Script=Han}{2,4}`;
const HAN_LONG = String.raw`\p{Script=Han}{2,8}`;
const LATIN_WORDS = String.raw`[A-Za-z][\p{L}'’&.-]*(?:\s+[A-Za-z][\p{L}'’&.-]*){0,3}`;
/** The character before a name: start, space, punctuation, a bullet or label end (not a letter of a longer word). */
const LEFT = String.raw`(?<![\p{L}\p{N}])`;
const OPEN = String.raw`\s*[（(]\s*`;
const CLOSE = String.raw`\s*[）)]`;
const AKA = String.raw`(?:aka|AKA|a\.k\.a\.?|[Aa]lso known as|[Nn]icknamed|又名|又叫|外号|昵称|小名)[\s:：]*`;

/** Before a Chinese name: not a number (then it is a unit: 7 小时（夏令时）, 5 公里（单程）). */
const NOT_COUNTED = String.raw`(?<!\p{N}\s*)`;

const PATTERNS: RegExp[] = [
  // Latin name (Chinese name) and Chinese name (Latin name)
  new RegExp(`${LEFT}(${CAP_NAME})${OPEN}(${HAN_LONG})${CLOSE}`, 'gu'),
  new RegExp(`${LEFT}${NOT_COUNTED}(${HAN_NAME})${OPEN}(${CAP_NAME})${CLOSE}`, 'gu'),
  // two short Chinese names: 小林（林晓）
  new RegExp(`${LEFT}${NOT_COUNTED}(${HAN_NAME})${OPEN}(${HAN_NAME})${CLOSE}`, 'gu'),
  // any name (aka other name)
  new RegExp(`${LEFT}(${CAP_NAME}|${HAN_NAME})${OPEN}${AKA}(${LATIN_WORDS}|${HAN_LONG})${CLOSE}`, 'gu'),
];
/** A bullet that is only "X = Y" (names, no digits). */
const EQUALS_LINE = new RegExp(`^\\s*(?:[-*]\\s+)?(${CAP_NAME}|${HAN_NAME})\\s*[=＝]\\s*(${CAP_NAME}|${HAN_LONG})\\s*$`, 'u');

/** The alias pairs [name, other name] a unit's text declares (frontmatter aliases are added by units.ts). */
export function declaredAliases(text: string): [string, string][] {
  if (!/[（(=＝]/.test(text)) return [];
  const out: [string, string][] = [];
  for (const re of PATTERNS) {
    for (const m of text.matchAll(re)) out.push([m[1]!.trim(), m[2]!.trim()]);
  }
  for (const line of text.split('\n')) {
    const m = EQUALS_LINE.exec(line);
    if (m) out.push([m[1]!.trim(), m[2]!.trim()]);
  }
  return out;
}

/** The index term of a name's tokens. */
export function aliasTerm(tokens: string[]): string | undefined {
  return tokens.length ? ALIAS_PREFIX + tokens.join(' ') : undefined;
}

/**
 * The other names of the names a query holds. `tokens`: the query's tokens in order; `lookup`:
 * the alias pairs declared by the entries holding an alias term (undefined when none does).
 * Every run of up to 4 consecutive query tokens is tried as a name; the tokens of the names
 * found are added to `named`; `sources` maps each other name to the query runs that named it.
 */
export function aliasExpansions(tokens: string[], lookup: (term: string) => [string, string][] | undefined, tokenize: (s: string) => string[], named?: Set<string>, sources?: Map<string, string[][]>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    for (let n = 1; n <= 4 && i + n <= tokens.length; n++) {
      const term = aliasTerm(tokens.slice(i, i + n));
      if (!term || seen.has(term)) continue;
      seen.add(term);
      const pairs = lookup(term);
      if (!pairs) continue;
      for (const [a, b] of pairs) {
        const ta = aliasTerm(tokenize(a));
        const tb = aliasTerm(tokenize(b));
        const other = ta === term ? b : tb === term ? a : '';
        if (!other) continue;
        out.push(other);
        for (const t of tokens.slice(i, i + n)) named?.add(t);
        if (sources) { const runs = sources.get(other) ?? []; runs.push(tokens.slice(i, i + n)); sources.set(other, runs); }
      }
    }
  }
  return [...new Set(out)];
}
