/**
 * The three-way merge of memory files (lib/git/merge.ts), case by case and as a property: for logs,
 * whatever each side appends and removes, the merge holds base − removed(ours) − removed(theirs)
 * + added(ours) + added(theirs), each entry once.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diff3, keyedMerge, mergeFile, mergeKind, settleEntries, entriesOf } from '../../lib/git/merge.js';

const e = (t: string, id: string, time = '10:00'): string => `- ${time} [EVENT] ${t} ^${id}`;
const file = (...lines: string[]): string => lines.join('\n') + '\n';

describe('mergeKind', () => {
  it('knows logs, state, the forgotten ids, generated views and prose', () => {
    expect(mergeKind('memory/working-buffer.md')).toBe('log');
    expect(mergeKind('memory/episodic/2026-12-05.md')).toBe('log');
    expect(mergeKind('memory/archive/2026/10/2026-10-01.md')).toBe('log');
    expect(mergeKind('SESSION-STATE.md')).toBe('state');
    expect(mergeKind('memory/.forgotten')).toBe('idset');
    expect(mergeKind('memory/.upkeep')).toBe('upkeep');
    expect(mergeKind('memory/reviews/2026-W48.md')).toBe('generated');
    expect(mergeKind('MEMORY.md')).toBe('prose');
    expect(mergeKind('memory/2026-12-05.md')).toBe('prose'); // a person's dated note: never union
    expect(mergeKind('memory/semantic/decisions.md')).toBe('prose');
  });
});

describe('logs merge by entry id', () => {
  const base = file('# 2026-12-05', '', e('p', 'pppp01'));
  it('both sides append: both kept once, in time order', () => {
    const o = base + e('from a', 'aaaa01', '10:05') + '\n';
    const t = base + e('from b', 'bbbb01', '10:02') + '\n';
    expect(mergeFile({ rel: 'memory/episodic/2026-12-05.md', base, ours: o, theirs: t }).text).toBe(file('# 2026-12-05', '', e('p', 'pppp01'), e('from b', 'bbbb01', '10:02'), e('from a', 'aaaa01', '10:05')));
  });
  it('a forget on one side (the day\'s last line) and an append on the other: the forgotten line stays out', () => {
    const o = file('# 2026-12-05', '');
    const t = base + e('q', 'qqqq01', '11:00') + '\n';
    expect(mergeFile({ rel: 'memory/episodic/2026-12-05.md', base, ours: o, theirs: t }).text).toBe(file('# 2026-12-05', '', e('q', 'qqqq01', '11:00')));
  });
  it('a forgotten id listed by either side is out even where neither side removed it from this file', () => {
    const o = base + e('q', 'qqqq01', '11:00') + '\n';
    expect(mergeFile({ rel: 'memory/episodic/2026-12-05.md', base: '', ours: o, theirs: base, forgotten: new Set(['pppp01']) }).text).toBe(file('# 2026-12-05', '', e('q', 'qqqq01', '11:00')));
  });
  it('a supersede on one side (struck) and an append on the other: struck once', () => {
    const o = file('# 2026-12-05', '', '- ~~10:00 [EVENT] p~~ superseded by ^nnnn01 ^pppp01', e('new', 'nnnn01', '10:30'));
    const t = base + e('q', 'qqqq01', '11:00') + '\n';
    const m = mergeFile({ rel: 'memory/episodic/2026-12-05.md', base, ours: o, theirs: t }).text!;
    expect(m.match(/\^pppp01/g)).toHaveLength(1);
    expect(m).toContain('~~10:00 [EVENT] p~~');
    expect(m).toContain('^qqqq01');
  });
});

describe('prose merges three-way, never by union', () => {
  const base = file('# Memory', '', '## Key facts', '- db: postgres', '- host: eu', '', '## People', '- Ana');
  it('changes in different places both apply', () => {
    const o = base.replace('- db: postgres', '- db: postgres 16');
    const t = base.replace('- Ana', '- Ana\n- Bo');
    expect(mergeFile({ rel: 'MEMORY.md', base, ours: o, theirs: t })).toEqual({ text: base.replace('- db: postgres', '- db: postgres 16').replace('- Ana', '- Ana\n- Bo') });
  });
  it('the same line changed on both sides is a conflict: this side kept, no marker written', () => {
    const o = base.replace('- db: postgres', '- db: mysql');
    const t = base.replace('- db: postgres', '- db: sqlite');
    const m = mergeFile({ rel: 'MEMORY.md', base, ours: o, theirs: t });
    expect(m.conflict).toBeTruthy();
    expect(m.text).toBe(o);
    expect(m.text).not.toMatch(/<<<<<<<|>>>>>>>/);
  });
  it('both sides appending a line of prose at the end conflicts (a person decides), entries with ids at the same place merge', () => {
    expect(mergeFile({ rel: 'MEMORY.md', base, ours: base + '- mine\n', theirs: base + '- theirs\n' }).conflict).toBeTruthy();
    const d = file('# Decisions', '', e('d1', 'dddd01'));
    const m = mergeFile({ rel: 'memory/semantic/decisions.md', base: d, ours: d + e('d2', 'dddd02', '11:00') + '\n', theirs: d + e('d3', 'dddd03', '12:00') + '\n' });
    expect(m.conflict).toBeUndefined();
    expect(m.text).toBe(d + e('d2', 'dddd02', '11:00') + '\n' + e('d3', 'dddd03', '12:00') + '\n');
  });
  it('generated views: where both rewrote the same part, this side\'s version, no conflict', () => {
    const m = mergeFile({ rel: 'memory/reviews/2026-W48.md', base: '# W48\nold\n', ours: '# W48\nmine\n', theirs: '# W48\ntheirs\n' });
    expect(m).toEqual({ text: '# W48\nmine\n' });
  });
  it('deleted on one side and changed on the other: the changed version is kept, with a note', () => {
    const m = mergeFile({ rel: 'memory/semantic/people.md', base: '# People\n', ours: undefined, theirs: '# People\n- Ana\n' });
    expect(m.text).toBe('# People\n- Ana\n');
    expect(m.note).toMatch(/deleted on one machine and changed on the other/);
  });
});

describe('SESSION-STATE.md merges by section and key', () => {
  const base = file('# Session State', '', '## Current Task', 'start', '', '## Key Context', '- region: eu', '- owner: ana', '', '## Recent Decisions', '- d0', '', '## Pending', '- p0', '');
  it('lists keep both sides\' items, a key set on both takes the later write, the later task wins', () => {
    const o = base.replace('start', 'task A').replace('- d0', '- d0\n- dA').replace('- region: eu', '- region: us');
    const t = base.replace('start', 'task B').replace('- d0', '- d0\n- dB').replace('- region: eu', '- region: ap').replace('- p0', '- p0\n- pB');
    const later = mergeFile({ rel: 'SESSION-STATE.md', base, ours: o, theirs: t, oursTime: 1, theirsTime: 2 }).text!;
    expect(later).toBe(file('# Session State', '', '## Current Task', 'task B', '', '## Key Context', '- region: ap', '- owner: ana', '', '## Recent Decisions', '- d0', '- dA', '- dB', '', '## Pending', '- p0', '- pB', ''));
    const earlier = mergeFile({ rel: 'SESSION-STATE.md', base, ours: o, theirs: t, oursTime: 3, theirsTime: 2 }).text!;
    expect(earlier).toContain('## Current Task\ntask A\n');
    expect(earlier).toContain('- region: us');
  });
  it('an item done on one side (removed from Pending) stays done', () => {
    const o = base.replace('- p0\n', '').replace('## Pending', '## Done\n- p0\n\n## Pending');
    const t = base.replace('- p0', '- p0\n- pB');
    const m = mergeFile({ rel: 'SESSION-STATE.md', base, ours: o, theirs: t }).text!;
    expect(m).toMatch(/## Pending\n- pB\n/);
    expect(m).toMatch(/## Done\n- p0\n/);
  });
});

describe('the memory as a whole', () => {
  it('an entry rotated into a day on one side and struck in the buffer on the other: in the day once, struck', () => {
    const line = '- 2026-12-05 10:00 [DECISION] use MySQL ^xxxx01';
    const struck = '- ~~2026-12-05 10:00 [DECISION] use MySQL~~ superseded by ^yyyy01 ^xxxx01';
    const merged = new Map<string, string | undefined>([
      ['memory/working-buffer.md', '# Working buffer\n'],
      ['memory/episodic/2026-12-05.md', `# 2026-12-05\n- 10:00 [DECISION] use MySQL ^xxxx01\n`],
    ]);
    const sides = {
      base: entriesOf([['memory/working-buffer.md', line + '\n']]),
      ours: entriesOf([['memory/episodic/2026-12-05.md', '- 10:00 [DECISION] use MySQL ^xxxx01\n']]),
      theirs: entriesOf([['memory/working-buffer.md', struck + '\n']]),
    };
    const out = settleEntries(merged, sides, new Set());
    expect(out.get('memory/episodic/2026-12-05.md')).toBe('# 2026-12-05\n- ~~10:00 [DECISION] use MySQL~~ superseded by ^yyyy01 ^xxxx01\n');
  });
  it('an entry in two log files after a merge stays in the later tier only', () => {
    const merged = new Map<string, string | undefined>([
      ['memory/working-buffer.md', '# B\n- 2026-12-05 10:00 [EVENT] x ^xxxx01\n'],
      ['memory/archive/2026/12/2026-12-05.md', '# D\n- 10:00 [EVENT] x ^xxxx01\n'],
    ]);
    const out = settleEntries(merged, { base: new Map(), ours: new Map(), theirs: new Map() }, new Set());
    expect(out.get('memory/working-buffer.md')).toBe('# B\n');
    expect(out.has('memory/archive/2026/12/2026-12-05.md')).toBe(false);
  });
});

describe('diff3', () => {
  it('separates stable and conflicting regions', () => {
    expect(diff3(['a', 'b', 'c', 'd', 'e'], ['a', 'B', 'c', 'd', 'e'], ['a', 'b', 'c', 'D', 'e'])).toEqual([{ ok: ['a'] }, { ok: ['B'] }, { ok: ['c'] }, { ok: ['D'] }, { ok: ['e'] }]);
    // changes to adjacent lines by the two sides touch: a conflict region, as git's merge has it
    expect(diff3(['a', 'b', 'c'], ['a', 'B', 'c'], ['a', 'b', 'C'])).toEqual([{ ok: ['a'] }, { base: ['b', 'c'], ours: ['B', 'c'], theirs: ['b', 'C'] }]);
    expect(diff3(['a', 'b'], ['a', 'x'], ['a', 'y'])).toEqual([{ ok: ['a'] }, { base: ['b'], ours: ['x'], theirs: ['y'] }]);
  });
});

describe('property: a log merge keeps every entry that was not removed, once, and nothing removed', () => {
  it('holds for random appends and removals on both sides', () => {
    const ids = fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{6}$/), { minLength: 0, maxLength: 12 });
    fc.assert(fc.property(ids, ids, ids, fc.array(fc.boolean(), { maxLength: 12 }), fc.array(fc.boolean(), { maxLength: 12 }), (b, addO, addT, keepO, keepT) => {
      const base = [...new Set(b)];
      const ao = addO.filter((x) => !base.includes(x));
      const at = addT.filter((x) => !base.includes(x) && !ao.includes(x));
      const o = [...base.filter((_, i) => keepO[i] ?? true), ...ao];
      const t = [...base.filter((_, i) => keepT[i] ?? true), ...at];
      const lines = (xs: string[]): string[] => xs.map((x) => e(x, x));
      const m = keyedMerge(lines(base), lines(o), lines(t));
      const got = m.map((l) => /\^(\w+)$/.exec(l)![1]!);
      const want = [...base.filter((x, i) => (keepO[i] ?? true) && (keepT[i] ?? true)), ...ao, ...at];
      expect(new Set(got).size).toBe(got.length);
      expect([...got].sort()).toEqual([...want].sort());
    }), { numRuns: 300 });
  });
});

// found by the three-machine chaos run: the base held an entry twice (in the buffer and in its day,
// as a rotation killed between its append and its cut leaves it); one machine dropped the day's
// copy, the other the buffer's, and each file alone said "removed": the entry was gone
describe('an entry in two logs of the base, each side removing a different copy', () => {
  it('is kept once, in its day', async () => {
    const { entriesOf } = await import('../../lib/git/merge.js');
    const bufLine = '- 2026-06-20 04:18 [DECISION] use the cache ^xxxx0001';
    const dayLine = '- 04:18 [DECISION] use the cache ^xxxx0001';
    const bufB = `# Working buffer\n${bufLine}\n`, bufO = bufB, bufT = '# Working buffer\n';
    const dayB = `# 2026-06-20\n${dayLine}\n`, dayO = '# 2026-06-20\n', dayT = dayB;
    const sides = {
      base: entriesOf([['memory/working-buffer.md', bufB], ['memory/episodic/2026-06-20.md', dayB]]),
      ours: entriesOf([['memory/working-buffer.md', bufO], ['memory/episodic/2026-06-20.md', dayO]]),
      theirs: entriesOf([['memory/working-buffer.md', bufT], ['memory/episodic/2026-06-20.md', dayT]]),
    };
    const elsewhere = { ours: new Set(sides.ours.keys()), theirs: new Set(sides.theirs.keys()) };
    const merged = new Map<string, string | undefined>([
      ['memory/working-buffer.md', mergeFile({ rel: 'memory/working-buffer.md', base: bufB, ours: bufO, theirs: bufT, elsewhere }).text],
      ['memory/episodic/2026-06-20.md', mergeFile({ rel: 'memory/episodic/2026-06-20.md', base: dayB, ours: dayO, theirs: dayT, elsewhere }).text],
    ]);
    for (const [rel, t] of settleEntries(merged, sides, new Set())) merged.set(rel, t);
    const all = [...merged.values()].join('');
    expect(all.match(/\^xxxx0001/g)).toHaveLength(1);
    expect(merged.get('memory/episodic/2026-06-20.md')).toContain(dayLine);
  });
});

describe('both machines rotating the same entry into the same day', () => {
  it('the entry-wise buffer merge keeps it, the memory-wide pass takes it out of the buffer', () => {
    const bufLine = '- 2026-06-26 09:00 [EVENT] rotated on both ^rrrr0001';
    const dayLine = '- 09:00 [EVENT] rotated on both ^rrrr0001';
    const bufB = `# Working buffer\n${bufLine}\n`, bufAfter = '# Working buffer\n';
    const day = `# 2026-06-26\n${dayLine}\n`;
    const sides = {
      base: entriesOf([['memory/working-buffer.md', bufB]]),
      ours: entriesOf([['memory/working-buffer.md', bufAfter], ['memory/episodic/2026-06-26.md', day]]),
      theirs: entriesOf([['memory/working-buffer.md', bufAfter], ['memory/episodic/2026-06-26.md', day]]),
    };
    const elsewhere = { ours: new Set(sides.ours.keys()), theirs: new Set(sides.theirs.keys()) };
    const buf = mergeFile({ rel: 'memory/working-buffer.md', base: bufB, ours: bufAfter + '- 2026-06-26 10:00 [EVENT] new ^nnnn0001\n', theirs: bufAfter, elsewhere }).text!;
    expect(buf).toContain('^rrrr0001'); // kept by the file alone: each side moved it, neither removed it
    const merged = new Map<string, string | undefined>([['memory/working-buffer.md', buf], ['memory/episodic/2026-06-26.md', day]]);
    for (const [rel, t] of settleEntries(merged, sides, new Set())) merged.set(rel, t);
    expect(merged.get('memory/working-buffer.md')).not.toContain('^rrrr0001');
    expect(merged.get('memory/working-buffer.md')).toContain('^nnnn0001');
    expect(merged.get('memory/episodic/2026-06-26.md')).toContain(dayLine);
  });
});
