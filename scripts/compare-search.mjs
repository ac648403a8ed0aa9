#!/usr/bin/env node
// Compare search and recall outputs of two memtier builds on one memory, byte for byte:
//   node scripts/compare-search.mjs OLD_BIN NEW_BIN MEMORY_DIR
// Each build gets its own copy of the memory (its own .memtier/index); every query runs twice per
// build (the first builds the index, the second reads it cold), and each run's output must be the
// same for both builds (recall's second answer comes from its 15 s cache, `cached: true`, in both).
// Used to check that an index format change leaves results unchanged (issue 19).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [oldBin, newBin, memory] = process.argv.slice(2);
if (!oldBin || !newBin || !memory) { console.error('usage: compare-search.mjs OLD_BIN NEW_BIN MEMORY_DIR'); process.exit(2); }
const queries = [
  ['search', 'docker deploy failed'], ['search', 'postgres backup restore'], ['search', '部署 失败'], ['search', 'billing invoice customer'],
  ['search', 'kubernetes helm chart', '--k', '20'], ['search', 'coffee morning habit', '--explain'], ['search', 'rollback release version', '--type', 'DECISION'],
  ['search', '数据库 备份'], ['search', 'flight hotel budget', '--since', '2023-06-01'], ['search', 'alert dashboard latency', '--tier', 'warm'],
  ['search', 'what happened last week'], ['search', 'meeting on 2023-03-14'], ['search', 'lesson mistake', '--include-superseded'],
  ['recall', '--query', 'what did we decide about the deploy pipeline'], ['recall', '--query', 'backup restore incident', '--max-chars', '3000'],
];
const env = { ...process.env, MEMTIER_WATCH: 'off', MEMTIER_NOW: '2026-05-15T14:30:00Z', MEMTIER_TZ: 'UTC' };
const tmp = mkdtempSync(join(tmpdir(), 'memtier-compare-'));
let bad = 0;
try {
  const roots = [oldBin, newBin].map((_, i) => { const d = join(tmp, `m${i}`); cpSync(memory, d, { recursive: true, filter: (p) => !p.includes('/.memtier') }); return d; });
  for (const q of queries) {
    const outs = [];
    for (const [i, bin] of [oldBin, newBin].entries()) {
      for (let run = 0; run < 2; run++) {
        const r = spawnSync(process.execPath, [bin, ...q, '--root', roots[i], '--json'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
        outs.push(`${r.status}\n${r.stdout.replaceAll(roots[i], 'ROOT')}`);
      }
    }
    const same = outs[0] === outs[2] && outs[1] === outs[3];
    if (!same) bad++;
    console.log(`${same ? 'same' : 'DIFFERENT'}  ${q.join(' ')}  (${outs[0].length} bytes)`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log(bad ? `${bad} of ${queries.length} differ` : `all ${queries.length} identical`);
process.exit(bad ? 1 : 0);
