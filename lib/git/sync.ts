/**
 * `memtier sync`: one memory on several machines, git as the distribution layer, no server.
 *
 * Sync never starts a git rebase or merge (whose stopped state would be left behind by a kill,
 * and whose line merges resurrect what one side removed). Under the memory's lock it:
 *   1. commits this clone's memory changes;
 *   2. fetches the remote branch;
 *   3. when both sides moved, merges them in git's object store, file by file by what each file is
 *      (lib/git/merge.ts: logs by entry id, SESSION-STATE.md by section and key, prose three-way
 *      with a conflict copy where a person's text changed on both sides), and makes the merge
 *      commit (both parents) without touching the work tree;
 *   4. records its intent (.memtier/sync-intent.json: branch, from, to), then brings the work tree
 *      to the new commit file by file through the store, moves the branch (compare-and-swap) and
 *      the index entries of those files, and removes the intent;
 *   5. pushes the branch to the same branch (never HEAD:HEAD); a push that lost a race goes back to 2.
 * A sync killed anywhere is finished by the next memtier command (recoverSync: the intent names
 * a commit that already exists), so no acknowledged entry is lost and nothing is half-merged.
 * Crash points for tests: sync.committed, sync.fetched, sync.intent, sync.apply, sync.ref, sync.pushed.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { conflictMarkerLine, gitDirOf, gitWriteBlocker, headBranch } from '../core/git-state.js';
import { crashPoint } from '../store/crash.js';
import { openStore } from '../store/store.js';
import { autoCommit, git, gitEnv, identityArgs, isGitRepo, MEMORY_PATHSPECS, safeCommitText } from './index.js';
import { ensureMergeDriver, upgradedAttributes } from './driver.js';
import { machineName, machineSlug } from './machine.js';
import { entriesOf, FORGOTTEN_PATH, forgottenIds, lineId, mergeFile, settleEntries } from './merge.js';

export const SYNC_INTENT = '.memtier/sync-intent.json';
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const TRAILER = 'Memtier-Machine';

export interface SyncConflict {
  /** The file that changed on both machines: this machine's version is in it. */
  file: string;
  /** The other machine's whole version, kept beside it. */
  copy: string;
  reason: string;
}

export interface SyncResult {
  ok: boolean;
  remote?: string;
  branch?: string;
  /** The commit of this clone's uncommitted memory changes made first. */
  committed?: string;
  pulled: boolean;
  pushed: boolean;
  /** How the two sides came together: nothing to take, a fast-forward, or a merge commit. */
  merge?: 'none' | 'fast-forward' | 'merged';
  mergeCommit?: string;
  /** Files a person must look at (their text changed on both machines). */
  conflicts: SyncConflict[];
  /** Said, not a conflict (a file deleted on one machine and changed on the other: kept). */
  notes: string[];
  message: string;
  exitCode: 0 | 1;
}

interface Intent { branch: string; from: string; to: string; started: string }

// ---------------------------------------------------------------------------------------------
// small git helpers

function must(ctx: Pick<Ctx, 'root' | 'env'>, args: string[], what: string, input?: string): string {
  const r = git(ctx, args, input === undefined ? {} : { input });
  if (r.code !== 0) {
    const said = (r.stderr || r.stdout).trim().split('\n').filter(Boolean).slice(-3).join(' / ');
    throw new MemtierError(`${what} failed (git ${args.find((a) => !a.startsWith('-')) ?? ''}: ${said || `exit ${r.code}`})`, { code: 'git', hint: 'run "git status" in the memory folder; then "memtier health" for what memtier sees' });
  }
  return r.stdout;
}

