#!/usr/bin/env node
// npm run chaos [-- --minutes M] [--seeds K] [--seed N] [--matrix] [--machines N] [--keep]
//
// Runs the chaos harness (test/chaos/harness.mjs) against the built dist/ (run `npm run build`
// first): K runs of M minutes each (default 1 run of 1 minute), seeds drawn from the time unless
// --seed N replays one. Prints the seed first, one summary line per run
// (`chaos: seed S, N s, K kills, A acknowledged, 0 lost, 0 duplicated`), and on a failure every
// finding, the seed again and where the memory was kept. Exit 0 when every run passed, 1 if not.
// --matrix also arms every named crash point (MEMTIER_CRASH_AT) until each has fired once.
// --machines N runs the multi-machine mode instead (test/chaos/machines.mjs): N clones of one bare
// remote, each with its writers, editor, keeper, person and `memtier sync`, under the same kills;
// then every machine syncs until nothing changes and the proof runs on each. Its summary line:
// `chaos: seed S, machines N, T s, K kills, A acknowledged, 0 lost, 0 duplicated, 0 resurrected, C conflicts`
// (with --matrix: every sync.* crash point fired at least once).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, runChaos } from '../test/chaos/harness.mjs';

function parse(argv) {
  const o = { minutes: 1, seeds: 1, seed: undefined, matrix: false, keep: false, machines: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined || !/^\d+(\.\d+)?$/.test(v)) throw new Error(`${a} needs a number, got ${v ?? 'nothing'}`);
      return Number(v);
    };
    if (a === '--minutes') o.minutes = val();
    else if (a === '--seconds') o.minutes = val() / 60;
    else if (a === '--seeds') o.seeds = Math.max(1, Math.floor(val()));
    else if (a === '--seed') o.seed = Math.floor(val());
    else if (a === '--matrix') o.matrix = true;
    else if (a === '--machines') {
      o.machines = Math.floor(val());
      if (o.machines < 2 || o.machines > 9) throw new Error(`--machines needs 2 to 9, got ${o.machines}`);
    }
    else if (a === '--keep') o.keep = true;
    else if (a === '--help' || a === '-h') { process.stdout.write(HELP); process.exit(0); }
    else throw new Error(`unknown option ${a} (see npm run chaos -- --help)`);
  }
  return o;
}

const HELP = `npm run chaos -- [--minutes M] [--seeds K] [--seed N] [--matrix] [--machines N] [--keep]

  --minutes M   length of each run (default 1; --seconds S for short runs)
  --seeds K     how many runs, each with its own seed (default 1)
  --seed N      replay seed N (the same choices; timings differ)
  --matrix      arm every named crash point until each has fired at least once
                (with --machines: every sync.* point)
  --machines N  one memory on N machines (2-9): clones of one bare git remote, each with
                writers, an editor (forget, supersede), rotate/archive, a person's hand
                edits and \`memtier sync\` at random, under the same kills; at the end every
                machine syncs until nothing changes, then each is checked: every acknowledged
                entry once, no forgotten one back, superseded ones struck, no conflict
                markers, git fsck clean, all machines at one commit. Summary:
                chaos: seed S, machines N, T s, K kills, A acknowledged, 0 lost,
                0 duplicated, 0 resurrected, C conflicts
  --keep        keep the memory of a passing run (a failing run's is always kept)
`;

let opts;
try { opts = parse(process.argv.slice(2)); } catch (e) { process.stderr.write(`chaos: ${e.message}\n`); process.exit(2); }
if (!existsSync(join(REPO, 'dist/lib/cli/main.js'))) { process.stderr.write('chaos: dist/ is missing: run npm run build first\n'); process.exit(2); }

let failed = 0;
const { runMachines } = opts.machines ? await import('../test/chaos/machines.mjs') : {};
for (let k = 0; k < opts.seeds; k++) {
  const seed = opts.seed !== undefined && k === 0 ? opts.seed : (Date.now() ^ (k * 0x9e3779b9)) >>> 0;
  process.stdout.write(`chaos: seed ${seed}${opts.machines ? `, machines ${opts.machines}` : ''}${opts.matrix ? ' (matrix)' : ''}, ${opts.minutes * 60} s\n`);
  const log = (s) => process.stderr.write(s + '\n');
  const r = opts.machines
    ? await runMachines({ seed, seconds: opts.minutes * 60, machines: opts.machines, syncMatrix: opts.matrix, keep: opts.keep, log })
    : await runChaos({ seed, seconds: opts.minutes * 60, matrix: opts.matrix, keep: opts.keep, log });
  process.stdout.write(`${r.summary}\n`);
  if (opts.machines) {
    process.stdout.write(`${r.detail}\n`);
    for (const n of r.notes) process.stdout.write(`  note ${n}\n`);
    if (opts.keep && r.ok) process.stdout.write(`chaos: the memories are kept in ${r.base}\n`);
  }
  if (!r.ok) {
    failed++;
    for (const f of r.failures) process.stdout.write(`  FAIL ${f}\n`);
    process.stdout.write(`chaos: seed ${seed} FAILED (replay: npm run chaos -- --seed ${seed} --minutes ${opts.minutes}${opts.machines ? ` --machines ${opts.machines}` : ''}${opts.matrix ? ' --matrix' : ''}); the memor${opts.machines ? 'ies are' : 'y is'} kept in ${r.base}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
