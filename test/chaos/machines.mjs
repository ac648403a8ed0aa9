/**
 * The multi-machine chaos run (`npm run chaos -- --machines 3`): one memory, several clones of one
 * bare git remote ("machines"), everything memtier does on each of them at once, `memtier sync`
 * among them, random SIGKILLs, then a proof on every machine that nothing acknowledged was lost,
 * duplicated or brought back.
 *
 * Setup: a bare remote (`git init --bare -b main`); a seed memory made by `memtier init --git`, with
 * the person's note, pushed to it; N clones made by `memtier clone BARE DIR --machine mN`. Every
 * process of machine mN runs with MEMTIER_MACHINE=mN.
 *
 * Per machine, concurrently (each a child forked with IPC, test/chaos/runner.mjs, in its own process
 * group, as in test/chaos/harness.mjs):
 *   - writers: `wal decide|task|pending|done` and `add`, hostile payloads (test/chaos/random.mjs);
 *   - an editor: `forget` and `supersede --by` of entries this machine acknowledged and, sometimes,
 *     of entries it got from the others by sync (ids read from its own buffer and latest days);
 *   - a keeper: `rotate --force` (or `rotate`), sometimes `archive` with its clock 25 days ahead;
 *   - a person: a read (`get`), then a hand edit of MEMORY.md or a note (a marker line of this
 *     machine appended, its oldest dropped beyond 3), and sometimes `memtier resolve` of a file
 *     that has conflict copies;
 *   - a syncer: `memtier sync` at random intervals. Syncs of different machines run at once (they
 *     share only the bare remote).
 * A killer SIGKILLs the process group of a random child in the middle of a job (writer, sync, …),
 * and named crash points (MEMTIER_CRASH_AT) are armed at random, the sync.* ones more often for a
 * sync (with `syncMatrix`, every sync.* point until each has fired once).
 *
 * The remote stands for a server: git runs its receive-pack in a session of its own (setsid), so a
 * kill of a sync kills the machine's git (fetch, push) but not the server's side of the push, which
 * ends on its own when the client goes away, as a real server's does. (Killing the remote's
 * receive-pack mid ref update would leave a ref lock in the remote: a fault of the server, not of a
 * machine, and outside what memtier can repair.)
 *
 * Acknowledged: the command exited 0 (a sync: 0 or 1). An acknowledged add/wal's `^id` and machine
 * are recorded; an acknowledged forget's id; an acknowledged supersede's old id (struck) and the
 * new entry's id (an acknowledged entry too).
 *
 * At the end: every child is killed where it stands; every machine runs `memtier rotate` (what the
 * next writing command does: finishes what kills left), then `memtier sync` round-robin until a
 * full round changes nothing (nothing committed, pulled or pushed, every machine at the remote's
 * commit); a sync that fails is retried. Then the proof (checkMachines), on every machine.
 *
 * Memories run on the simulated clock of harness.mjs (6 hours a second from 2026-05-01), shared by
 * all machines. The same seed replays the same choices; the timings differ.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Child } from './child.mjs';
import { makeRandom, payload } from './random.mjs';
import { hashTree } from './check.mjs';
import { crashPoints, health, REPO } from './harness.mjs';

const BIN = join(REPO, 'bin/memtier.js');
const dist = (p) => import(pathToFileURL(join(REPO, 'dist/lib', p)).href);
const { parseFrontmatter } = await dist('format/frontmatter.js');
const { isTornEntry } = await dist('store/store.js');
const { findOrphanTemps } = await dist('store/fsync.js');

/** The simulated clock: 2026-05-01 08:00 UTC plus 6 hours per real second (sim ms per real ms). */
const SIM_START = Date.parse('2026-05-01T08:00:00Z');
const SIM_SPEED = 6 * 3600;
const DAY_MS = 86_400_000;
const GIT_ID = ['-c', 'user.name=chaos', '-c', 'user.email=chaos@example.invalid'];

/** The person's files: MEMORY.md's Key facts and a note; each machine's marker lines go after `after`. */
export const MACHINE_PERSON_FILES = [
  { rel: 'MEMORY.md', after: '## Key facts' },
  { rel: 'knowledge/person-notes.md', after: '# Person notes' },
];
const markerPrefix = (machine) => `- Hand note by ${machine}, edit `;

const ID_TAIL = /\s\^([A-Za-z0-9][A-Za-z0-9-]{2,63})\s*$/;
const MARKER_LINE = /^(<<<<<<<|>>>>>>>)( |$)/;
const COPY_RE = /\.conflict-[A-Za-z0-9._-]+\.md$/;
/** The log files: where an entry lives until it is forgotten (buffer, days, archive, a rotation aside, old dated notes). */
const isLog = (rel) => rel === 'memory/working-buffer.md' || /^memory\/(episodic|archive|\.rotating)\//.test(rel) || /^memory\/\d{4}-\d{2}-\d{2}[^/]*\.md$/.test(rel);
/** What memtier commits in a memory repository (lib/git/index.ts MEMORY_PATHSPECS). */
const MEMORY_PATHSPECS = ['MEMORY.md', 'SESSION-STATE.md', 'todos.md', 'DREAMS.md', 'memory', 'knowledge', '.gitattributes', '.gitignore'];

