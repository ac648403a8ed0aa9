// The pairs scripts/han-table.mjs writes, also used by the test that keeps the file equal to the library.
const BMP_HAN = (c) => c >= 0x3400 && c < 0xa000;
export function tsPairs(raw) {
  let out = '';
  // "繁 简|機 机|…": one pair per '|'-separated item, alternatives after the first ignored
  for (const item of raw.split('|')) {
    if (item.length < 3 || item[1] !== ' ' || (item.length > 3 && item[3] !== ' ')) continue;
    if (!BMP_HAN(item.charCodeAt(0)) || !BMP_HAN(item.charCodeAt(2))) continue;
    out += item[0] + item[2];
  }
  return out;
}
