/**
 * verify's reversed decisions (findReversals): candidates from word postings and prefix filtering
 * must find exactly what the earlier search found — for each later decision, every earlier one
 * sharing a word, latest first — on generated decision logs with few words, so that topics
 * overlap, reversals chain ("instead of", "no longer", "switch back to") and decisions repeat.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../lib/core/random.js';
import { BACK_TO, BACK_WORDS, findReversals, REVERSAL, words, type Decided } from '../../lib/lifecycle/verify.js';

/** The search as it was: each later decision against every earlier one sharing a word with it, latest first. */
function reference(decisions: readonly Decided[]): [number, number][] {
  const ws = decisions.map((d) => words(d.text));
  const byWord = new Map<string, number[]>();
  ws.forEach((set, i) => { for (const w of set) { let l = byWord.get(w); if (!l) byWord.set(w, (l = [])); l.push(i); } });
  const flagged = new Set<number>();
  const out: [number, number][] = [];
  const sameTopic = (i: number, j: number): boolean => {
    let shared = 0;
    for (const w of ws[i]!) if (ws[j]!.has(w)) shared++;
    return shared >= 2 && shared / Math.max(1, Math.min(ws[i]!.size, ws[j]!.size)) >= 0.5;
  };
  const candidates = (j: number, keys: Iterable<string>): number[] => {
    const set = new Set<number>();
    for (const k of keys) for (const i of byWord.get(k) ?? []) if (i < j && !flagged.has(i)) set.add(i);
    return [...set].sort((x, y) => y - x);
  };
  for (let j = 0; j < decisions.length; j++) {
    const b = decisions[j]!;
    const back = BACK_TO.exec(b.text);
    if (back) {
      const chosen = words(back[1]!);
      const topic = [...ws[j]!].filter((w) => !chosen.has(w) && !BACK_WORDS.has(w));
      for (const i of candidates(j, [...chosen, ...topic])) {
        const a = decisions[i]!;
        const aw = ws[i]!;
        const mentionsChosen = [...chosen].some((w) => aw.has(w));
        if (!mentionsChosen && !topic.some((w) => aw.has(w))) continue;
        const againstChosen = [...a.text.matchAll(REVERSAL)].some((m) => [...words(m[1]!)].some((w) => chosen.has(w)));
        if (mentionsChosen && !againstChosen) break;
        flagged.add(i);
        out.push([i, j]);
        break;
      }
      continue;
    }
    const objects = new Set<string>();
    for (const m of b.text.matchAll(REVERSAL)) for (const w of words(m[1]!)) objects.add(w);
    if (objects.size === 0) continue;
    for (const i of candidates(j, objects)) {
      const a = decisions[i]!;
      if (a.when === b.when && a.text === b.text) continue;
      const hit = [...objects].find((w) => ws[i]!.has(w));
      if (!hit || !sameTopic(i, j)) continue;
      if ([...a.text.matchAll(REVERSAL)].some((m) => words(m[1]!).has(hit))) continue;
      flagged.add(i);
      out.push([i, j]);
      break;
    }
  }
  return out;
}

const TOOLS = ['MySQL', 'Postgres', 'Redis', 'nginx', 'caddy', 'SQLite', 'Kafka', 'RabbitMQ', 'S3', 'node.js'];
const TOPICS = ['orders', 'sessions', 'queue', 'proxy', 'storage', 'billing', 'search', 'the API', 'backups', 'logs'];
const FILLER = ['for now', 'because it is simpler', 'after the outage', 'with the team', '', '', '#review', 'in prod'];
const TEMPLATES = [
  'use {x} for {t}', 'use {y} instead of {x} for {t}', 'switch from {x} to {y} for {t}', 'no longer use {x} for {t}',
  'switch back to {x} for {t}', 'go back to {x}', '{t}: not {x} but {y}', 'drop {x}', 'replace {x} with {y} in {t}',
  'keep {x} for {t} rather than {y}', 'move away from {x} {t}', 'stopped using {x}', 'decided {t} runs on {x}',
];