/** Which build ran: a hash of every file's name, size and time under dist/ (lib/ may be rebuilt during a long run). */
export function distFingerprint() {
  const h = createHash('sha256');
  const walk = (dir) => {
    let ents = [];
    try { ents = readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const d of ents.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, d.name);
      if (d.isDirectory()) { if (d.name !== '.code-cache') walk(p); continue; }
      try { const st = statSync(p); h.update(`${p}\0${st.size}\0${st.mtimeMs}\n`); } catch { /* gone meanwhile */ }
    }
  };
  walk(join(REPO, 'dist'));
  return h.digest('hex').slice(0, 12);
}

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
const gitIn = (cwd, args, env) => spawnSync('git', [...GIT_ID, ...args], { cwd, env, encoding: 'utf8', timeout: 120_000 });

/**
 * One multi-machine run. Returns {ok, seed, machines, seconds, kills, acknowledged, lost,
 * duplicated, resurrected, unstruck, markers, conflicts, failures, notes, summary, fired, base}.
 */
export async function runMachines({ seed, seconds = 60, machines: count = 3, writers = 2, syncMatrix = false, killEvery = [200, 1500], log = () => {}, keep = false, keepOnFailure = true }) {
  const started = Date.now();
  const rnd = makeRandom(seed);
  const dist0 = distFingerprint();
  const base = mkdtempSync(join(tmpdir(), `memtier-chaos-m${count}-${seed}-`));
  const bare = join(base, 'remote.git');
  const seedRoot = join(base, 'seed');
  const home = join(base, 'home');
  const editorTmp = join(base, 'editor');
  for (const d of [home, editorTmp]) mkdirSync(d, { recursive: true });

  const baseEnv = {
    PATH: process.env.PATH,
    HOME: home,
    MEMTIER_TZ: 'UTC',
    MEMTIER_BUFFER_MAX_LINES: '24',
    MEMTIER_LOCK_TIMEOUT_MS: '60000',
    GIT_CONFIG_NOSYSTEM: '1',
  };
  // (harness.mjs divides by 1000 as well: its clock runs 21.6 s a second, not 6 hours, and its days never pass)
  const simNow = () => new Date(SIM_START + (Date.now() - started) * SIM_SPEED).toISOString();
  const envOf = (machine, extra = {}) => ({ ...baseEnv, MEMTIER_MACHINE: machine, MEMTIER_NOW: simNow(), ...extra });
  const runBin = (args, env, cwd = home) => spawnSync(process.execPath, [BIN, ...args], { env, cwd, encoding: 'utf8', timeout: 180_000 });

  // --- the remote, the seed memory, the clones -----------------------------------------------------
  const must = (r, what) => { if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}): ${r.stdout}${r.stderr}`); return r; };
  must(gitIn(base, ['init', '-q', '--bare', '-b', 'main', bare], baseEnv), 'git init --bare');
  must(runBin(['init', seedRoot, '--git', '--json'], envOf('seed')), 'memtier init --git');
  must(gitIn(seedRoot, ['branch', '-M', 'main'], baseEnv), 'git branch -M main');
  writeFileSync(join(seedRoot, 'knowledge/person-notes.md'),
    '---\ntags: [notes]\ntype: knowledge\ncreated: 2026-05-01\nlast_verified: 2026-05-01\n---\n# Person notes\n\n- written before the machines\n');
  must(gitIn(seedRoot, ['add', '-A'], baseEnv), 'git add');
  must(gitIn(seedRoot, ['commit', '-qm', 'chaos: the person\'s note'], baseEnv), 'git commit');
  must(gitIn(seedRoot, ['remote', 'add', 'origin', bare], baseEnv), 'git remote add');
  must(gitIn(seedRoot, ['push', '-q', '-u', 'origin', 'main'], baseEnv), 'git push');
  const names = Array.from({ length: count }, (_, i) => `m${i + 1}`);
  const M = new Map(); // name → machine
  for (const name of names) {
    const root = join(base, name);
    must(runBin(['clone', bare, root, '--machine', name, '--json'], envOf(name), base), `memtier clone (${name})`);
    // the remote is a server: its side of a push is not in this machine's process group
    must(gitIn(root, ['config', 'remote.origin.receivepack', 'setsid -w git-receive-pack'], baseEnv), 'git config receivepack');
    M.set(name, { name, root, healthBefore: health(root, envOf(name)) });
  }

  log(`chaos: ${count} machines set up in ${Math.round((Date.now() - started) / 1000)} s (dist ${dist0}) in ${base}`);

  // --- book-keeping --------------------------------------------------------------------------------
  const acked = new Map(); // id → {machine, role, kind, entry?}
  const forgets = new Map(); // id → {acked, died (a forget of it was killed: it may or may not have removed it), machines: Set}
  const supersedes = new Map(); // id → {acked, died}: every supersede tried (a struck line without one is a finding)
  const superseded = new Map(); // old id → machine whose supersede was acknowledged
  const targeted = new Map(names.map((n) => [n, new Set()])); // machine → ids it handed to forget/supersede
  const internalErrors = [];
  const outcomes = new Map();
  const points = crashPoints({ sync: true });
  const syncPoints = points.filter((p) => p.startsWith('sync.'));
  const fired = new Set();
  const syncStats = { ok: 0, conflict: 0, failed: 0, killed: 0, crashed: 0, merged: 0, pushed: 0 };
  const failedSyncs = []; // exit 2 messages (the remote never goes away here: worth reading)
  const syncTimes = []; // ms of each sync that answered
  const journal = []; // every job: when, where, what, how it ended (written to BASE/journal.jsonl)
  let kills = 0;
  let jobs = 0;
  let stopping = false;

  /** A crash point for this job: a sync takes the sync.* ones more often (unfired first with syncMatrix). */
  const armFor = (r, argv) => {
    if (argv[0] === 'sync' || argv[0] === 'resolve') {
      const unfired = syncPoints.filter((p) => !fired.has(p));
      if (syncMatrix && unfired.length && r.chance(0.5)) return { MEMTIER_CRASH_AT: r.pick(unfired), MEMTIER_CRASH_SKIP: '0' };
      if (r.chance(0.15)) return { MEMTIER_CRASH_AT: r.pick(syncPoints), MEMTIER_CRASH_SKIP: '0' };
      if (r.chance(1 / 12)) return { MEMTIER_CRASH_AT: r.pick(points), MEMTIER_CRASH_SKIP: String(r.int(0, 2)) };
      return {};
    }
    if (r.chance(1 / 12)) return { MEMTIER_CRASH_AT: r.pick(points), MEMTIER_CRASH_SKIP: String(r.int(0, 2)) };
    return {};
  };

  // --- children (as in harness.mjs) ------------------------------------------------------------------
  const children = new Set(); // live Child objects, for the killer
  const run = { env: baseEnv, children, stopping: () => stopping };

  /** A CLI job on machine `m`, a crash point maybe armed; records a point that fired. */
  const cli = async (m, child, r, argv, { stdin, extraEnv = {} } = {}) => {
    const arm = 'MEMTIER_CRASH_AT' in extraEnv ? {} : armFor(r, argv);
    jobs++;
    child.spared = Boolean(arm.MEMTIER_CRASH_AT) && !fired.has(arm.MEMTIER_CRASH_AT);
    const t0 = Date.now();
    const reply = await child.run({ op: 'cli', argv: ['--root', m.root, '--json', ...argv], env: envOf(m.name, { ...arm, ...extraEnv }), stdin, cwd: m.root });
    child.spared = false;
    const crashed = reply.dead && reply.signal === 'SIGKILL' && !reply.byKiller && Boolean(arm.MEMTIER_CRASH_AT);
    if (crashed) fired.add(arm.MEMTIER_CRASH_AT);
    let json;
    if (!reply.dead) try { json = JSON.parse(reply.stdout); } catch { /* not JSON */ }
    const outcome = reply.dead ? (reply.byKiller === 'stop' ? 'stopped' : reply.byKiller ? 'killed' : crashed ? 'crash point' : `died ${reply.signal ?? reply.code}`)
      : reply.code === 0 ? 'ok' : `exit ${reply.code} ${json?.error?.code ?? ''}`.trim();
    const key = `${argv[0]} ${outcome}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    journal.push({
      start: t0 - started, end: Date.now() - started, machine: m.name, role: child.name, argv: argv.map((a) => a.slice(0, 40)), outcome,
      ...(arm.MEMTIER_CRASH_AT ? { arm: arm.MEMTIER_CRASH_AT } : {}), ...(json?.id ? { id: json.id } : {}), ...(json?.by?.id ? { by: json.by.id } : {}),
      ...(json?.error ? { error: `${json.error.code}: ${String(json.error.message).slice(0, 1000)}` } : {}),
      ...(argv[0] === 'sync' && json ? { merge: json.merge, pushed: json.pushed, committed: json.committed?.slice(0, 10), notes: json.notes } : {}),
    });
    if (reply.code === 2 && json?.error?.code === 'internal') internalErrors.push(`${m.name}: ${argv.join(' ').slice(0, 120)}: ${json.error.message}`);
    if (reply.code === 3) internalErrors.push(`${m.name}: ${argv.join(' ').slice(0, 120)}: the runner caught: ${String(reply.stderr).slice(0, 400)}`);
    return { ...reply, json, crashed };
  };

  // --- roles -----------------------------------------------------------------------------------------
  const WAL_KINDS = ['decide', 'decide', 'task', 'pending', 'done'];
  // An agent works in turns: a few seconds of writes, then a pause. Writers, the editor, the keeper
  // and the person wait out the pauses; the syncer does not (a sync lands in a turn as often as not).
  // Without pauses a sync that has to merge never finishes: it merges without the lock and starts
  // again whenever a command committed meanwhile, and on this loaded machine one always has (8
  // rounds, then exit 2 sync-busy); only the machine that pushed first kept syncing.
  const quiet = async (m) => { while (!stopping && Date.now() < m.quietUntil) await sleep(Math.min(250, m.quietUntil - Date.now())); };
  const writer = (m, n) => async (child, r) => {
    await quiet(m);
    if (stopping) return;
    const text = payload(r);
    const viaStdin = text.startsWith('-') || r.chance(0.4);
    const arg = viaStdin ? '-' : text;
    const isAdd = r.chance(0.3);
    const argv = isAdd ? ['add', ...(r.chance(0.5) ? ['--type', r.pick(['EVENT', 'DECISION', 'TECH', 'PEOPLE', 'LESSON'])] : []), arg] : ['wal', r.pick(WAL_KINDS), arg];
    const res = await cli(m, child, r, argv, { stdin: viaStdin ? text : undefined });
    const kind = isAdd ? (argv[1] === '--type' ? `add --type ${argv[2]}` : 'add') : argv.slice(0, 2).join(' ');
    if (res.code === 0 && res.json?.ok && res.json.id) acked.set(res.json.id, { machine: m.name, role: `writer${n}`, kind, entry: res.json.entry });
    await sleep(r.int(50, 500));
  };

  /** Ids of entries this machine holds now (its buffer and latest days): what it got by sync too. */
  const idsHere = (m) => {
    const ids = new Set();
    const rels = ['memory/working-buffer.md'];
    try { rels.push(...readdirSync(join(m.root, 'memory/episodic')).filter((f) => f.endsWith('.md')).sort().slice(-3).map((f) => `memory/episodic/${f}`)); } catch { /* none yet */ }
    for (const rel of rels) {
      let text = '';
      try { text = readFileSync(join(m.root, rel), 'utf8'); } catch { continue; }
      for (const line of text.split('\n')) { const x = ID_TAIL.exec(line); if (x && !line.includes('~~')) ids.add(x[1]); }
    }
    return ids;
  };

  const editor = (m) => async (child, r) => {
    await quiet(m);
    if (stopping) return;
    const mine = targeted.get(m.name);
    let candidates;
    if (r.chance(0.3)) {
      const here = idsHere(m);
      candidates = [...here].filter((id) => acked.has(id) && acked.get(id).machine !== m.name && !mine.has(id));
    }
    if (!candidates?.length) candidates = [...acked].filter(([id, a]) => a.machine === m.name && !mine.has(id)).map(([id]) => id);
    if (candidates.length < 3) { await sleep(200); return; }
    const id = r.pick(candidates);
    mine.add(id);
    if (r.chance(0.5)) {
      const f = forgets.get(id) ?? { acked: false, died: false, machines: new Set() };
      f.machines.add(m.name);
      forgets.set(id, f);
      const res = await cli(m, child, r, ['forget', `^${id}`]);
      if (res.code === 0 && res.json?.ok) f.acked = true;
      if (res.dead) f.died = true;
    } else {
      const by = payload(r).replace(/^-+/, '').slice(0, 300) || 'corrected';
      const t = supersedes.get(id) ?? { acked: false, died: false };
      supersedes.set(id, t);
      const res = await cli(m, child, r, ['supersede', `^${id}`, '--by', by]);
      if (res.dead) t.died = true;
      if (res.code === 0 && res.json?.ok) {
        t.acked = true;
        superseded.set(id, m.name);
        if (res.json.by?.id) acked.set(res.json.by.id, { machine: m.name, role: 'editor', kind: 'supersede --by' });
      }
    }
    await sleep(r.int(50, 400));
  };

  const keeper = (m) => async (child, r) => {
    await quiet(m);
    if (stopping) return;
    if (r.chance(0.2)) {
      const ahead = new Date(Date.parse(simNow()) + 25 * DAY_MS).toISOString();
      await cli(m, child, r, ['archive', '--days', '30', '--now', ahead]);
    } else await cli(m, child, r, ['rotate', ...(r.chance(0.7) ? ['--force'] : [])]);
    await sleep(r.int(200, 1200));
  };

  let editNo = 0;
  const person = (m) => async (child, r) => {
    await quiet(m);
    if (stopping) return;
    const f = r.pick(MACHINE_PERSON_FILES);
    const read = await cli(m, child, r, ['get', f.rel], { extraEnv: { MEMTIER_CRASH_AT: '' } });
    if (!read.dead && read.code !== 0) internalErrors.push(`${m.name}: get ${f.rel} exited ${read.code}: ${String(read.stdout || read.stderr).slice(0, 300)}`);
    jobs++;
    const t0 = Date.now();
    const n = ++editNo;
    const mark = await child.run({ op: 'mark', root: m.root, rel: f.rel, tmpDir: editorTmp, prefix: markerPrefix(m.name), after: f.after, n, keep: 3 });
    journal.push({ start: t0 - started, end: Date.now() - started, machine: m.name, role: child.name, argv: ['(hand edit)', f.rel, String(n)], outcome: mark.dead ? 'killed' : mark.code === 0 ? 'ok' : `exit ${mark.code}` });
    // a file with conflict copies: sometimes the person settles it (their file as it is: the copy goes)
    if (r.chance(0.25)) {
      const withCopies = MACHINE_PERSON_FILES.filter((p) => {
        const dir = join(m.root, p.rel.includes('/') ? p.rel.slice(0, p.rel.lastIndexOf('/')) : '');
        const stem = p.rel.slice(p.rel.lastIndexOf('/') + 1).replace(/\.md$/, '');
        try { return readdirSync(dir).some((n) => n.startsWith(`${stem}.conflict-`)); } catch { return false; }
      });
      if (withCopies.length) {
        child.syncing = true;
        const res = await cli(m, child, r, ['resolve', r.pick(withCopies).rel]);
        child.syncing = false;
        countSync(m, res, 'resolve');
      }
    }
    await sleep(r.int(500, 2500));
  };

  const countSync = (m, res, what = 'sync') => {
    if (res.dead) { if (res.crashed) syncStats.crashed++; else if (res.byKiller !== 'stop') syncStats.killed++; return; }
    const s = what === 'resolve' ? res.json?.sync : res.json;
    if (res.code === 0) syncStats.ok++;
    else if (res.code === 1) syncStats.conflict++;
    else {
      syncStats.failed++;
      const e = res.json?.error;
      if (failedSyncs.length < 40) failedSyncs.push(`${m.name} ${what} exit ${res.code}: ${e ? `${e.code}: ${e.message.replace(/warning: core\.fsyncObjectFiles is deprecated; use core\.fsync instead \/ /g, '')}` : String(res.stdout || res.stderr).slice(0, 300)}`);
    }
    if (s?.merge === 'merged') syncStats.merged++;
    if (s?.pushed) syncStats.pushed++;
  };
  const syncer = (m) => async (child, r) => {
    await sleep(r.int(300, 3000));
    if (stopping) return;
    const t0 = Date.now();
    child.syncing = true;
    const res = await cli(m, child, r, ['sync']);
    child.syncing = false;
    if (!res.dead) syncTimes.push(Date.now() - t0);
    countSync(m, res);
  };

  const roles = [];
  for (const m of M.values()) {
    for (let n = 0; n < writers; n++) roles.push([m, `${m.name}.writer${n}`, writer(m, n)]);
    roles.push([m, `${m.name}.editor`, editor(m)], [m, `${m.name}.keeper`, keeper(m)], [m, `${m.name}.person`, person(m)], [m, `${m.name}.syncer`, syncer(m)]);
  }
  const turns = [...M.values()].map(async (m) => {
    const r = rnd.fork();
    m.quietUntil = 0;
    while (!stopping) {
      await sleep(r.int(1000, 5000)); // a turn
      m.quietUntil = Date.now() + r.int(2000, 8000); // then a pause
      await sleep(m.quietUntil - Date.now());
    }
  });
  const loops = roles.map(async ([, name, step]) => {
    const r = rnd.fork();
    const child = new Child(name, run);
    while (!stopping) await step(child, r);
    return child;
  });

  const killerRnd = rnd.fork();
  const killer = (async () => {
    while (!stopping) {
      // slower than harness.mjs's 20-250 ms: a sync under this load takes seconds, and a killer
      // that takes every one of them tests the kill, never the merge
      await sleep(killerRnd.int(killEvery[0], killEvery[1]));
      if (stopping) break;
      // a sync (seconds long on a loaded machine) is spared 5 times in 6, or few would ever finish (the
      // crash points, sync.* among them, still stop it at each step)
      const live = [...children].filter((c) => c.proc && c.pending && !c.spared && !(c.syncing && killerRnd.chance(0.85)));
      const n = killerRnd.chance(0.2) ? 2 : 1;
      for (let i = 0; i < n && live.length; i++) {
        const victim = live.splice(killerRnd.int(0, live.length - 1), 1)[0];
        if (victim.kill(true)) kills++;
      }
    }
  })();

  // --- run, stop -------------------------------------------------------------------------------------
  const deadline = started + seconds * 1000;
  const matrixCap = started + Math.max(seconds * 2, 120) * 1000;
  let lastReport = Date.now();
  while (Date.now() < deadline || (syncMatrix && syncPoints.some((p) => !fired.has(p)) && Date.now() < matrixCap)) {
    await sleep(250);
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      log(`chaos: ${Math.round((Date.now() - started) / 1000)} s, ${jobs} jobs, ${kills} kills, ${acked.size} acknowledged, syncs ${syncStats.ok} ok/${syncStats.conflict} conflict/${syncStats.failed} failed/${syncStats.killed} killed/${syncStats.crashed} crash points, ${syncPoints.filter((p) => fired.has(p)).length}/${syncPoints.length} sync points fired`);
    }
  }
  stopping = true;
  // the end is one more crash: every child killed where it stands
  for (const c of children) c.kill('stop');
  await Promise.all([...loops, ...turns, killer]);
  const elapsed = Math.round((Date.now() - started) / 1000);
  log(`chaos: outcomes: ${[...outcomes].sort().map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const med = (a) => (a.length ? [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] : 0);
  const byCmd = new Map();
  for (const j of journal) if (j.outcome === 'ok') (byCmd.get(j.argv[0]) ?? byCmd.set(j.argv[0], []).get(j.argv[0])).push(j.end - j.start);
  log(`chaos: median ms of a command that answered: ${[...byCmd].map(([k, v]) => `${k} ${med(v)}`).join(', ')}`);
  log(`chaos: syncs: ${Object.entries(syncStats).map(([k, v]) => `${k} ${v}`).join(', ')}; median ${med(syncTimes)} ms, max ${Math.max(0, ...syncTimes)} ms`);

  // --- recovery and convergence --------------------------------------------------------------------
  const failures = [];
  const notes = [];
  for (const e of internalErrors) failures.push(`internal error (a bug): ${e}`);
  if (syncMatrix) {
    const missed = syncPoints.filter((p) => !fired.has(p));
    if (missed.length) failures.push(`sync crash points never fired: ${missed.join(', ')}`);
  }
  for (const m of M.values()) {
    const r = runBin(['--root', m.root, 'rotate', '--json'], envOf(m.name), m.root);
    if (r.status !== 0) failures.push(`${m.name}: recovery (memtier rotate) exited ${r.status}: ${(r.stdout + r.stderr).slice(0, 400)}`);
  }
  const rebuilt = distFingerprint() !== dist0 ? `dist/ was rebuilt during the run (${dist0} → ${distFingerprint()}): the machines ran two builds` : undefined;
  const conv = converge({ M, names, bare, envOf, runBin, log });
  failures.push(...conv.failures);
  notes.push(...conv.notes);

  // --- the proof --------------------------------------------------------------------------------------
  const result = checkMachines({ M, bare, env: envOf, acked, forgets, superseded, supersedes });
  failures.push(...result.failures);
  notes.push(...result.notes);
  // (a failure of a run whose dist/ changed under it may be the rebuild's: a bundle read half written)
  if (rebuilt) (failures.length ? failures : notes).push(failures.length ? `${rebuilt}; some of these failures may be the rebuild's: run the seed again` : rebuilt);
  if (failedSyncs.length) notes.push(`syncs that exited 2 during the run (${syncStats.failed}): ${[...new Set(failedSyncs.map((f) => f.replace(/^m\d+ /, '').replace(/\/tmp\/\S+/g, 'PATH').slice(0, 260)))].slice(0, 4).join(' | ')}`);
  const ok = failures.length === 0;
  try {
    writeFileSync(join(base, 'journal.jsonl'), journal.map((j) => JSON.stringify(j)).join('\n') + '\n');
    writeFileSync(join(base, 'book.json'), JSON.stringify({
      seed, machines: names, dist: distFingerprint(), acked: Object.fromEntries(acked), forgets: Object.fromEntries([...forgets].map(([id, f]) => [id, { acked: f.acked, machines: [...f.machines] }])),
      superseded: Object.fromEntries(superseded), failures, notes,
    }, null, 1));
  } catch { /* book-keeping only */ }
  const summary = `chaos: seed ${seed}, machines ${count}, ${elapsed} s, ${kills} kills, ${acked.size} acknowledged, ${result.lost} lost, ${result.duplicated} duplicated, ${result.resurrected} resurrected, ${result.conflicts} conflicts`;
  const detail = `chaos: ${result.unstruck} unstruck supersedes, ${result.markers} conflict marker lines; syncs during the run: ${syncStats.ok} ok, ${syncStats.conflict} with conflict copies, ${syncStats.failed} failed, ${syncStats.killed} killed, ${syncStats.crashed} at crash points, ${syncStats.merged} merges; converged in ${conv.rounds} round(s)`;
  if (!keep && !(keepOnFailure && !ok)) rmSync(base, { recursive: true, force: true });
  return {
    ok, seed, machines: count, seconds: elapsed, kills, jobs, acknowledged: acked.size,
    lost: result.lost, duplicated: result.duplicated, resurrected: result.resurrected, unstruck: result.unstruck, markers: result.markers, conflicts: result.conflicts,
    failures, notes, summary, detail, dist: dist0, fired: [...fired].sort(), syncPoints, syncStats, failedSyncs, base, rounds: conv.rounds,
  };
}

