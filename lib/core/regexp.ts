/**
 * Regular expressions compiled straight to machine code in a cold process.
 *
 * V8 runs a regular expression's first match from bytecode and compiles machine code on the second
 * (its "tier-up"); only for a subject of 1,000 characters or more does it compile machine code at
 * once (JSRegExp::kTierUpForSubjectLengthValue in V8's regexp.cc). For the large alternations of
 * the capture rules ("we decided|agreed|chose|…") building and optimizing that bytecode costs
 * three to four times the machine-code compile, and a rule run on two sentences pays for both.
 * A `memtier extract` lives ~100 ms and runs each rule on many sentences, so the bytecode is pure
 * loss: `nativeFirst` runs a pattern once over a 1,000-character blank before its first real use,
 * which makes V8 compile the machine code at once (measured with callgrind on the eight English
 * type rules: 25.8M → 11.2M instructions). Only speed depends on this: should V8 change the
 * heuristic, the blank run is one more cheap match and every result stays the same.
 */

const BLANK = ' '.repeat(1000);
const ready = new WeakSet<RegExp>();

/** `re`, compiled to machine code on its first use (see above); `lastIndex` is left at 0. */
export function nativeFirst(re: RegExp): RegExp {
  if (!ready.has(re)) {
    ready.add(re);
    re.lastIndex = 0;
    re.test(BLANK);
    re.lastIndex = 0;
  }
  return re;
}