function generate(seed: number, n: number): Decided[] {
  const rnd = seededRandom(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const tools = TOOLS.slice(0, 2 + Math.floor(rnd() * (TOOLS.length - 2)));
  const topics = TOPICS.slice(0, 1 + Math.floor(rnd() * (TOPICS.length - 1)));
  const out: Decided[] = [];
  for (let k = 0; k < n; k++) {
    if (out.length && rnd() < 0.08) { out.push({ ...pick(out) }); continue; } // the same decision in two files
    const text = `${pick(TEMPLATES).replace('{x}', pick(tools)).replace('{y}', pick(tools)).replace('{t}', pick(topics))} ${pick(FILLER)}`.trim();
    const day = `2026-0${1 + Math.floor(rnd() * 3)}-1${Math.floor(rnd() * 10)}`;
    out.push({ text, when: `${day} ${rnd() < 0.3 ? '00:00' : `1${Math.floor(rnd() * 10)}:00`}` });
  }
  return out.sort((a, b) => (a.when < b.when ? -1 : a.when > b.when ? 1 : 0));
}

/**
 * Long decisions over a small shared vocabulary, as in a large memory: most words are common, a few
 * hold a reversal word ("not", "instead of"), and same-topic pairs are rare, so that candidates come
 * from both sources (object postings and prefix postings), sizes differ widely and the same-topic
 * test mostly rejects, often late.
 */
function generateLong(seed: number, n: number): Decided[] {
  const rnd = seededRandom(seed);
  const vocab = Array.from({ length: 8 + Math.floor(rnd() * 40) }, (_, k) => `w${k.toString(36)}x`);
  const pick = (): string => vocab[Math.floor(rnd() * rnd() * vocab.length)]!; // skewed: low numbers common
  const MARKS = ['not', 'instead of', 'no longer', 'rather than', 'drop', 'replace'];
  const out: Decided[] = [];
  for (let k = 0; k < n; k++) {
    if (out.length && rnd() < 0.05) { out.push({ ...out[Math.floor(rnd() * out.length)]! }); continue; }
    const len = 1 + Math.floor(rnd() * rnd() * 24);
    const ws = Array.from({ length: len }, pick);
    if (rnd() < 0.4) ws.splice(Math.floor(rnd() * (ws.length + 1)), 0, MARKS[Math.floor(rnd() * MARKS.length)]!);
    if (rnd() < 0.03) ws.push('back to', pick());
    out.push({ text: ws.join(' '), when: `2026-0${1 + Math.floor(rnd() * 3)}-1${Math.floor(rnd() * 10)} 1${Math.floor(rnd() * 4)}:00` });
  }
  return out.sort((a, b) => (a.when < b.when ? -1 : a.when > b.when ? 1 : 0));
}

describe('reversed decisions (findReversals)', () => {
  it('on long decisions sharing common words, finds exactly what the exhaustive search finds', () => {
    let found = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const ds = generateLong(seed, 20 + (seed % 7) * 30);
      const expected = reference(ds);
      expect(findReversals(ds), `seed ${seed}`).toEqual(expected);
      found += expected.length;
    }
    expect(found).toBeGreaterThan(300);
  });

  it('finds exactly the reversals the search of every earlier decision found', () => {
    let found = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const ds = generate(seed, 5 + (seed % 60));
      const expected = reference(ds);
      expect(findReversals(ds), `seed ${seed}`).toEqual(expected);
      found += expected.length;
    }
    // the logs are built to hold many reversals: a comparison of empty answers would prove nothing
    expect(found).toBeGreaterThan(300);
  });

  it('a later decision reverses only the latest earlier one on its topic, each earlier one once', () => {
    const ds: Decided[] = [
      { text: 'use MySQL for the orders service', when: '2026-04-01 10:00' },
      { text: 'use MySQL for the orders database', when: '2026-04-02 10:00' },
      { text: 'use Postgres instead of MySQL for the orders service', when: '2026-05-01 10:00' },
      { text: 'use SQLite instead of MySQL for the orders service', when: '2026-05-02 10:00' },
      { text: 'switch back to MySQL for the orders service', when: '2026-05-03 10:00' },
    ];
    expect(findReversals(ds)).toEqual([[1, 2], [0, 3], [3, 4]]);
  });
});
