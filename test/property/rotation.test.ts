/**
 * Rotation merge (lib/wal/rotate.ts mergeAside, through rotate / finishRotation): for any stream
 * of buffer appends (WAL writes, lines a person types) and direct day appends (`add`), in any
 * interleaving and with rotations at any points,
 * - the day files end with the same entries (ids aside: a typed line's derived id names its
 *   rotation), so when rotation runs does not change what the memory holds;
 * - every acknowledged write is there exactly once;
 * - merging an aside file again (a crash after the merge, before its trash) changes nothing.
 * One day and one instant throughout: an undated line goes to the rotation's day by design.
 */
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENTRY_TYPES, parseEntries } from '../../lib/format/entry.js';
import { addEntries } from '../../lib/wal/episodic.js';
import { BUFFER_HEADER, finishRotation, rotate, ROTATING_DIR } from '../../lib/wal/rotate.js';
import { walWrite, type WalKind } from '../../lib/wal/wal.js';
import { testCtx, trackTemp, writeTree } from '../helpers.js';
import { configure, line } from './settings.js';

configure(25);

const NOW = '2026-05-14T10:30:00Z';
type BufferOp = { kind: 'wal'; verb: WalKind; text: string } | { kind: 'hand'; line: string };
type DayOp = { kind: 'add'; type: (typeof ENTRY_TYPES)[number]; text: string };

const text = line.filter((t) => t.trim().length > 0);
/** What a person types: anything but a NUL byte (a file holding one is binary, refused: FORMAT.md "Encoding"). */
const typed = (l: string): string => l.replace(/\u0000/g, '');
const bufferOp: fc.Arbitrary<BufferOp> = fc.oneof(
  fc.record({ kind: fc.constant('wal' as const), verb: fc.constantFrom<WalKind>('decide', 'task', 'pending', 'done', 'blocker'), text }),
  // a person's line: a bullet of any shape, a plain line, an entry carrying an id (sometimes the same one twice)
  fc.record({ kind: fc.constant('hand' as const), line: fc.oneof(line.map((l) => `- ${l}`), line, text.map((t) => `- 09:15 [EVENT] ${t} ^hand0001`), fc.constant('- ^abcdef123456')) }),
);
const dayOp: fc.Arbitrary<DayOp> = fc.record({ kind: fc.constant('add' as const), type: fc.constantFrom(...ENTRY_TYPES), text });

/** A run: appends in one order, with a rotation after the appends marked. */
const schedule = (n: number) => fc.array(fc.boolean(), { minLength: n, maxLength: n });

/** A memory in RAM where there is one (every write is fsynced; the property is about the merge, not the disk). */
const RAM = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
function memory(): string {
  const root = trackTemp(mkdtempSync(join(RAM, 'memtier-prop-')));
  writeTree(root, { 'MEMORY.md': '# Memory\n', 'memory/working-buffer.md': BUFFER_HEADER, 'memory/episodic/.keep': '' });
  return root;
}

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) walk(p, out); else out.push(p);
  }
  return out;
}

/** The day files' entries, each without its id (sorted: appends to a day may come in any order). */
function dayEntries(root: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of walk(join(root, 'memory/episodic')).filter((p) => p.endsWith('.md'))) {
    out[relative(root, f)] = parseEntries(readFileSync(f, 'utf8')).map((e) => e.raw.replace(/ \^[A-Za-z0-9][A-Za-z0-9-]{2,63}$/, '')).sort();
  }
  return out;
}
const dayBytes = (root: string): Record<string, string> => Object.fromEntries(walk(join(root, 'memory/episodic')).map((f) => [relative(root, f), readFileSync(f, 'utf8')]));

/** Put every aside file rotation trashed since the last call back, merge again: nothing may change. */
function replayAsides(root: string, seen: Set<string>): void {
  const asides = walk(join(root, 'memory/.trash')).filter((p) => p.includes(`${ROTATING_DIR}/`) && !seen.has(p));
  if (!asides.length) return;
  const before = dayBytes(root);
  mkdirSync(join(root, ROTATING_DIR), { recursive: true });
  for (const a of asides) { seen.add(a); cpSync(a, join(root, ROTATING_DIR, basename(a))); }
  const r = finishRotation(testCtx(root, NOW));
  expect(r.recovered).toBe(asides.length);
  expect(r.moved).toBe(0);
  expect(dayBytes(root)).toEqual(before);
  for (const p of walk(join(root, 'memory/.trash'))) seen.add(p);
}

/** Run the ops in order, rotating where marked; returns the ids acknowledged. */
function run(root: string, ops: (BufferOp | DayOp)[], rotations: boolean[]): string[] {
  const ctx = testCtx(root, NOW);
  const acked: string[] = [];
  const seen = new Set<string>();
  ops.forEach((op, i) => {
    if (op.kind === 'wal') acked.push(walWrite(ctx, { kind: op.verb, text: op.text }).id);
    else if (op.kind === 'hand') appendFileSync(join(root, 'memory/working-buffer.md'), typed(op.line) + '\n');
    else acked.push(...addEntries(ctx, [{ type: op.type, text: op.text }]).map((a) => a.id));
    if (rotations[i]) { rotate(ctx, { force: true }); replayAsides(root, seen); }
  });
  rotate(ctx, { force: true });
  replayAsides(root, seen);
  return acked;
}

/** Two interleavings of the buffer stream and the day stream (each keeps its own order). */
function interleave<A, B>(a: A[], b: B[], picks: boolean[]): (A | B)[] {
  const out: (A | B)[] = [];
  let i = 0;
  let j = 0;
  for (const p of picks) {
    if ((p && i < a.length) || j >= b.length) { if (i < a.length) out.push(a[i++]!); } else out.push(b[j++]!);
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

describe('rotation merge (property)', () => {
  it('is idempotent, loses and duplicates nothing, and does not depend on when it runs', () => {
    const scenario = fc.tuple(fc.array(bufferOp, { minLength: 1, maxLength: 7 }), fc.array(dayOp, { maxLength: 3 })).chain(([b, d]) => {
      const n = b.length + d.length;
      return fc.tuple(fc.constant(b), fc.constant(d), schedule(n), schedule(n), schedule(n), schedule(n));
    });
    fc.assert(fc.property(scenario, ([b, d, pick1, pick2, rot1, rot2]) => {
      const one = memory();
      const two = memory();
      const acked1 = run(one, interleave<BufferOp, DayOp>(b, d, pick1), rot1);
      const acked2 = run(two, interleave<BufferOp, DayOp>(b, d, pick2), rot2);
      expect(dayEntries(two)).toEqual(dayEntries(one));
      for (const [root, acked] of [[one, acked1], [two, acked2]] as const) {
        const ids = Object.values(dayBytes(root)).flatMap((t) => parseEntries(t).map((e) => e.id));
        for (const id of acked) expect(ids.filter((x) => x === id), `^${id}`).toHaveLength(1);
        expect(parseEntries(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8'))).toEqual([]);
      }
    }));
  });
});
