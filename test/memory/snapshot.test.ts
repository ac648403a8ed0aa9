/** lib/memory/snapshot.ts: a lazy snapshot tells a file's line-break ending from its last byte, without reading it, and lets go of a file's text on release. */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSnapshot } from '../../lib/memory/snapshot.js';
import { tmpTree } from '../helpers.js';

describe('endsInLineBreak', () => {
  const files = {
    'memory/episodic/2026-05-01.md': '- 09:00 [EVENT] one ^a1b2c3d4\n',
    'memory/episodic/2026-05-02.md': '- 09:00 [EVENT] two ^a1b2c3d5\r\n',
    'memory/episodic/2026-05-03.md': '- 09:00 [EVENT] three ^a1b2c3d6\r',
    'memory/episodic/2026-05-04.md': '- 09:00 [EVENT] torn',
    'memory/episodic/2026-05-05.md': '',
  };
  const want = [true, true, true, false, false];

  it('agrees with the text, lazy or not', () => {
    const root = tmpTree(files);
    for (const lazy of [false, true]) {
      const snap = loadSnapshot(root, { lazy });
      expect(snap.files.map((f) => snap.endsInLineBreak(f))).toEqual(want);
      expect(snap.files.map((f) => f.text!.endsWith('\n'))).toEqual(want);
    }
  });

  it('a lazy snapshot does not read the file to tell (its text is read on first use)', () => {
    const root = tmpTree(files);
    const snap = loadSnapshot(root, { lazy: true });
    const f = snap.byRel.get('memory/episodic/2026-05-01.md')!;
    expect(snap.endsInLineBreak(f)).toBe(true);
    writeFileSync(join(root, f.rel), '- 09:00 [EVENT] ONE ^a1b2c3d4\n');
    expect(f.text).toBe('- 09:00 [EVENT] ONE ^a1b2c3d4\n');
    expect(snap.endsInLineBreak(f)).toBe(true);
  });
});

describe('release', () => {
  it('lets a lazy snapshot go of a file\'s text, lines and entries: the next use reads the file again', () => {
    const root = tmpTree({ 'memory/episodic/2026-05-01.md': '- 09:00 [EVENT] one ^a1b2c3d4\n' });
    const snap = loadSnapshot(root, { lazy: true });
    const f = snap.files[0]!;
    expect(snap.entries(f).map((e) => e.id)).toEqual(['a1b2c3d4']);
    expect(snap.lines(f)[0]).toBe('- 09:00 [EVENT] one ^a1b2c3d4');
    writeFileSync(join(root, f.rel), '- 09:00 [EVENT] two ^b1b2c3d4\n');
    // held until released
    expect(f.text).toBe('- 09:00 [EVENT] one ^a1b2c3d4\n');
    snap.release(f);
    expect(f.text).toBe('- 09:00 [EVENT] two ^b1b2c3d4\n');
    expect(snap.entries(f).map((e) => e.id)).toEqual(['b1b2c3d4']);
    expect(snap.lines(f)[0]).toBe('- 09:00 [EVENT] two ^b1b2c3d4');
  });

  it('keeps what a snapshot read whole (not lazy) holds', () => {
    const root = tmpTree({ 'memory/episodic/2026-05-01.md': '- 09:00 [EVENT] one ^a1b2c3d4\n' });
    const snap = loadSnapshot(root);
    const f = snap.files[0]!;
    writeFileSync(join(root, f.rel), '- 09:00 [EVENT] two ^b1b2c3d4\n');
    snap.release(f);
    expect(f.text).toBe('- 09:00 [EVENT] one ^a1b2c3d4\n');
  });
});
