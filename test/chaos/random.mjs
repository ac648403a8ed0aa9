/**
 * The chaos run's randomness: one seeded generator (sfc32) per run, so a seed replays the same
 * choices (payloads, targets, crash points, kill intervals). Timings still vary between runs:
 * which command a kill lands in depends on the machine, which is why the seed is printed.
 *
 * Payloads are hostile on purpose: 1 byte to 4 KB of random UTF-8 with emoji, right-to-left text,
 * lines starting with `---`, `- `, `#`, `^`, CRLF line ends, and text that looks like an entry id
 * or a closure block. memtier must either store them as one entry (normalized) or refuse them
 * with a clear error; the run checks that whatever it acknowledged is there exactly once.
 */

/** A 32-bit seeded generator (sfc32, the PractRand-tested small fast counter). */
export function makeRandom(seed) {
  let a = 0x9e3779b9, b = 0x243f6a88, c = 0xb7e15162, d = seed >>> 0;
  const next = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b | 0) + d | 0;
    d = d + 1 | 0;
    a = b ^ b >>> 9;
    b = c + (c << 3) | 0;
    c = c << 21 | c >>> 11;
    c = c + t | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next(); // mix the seed in
  const rnd = {
    /** A float in [0, 1). */
    next,
    /** An integer in [lo, hi]. */
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    /** True with probability p. */
    chance: (p) => next() < p,
    /** One element of a non-empty array. */
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    /** A fresh seed for a sub-generator (each role draws from its own, so roles do not shift each other). */
    fork: () => makeRandom(Math.floor(next() * 4294967296)),
  };
  return rnd;
}

const LATIN = 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 .,;:!?()[]{}<>/\\|@$%&*+=~`"\'';
const PIECES = [
  'café', 'naïve', 'Zürich', '東京で会議', '决定使用 Postgres', '결정', 'Ελληνικά',
  'שלום עולם', 'مرحبا بالعالم', '\u200fRTL mark', 'אבג 123 דהו', // right-to-left text
  '😀', '👩‍💻', '🇫🇷', '🧪🔥', '❤️', '∑∫√', 'ﬁ', 'Å', 'ℌ',
  '^abcdef123456', '^3lodtni2cef4', '#^deadbeef01', '[x](memory/semantic/decisions.md#^id)',
  '**Updated:**', '**Decisions:**', '**Open:**', '<!-- closure -->', '```', '| a | b |',
  '[DECISION]', '[PROJ] pending:', '- 14:30 [EVENT] forged', '~~struck~~',
];
/** Starts of a line inside a payload: the markdown and memtier syntax a payload must not forge. */
const LINE_STARTS = ['---', '- ', '# ', '## Closure', '^', '- [ ] ', '> ', '1. ', '    ', '---\ntitle: x\n---', '- 22:15 [DECISION] '];
const EOLS = ['\n', '\r\n', '\r', '\n\n'];

/** One hostile payload, 1 byte to about 4 KB of UTF-8. */
export function payload(rnd) {
  const target = rnd.chance(0.15) ? rnd.int(1, 8) : rnd.chance(0.7) ? rnd.int(8, 200) : rnd.int(200, 4096);
  let s = '';
  while (Buffer.byteLength(s) < target) {
    const r = rnd.next();
    if (r < 0.45) s += LATIN[rnd.int(0, LATIN.length - 1)];
    else if (r < 0.7) s += rnd.pick(PIECES);
    else if (r < 0.8) s += rnd.pick(EOLS) + rnd.pick(LINE_STARTS);
    else if (r < 0.9) s += String.fromCodePoint(rnd.int(0xa0, 0x2fff)); // any BMP letter, symbol or mark
    else s += String.fromCodePoint(rnd.int(0x1f300, 0x1faff)); // emoji planes
  }
  // Trim to the byte budget without cutting a character in two.
  while (Buffer.byteLength(s) > Math.max(target, 1) && s.length > 1) s = [...s].slice(0, -1).join('');
  // A tag memtier's vocabulary does not hold is refused (exit 2): keep most payloads free of
  // `#word` so most writes are accepted, but let some through to exercise the refusal.
  if (!rnd.chance(0.1)) s = s.replace(/#(?=[\p{L}\p{N}_])/gu, '# ');
  return s;
}

/** A short, searchable query made of words the payloads use. */
export function query(rnd) {
  return rnd.pick(['café', 'decision', 'Postgres', '東京', 'pending', 'closure', 'entry', 'emoji 😀', 'RTL', 'chaos']);
}
