/**
 * Shared settings of the property tests (fast-check): a fixed seed so CI runs the same inputs
 * every time, and a moderate number of runs per property so the folder stays within seconds.
 * On failure fast-check prints the seed, the path and the shrunk counterexample; replay it with
 * FC_SEED=<seed> (and FC_RUNS=<n> to search longer locally).
 */
import fc from 'fast-check';

export const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 18_2026;

/** Configure this test file's properties: `numRuns` unless FC_RUNS overrides it. */
export function configure(numRuns: number): void {
  fc.configureGlobal({ seed: SEED, numRuns: process.env.FC_RUNS ? Number(process.env.FC_RUNS) : numRuns });
}

/** Pieces that stress the line grammar: ids, tags, fences, bullets, times, types, closure keys, bidi and CJK. */
const TRICKY = [
  '^abcdef123456', '^k2j', '^a', '#deploy', '#Über', '＃全角', '~~', '~~x~~', 'superseded by ^k2j3mx0a', '---', '- ', '* ', '# ', '## ',
  '10:00', '2026-05-14', '2026-05-14T09:30', '[DECISION]', '[LESSON]', '[WORD]', 'Updated:', 'Decisions:', 'Open:', '**Signal:**',
  'pending:', 'done:', 'blocker:', 'task:', 'context:', 'k: v', 'a = b', '<!--', '-->', '`code`', '\\', '"', "'", ':', '=', ';',
  'מה שלום', '\u202e', '\u200b', '部署数据库', '🙂', '👩‍💻', 'é', 'e\u0301', '\t', '\u00a0', '\u3000',
];

/** A word: plain letters, a tricky piece, or any code points (no line breaks). */
export const word = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-z]{1,8}$/) },
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }).map((s) => s.replace(/[\r\n]/g, ' ')) },
);

/** One line of words separated by single spaces (may be empty or have edge spaces). */
export const line = fc.array(word, { maxLength: 8 }).map((ws) => ws.join(' '));

/** An entry id as memtier writes and accepts them (ID_RE). */
export const entryId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9-]{2,20}$/);
