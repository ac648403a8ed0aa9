// A child process for the recall-history concurrency test. Uses the COMPILED code (dist/;
// run `npx tsc -p .` first).   node history-worker.mjs ROOT COUNT PREFIX
import { recordRecalls } from '../../dist/lib/search/history.js';
import { makeClock } from '../../dist/lib/core/clock.js';

const [root, count, prefix] = process.argv.slice(2);
const ctx = { root, env: {}, clock: makeClock({ now: '2026-05-15T14:30:00Z', tz: 'UTC' }), log: { info() {}, warn() {} }, cwd: root, interactive: false };
for (let i = 0; i < Number(count); i++) recordRecalls(ctx, ['shared0001', `${prefix}-${i}`], `query ${prefix} ${i % 3}`);
