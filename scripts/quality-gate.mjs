#!/usr/bin/env node
// Keep search quality from sliding back (issue 17): run `bench locomo` on the LoCoMo dev split and
// `bench cjk` on cjk-dev, and fail when overall R@10 or hit@1 is more than 0.01 below the floor
// docs/benchmarks.md states ("Quality floors, checked by `.ci/run` …: LoCoMo dev overall R@10 `X`;
// cjk-dev hit@1 `Y`"). The data lives beside the repository (../shared/bench, never copied in);
// without it the gate says so and passes, so a clone elsewhere still runs its tests.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const data = resolve(process.env.MEMTIER_BENCH_DATA ?? join(repo, '..', 'shared', 'bench'));
const benchmarks = readFileSync(join(repo, 'docs', 'benchmarks.md'), 'utf8');
const floorOf = (re, what) => {
  const m = re.exec(benchmarks);
  if (!m) { console.error(`quality gate: docs/benchmarks.md states no floor for ${what}`); process.exit(1); }
  return Number(m[1]);
};
const floors = {
  locomo: floorOf(/LoCoMo dev overall R@10 `([\d.]+)`/, 'LoCoMo dev R@10'),
  cjk: floorOf(/cjk-dev hit@1 `([\d.]+)`/, 'cjk-dev hit@1'),
};
const bench = (args) => {
  const r = spawnSync(process.execPath, [join(repo, 'bin', 'memtier.js'), 'bench', ...args, '--json'], { encoding: 'utf8', env: { ...process.env, MEMTIER_WATCH: 'off' }, maxBuffer: 64 << 20 });
  if (r.status !== 0) { console.error(`quality gate: memtier bench ${args[0]} failed (exit ${r.status})\n${r.stderr}`); process.exit(1); }
  return JSON.parse(r.stdout);
};
const checks = [];
const locomo = join(data, 'locomo-dev.json');
if (existsSync(locomo)) checks.push(['LoCoMo dev overall R@10', bench(['locomo', '--data', locomo]).overall['R@10'], floors.locomo]);
else console.log(`quality gate: ${locomo} not found, LoCoMo skipped`);
const cjk = join(data, 'cjk-dev');
if (existsSync(join(cjk, 'queries.json'))) checks.push(['cjk-dev hit@1', bench(['cjk', '--data', cjk]).memtier.hit1, floors.cjk]);
else console.log(`quality gate: ${cjk} not found, cjk-dev skipped`);
let failed = false;
for (const [what, got, floor] of checks) {
  const ok = got >= floor - 0.01 - 1e-9;
  if (!ok) failed = true;
  console.log(`quality gate: ${what} ${got.toFixed(3)} (floor ${floor.toFixed(3)}, allowed down to ${(floor - 0.01).toFixed(3)}) ${ok ? 'ok' : 'FAILED'}`);
}
process.exit(failed ? 1 : 0);