/**
 * Every machine runs `memtier sync` in turn until a full round changes nothing: no sync committed,
 * pulled or pushed, each exited 0 or 1, and every machine's HEAD is the remote's branch.
 */
function converge({ M, names, bare, envOf, runBin, log }) {
  const failures = [];
  const notes = [];
  const remoteHead = () => spawnSync('git', ['rev-parse', 'refs/heads/main'], { cwd: bare, encoding: 'utf8' }).stdout.trim();
  const head = (m) => spawnSync('git', ['rev-parse', 'HEAD'], { cwd: m.root, encoding: 'utf8' }).stdout.trim();
  let rounds = 0;
  let failuresInARow = 0;
  for (; rounds < 30; rounds++) {
    let changed = false;
    for (const name of names) {
      const m = M.get(name);
      const r = runBin(['--root', m.root, 'sync', '--json'], envOf(name), m.root);
      let j;
      try { j = JSON.parse(r.stdout); } catch { /* not JSON */ }
      if (r.status !== 0 && r.status !== 1) {
        changed = true;
        failuresInARow++;
        notes.push(`final sync on ${name} (round ${rounds + 1}) exited ${r.status}: ${(j?.error ? `${j.error.code}: ${j.error.message}` : r.stdout + r.stderr).slice(0, 300)}`);
        continue;
      }
      failuresInARow = 0;
      if (j?.committed || j?.pulled || j?.pushed) changed = true;
    }
    const heads = names.map((n) => head(M.get(n)));
    if (!changed && heads.every((h) => h === heads[0]) && heads[0] === remoteHead()) { rounds++; break; }
    if (failuresInARow >= names.length * 3) { failures.push(`the final syncs keep failing (${failuresInARow} in a row): ${notes.slice(-3).join(' | ')}`); break; }
  }
  const heads = names.map((n) => `${n} ${head(M.get(n)).slice(0, 10)}`);
  const rh = remoteHead();
  if (!names.every((n) => head(M.get(n)) === rh)) failures.push(`the machines did not converge after ${rounds} rounds of sync: ${heads.join(', ')}, remote ${rh.slice(0, 10)}`);
  log(`chaos: converged in ${rounds} round(s) of sync: ${heads.join(', ')}`);
  return { failures, notes, rounds };
}

