// A child process for the store's process-level tests (crash points, locks, concurrency, full
// disk). It uses the COMPILED store (dist/; run `npx tsc -p .` first), like the real binary.
//
//   node worker.mjs append  ROOT REL COUNT TAG   append COUNT entries, print "ack ID" after each
//   node worker.mjs replace ROOT REL COUNT TAG   add COUNT lines by atomic replace, "ack ID" after each
//   node worker.mjs write   ROOT REL BYTES       one atomic replace with BYTES bytes of text
//   node worker.mjs appendbytes ROOT REL BYTES   one durable append of an entry of about BYTES bytes
//   node worker.mjs hold    ROOT REL FILE TEXT   take the lock, append TEXT, print "locked", hold it until FILE exists
//   node worker.mjs secret  ROOT REL TEXT        append TEXT (expected to be refused)
//
// Errors are printed to stderr the way a CLI prints them (message, JSON and inspect) and the
// process exits with 2.
import { inspect } from 'node:util';
import { existsSync } from 'node:fs';
import { openStore } from '../../dist/lib/store/store.js';
import { makeClock } from '../../dist/lib/core/clock.js';

const [mode, root, rel, a, b] = process.argv.slice(2);
const store = openStore({ root, env: process.env, clock: makeClock({ now: '2026-05-15T14:30:00Z', tz: 'UTC' }) });
const out = (s) => process.stdout.write(s + '\n');
const sleeper = new Int32Array(new SharedArrayBuffer(4));

try {
  if (mode === 'append') {
    const n = Number(a);
    for (let i = 0; i < n; i++) {
      const id = `${b}x${String(i).padStart(4, '0')}`;
      store.mutate((tx) => tx.append(rel, `- 14:30 [EVENT] ${b} entry ${i} café ✓ naïve — ok ^${id}\n`));
      out(`ack ${id}`);
    }
  } else if (mode === 'replace') {
    const n = Number(a);
    for (let i = 0; i < n; i++) {
      const id = `${b}x${String(i).padStart(4, '0')}`;
      store.mutate((tx) => {
        const cur = tx.read(rel) ?? '';
        tx.write(rel, `${cur}- 14:30 [EVENT] ${b} line ${i} ✓ ^${id}\n`, { expected: cur });
      });
      out(`ack ${id}`);
    }
  } else if (mode === 'write') {
    const n = Number(a);
    store.mutate((tx) => tx.write(rel, `# Big\n\n${'- 14:30 [EVENT] filler line for the disk-full test ^fill00000a\n'.repeat(Math.ceil(n / 60))}`.slice(0, n)));
    out('done');
  } else if (mode === 'appendbytes') {
    const n = Number(a);
    store.mutate((tx) => tx.append(rel, `- 14:30 [EVENT] ${'x'.repeat(n)} ^bigx000001\n`));
    out('done');
  } else if (mode === 'hold') {
    store.mutate((tx) => {
      tx.append(rel, `${b}\n`);
      out('locked');
      for (let i = 0; i < 3000 && !existsSync(a); i++) Atomics.wait(sleeper, 0, 0, 10);
    });
    out('released');
  } else if (mode === 'secret') {
    store.mutate((tx) => tx.append(rel, a));
    out('done');
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
} catch (e) {
  process.stderr.write(`memtier: ${e?.file ?? ''}${e?.line ? `:${e.line}` : ''}: ${e?.message} [${e?.rule ?? ''}] fix: ${e?.hint ?? ''}\n`);
  process.stderr.write(JSON.stringify({ error: typeof e?.toJSON === 'function' ? e.toJSON() : String(e) }) + '\n');
  process.stderr.write(inspect(e) + '\n');
  process.exitCode = 2;
}
