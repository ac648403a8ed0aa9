// A WAL writer for crash and concurrency tests: runs the COMPILED lib (dist/), writes N decisions
// "NAME-i", and prints "ack NAME-i" after each write returned (= acknowledged to the agent).
import { walWrite } from '../../dist/lib/wal/wal.js';
import { makeClock } from '../../dist/lib/core/clock.js';

const [root, name, count] = process.argv.slice(2);
const ctx = { root, clock: makeClock({ tz: 'UTC', now: process.env.MEMTIER_NOW }), log: { info() {}, warn() {} }, env: process.env, cwd: root, interactive: false };
for (let i = 0; i < Number(count); i++) {
  walWrite(ctx, { kind: 'decide', text: `${name}-${i}` });
  process.stdout.write(`ack ${name}-${i}\n`);
}