/** The proof on every machine (see the top of this file and the report fields). */
export function checkMachines({ M, bare, env, acked, forgets, superseded, supersedes = new Map() }) {
  const failures = [];
  const notes = [];
  const fail = (s) => failures.push(s);
  const lost = new Set();
  const duplicated = new Set();
  const resurrected = new Set();
  const unstruck = new Set();
  let markers = 0;
  let conflicts = 0;
  const decoder = new TextDecoder('utf-8', { fatal: true });

  // the trash and tombstones of every machine: where a forgotten entry's text may be
  const trashOf = new Map();
  const tombstonesOf = new Map();
  for (const m of M.values()) {
    const parts = [];
    for (const [rel] of hashTree(join(m.root, 'memory/.trash'))) { try { parts.push(readFileSync(join(m.root, 'memory/.trash', rel), 'utf8')); } catch { /* gone */ } }
    trashOf.set(m.name, parts.join('\n'));
    let t = '';
    try { t = readFileSync(join(m.root, 'memory/.forgotten'), 'utf8'); } catch { /* none */ }
    tombstonesOf.set(m.name, t);
  }
  const inSomeTrash = (id) => [...trashOf.values()].some((t) => t.includes(`^${id}`));

  for (const m of M.values()) {
    const { root, name } = m;
    const tag = `${name}: `;
    const files = new Map();
    const copies = [];
    for (const [rel] of hashTree(root)) {
      if (rel.startsWith('.memtier/')) {
        if (/^\.memtier\/[^/]+\.json$/.test(rel)) {
          try { JSON.parse(readFileSync(join(root, rel), 'utf8')); } catch (e) { fail(`${tag}${rel}: not valid JSON (${e.message})`); }
        }
        continue;
      }
      let text;
      try { text = decoder.decode(readFileSync(join(root, rel))); } catch { fail(`${tag}${rel}: not valid UTF-8`); continue; }
      text.split('\n').forEach((line, i) => {
        if (MARKER_LINE.test(line)) { markers++; fail(`${tag}${rel}:${i + 1}: a git conflict marker line: ${line.slice(0, 80)}`); }
      });
      if (rel.startsWith('memory/.trash/')) continue;
      if (COPY_RE.test(rel)) copies.push(rel);
      if (rel.endsWith('.md')) files.set(rel, text);
    }
    conflicts = Math.max(conflicts, copies.length);

    for (const [rel, text] of files) {
      try { parseFrontmatter(text.replace(/\r\n/g, '\n'), rel); } catch (e) { fail(`${tag}${rel}: frontmatter does not parse: ${e.message}`); }
      if (isLog(rel)) {
        if (text.length && !text.endsWith('\n')) fail(`${tag}${rel}: does not end with a newline (a torn tail left behind)`);
        text.split('\n').forEach((line, i) => { if (isTornEntry(line)) fail(`${tag}${rel}:${i + 1}: a torn entry: ${line.slice(0, 120)}`); });
      }
    }

    // where each id is: lines of entries (a bullet ending with ^id); conflict copies are copies by design
    const inLogs = new Map();
    const inOther = new Map();
    const where = new Map();
    const lineOf = new Map(); // id → [line] everywhere
    for (const [rel, text] of files) {
      const seen = new Map();
      text.split('\n').forEach((line, i) => {
        if (!/^[-*] /.test(line)) return;
        const x = ID_TAIL.exec(line);
        if (!x) return;
        const id = x[1];
        if (!where.has(id)) { where.set(id, []); lineOf.set(id, []); }
        where.get(id).push(`${rel}:${i + 1}`);
        lineOf.get(id).push(line);
        if (COPY_RE.test(rel)) return;
        seen.set(id, (seen.get(id) ?? 0) + 1);
        if (isLog(rel)) inLogs.set(id, (inLogs.get(id) ?? 0) + 1);
        else inOther.set(id, (inOther.get(id) ?? 0) + 1);
      });
      if (!isLog(rel) && !COPY_RE.test(rel)) for (const [id, n] of seen) if (n > 1) { duplicated.add(id); fail(`${tag}duplicated: ^${id} ends ${n} lines of ${rel}`); }
    }

    for (const [id, info] of acked) {
      // a forget that answered "no" (exit 2) removed nothing: only an acknowledged or a killed one counts
      const f0 = forgets.get(id);
      const f = f0 && (f0.acked || f0.died) ? f0 : undefined;
      const at = where.get(id) ?? [];
      const n = inLogs.get(id) ?? 0;
      const who = `(${info.kind} on ${info.machine} by ${info.role})`;
      if (f?.acked) {
        if (at.length) { resurrected.add(id); fail(`${tag}resurrected: ^${id} ${who} was forgotten on ${[...f.machines].join('/')} (acknowledged) but is in ${at.join(', ')}`); }
        continue;
      }
      if (n > 1) { duplicated.add(id); fail(`${tag}duplicated: ^${id} ${who} is in the logs ${n} times: ${at.join(', ')}`); continue; }
      if (n === 0) {
        const other = inOther.get(id) ?? 0;
        if (f) {
          // its forget was killed: gone is fine if the forget got as far as its tombstone or a trash
          if (other > 1) { duplicated.add(id); fail(`${tag}duplicated: ^${id} ${who} (forget killed) is in ${at.join(', ')}`); }
          else if (other === 0 && !tombstonesOf.get(name).includes(`^${id}`) && !inSomeTrash(id)) { lost.add(id); fail(`${tag}lost: ^${id} ${who}: its forget on ${[...f.machines].join('/')} was killed, and it is in no file, no trash and not in memory/.forgotten${at.length ? ` (only in conflict copies: ${at.join(', ')})` : ''}`); }
          continue;
        }
        if (other === 1) { notes.push(`${tag}^${id} ${who} is in no log but in ${at.join(', ')}`); continue; }
        if (other > 1) { duplicated.add(id); fail(`${tag}duplicated: ^${id} ${who} is in no log but in ${at.join(', ')}`); continue; }
        lost.add(id);
        fail(`${tag}lost: ^${id} ${who} is in no file${at.length ? ` (only in conflict copies: ${at.join(', ')})` : ''}${inSomeTrash(id) ? '; it is in a trash' : ''}${tombstonesOf.get(name).includes(`^${id}`) ? '; it is in memory/.forgotten' : ''}`);
        continue;
      }
      if (info.entry && !superseded.has(id)) {
        // the words the command acknowledged are the words stored (a rotation drops only the date)
        const core = info.entry.slice(info.entry.indexOf('['), info.entry.lastIndexOf(' ^'));
        const rel = at.map((w) => w.replace(/:\d+$/, '')).find(isLog);
        const line = files.get(rel).split('\n').find((l) => l.endsWith(`^${id}`));
        if (line && !line.includes(core)) fail(`${tag}^${id} ${who}: stored words differ from the acknowledged ones: stored ${JSON.stringify(line.slice(0, 160))}, acknowledged ${JSON.stringify(core.slice(0, 160))}`);
      }
    }
    for (const [id, n] of inLogs) {
      if (n > 1 && !acked.has(id)) { duplicated.add(id); fail(`${tag}duplicated: ^${id} (not acknowledged) is in the logs ${n} times: ${where.get(id).join(', ')}`); }
    }
    const struck = (line) => /^[-*] ~~.*~~/.test(line);
    for (const [id, by] of superseded) {
      if (forgets.get(id)?.acked) continue;
      for (const [i, line] of (lineOf.get(id) ?? []).entries()) {
        if (!struck(line)) { unstruck.add(id); fail(`${tag}unstruck: ^${id} was superseded on ${by} (acknowledged) but ${where.get(id)[i]} is not struck through: ${line.slice(0, 160)}`); }
      }
    }
    // and the other way: struck only by a supersede (acknowledged or killed)
    for (const [id, lines] of lineOf) {
      if (!acked.has(id) || supersedes.has(id)) continue;
      for (const [i, line] of lines.entries()) if (struck(line)) fail(`${tag}^${id} (${acked.get(id).kind} on ${acked.get(id).machine}) is struck through in ${where.get(id)[i]}, but no supersede of it was tried: ${line.slice(0, 160)}`);
    }

    // nothing left behind
    for (const t of findOrphanTemps(root)) fail(`${tag}temp file left: ${t}`);
    const state = existsSync(join(root, '.memtier')) ? readdirSync(join(root, '.memtier')) : [];
    for (const s of state.filter((x) => x.startsWith('lock'))) fail(`${tag}lock left: .memtier/${s}`);
    if (existsSync(join(root, '.memtier/sync-intent.json'))) fail(`${tag}.memtier/sync-intent.json left (an unfinished sync)`);
    const pending = join(root, '.memtier/commit-pending');
    if (existsSync(pending) && readdirSync(pending).length) fail(`${tag}commit records left: ${readdirSync(pending).join(', ')}`);
    const rotating = join(root, 'memory/.rotating');
    if (existsSync(rotating) && readdirSync(rotating).length) fail(`${tag}interrupted rotation left: ${readdirSync(rotating).join(', ')}`);
    // (a killed sync's private index, .git/memtier-sync-index-PID and its lock, blocks nothing: litter, said)
    const gitLocks = spawnSync('find', ['.git', '-name', '*.lock', '-not', '-path', '.git/memtier-stale-locks/*', '-not', '-name', 'memtier-sync-index-*'], { cwd: root, encoding: 'utf8' }).stdout.trim();
    if (gitLocks) fail(`${tag}git lock files left: ${gitLocks.split('\n').join(', ')}`);
    const litter = readdirSync(join(root, '.git')).filter((n) => n.startsWith('memtier-sync-index-'));
    if (litter.length) notes.push(`${tag}left in .git by killed syncs: ${litter.length} file(s) (${litter.slice(0, 4).join(', ')}${litter.length > 4 ? ', …' : ''})`);
    for (const op of ['rebase-merge', 'rebase-apply', 'MERGE_HEAD', 'CHERRY_PICK_HEAD']) if (existsSync(join(root, '.git', op))) fail(`${tag}.git/${op}: a git operation was left stopped`);
    const fsck = spawnSync('git', ['fsck', '--no-progress', '--no-dangling'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    if (fsck.status !== 0 || /error|missing|broken|corrupt/i.test(fsck.stderr + fsck.stdout)) fail(`${tag}git fsck: exit ${fsck.status}: ${(fsck.stdout + fsck.stderr).slice(0, 600)}`);
    const st = spawnSync('git', ['status', '--porcelain', '--untracked-files=all', '--', ...MEMORY_PATHSPECS], { cwd: root, encoding: 'utf8' }).stdout.trim();
    if (st) fail(`${tag}memory files not committed after the final sync: ${st.split('\n').slice(0, 8).join(' | ')}`);
    const other = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }).stdout.trim();
    if (other && other !== st) notes.push(`${tag}outside memtier's paths, not committed: ${other.split('\n').filter((l) => !st.includes(l)).slice(0, 8).join(' | ')}`);

    // health: no FAIL the clone did not have before the run
    for (const h of health(root, env(name))) if (!m.healthBefore.includes(h)) fail(`${tag}health FAIL after the run: ${h}`);
    if (copies.length) notes.push(`${tag}${copies.length} conflict cop${copies.length === 1 ? 'y' : 'ies'}: ${copies.slice(0, 6).join(', ')}${copies.length > 6 ? ', …' : ''}`);
  }
  const fsck = spawnSync('git', ['fsck', '--no-progress', '--no-dangling'], { cwd: bare, encoding: 'utf8', timeout: 120_000 });
  if (fsck.status !== 0 || /error|missing|broken|corrupt/i.test(fsck.stderr + fsck.stdout)) fail(`remote: git fsck: exit ${fsck.status}: ${(fsck.stdout + fsck.stderr).slice(0, 600)}`);
  return { failures, notes, lost: lost.size, duplicated: duplicated.size, resurrected: resurrected.size, unstruck: unstruck.size, markers, conflicts };
}
