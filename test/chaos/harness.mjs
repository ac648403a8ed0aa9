/**
 * The chaos run: everything memtier does, at once, under random SIGKILLs, then a proof that
 * nothing acknowledged was lost or duplicated (test/chaos/check.mjs).
 *
 * Processes (each a child forked with IPC, test/chaos/runner.mjs, in its own process group):
 *   - 8 writers: `wal decide|task|pending|done` and `add` through the real CLI entry, with hostile
 *     payloads (test/chaos/random.mjs), as arguments or on standard input (`-`);
 *   - a rotator (`rotate --force`), an archiver (`archive`, its clock 25 days ahead), the nightly
 *     and weekly upkeep (`consolidate`, `review`, `dream --apply`), an editor (`forget` and
 *     `supersede` of entries this run acknowledged), a searcher (`search` through bin/memtier.js,
 *     answered by a `memtier watch` server that is itself killed and restarted), a committer
 *     (`git add -A && git commit`: the memory is a git repository, `init --git`), and a person who
 *     edits MEMORY.md and a note by hand between reads (`get`);
 *   - a killer: every 20-250 ms a SIGKILL to the process group of a random child that is running a
 *     job, or the watch server (sometimes two at once),
 *     which is then started again; and named crash points (MEMTIER_CRASH_AT) armed at random in
 *     the commands themselves, so the narrow windows are hit too. `matrix` arms every named point
 *     (read from lib/) until each has fired at least once.
 *
 * A write is acknowledged when the parent got the child's reply that the command exited 0. The
 * memories run on a simulated clock (6 hours a second from 2026-05-01) so rotation, the archive
 * and the reviews see several days. The same seed replays the same choices; the timings differ.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Child } from './child.mjs';
import { makeRandom, payload, query } from './random.mjs';
import { checkMemory, hashTree } from './check.mjs';

export const REPO = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
const BIN = join(REPO, 'bin/memtier.js');

/** The simulated clock: 2026-05-01 08:00 UTC plus 6 hours per real second. */
const SIM_START = Date.parse('2026-05-01T08:00:00Z');
const SIM_SPEED = 6 * 3600;
const DAY_MS = 86_400_000;

/** The person's marker lines: a line in MEMORY.md's Key facts and a bullet in a note. */
export const PERSON_FILES = [
  { rel: 'MEMORY.md', prefix: '- Hand note by the person, edit ', after: '## Key facts' },
  { rel: 'knowledge/person-notes.md', prefix: '- scratch edit ', after: '# Person notes' },
];

/**
 * Every named crash point memtier has: the names passed to crashPoint()/crashArmed() in lib/, read
 * from the source so a new point is covered by the matrix without touching the harness.
 */
export function crashPoints({ sync = false } = {}) {
  const names = new Set();
  const walk = (dir) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (d.name.endsWith('.ts')) {
        for (const m of readFileSync(p, 'utf8').matchAll(/crash(?:Point|Armed)\([^,()]+,\s*'([a-z]+\.[a-z-]+)'\)/g)) names.add(m[1]);
      }
    }
  };
  walk(join(REPO, 'lib'));
  // sync's points need a remote and a second machine: the machines mode (machines.mjs) arms them
  return [...names].filter((n) => sync || !n.startsWith('sync.')).sort();
}

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

/**
 * One run. Returns {ok, seed, seconds, kills, acknowledged, lost, duplicated, failures, summary,
 * fired}. `log` gets progress lines; the memory is removed unless `keep` (or the run failed and
 * `keepOnFailure`).
 */
