/**
 * SESSION-STATE.md: regressions found by the property tests (test/property/session-state.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { emptyState, parseSessionState, serializeSessionState } from '../../lib/format/session-state.js';

describe('SESSION-STATE.md current task', () => {
  it('a task that looks like a heading, a bullet or a comment reads back as given (was a new section, a stripped marker, nothing)', () => {
    for (const task of ['## Blocked on review', '- migrate the ledger', '* tidy up', '<!-- not a comment -->']) {
      const text = serializeSessionState(parseSessionState(''), { ...emptyState(), currentTask: task, pending: ['ship it'] });
      const back = parseSessionState(text);
      expect(back.state.currentTask, task).toBe(task);
      expect(back.state.pending).toEqual(['ship it']);
      expect(back.sections.map((s) => s.title)).toEqual(['Current Task', 'Key Context', 'Recent Decisions', 'Pending', 'Blockers', 'Done']);
    }
    // a plain task is written as before
    expect(serializeSessionState(parseSessionState(''), { ...emptyState(), currentTask: 'migrate the ledger' })).toContain('## Current Task\nmigrate the ledger\n');
  });
});
