import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSessionState, serializeSessionState } from '../../lib/format/session-state.js';
import { walWrite } from '../../lib/wal/wal.js';
import { testCtx, tmpTree } from '../helpers.js';

const HAND = `# Session State
Hand preamble.

## Current Task
Build the thing
with two lines of detail.

## Pending
Things I must not forget:
* first item
  - sub-note of first item
- second item

Trailing prose in pending.

## Key Context
- owner: Ana
- note without colon

## My Notes
keep me

## Recent Decisions
- 2026-05-01 — old decision
`;

describe('SESSION-STATE.md keeps hand edits', () => {
  it('parse + serialize without a change is byte-identical (apart from the missing sections appended)', () => {
    const p = parseSessionState(HAND);
    const out = serializeSessionState(p, p.state);
    expect(out.startsWith(HAND)).toBe(true);
    expect(out.slice(HAND.length)).toBe('\n## Blockers\n\n## Done\n');
  });

  it('a write changes only its own section; prose, sub-bullets, bullet style and colon-less context survive', () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n', 'SESSION-STATE.md': HAND });
    const ctx = testCtx(root);
    walWrite(ctx, { kind: 'decide', text: 'new one' });
    let text = readFileSync(join(root, 'SESSION-STATE.md'), 'utf8');
    expect(text).toContain('## Current Task\nBuild the thing\nwith two lines of detail.\n');
    expect(text).toContain('## Pending\nThings I must not forget:\n* first item\n  - sub-note of first item\n- second item\n\nTrailing prose in pending.\n');
    expect(text).toContain('## Key Context\n- owner: Ana\n- note without colon\n');
    expect(text).toContain('## Recent Decisions\n- 2026-05-15 14:30 — new one\n- 2026-05-01 — old decision\n');

    walWrite(ctx, { kind: 'pending', text: 'third' });
    const r = walWrite(ctx, { kind: 'done', text: 'second' });
    expect(r.note).toBe('moved from Pending to Done: second item');
    walWrite(ctx, { kind: 'context', key: 'Owner', text: 'Bob' });
    text = readFileSync(join(root, 'SESSION-STATE.md'), 'utf8');
    expect(text).toContain('## Pending\nThings I must not forget:\n* first item\n  - sub-note of first item\n- third\n\nTrailing prose in pending.\n');
    expect(text).toContain('## Key Context\n- owner: Bob\n- note without colon\n');
    expect(text).toContain('## My Notes\nkeep me\n');
    expect(text).toContain('## Done\n- 2026-05-15 14:30 — second item\n');
    const st = parseSessionState(text).state;
    expect(st.pending).toEqual(['first item', 'third']);
    expect(st.keyContext).toEqual([['owner', 'Bob'], ['note without colon', '']]);
  });

  it('a new task replaces the paragraph but keeps the section comment', () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n', 'SESSION-STATE.md': '## Current Task\n<!-- what I do -->\nold\n' });
    walWrite(testCtx(root), { kind: 'task', text: 'new task' });
    expect(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).toContain('## Current Task\n<!-- what I do -->\nnew task\n');
  });
});