function rev(ctx: Ctx, ref: string): string | undefined {
  const r = git(ctx, ['rev-parse', '--verify', '-q', `${ref}^{commit}`]);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

function isAncestor(ctx: Ctx, a: string, b: string): boolean {
  return git(ctx, ['merge-base', '--is-ancestor', a, b]).code === 0;
}

/** The bytes of `rev:path` for each spec (undefined where missing), in one git process. */
function readBlobs(ctx: Ctx, specs: string[]): Map<string, Buffer | undefined> {
  const out = new Map<string, Buffer | undefined>();
  const want = [...new Set(specs)].filter((s) => !s.includes('\n'));
  if (want.length === 0) return out;
  const r = spawnSync(ctx.env.MEMTIER_GIT_BIN || 'git', ['cat-file', '--batch'], {
    cwd: ctx.root, input: want.join('\n') + '\n', maxBuffer: 1024 * 1024 * 1024,
    env: gitEnv(ctx.env),
  });
  if (r.status !== 0 || !r.stdout) throw new MemtierError('reading files from git failed (git cat-file)', { code: 'git', hint: 'run "git fsck" in the memory folder' });
  const buf = r.stdout as Buffer;
  let p = 0;
  for (const spec of want) {
    const nl = buf.indexOf(0x0a, p);
    const head = buf.subarray(p, nl).toString('utf8');
    p = nl + 1;
    const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(head);
    if (!m) { out.set(spec, undefined); continue; }
    const size = Number(m[2]);
    out.set(spec, m[1] === 'blob' ? buf.subarray(p, p + size) : undefined);
    p += size + 1;
  }
  return out;
}

interface Change { status: string; path: string; from?: string }

/** The files changed between two commits (renames found when `renames`). */
function changes(ctx: Ctx, a: string, b: string, renames: boolean): Change[] {
  const out = must(ctx, ['diff', '--name-status', '-z', '--no-ext-diff', '--no-textconv', renames ? '-M50%' : '--no-renames', a, b], 'comparing commits');
  const parts = out.split('\0');
  const res: Change[] = [];
  for (let i = 0; i < parts.length - 1;) {
    const st = parts[i++]!;
    if (!st) continue;
    if (st.startsWith('R') || st.startsWith('C')) {
      const from = parts[i++]!, to = parts[i++]!;
      res.push(st.startsWith('R') ? { status: 'R', path: to, from } : { status: 'A', path: to });
    } else res.push({ status: st[0]!, path: parts[i++]! });
  }
  return res;
}

/** The mode of `path` in `commit` (100644 when unknown). */
function modesOf(ctx: Ctx, commit: string, paths: string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (paths.length === 0) return out;
  const r = git(ctx, ['ls-tree', '-z', commit, '--', ...paths]);
  for (const rec of r.stdout.split('\0')) {
    const m = /^(\d+) \w+ [0-9a-f]+\t(.*)$/s.exec(rec);
    if (m) out.set(m[2]!, m[1]!);
  }
  return out;
}

/** The machine that made a commit: its Memtier-Machine trailer, else its author's name. */
function machineOf(ctx: Ctx, commit: string, base: string): string {
  // the newest commit of theirs that says which machine made it (sync's own commits do)
  const range = base === EMPTY_TREE ? [commit] : [`${base}..${commit}`];
  const r = git(ctx, ['log', '-50', `--format=%(trailers:key=${TRAILER},valueonly,separator=%x2C)`, ...range]);
  const t = r.stdout.split('\n').map((l) => l.split(',')[0]!.trim()).find(Boolean);
  if (t) return machineSlug(t);
  const author = git(ctx, ['log', '-1', '--format=%an', commit]).stdout.trim();
  if (author && author !== 'memtier') return machineSlug(author);
  return 'other';
}

const text = (b: Buffer | undefined): string | undefined => (b === undefined ? undefined : b.toString('utf8'));

/** `dir/NAME.conflict-MACHINE.md` beside `rel` (a number added if that is taken). */
export function conflictCopyPath(rel: string, machine: string, taken: (p: string) => boolean): string {
  const slash = rel.lastIndexOf('/');
  const dir = slash >= 0 ? rel.slice(0, slash + 1) : '';
  const name = rel.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  for (let i = 1; ; i++) {
    const p = `${dir}${stem}.conflict-${machine}${i > 1 ? `-${i}` : ''}${ext}`;
    if (!taken(p)) return p;
  }
}

/** A conflict copy's name: `NAME.conflict-MACHINE.md` → `NAME.md`. */
export const CONFLICT_COPY_RE = /^(.*)\.conflict-([A-Za-z0-9._-]+?)(?:-\d+)?(\.[^./]+)?$/;

// ---------------------------------------------------------------------------------------------
// the merge, in git's object store

interface Merged { commit: string; conflicts: SyncConflict[]; notes: string[] }

function mergeCommits(ctx: Ctx, ours: string, theirs: string, here: string): Merged {
  const mb = git(ctx, ['merge-base', ours, theirs]);
  const base = mb.code === 0 ? mb.stdout.trim() : EMPTY_TREE;
  const co = changes(ctx, base, ours, true);
  const ct = changes(ctx, base, theirs, true);
  const there = machineOf(ctx, theirs, base);
  // each file of the result: where it was in base, in ours and in theirs (renames followed)
  const plan = new Map<string, { b: string; o: string; t: string }>();
  const gone = new Set<string>();
  const renO = new Map(co.filter((c) => c.status === 'R').map((c) => [c.from!, c.path]));
  const renT = new Map(ct.filter((c) => c.status === 'R').map((c) => [c.from!, c.path]));
  // a move git saw on one side only (the other side changed the file too much for the rename
  // score, or deleted it and added the same path): the other side's file at the new path is its
  // version, not the deleted old one (both machines archiving one day)
  const addedO = new Set(co.filter((c) => c.status === 'A').map((c) => c.path));
  const addedT = new Set(ct.filter((c) => c.status === 'A').map((c) => c.path));
  // a file one side moved and the other changed in place while also adding the move's target
  // (both machines archived a day; one of them later got an entry for that day, written back to
  // episodic/): the changed old file is its own file of the merge, not dropped with the move (it
  // holds entries nowhere else on that side; dropped, they were lost: the three-machine chaos run,
  // seed 3662316881)
  const changedO = new Set(co.filter((c) => c.status === 'M').map((c) => c.path));
  const changedT = new Set(ct.filter((c) => c.status === 'M').map((c) => c.path));
  for (const [from, to] of renO) {
    const t = renT.get(from) ?? (addedT.has(to) ? to : from);
    plan.set(to, { b: from, o: to, t });
    if (t === to && changedT.has(from)) plan.set(from, { b: from, o: from, t: from });
    else gone.add(from);
  }
  for (const [from, to] of renT) {
    if (renO.has(from)) {
      // both moved it, to different names (both archived a day: one to DAY.md, the other to
      // DAY-2.md); theirs is merged into ours' name, but a file ours made at their name (another
      // entry of that day archived) is a file of the merge too, never dropped (chaos, seed 1012035210)
      if (to !== renO.get(from)) { if (addedO.has(to)) plan.set(to, { b: to, o: to, t: to }); else gone.add(to); }
      continue;
    }
    const o = addedO.has(to) ? to : from;
    plan.set(to, { b: from, o, t: to });
    if (o === to && changedO.has(from)) plan.set(from, { b: from, o: from, t: from });
    else gone.add(from);
  }
  for (const c of [...co, ...ct]) if (c.status !== 'R' && !plan.has(c.path) && !gone.has(c.path)) plan.set(c.path, { b: c.path, o: c.path, t: c.path });
  for (const g of gone) plan.delete(g);
  const specs: string[] = [];
  for (const p of plan.values()) specs.push(`${base}:${p.b}`, `${ours}:${p.o}`, `${theirs}:${p.t}`);
  const blobs = readBlobs(ctx, base === EMPTY_TREE ? specs.filter((s) => !s.startsWith(EMPTY_TREE)) : specs);
  const get = (c: string, p: string): Buffer | undefined => (c === EMPTY_TREE ? undefined : blobs.get(`${c}:${p}`));
  // removals of either side (memory/.forgotten): never brought back
  const fO = plan.has(FORGOTTEN_PATH) ? get(ours, FORGOTTEN_PATH) : readBlobs(ctx, [`${ours}:${FORGOTTEN_PATH}`]).get(`${ours}:${FORGOTTEN_PATH}`);
  const fT = plan.has(FORGOTTEN_PATH) ? get(theirs, FORGOTTEN_PATH) : readBlobs(ctx, [`${theirs}:${FORGOTTEN_PATH}`]).get(`${theirs}:${FORGOTTEN_PATH}`);
  const forgotten = new Set([...forgottenIds(text(fO)), ...forgottenIds(text(fT))]);
  const times = (side: string, rel: string): number => {
    const r = git(ctx, ['log', '-1', '--format=%ct', side, '--', rel]);
    return Number(r.stdout.trim()) * 1000 || 0;
  };
  const result = new Map<string, Buffer | undefined>();
  const conflicts: SyncConflict[] = [];
  const notes: string[] = [];
  const textResult = new Map<string, string | undefined>();
  const sides = { base: new Map<string, string>(), ours: new Map<string, string>(), theirs: new Map<string, string>(), baseWhere: new Map<string, string>() };
  // every entry of each side's version of the files in the plan (all a side changed): an entry a
  // side has anywhere was moved by it, not removed
  for (const [rel, p] of plan) {
    for (const [side, c, path] of [['base', base, p.b], ['ours', ours, p.o], ['theirs', theirs, p.t]] as const) {
      const tx = text(get(c, path));
      if (tx === undefined) continue;
      for (const [id, l] of entriesOf([[rel, tx]])) {
        if (!sides[side].has(id)) sides[side].set(id, l);
        if (side === 'base' && !sides.baseWhere.has(id)) sides.baseWhere.set(id, rel === p.b ? rel : p.b);
      }
    }
  }
  // a file left out of the plan as the source of a move may still be on a side (a side that kept
  // the day in episodic/ while the other archived it and it archived a part of its own): its
  // entries are still on that side, moved by nobody, so "not in that side's files" must not read
  // as "that side removed them" (chaos, seed 1153474183)
  const goneSpecs = [...gone].flatMap((g) => [`${ours}:${g}`, `${theirs}:${g}`]);
  const goneBlobs = goneSpecs.length ? readBlobs(ctx, goneSpecs) : new Map<string, Buffer | undefined>();
  for (const g of gone) {
    for (const [side, c] of [['ours', ours], ['theirs', theirs]] as const) {
      const tx = text(goneBlobs.get(`${c}:${g}`));
      if (tx === undefined) continue;
      for (const [id, l] of entriesOf([[g, tx]])) if (!sides[side].has(id)) sides[side].set(id, l);
    }
  }
  const elsewhere = { ours: new Set(sides.ours.keys()), theirs: new Set(sides.theirs.keys()) };
  const taken = (p: string): boolean => plan.has(p) || result.has(p) || git(ctx, ['cat-file', '-e', `${ours}:${p}`]).code === 0 || git(ctx, ['cat-file', '-e', `${theirs}:${p}`]).code === 0;
  for (const [rel, p] of plan) {
    const b = get(base, p.b), o = get(ours, p.o), t = get(theirs, p.t);
    if (o !== undefined && t !== undefined && o.equals(t)) {
      // the same on both sides, but still seen by the memory-wide pass: both machines rotating one
      // entry into this day left it kept in the buffer by the entry-wise merge, and only this file
      // says where it went
      result.set(rel, o);
      textResult.set(rel, text(o));
      continue;
    }
    const isState = rel === 'SESSION-STATE.md';
    const m = mergeFile({
      rel, base: text(b), ours: text(o), theirs: text(t), forgotten, elsewhere,
      ...(isState ? { oursTime: times(ours, p.o), theirsTime: times(theirs, p.t) } : {}),
    });
    if (m.note) notes.push(m.note);
    if (m.conflict) {
      const copy = conflictCopyPath(rel, there, taken);
      conflicts.push({ file: rel, copy, reason: m.conflict });
      result.set(copy, t);
    }
    result.set(rel, m.text === undefined ? undefined : Buffer.from(m.text, 'utf8'));
    textResult.set(rel, m.text);
  }
  // entries moved on one side and kept, changed or forgotten on the other (lib/git/merge.ts)
  for (const [rel, settled] of settleEntries(textResult, sides, forgotten)) {
    // a day one side removed (archived) that kept only copies the pass took out: removed
    const p = plan.get(rel);
    const deletedOnASide = p !== undefined && (get(ours, p.o) === undefined || get(theirs, p.t) === undefined);
    const empty = settled !== undefined && deletedOnASide && !settled.split('\n').some((l) => lineId(l));
    result.set(rel, settled === undefined || empty ? undefined : Buffer.from(settled, 'utf8'));
  }
  for (const g of gone) if (!result.has(g)) result.set(g, undefined);
  // no machine's own state in the memory's tree: left out of the merge whichever side had it
  for (const rel of localStateIn(ctx, ours, theirs)) result.set(rel, undefined);
  // the tree: ours with the merged files, in a private index
  const index = join(gitDirOf(ctx.root), `memtier-sync-index-${process.pid}`);
  sweepIndexes(ctx);
  const env = { ...ctx.env, GIT_INDEX_FILE: index };
  const gctx = { root: ctx.root, env };
  rmSync(index, { force: true });
  try {
    const ri = git(gctx, ['read-tree', ours]);
    if (ri.code !== 0) throw new MemtierError(`git read-tree failed: ${ri.stderr.trim()}`, { code: 'git' });
    const modes = modesOf(ctx, ours, [...result.keys()]);
    const modesT = modesOf(ctx, theirs, [...result.keys()]);
    const lines: string[] = [];
    for (const [rel, content] of result) {
      if (content === undefined) { lines.push(`0 ${'0'.repeat(40)}\t${rel}`); continue; }
      const h = spawnSync(ctx.env.MEMTIER_GIT_BIN || 'git', ['-c', 'core.fsync=all', '-c', 'core.fsyncMethod=fsync', 'hash-object', '-w', '--stdin'], { cwd: ctx.root, input: content, encoding: 'buffer', env: gitEnv(ctx.env) });
      if (h.status !== 0) throw new MemtierError(`storing ${rel} in git failed: ${h.stderr.toString().trim()}`, { code: 'git', file: rel });
      lines.push(`${modes.get(rel) ?? modesT.get(rel) ?? '100644'} ${h.stdout.toString().trim()}\t${rel}`);
    }
    const ui = git(gctx, ['update-index', '-z', '--index-info'], { input: lines.join('\0') + '\0' });
    if (ui.code !== 0) throw new MemtierError(`git update-index failed: ${ui.stderr.trim()}`, { code: 'git' });
    const tree = must(gctx, ['write-tree'], 'writing the merged tree').trim();
    const msg = [
      `memtier sync: merge ${there}'s memory into ${here}'s`,
      '',
      ...(conflicts.length ? ['Changed on both machines (this side kept in place, the other beside it):', ...conflicts.map((c) => `  ${c.file} -> ${c.copy}`), ''] : []),
      ...(notes.length ? [...notes, ''] : []),
      `${TRAILER}: ${here}`,
    ].join('\n');
    const commit = must(ctx, [...identityArgs(ctx), 'commit-tree', tree, '-p', ours, '-p', theirs, '-F', '-'], 'making the merge commit', safeCommitText(msg) + '\n').trim();
    return { commit, conflicts, notes };
  } finally {
    rmSync(index, { force: true });
  }
}

/** The private merge indexes of syncs that were killed (their pid is gone). */
function sweepIndexes(ctx: Ctx): void {
  const dir = gitDirOf(ctx.root);
  let names: string[];
  try { names = readdirSync(dir); } catch { return; }
  for (const n of names) {
    const m = /^memtier-sync-index-(\d+)(?:\.lock)?$/.exec(n);
    if (!m || Number(m[1]) === process.pid) continue;
    try { process.kill(Number(m[1]), 0); continue; } catch { /* gone */ }
    rmSync(join(dir, n), { force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// moving the work tree and the branch to a commit: recorded first, so a kill is finished later

function intentPath(ctx: Ctx): string { return join(ctx.root, SYNC_INTENT); }

function writeIntent(ctx: Ctx, i: Intent): void {
  const p = intentPath(ctx);
  mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
  const tmp = `${p}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(i) + '\n', { flag: 'w' });
  const fd = openSync(tmp, 'r');
  try { fsyncSync(fd); } finally { closeSync(fd); }
  renameSync(tmp, p);
}

function readIntent(ctx: Ctx): Intent | undefined {
  try {
    const j = JSON.parse(readFileSync(intentPath(ctx), 'utf8')) as Intent;
    if (typeof j.branch === 'string' && /^[0-9a-f]{40,64}$/.test(j.from) && /^[0-9a-f]{40,64}$/.test(j.to)) return j;
  } catch { /* none, or torn before its rename: nothing was moved yet */ }
  return undefined;
}

/**
 * Bring the work tree, the branch and the index from `from` to `to` (both commits): every file that
 * differs is written (or moved to the trash) through the store, then the branch moves if it is
 * still at `from`. A file that is neither `from`'s nor `to`'s version (a person edited it after a
 * killed sync) is kept as NAME.conflict-local.md before `to`'s version is written.
 */
/** Paths under the root that are a machine's own state, never synced in: .memtier/ and the trash. */
const LOCAL_STATE = /^(?:\.memtier|memory\/\.trash)(?:\/|$)/;

/** The paths of LOCAL_STATE some of `commits` track. */
function localStateIn(ctx: Ctx, ...commits: string[]): Set<string> {
  const out = new Set<string>();
  for (const c of commits) {
    const r = git(ctx, ['ls-tree', '-r', '-z', '--name-only', c, '--', '.memtier', 'memory/.trash']);
    for (const p of r.stdout.split('\0')) if (p && LOCAL_STATE.test(p)) out.add(p);
  }
  return out;
}

const hasLocalState = (ctx: Ctx, commit: string): boolean => localStateIn(ctx, commit).size > 0;

function moveTo(ctx: Ctx, i: Intent): { kept: string[] } {
  const list = changes(ctx, i.from, i.to, false);
  const blobs = readBlobs(ctx, list.flatMap((c) => [`${i.from}:${c.path}`, `${i.to}:${c.path}`]));
  const kept: string[] = [];
  let n = 0;
  openStore(ctx).mutate((tx) => {
    for (const c of list) {
      // this machine's own state (index, lock, watch announcement, trash) is never another's to
      // write, even when a clone force-committed its own
      if (LOCAL_STATE.test(c.path)) continue;
      const want = blobs.get(`${i.to}:${c.path}`);
      const was = blobs.get(`${i.from}:${c.path}`);
      let cur: Buffer | undefined;
      try { if (lstatSync(join(ctx.root, c.path)).isFile()) cur = readFileSync(join(ctx.root, c.path)); } catch { cur = undefined; }
      if ((cur === undefined && want === undefined) || (cur && want && cur.equals(want))) continue;
      if (cur !== undefined && !(was && cur.equals(was))) {
        // changed here since `from` (a write that came in while a killed sync was half done): merged
        // with `to` by the file's rules, so an entry written meanwhile stays in its log; a person's
        // text that cannot be merged is kept beside it
        const m = mergeFile({ rel: c.path, base: text(was), ours: cur.toString('utf8'), theirs: text(want) });
        if (m.text !== undefined && !m.conflict && !cur.includes(0)) {
          tx.writeCommitted(c.path, Buffer.from(m.text, 'utf8'));
          if (++n === 1) crashPoint(ctx.env, 'sync.apply');
          continue;
        }
        const copy = conflictCopyPath(c.path, 'local', (p) => existsSync(join(ctx.root, p)));
        tx.writeCommitted(copy, cur);
        kept.push(copy);
      }
      if (want === undefined) { if (cur !== undefined) tx.trash(c.path); } else tx.writeCommitted(c.path, want);
      if (++n === 1) crashPoint(ctx.env, 'sync.apply');
    }
  });
  const ref = `refs/heads/${i.branch}`;
  const now = rev(ctx, ref);
  if (now === i.from) must(ctx, ['update-ref', '-m', 'memtier sync', ref, i.to, i.from], 'moving the branch');
  crashPoint(ctx.env, 'sync.ref');
  if (list.length) {
    // the index entries of those files (only those: what a person staged elsewhere stays staged)
    const r = git(ctx, ['reset', '-q', '--pathspec-from-file=-', '--pathspec-file-nul', i.to], { input: list.map((c) => c.path).join('\0') + '\0' });
    if (r.code !== 0 && r.code !== 1) throw new MemtierError(`git reset of the merged files failed: ${r.stderr.trim()}`, { code: 'git' });
  }
  rmSync(intentPath(ctx), { force: true });
  return { kept };
}

/**
 * Finish a sync that was killed after it recorded its intent: the commit it named exists, so the
 * work tree and the branch are brought to it. Runs before every command on a git memory that has
 * an intent file (lib/cli/main.ts), and from health --fix.
 */
export function recoverSync(ctx: Ctx): { recovered: boolean; message: string } {
  if (!existsSync(intentPath(ctx))) return { recovered: false, message: 'no unfinished sync' };
  return openStore(ctx).mutate(() => {
    const i = readIntent(ctx);
    if (!i) { rmSync(intentPath(ctx), { force: true }); return { recovered: false, message: 'an unreadable sync record was removed (the sync had not moved anything)' }; }
    const at = rev(ctx, `refs/heads/${i.branch}`);
    if (!rev(ctx, i.to) || (at !== i.from && at !== i.to)) {
      rmSync(intentPath(ctx), { force: true });
      return { recovered: false, message: `an interrupted sync's record was dropped: the branch ${i.branch} moved since (to ${at?.slice(0, 10) ?? 'nothing'}); nothing was changed` };
    }
    const { kept } = moveTo(ctx, i);
    return { recovered: true, message: `finished an interrupted sync: ${i.branch} is at ${i.to.slice(0, 10)}${kept.length ? `; edits made meanwhile kept in ${kept.join(', ')}` : ''}` };
  });
}

// ---------------------------------------------------------------------------------------------

function lastStderr(r: { stderr: string; stdout: string }): string {
  // git's own warnings about the fsync settings memtier passes are not what went wrong
  return (r.stderr || r.stdout).split('\n').filter((l) => !/deprecated|^hint:/i.test(l)).map((l) => l.replace(/^(?:fatal|error|remote): /, '').trim()).filter(Boolean).slice(0, 4).join(' / ');
}

/** Why git could not talk to the remote, in words, with what to do. */
function remoteError(what: 'fetch from' | 'push to', remote: string, r: { stderr: string; stdout: string }): MemtierError {
  const s = `${r.stderr}\n${r.stdout}`;
  const said = lastStderr(r);
  let why: string;
  let hint: string;
  if (/Could not resolve host|unable to access|Connection (refused|timed out)|Network is unreachable|does not appear to be a git repository|No such file or directory|Could not read from remote/i.test(s)) {
    why = `the remote "${remote}" cannot be reached`;
    hint = `your memory is safe and committed here; check "git remote -v" and the network, then run "memtier sync" again`;
  } else if (/Authentication failed|Permission denied|\bHTTP\b.*\b(?:401|403)\b|returned error: (?:401|403)\b/i.test(s)) {
    why = `the remote "${remote}" refused the credentials`;
    hint = 'check your git credentials for this remote (ssh key or token); your memory is safe and committed here';
  } else {
    why = `git could not ${what.split(' ')[0]} "${remote}"`;
    hint = 'your memory is safe and committed here; run "git status" and "git remote -v" in the memory folder';
  }
  return new MemtierError(`sync could not ${what} ${remote}: ${why} (git said: ${said || 'nothing'})`, { code: 'sync-remote', hint });
}

function recordLastSync(ctx: Ctx, remote: string, branch: string): void {
  try {
    writeFileSync(join(gitDirOf(ctx.root), 'memtier-sync.json'), JSON.stringify({ lastSync: ctx.clock.now().toISOString(), remote, branch }) + '\n');
  } catch { /* bookkeeping only */ }
}

/** Memory files changed in the work tree that hold a git conflict block: never committed. */
function markersInChanges(ctx: Ctx): { file: string; line: number }[] {
  const specs = MEMORY_PATHSPECS.filter((p) => existsSync(join(ctx.root, p)));
  if (specs.length === 0) return [];
  const st = git(ctx, ['status', '--porcelain', '-z', '--untracked-files=all', '--', ...specs]).stdout.split('\0').filter(Boolean);
  const out: { file: string; line: number }[] = [];
  for (const rec of st) {
    const rel = rec.slice(3);
    if (!/\.(md|markdown|txt)$/i.test(rel)) continue;
    try {
      const line = conflictMarkerLine(readFileSync(join(ctx.root, rel), 'utf8'));
      if (line !== undefined) out.push({ file: rel, line });
    } catch { /* gone or unreadable */ }
  }
  return out;
}

export interface SyncOptions { dryRun?: boolean; remote?: string; push?: boolean; /** The Node that runs memtier (the merge driver's command). */ node?: string }

/** `memtier sync`: commit, fetch, merge by memtier's rules, push. */
export function sync(ctx: Ctx, opts: SyncOptions = {}): SyncResult {
  if (!isGitRepo(ctx.root)) throw new MemtierError('the memory is not a git repository', { code: 'git', file: ctx.root, hint: 'run "memtier init --git" in the memory folder and add a remote, or start from another machine\'s memory with "memtier clone URL DIR"' });
  const blocked = gitWriteBlocker(ctx.root);
  if (blocked) throw new MemtierError(`sync cannot run: ${blocked.reason}`, { code: 'git-busy', rule: 'git-operation', hint: blocked.hint });
  const branch = headBranch(ctx.root)!;
  const upstream = git(ctx, ['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{u}']);
  const remotes = git(ctx, ['remote']).stdout.split('\n').filter(Boolean);
  const remote = opts.remote ?? (upstream.code === 0 ? upstream.stdout.trim().split('/')[0] : remotes.includes('origin') ? 'origin' : remotes[0]);
  if (!remote) throw new MemtierError('the memory repository has no remote to sync with', { code: 'git', hint: 'add one: git remote add origin URL (a bare repository another machine can reach), then run "memtier sync"' });
  if (!remotes.includes(remote)) throw new MemtierError(`the memory repository has no remote "${remote}"`, { code: 'usage', hint: remotes.length ? `its remotes: ${remotes.join(', ')}` : 'add one: git remote add origin URL' });
  const here = machineName(ctx);
  const res: SyncResult = { ok: true, remote, branch, pulled: false, pushed: false, conflicts: [], notes: [], message: '', exitCode: 0 };
  if (opts.dryRun) {
    const st = git(ctx, ['status', '--porcelain', '--', ...MEMORY_PATHSPECS.filter((p) => existsSync(join(ctx.root, p)))]).stdout.split('\n').filter(Boolean);
    res.message = `would commit ${st.length} changed memory file(s), fetch ${remote}/${branch}, merge by memtier's rules and push`;
    return res;
  }
  const marked = markersInChanges(ctx);
  if (marked.length) {
    const m = marked[0]!;
    throw new MemtierError(`sync refused: ${m.file} line ${m.line} holds a git conflict block (<<<<<<< … >>>>>>>); committing it would send the unresolved text to every machine${marked.length > 1 ? ` (and ${marked.length - 1} more file(s): ${marked.slice(1).map((x) => x.file).join(', ')})` : ''}`, { code: 'conflict-markers', file: m.file, line: m.line, hint: `edit ${m.file} to keep what you want and delete the marker lines, then run "memtier sync" again` });
  }
  // the lock is held to commit and to move the files and the branch, never across the network:
  // a slow fetch or push must not keep the agent's writes waiting (they wait 15 s at most)
  openStore(ctx).mutate((tx) => {
    // the merge driver a person's own git merge uses (its command is not cloned), and the union
    // attributes of earlier versions replaced (union brings back what one side removed)
    ensureMergeDriver(ctx, opts.node ?? 'node');
    const attrs = tx.read('.gitattributes');
    const upgraded = attrs === undefined ? undefined : upgradedAttributes(attrs);
    if (attrs !== undefined && upgraded !== undefined && attrs.includes('merge=union')) tx.write('.gitattributes', upgraded, { expected: attrs });
    const fin = recoverSync(ctx);
    if (fin.recovered) res.notes.push(fin.message);
    const c = autoCommit(ctx, 'all', `memtier sync: local memory changes before pull\n\n${TRAILER}: ${here}`);
    if (c.committed && c.commit) res.committed = c.commit;
  });
  crashPoint(ctx.env, 'sync.committed');
  const tracking = `refs/remotes/${remote}/${branch}`;
  for (let attempt = 1; ; attempt++) {
    if (attempt > 8) throw new MemtierError('sync gave up after 8 rounds: other machines kept pushing between its merge and its push', { code: 'sync-busy', hint: 'nothing is lost; run "memtier sync" again in a moment' });
    const f = git(ctx, ['fetch', '--no-tags', '--quiet', remote, `+refs/heads/${branch}:${tracking}`]);
    let theirs: string | undefined;
    if (f.code !== 0) {
      // another sync of this clone updating the same tracking ref: a moment, then again
      if (/cannot lock ref|unable to update local ref/i.test(f.stderr)) { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200); continue; }
      if (!/couldn't find remote ref|no such ref|not our ref/i.test(f.stderr)) throw remoteError('fetch from', remote, f);
    } else theirs = rev(ctx, tracking);
    crashPoint(ctx.env, 'sync.fetched');
    // merged and moved under the lock (local work only; a machine that keeps writing cannot starve
    // it): what was written since the first commit is committed first and merged too
    const step = openStore(ctx).mutate(() => {
      autoCommit(ctx, 'all', `memtier sync: local memory changes before pull\n\n${TRAILER}: ${here}`);
      const ours = rev(ctx, 'HEAD');
      if (!ours) throw new MemtierError('the memory repository has no commit yet', { code: 'git', hint: 'run any memtier command that writes (or "git commit"), then sync' });
      if (!theirs || theirs === ours || isAncestor(ctx, theirs, ours)) return { moved: false as const };
      // a fast-forward only to a tree without another machine's state files (a clone that
      // force-committed its .memtier/ or trash): else a merge, which leaves them out
      const m = isAncestor(ctx, ours, theirs) && !hasLocalState(ctx, theirs) ? undefined : mergeCommits(ctx, ours, theirs, here);
      const to = m ? m.commit : theirs;
      writeIntent(ctx, { branch, from: ours, to, started: new Date().toISOString() });
      crashPoint(ctx.env, 'sync.intent');
      return { moved: true as const, m, kept: moveTo(ctx, { branch, from: ours, to, started: '' }).kept };
    });
    if (step.moved) {
      if (step.kept.length) res.notes.push(`edits made during the sync kept in ${step.kept.join(', ')}`);
      res.merge = step.m ? 'merged' : res.merge === 'merged' ? 'merged' : 'fast-forward';
      if (step.m) {
        res.mergeCommit = step.m.commit;
        res.conflicts.push(...step.m.conflicts);
        res.notes.push(...step.m.notes);
      }
      res.pulled = true;
    } else res.merge ??= 'none';
    if (opts.push === false) break;
    const head = rev(ctx, 'HEAD')!;
    if (theirs === head) break;
    const p = git(ctx, ['push', '--quiet', remote, `refs/heads/${branch}:refs/heads/${branch}`]);
    if (p.code === 0) {
      res.pushed = true;
      git(ctx, ['update-ref', tracking, head]);
      crashPoint(ctx.env, 'sync.pushed');
      break;
    }
    // another machine pushed between our fetch and our push: take its commits and try again
    if (/\[rejected\]|non-fast-forward|fetch first|failed to update ref|cannot lock ref/i.test(`${p.stderr}\n${p.stdout}`)) continue;
    throw remoteError('push to', remote, p);
  }
  {
    if (upstream.code !== 0 && rev(ctx, tracking)) git(ctx, ['branch', `--set-upstream-to=${remote}/${branch}`, branch]);
    recordLastSync(ctx, remote, branch);
    const conflictText = res.conflicts.map((x) => `  ${x.file}: ${x.reason}; this machine's version is in ${x.file}, ${x.copy.replace(/^.*\.conflict-/, '').replace(/\.[^.]+$/, '')}'s in ${x.copy}`);
    const parts = [
      `synced with ${remote}/${branch}${res.committed ? ' (committed local changes first)' : ''}: ${res.merge === 'merged' ? 'merged the other machines\' changes' : res.merge === 'fast-forward' ? 'took the other machines\' changes' : 'nothing new to take'}, ${res.pushed ? 'pushed' : opts.push === false ? 'not pushed (--no-push)' : 'nothing to push'}`,
      ...res.notes.map((n) => `note: ${n}`),
    ];
    if (res.conflicts.length) {
      res.ok = false;
      res.exitCode = 1;
      parts.push(`${res.conflicts.length} file(s) changed on two machines in the same place: both versions are kept, nothing is lost; a person decides:`, ...conflictText,
        `merge what you want to keep into each file, then run: memtier resolve ${res.conflicts.map((x) => x.file).join(' ')}`);
    }
    res.message = parts.join('\n');
    return res;
  }
}
