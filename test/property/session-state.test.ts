/**
 * SESSION-STATE.md (lib/format/session-state.ts): a state written reads back as that state, on a
 * fresh file and over any hand-written one (whose preamble and other sections stay byte for
 * byte); and reading then writing any file is a normalization a second pass leaves alone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneLine } from '../../lib/format/entry.js';
import { parseSessionState, serializeSessionState, type SessionState } from '../../lib/format/session-state.js';
import { configure, line } from './settings.js';

configure(200);

/** One item as the WAL writes it: one line, trimmed, not empty. */
const item = line.map(oneLine).filter((t) => t.length > 0);
/** A Key Context key: `wal context` refuses ":" and "=" in a key (FORMAT.md). */
const key = item.filter((k) => !/[:=]/.test(k));
const state: fc.Arbitrary<SessionState> = fc.record({
  currentTask: fc.oneof(fc.constant(''), item),
  keyContext: fc.array(fc.tuple(key, fc.oneof(fc.constant(''), item)), { maxLength: 4 }),
  recentDecisions: fc.array(item, { maxLength: 4 }),
  pending: fc.array(item, { maxLength: 4 }),
  blockers: fc.array(item, { maxLength: 3 }),
  done: fc.array(item, { maxLength: 3 }),
});

/** A hand-written SESSION-STATE.md: known and unknown sections (some twice), bullets, sub-bullets, prose, comments. */
const handLine = fc.oneof(
  fc.constantFrom('# Session State', '## Current Task', '## Key Context', '## Recent Decisions', '## Pending', '## Blockers', '## Done',
    '## Todo', '## Context', '## Notes', '## pending', '', '<!-- keep me -->', '  - a sub-bullet', '    wrapped text', '---'),
  line.map((l) => `- ${l}`),
  line.map((l) => `* ${l}`),
  line.map((l) => `## ${l}`),
  line,
);
const handText = fc.array(handLine, { maxLength: 25 }).map((ls) => ls.join('\n') + '\n');

const sections = (text: string): string[] => text.split(/^(?=## )/m);

describe('SESSION-STATE.md (property)', () => {
  it('a state written to a new file reads back as that state', () => {
    fc.assert(fc.property(state, (st) => {
      const text = serializeSessionState(parseSessionState(''), st);
      expect(parseSessionState(text).state).toEqual(st);
    }));
  });

  it('a state written over a hand-written file reads back as that state; unknown sections and the preamble stay as they were', () => {
    fc.assert(fc.property(handText, state, (hand, st) => {
      const parsed = parseSessionState(hand);
      const text = serializeSessionState(parsed, st);
      const again = parseSessionState(text);
      expect(again.state).toEqual(st);
      // a file without a preamble gets the title; one with a preamble keeps it
      expect(again.preamble.join('\n').trimEnd()).toBe(parsed.preamble.length ? parsed.preamble.join('\n').trimEnd() : '# Session State');
      const unknown = (p: ReturnType<typeof parseSessionState>) => p.sections.filter((s) => !s.field).map((s) => [s.title, s.body.join('\n').trimEnd()]);
      expect(unknown(again)).toEqual(unknown(parsed));
    }));
  });

  it('reading and writing back any file keeps its state, and a second pass changes no byte', () => {
    fc.assert(fc.property(handText, (hand) => {
      const p = parseSessionState(hand);
      const once = serializeSessionState(p, p.state);
      const p2 = parseSessionState(once);
      expect(p2.state).toEqual(p.state);
      expect(serializeSessionState(p2, p2.state)).toBe(once);
      expect(sections(once).length).toBeGreaterThanOrEqual(1);
    }));
  });
});