export async function runChaos({ seed, seconds = 60, matrix = false, log = () => {}, keep = false, keepOnFailure = true }) {
  const started = Date.now();
  const rnd = makeRandom(seed);
  const base = mkdtempSync(join(tmpdir(), `memtier-chaos-${seed}-`));
  const root = join(base, 'memory-root');
  const outside = join(base, 'outside');
  const editorTmp = join(base, 'editor');
  const home = join(base, 'home');
  for (const d of [outside, editorTmp, home]) mkdirSync(d, { recursive: true });

  const baseEnv = {
    PATH: process.env.PATH,
    HOME: home,
    MEMTIER_TZ: 'UTC',
    MEMTIER_BUFFER_MAX_LINES: '24', // rotate often: rotation is the riskiest step
    MEMTIER_LOCK_TIMEOUT_MS: '60000', // 15 children on 2 cores: waiting is not failing
    GIT_CONFIG_NOSYSTEM: '1',
  };
  const simNow = () => new Date(SIM_START + (Date.now() - started) * SIM_SPEED).toISOString();
  const env = (extra = {}) => ({ ...baseEnv, MEMTIER_NOW: simNow(), ...extra });

  // --- the memory, a git repository, with the person's files and files outside the root ----------
  const init = spawnSync(process.execPath, [BIN, 'init', root, '--git', '--json'], { env: env(), encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`init failed: ${init.stdout}${init.stderr}`);
  writeFileSync(join(root, 'knowledge/person-notes.md'),
    `---\ntags: [notes]\ntype: knowledge\ncreated: 2026-05-01\nlast_verified: 2026-05-01\n---\n# Person notes\n\n${PERSON_FILES[1].prefix}0\n`);
  const memoryMd = readFileSync(join(root, 'MEMORY.md'), 'utf8');
  writeFileSync(join(root, 'MEMORY.md'), memoryMd.replace('## Key facts\n', `## Key facts\n${PERSON_FILES[0].prefix}0\n`));
  spawnSync('git', ['-c', 'user.name=chaos', '-c', 'user.email=chaos@example.invalid', 'commit', '-qam', 'chaos: setup', '--allow-empty'], { cwd: root });
  spawnSync('git', ['-c', 'user.name=chaos', '-c', 'user.email=chaos@example.invalid', 'add', '-A'], { cwd: root });
  spawnSync('git', ['-c', 'user.name=chaos', '-c', 'user.email=chaos@example.invalid', 'commit', '-qm', 'chaos: the person\'s files'], { cwd: root });
  writeFileSync(join(outside, 'neighbour.md'), '# Not memtier\'s\n\n- 14:30 [DECISION] lives outside the root ^outside0001\n');
  writeFileSync(join(outside, 'notes.txt'), 'untouched\n');
  const outsideBefore = hashTree(outside);
  const healthBefore = health(root, env());

  // --- book-keeping -------------------------------------------------------------------------------
  const acked = new Map(); // id → {role, kind, entry?}
  const forgets = new Map(); // id → {acked: boolean}
  const superseded = new Set(); // ids struck through by an acknowledged supersede
  const targeted = new Set(); // ids handed to forget or supersede (each once)
  const person = new Map(PERSON_FILES.map((f) => [f.rel, 0])); // rel → last acknowledged edit number
  const readErrors = [];
  const internalErrors = []; // exit 2 with code "internal": a bug, whatever the input
  const outcomes = new Map(); // "command outcome" → count, for the log
  const points = crashPoints();
  const fired = new Set();
  let kills = 0;
  let jobs = 0;
  let stopping = false;

  /** A crash point for this job: in matrix mode every other job until each point fired, else 1 in 12. */
  const armFor = (r, argv) => {
    let unfired = points.filter((p) => !fired.has(p));
    // A rotation's points fire only in a rotation, forget's only in a forget: those commands take them first.
    for (const cmd of ['rotate', 'forget']) {
      if (argv[0] === cmd && unfired.some((p) => p.startsWith(`${cmd}.`))) unfired = unfired.filter((p) => p.startsWith(`${cmd}.`));
    }
    if (matrix && unfired.length && (argv[0] === 'forget' || r.chance(0.5))) return { MEMTIER_CRASH_AT: r.pick(unfired), MEMTIER_CRASH_SKIP: '0' };
    if (r.chance(1 / 12)) return { MEMTIER_CRASH_AT: r.pick(points), MEMTIER_CRASH_SKIP: String(r.int(0, 2)) };
    return {};
  };

  // --- children -----------------------------------------------------------------------------------
  const children = new Set(); // live Child objects, for the killer
  const run = { env: baseEnv, children, stopping: () => stopping };

  /** A CLI job with a crash point maybe armed; records a point that fired. */
  const cli = async (child, r, argv, { stdin, extraEnv = {} } = {}) => {
    const arm = armFor(r, argv);
    jobs++;
    // A job armed with a point that has not fired yet is left to reach it: on a loaded machine
    // (CI, other test files beside this one) commands slow down and the killer took a forget every
    // time before its crash point, so the matrix never completed.
    child.spared = Boolean(arm.MEMTIER_CRASH_AT) && !fired.has(arm.MEMTIER_CRASH_AT) && !('MEMTIER_CRASH_AT' in extraEnv);
    const reply = await child.run({ op: 'cli', argv: ['--root', root, '--json', ...argv], env: env({ ...arm, ...extraEnv }), stdin });
    child.spared = false;
    if (reply.dead && reply.signal === 'SIGKILL' && !reply.byKiller && arm.MEMTIER_CRASH_AT) fired.add(arm.MEMTIER_CRASH_AT);
    let json;
    if (!reply.dead) try { json = JSON.parse(reply.stdout); } catch { /* not JSON */ }
    const outcome = reply.dead ? (reply.byKiller ? 'killed' : arm.MEMTIER_CRASH_AT ? 'crash point' : `died ${reply.signal ?? reply.code}`)
      : reply.code === 0 ? 'ok' : `exit ${reply.code} ${json?.error?.code ?? ''}`.trim();
    const key = `${argv[0]} ${outcome}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    if (reply.code === 2 && json?.error?.code === 'internal') internalErrors.push(`${argv.join(' ').slice(0, 120)}: ${json.error.message}`);
    return { ...reply, json };
  };

  // --- roles --------------------------------------------------------------------------------------
  const WAL_KINDS = ['decide', 'decide', 'task', 'pending', 'done'];
  const writer = (n) => async (child, r) => {
    const text = payload(r);
    const viaStdin = text.startsWith('-') || r.chance(0.4);
    const arg = viaStdin ? '-' : text;
    const isAdd = r.chance(0.3);
    const argv = isAdd ? ['add', ...(r.chance(0.5) ? ['--type', r.pick(['EVENT', 'DECISION', 'TECH', 'PEOPLE', 'LESSON'])] : []), arg] : ['wal', r.pick(WAL_KINDS), arg];
    const res = await cli(child, r, argv, { stdin: viaStdin ? text : undefined });
    if (res.code === 0 && res.json?.ok && res.json.id) acked.set(res.json.id, { role: `writer${n}`, kind: argv.slice(0, 2).join(' '), entry: res.json.entry });
  };
  const rotator = async (child, r) => { await cli(child, r, ['rotate', ...(r.chance(0.7) ? ['--force'] : [])]); await sleep(r.int(100, 600)); };
  const archiver = async (child, r) => {
    const ahead = new Date(Date.parse(simNow()) + 25 * DAY_MS).toISOString();
    await cli(child, r, ['archive', '--days', '30', '--now', ahead]);
    await sleep(r.int(300, 1500));
  };
  const upkeep = async (child, r) => {
    await cli(child, r, r.pick([['consolidate'], ['review'], ['review', '--apply'], ['dream', '--apply']]));
    await sleep(r.int(100, 800));
  };
  const editor = async (child, r) => {
    const candidates = [...acked.keys()].filter((id) => !targeted.has(id));
    if (candidates.length < 3) { await sleep(200); return; }
    const id = r.pick(candidates);
    targeted.add(id);
    // In the matrix, forget until its own crash point has fired (only a forget reaches it).
    const forgetUnfired = matrix && points.some((p) => p.startsWith('forget.') && !fired.has(p));
    if (r.chance(0.5) || forgetUnfired) {
      forgets.set(id, { acked: false });
      const res = await cli(child, r, ['forget', `^${id}`]);
      if (res.code === 0 && res.json?.ok) forgets.set(id, { acked: true });
    } else {
      const by = payload(r).replace(/^-+/, '').slice(0, 300) || 'corrected';
      const res = await cli(child, r, ['supersede', `^${id}`, '--by', by]);
      if (res.code === 0 && res.json?.ok) {
        superseded.add(id);
        if (res.json.by?.id) acked.set(res.json.by.id, { role: 'editor', kind: 'supersede --by' });
      }
    }
    await sleep(r.int(50, 400));
  };
  const searcher = async (child, r) => {
    jobs++;
    const res = await child.run({ op: 'bin', argv: ['search', query(r), '--root', root, '--json'], env: env() });
    if (!res.dead && res.code !== 0 && res.code !== 1) readErrors.push(`search exited ${res.code}: ${String(res.stderr || res.stdout).slice(0, 400)}`);
    await sleep(r.int(20, 200));
  };
  const committer = async (child, r) => {
    jobs++;
    await child.run({ op: 'git', root, env: baseEnv });
    await sleep(r.int(200, 900));
  };
  let editNo = 0;
  const personRole = async (child, r) => {
    // A read first (what a person looks at before editing), then a hand edit of one of the files.
    const read = await cli(child, r, ['get', r.pick(PERSON_FILES).rel], { extraEnv: { MEMTIER_CRASH_AT: '' } });
    if (!read.dead && read.code !== 0) readErrors.push(`get exited ${read.code}: ${String(read.stdout || read.stderr).slice(0, 400)}`);
    const f = r.pick(PERSON_FILES);
    const n = ++editNo;
    jobs++;
    const res = await child.run({ op: 'edit', root, rel: f.rel, tmpDir: editorTmp, prefix: f.prefix, after: f.after, n });
    if (!res.dead && res.code === 0) person.set(f.rel, Math.max(person.get(f.rel), n));
    await sleep(r.int(50, 400));
  };

  const roles = [
    ...Array.from({ length: 8 }, (_, n) => [`writer${n}`, writer(n)]),
    ['rotator', rotator], ['archiver', archiver], ['upkeep', upkeep], ['editor', editor],
    ['searcher', searcher], ['committer', committer], ['person', personRole],
  ];

  const loops = roles.map(async ([name, step]) => {
    const r = rnd.fork();
    const child = new Child(name, run, { stderrTail: true });
    while (!stopping) await step(child, r);
    return child;
  });

  // The `memtier watch` server: started, killed, started again.
  const watch = { proc: undefined, killedByKiller: false, name: 'watch' };
  const startWatch = () => {
    const p = spawn(process.execPath, [BIN, 'watch', '--root', root], { detached: true, stdio: 'ignore', env: env() });
    watch.proc = p;
    p.on('exit', () => { if (watch.proc === p) watch.proc = undefined; });
  };
  startWatch();
  const watchLoop = (async () => {
    while (!stopping) { if (!watch.proc) startWatch(); await sleep(300); }
  })();

  // The killer.
  const killerRnd = rnd.fork();
  const killer = (async () => {
    while (!stopping) {
      await sleep(killerRnd.int(20, 250));
      if (stopping) break;
      // Live = in the middle of a job: killing a child that sleeps between jobs tests nothing.
      const live = [...children].filter((c) => c.proc && c.pending && !c.spared);
      if (watch.proc) live.push({ kill: () => { try { process.kill(-watch.proc.pid, 'SIGKILL'); return true; } catch { return false; } } });
      const count = killerRnd.chance(0.2) ? 2 : 1;
      for (let i = 0; i < count && live.length; i++) {
        const victim = live.splice(killerRnd.int(0, live.length - 1), 1)[0];
        if (victim.kill(true)) kills++;
      }
    }
  })();

  // --- run, stop ----------------------------------------------------------------------------------
  const deadline = started + seconds * 1000;
  const matrixCap = started + Math.max(seconds, 120) * 1000;
  let lastReport = Date.now();
  while (Date.now() < deadline || (matrix && fired.size < points.length && Date.now() < matrixCap)) {
    await sleep(250);
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      log(`chaos: ${Math.round((Date.now() - started) / 1000)} s, ${jobs} jobs, ${kills} kills, ${acked.size} acknowledged, ${fired.size}/${points.length} crash points fired`);
    }
  }
  stopping = true;
  // The end is one more crash: every child killed where it stands, the watch server too.
  for (const c of children) c.kill(false);
  if (watch.proc) try { process.kill(-watch.proc.pid, 'SIGKILL'); } catch { /* gone */ }
  await Promise.all([...loops, watchLoop, killer]);
  const elapsed = Math.round((Date.now() - started) / 1000);

  // --- recovery and the proof -------------------------------------------------------------------------
  const failures = [];
  if (matrix) {
    const missed = points.filter((p) => !fired.has(p));
    if (missed.length) failures.push(`matrix: crash points never fired: ${missed.join(', ')}`);
  }
  for (const e of readErrors) failures.push(`a read failed during the run: ${e}`);
  for (const e of internalErrors) failures.push(`internal error (a bug): ${e}`);
  log(`chaos: outcomes: ${[...outcomes].sort().map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const result = checkMemory({ root, env: env(), acked, forgets, superseded, person, personFiles: PERSON_FILES, outside, outsideBefore, healthBefore, bin: BIN });
  failures.push(...result.failures);
  const ok = failures.length === 0;
  const summary = `chaos: seed ${seed}, ${elapsed} s, ${kills} kills, ${acked.size} acknowledged, ${result.lost} lost, ${result.duplicated} duplicated`;
  if (!keep && !(keepOnFailure && !ok)) rmSync(base, { recursive: true, force: true });
  return { ok, seed, seconds: elapsed, kills, jobs, acknowledged: acked.size, lost: result.lost, duplicated: result.duplicated, failures, summary, fired: [...fired].sort(), points, base, stats: result.stats };
}

/** `memtier health --json` findings of severity fail, as "check: file: message" strings. */
export function health(root, env) {
  const r = spawnSync(process.execPath, [BIN, 'health', '--root', root, '--json'], { env, encoding: 'utf8', timeout: 120_000 });
  let j;
  try { j = JSON.parse(r.stdout); } catch { return [`health did not answer JSON (exit ${r.status}): ${r.stderr.slice(0, 400)}`]; }
  return (j.findings ?? []).filter((f) => f.severity === 'fail').map((f) => `${f.check}: ${f.file ?? ''}${f.line ? `:${f.line}` : ''}: ${f.message}`);
}
