import { PATHS } from '../../format/layout.js';
import { isTornEntry, openStore } from '../../store/store.js';
import type { Check, Finding } from '../types.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';
import { finishRotation, rotateBuffer, walFixes } from '../wal.js';
import { idSummary } from './syntax.js';

const TORN = 'torn last line';

/** Is this finding a torn last line (which depends on its file alone)? */
export const isTornFinding = (x: Finding): boolean => x.message.startsWith(TORN);

/** The finding of f's torn last line (a buffer or episodic file's), if it has one: it depends on the file alone (isTornFinding). */
export function tornLine(snap: Snapshot, f: MemFile): Finding[] {
  // a file ending in a line break has no torn line (and a lazy snapshot need not read it)
  if (snap.endsInLineBreak(f)) return [];
  if (f.text === undefined || f.text.length === 0 || f.text.endsWith('\n')) return [];
  const lines = snap.lines(f);
  const tail = lines[lines.length - 1]!;
  if (!isTornEntry(tail)) return [];
  return [{ check: 'wal-integrity', severity: 'fail', file: f.rel, line: lines.length, message: `${TORN}: an entry without its ^id and newline (a write interrupted by a crash)`, fix: 'run "memtier health --fix" to move it to memory/.trash/torn/', fixable: true }];
}

/** Seed 004 invariant 9: no buffer entry left behind by an interrupted rotation, no torn line. */
export const check: Check = {
  id: 'wal-integrity',
  description: 'no buffer entry left behind by an interrupted rotation and no torn (half-written) last line; --fix finishes the rotation and quarantines torn lines',
  severity: 'fail',
  fixable: true,
  source: 'seed 004 #9',
  doc: {
    trigger: 'files under memory/.rotating/ (a rotation that did not finish: fail), buffer entries whose ^id is already in an episodic file (warn), or a buffer or episodic file whose last line is an entry without its final `^id` and newline (a crash mid-append)',
    failing: 'memory/working-buffer.md ending in `- 2026-05-15 14:31 [DECISION] use Postg` (no ^id, no newline)',
    fixed: 'the torn line saved in memory/.trash/torn/…-memory__working-buffer.md.txt and removed from the buffer; the buffer ends at its last complete entry',
    why: 'the WAL is what survives a crash: a torn line is a write nobody confirmed, and entries stuck between the buffer and the episodic file are read twice or lost at the next rotation',
  },
  async run(snap, env) {
    const out: Finding[] = [];
    const buffer = snap.byRel.get(PATHS.buffer);
    const logged = new Set<string>();
    if (buffer?.text !== undefined) for (const f of snap.files) if (f.kind === 'episodic' || f.kind === 'archive') for (const id of idSummary(snap, f, env)[0]) logged.add(id);
    const left = buffer?.text !== undefined ? snap.entries(buffer).filter((e) => e.id && logged.has(e.id)) : [];
    // load the WAL module only when there is something for it to repair
    const can = snap.rotating.length > 0 || left.length > 0 ? await walFixes() : { rotate: false, recover: false };
    const how = can.recover ? 'run "memtier health --fix" (or "memtier rotate") to finish it' : 'run "memtier rotate" to finish it';
    for (const r of snap.rotating) {
      out.push({ check: 'wal-integrity', severity: 'fail', file: r.rel, message: 'a buffer rotation was interrupted: its entries may not be in the episodic file yet', fix: how, fixable: can.recover });
    }
    if (buffer && left.length > 0) {
      out.push({
        check: 'wal-integrity',
        severity: 'warn',
        file: buffer.rel,
        line: left[0]!.line,
        message: `${left.length} buffer ${left.length === 1 ? 'entry is' : 'entries are'} already in an episodic file (^${left[0]!.id}): left behind by a rotation or copied by hand (the next rotation skips ${left.length === 1 ? 'it' : 'them'} by id)`,
        fix: can.rotate ? 'run "memtier health --fix" (rotates the buffer now)' : 'run "memtier rotate"',
        fixable: can.rotate,
      });
    }
    // Only the files memtier appends to: a hand-written note without a final newline is not torn.
    for (const f of snap.files) {
      if (f.kind !== 'buffer' && f.kind !== 'episodic') continue;
      // what the last full run found in this file, while it is unchanged (reuse.ts)
      const kept = env.keptFindings?.('wal-integrity', f);
      if (kept) { out.push(...kept.map((x) => ({ ...x, fixable: true }))); continue; }
      out.push(...tornLine(snap, f));
    }
    return out;
  },
  // the ids run() compares the buffer's with (syntax makes every file's too)
  summarize: (snap, env) => (snap.byRel.get(PATHS.buffer)?.text === undefined ? undefined : (f) => { if (f.kind === 'episodic' || f.kind === 'archive') idSummary(snap, f, env); }),
  async fix(findings, snap, env) {
    const done: string[] = [];
    // rotating the buffer finishes interrupted rotations first; without left-behind entries only finish those
    if (findings.some((x) => x.file === PATHS.buffer && !x.message.startsWith('torn'))) done.push(...(await rotateBuffer(env.ctx)));
    else if (findings.some((x) => !x.message.startsWith('torn'))) done.push(...(await finishRotation(env.ctx)));
    const torn = findings.filter((x) => x.message.startsWith('torn'));
    if (torn.length > 0) {
      openStore(env.ctx).mutate((tx) => {
        for (const x of torn) {
          const rel = x.file!;
          const cur = tx.read(rel);
          if (cur === undefined || cur !== snap.byRel.get(rel)?.text) { done.push(`skipped ${rel}: changed since it was read`); continue; }
          const cut = cur.lastIndexOf('\n') + 1;
          const q = tx.quarantine(rel, cur.slice(cut));
          tx.write(rel, cur.slice(0, cut), { expected: cur });
          done.push(`quarantined the torn last line of ${rel} to ${q}`);
        }
      });
    }
    return done;
  },
};
