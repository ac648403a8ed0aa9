/**
 * Git history of the memory: auto-commit of what a command changed, and the recovery of commits a
 * killed command left; `sync` between machines is lib/git/sync.ts.
 *
 * - Only memory paths are committed (`git commit -- PATHS`): whatever else a person has staged in
 *   the same repository stays staged and uncommitted.
 * - Every git call gets `core.fsync=all` with `core.fsyncMethod=fsync` (git ≥ 2.36) and the older
 *   `core.fsyncObjectFiles=true`, so a commit that returned survives a power cut.
 * - Commits run under the memory root's lock (lib/store), so two memtier processes never race on
 *   the git index.
 * - A `.git/index.lock` (or HEAD.lock, a branch's lock, …) left by a killed git is removed when no
 *   git process works in this repository (Linux: /proc; elsewhere: when the lock is older than
 *   60 s): it is moved aside (kept for a person to look at), then the commit proceeds.
 * - `MEMTIER_GIT=off` turns all of this off.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Ctx } from '../core/context.js';
import { MemtierError } from '../core/errors.js';
import { gitDirOf, gitWriteBlocker } from '../core/git-state.js';
import { deadCommitRecords, gitEnabled, openStore, vetForCommit, type CommitRefusal } from '../store/store.js';

/** What memtier commits in a memory repository ('all'): the memory's own files only. */
export const MEMORY_PATHSPECS = ['MEMORY.md', 'SESSION-STATE.md', 'todos.md', 'DREAMS.md', 'TAGS.md', 'FORMAT.md', 'memory', 'knowledge', '.gitattributes', '.gitignore'];

// --no-optional-locks: a status or diff memtier runs never takes .git/index.lock to refresh the
// index, so it cannot make another process's commit fail ("index.lock: File exists")
const FSYNC = ['--no-optional-locks', '-c', 'core.fsync=all', '-c', 'core.fsyncMethod=fsync', '-c', 'core.fsyncObjectFiles=true'];

export { gitEnabled };

/** Is `root` the top of a git work tree (has its own .git)? */
export function isGitRepo(root: string): boolean {
  return existsSync(join(root, '.git'));
}

export interface GitRun { code: number; stdout: string; stderr: string }

export function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { PATH: env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };
  for (const [k, v] of Object.entries(env)) if ((k.startsWith('GIT_') || k === 'HOME' || k === 'SSH_AUTH_SOCK' || k === 'XDG_CONFIG_HOME') && v !== undefined) out[k] = v;
  if (!out.HOME) out.HOME = '/nonexistent';
  return out;
}

/** Run git in `root` (no shell). */
export function git(ctx: Pick<Ctx, 'root' | 'env'>, args: string[], opts: { input?: string } = {}): GitRun {
  const r = spawnSync(ctx.env.MEMTIER_GIT_BIN || 'git', [...FSYNC, ...args], {
    cwd: ctx.root, env: gitEnv(ctx.env), encoding: 'utf8', input: opts.input, maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw new MemtierError(`cannot run git: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}`, { code: 'git', hint: 'install git, or set MEMTIER_GIT=off' });
  return { code: r.status ?? 128, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Is any git process working in `root`? (Linux /proc; undefined when that cannot be known.) */
function gitProcessIn(root: string): boolean | undefined {
  let pids: string[];
  try { pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p)); } catch { return undefined; }
  const want = resolve(root);
  for (const pid of pids) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (!comm.startsWith('git')) continue;
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd === want || cwd.startsWith(want + '/')) return true;
    } catch { /* gone or not ours */ }
  }
  return false;
}

/** Where /proc cannot tell whether git is running, a lock older than this is stale. */
export const STALE_LOCK_MS = 60_000;

/**
 * The lock files a git killed mid-commit leaves besides `index.lock`, any of which makes every
 * later commit fail ("Unable to create '…/HEAD.lock': File exists"): `HEAD.lock`, a branch's
 * `refs/heads/NAME.lock` (any lock under refs/), `packed-refs.lock`, the temporary index of `git commit -- PATHS`
 * (`next-index-PID.lock`), `objects/maintenance.lock`. Found by the chaos run (test/chaos/).
 */
function otherGitLocks(dir: string): string[] {
  const out: string[] = [];
  for (const n of ['HEAD.lock', 'packed-refs.lock', 'objects/maintenance.lock']) if (existsSync(join(dir, n))) out.push(n);
  try { for (const n of readdirSync(dir)) if (/^next-index-\d+\.lock$/.test(n)) out.push(n); } catch { /* no git dir */ }
  const walk = (rel: string): void => {
    let ents;
    try { ents = readdirSync(join(dir, rel), { withFileTypes: true }); } catch { return; }
    for (const d of ents) {
      const r = `${rel}/${d.name}`;
      if (d.isDirectory()) walk(r);
      else if (d.name.endsWith('.lock')) out.push(r);
    }
  };
  walk('refs');
  return out;
}

/**
 * Remove the locks a killed git left behind: only when no git process is working in this
 * repository (or, where processes cannot be listed, when the lock is older than 60 s). Never
 * deleted: `index.lock` is renamed to `index.lock.stale-<ms>` beside it; the others (HEAD.lock,
 * refs/heads/NAME.lock, …) move to `.git/memtier-stale-locks/` (renamed beside them, a branch's
 * lock would read as a branch of its own). Returns true when a lock was removed.
 */
export function recoverIndexLock(root: string, nowMs: number): boolean {
  const dir = gitDirOf(root);
  const locks = [...(existsSync(join(dir, 'index.lock')) ? ['index.lock'] : []), ...otherGitLocks(dir)];
  if (locks.length === 0) return false;
  const busy = gitProcessIn(root);
  if (busy === true) return false;
  let moved = false;
  for (const rel of locks) {
    const abs = join(dir, rel);
    let st;
    try { st = statSync(abs); } catch { continue; }
    if (busy === undefined && nowMs - st.mtimeMs < STALE_LOCK_MS) continue;
    const to = rel === 'index.lock' ? `${abs}.stale-${Math.floor(nowMs)}` : join(dir, 'memtier-stale-locks', `${rel.replace(/\//g, '%')}.stale-${Math.floor(nowMs)}`);
    try {
      if (rel !== 'index.lock') mkdirSync(join(dir, 'memtier-stale-locks'), { recursive: true });
      renameSync(abs, to);
      moved = true;
    } catch { /* another process moved it */ }
  }
  return moved;
}

/**
 * A commit message git can store and `git log` can show: no NUL (git refuses it), no CR, ESC or
 * other control character (terminal escapes in `git log`), no bidi control; LF and TAB kept.
 */
export function safeCommitText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/\u001b\[[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?/g, '').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
}

/** Most characters of a commit message's summary. */
const SUMMARY_CHARS = 120;

/** `memtier CMD: SUMMARY` on one line, made safe (see safeCommitText), the summary cut at SUMMARY_CHARS characters (never inside one). */
export function commitMessage(cmd: string, summary: string): string {
  let s = safeCommitText(summary).replace(/\s+/g, ' ').trim();
  // by code points: a cut between the two halves of 🧪 left git a lone surrogate ("z\ufffd")
  if (s.length > SUMMARY_CHARS) s = Array.from(s).slice(0, SUMMARY_CHARS).join('').trim();
  return `memtier ${safeCommitText(cmd).replace(/\s+/g, ' ').trim()}: ${s || 'update memory'}`;
}

export interface CommitResult {
  committed: boolean;
  reason?: string;
  /** The new commit's sha (`sha` is the same value, the name the lifecycle brief uses). */
  commit?: string;
  sha?: string;
  files: string[];
  recoveredLock?: boolean;
  /** A recovered commit: the recorded paths left out, as what is there now fails the store's guards. */
  refused?: CommitRefusal[];
}

export function identityArgs(ctx: Pick<Ctx, 'root' | 'env'>): string[] {
  const has = (k: string): boolean => git(ctx, ['config', '--get', k]).code === 0 || !!ctx.env[k === 'user.name' ? 'GIT_AUTHOR_NAME' : 'GIT_AUTHOR_EMAIL'];
  const out: string[] = [];
  if (!has('user.name')) out.push('-c', 'user.name=memtier');
  if (!has('user.email')) out.push('-c', 'user.email=memtier@localhost');
  return out;
}

/**
 * git, again while another git of this repository holds index.lock (a person's `git status`, their
 * shell prompt, an editor's git integration refresh the index under it for a moment): up to ~2 s.
 */
function gitWaiting(ctx: Ctx, args: string[], opts: { input?: string } = {}): GitRun {
  for (let i = 0; ; i++) {
    const r = git(ctx, args, opts);
    if (r.code === 0 || i >= 40 || !/index\.lock': File exists|Unable to create .*\.lock/.test(r.stderr)) return r;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
}

function commitNow(ctx: Ctx, specs: string[], message: string): CommitResult {
  const recoveredLock = recoverIndexLock(ctx.root, ctx.clock.now().getTime());
  const base: CommitResult = { committed: false, files: [], ...(recoveredLock ? { recoveredLock } : {}) };
  const existing = specs.filter((s) => s.length > 0);
  if (existing.length === 0) return { ...base, reason: 'nothing to commit' };
  // A path the command changed may be gone by now (a rotation's aside file, moved to the trash; a
  // file archived or trashed): git add fails on the whole list for one pathspec that matches
  // nothing, so the paths that exist are added and the gone ones staged as deletions (when tracked).
  const present: string[] = [];
  const gone: string[] = [];
  for (const p of existing) {
    try { lstatSync(join(ctx.root, p)); present.push(p); } catch { gone.push(p); }
  }
  if (present.length) {
    const add = gitWaiting(ctx, ['add', '-A', '--ignore-errors', '--', ...present]);
    // a path the memory's .gitignore excludes (memory/.trash/) is skipped; the rest is staged
    if (add.code !== 0 && !/ignored by one of your \.gitignore files/.test(add.stderr)) {
      throw new MemtierError(`git add failed: ${add.stderr.trim().split('\n').pop()}`, { code: 'git', hint: 'run "git status" in the memory folder' });
    }
  }
  if (gone.length) {
    const rm = gitWaiting(ctx, ['rm', '--cached', '-r', '-q', '--ignore-unmatch', '--', ...gone]);
    if (rm.code !== 0) throw new MemtierError(`git rm --cached failed: ${rm.stderr.trim().split('\n').pop()}`, { code: 'git', hint: 'run "git status" in the memory folder' });
  }
  const staged = git(ctx, ['diff', '--cached', '--no-renames', '--name-only', '-z', '--', ...existing]);
  const files = staged.stdout.split('\0').filter(Boolean);
  if (files.length === 0) return { ...base, reason: 'nothing to commit' };
  const c = gitWaiting(ctx, [...identityArgs(ctx), 'commit', '--no-verify', '-q', '-F', '-', '--', ...files], { input: ((m) => (m.endsWith('\n') ? m : m + '\n'))(safeCommitText(message)) });
  if (c.code !== 0) throw new MemtierError(`git commit failed: ${(c.stderr || c.stdout).trim().split('\n').pop()}`, { code: 'git', hint: 'run "git status" in the memory folder' });
  const head = git(ctx, ['rev-parse', 'HEAD']).stdout.trim();
  return { ...base, committed: true, commit: head, sha: head, files };
}

/**
 * Commit `files` (root-relative memory paths) or every memory path ('all') with `message`.
 * Nothing happens when the root is not a git repository or MEMTIER_GIT=off.
 */
export function autoCommit(ctx: Ctx, files: string[] | 'all', message: string): CommitResult {
  if (!gitEnabled(ctx.env)) return { committed: false, reason: 'MEMTIER_GIT=off', files: [] };
  if (!isGitRepo(ctx.root)) return { committed: false, reason: 'not a git repository', files: [] };
  // a person's stopped rebase or merge, or a detached HEAD: a commit would land off the branch (or
  // inside their merge); the change stays uncommitted (and recorded) until it ends
  const blocked = gitWriteBlocker(ctx.root);
  if (blocked) return { committed: false, reason: blocked.reason, files: [] };
  const specs = files === 'all' ? MEMORY_PATHSPECS.filter((p) => existsSync(join(ctx.root, p))) : files.filter((f) => !f.startsWith('.memtier/'));
  return openStore(ctx).mutate(() => commitNow(ctx, specs, message));
}

/**
 * Finish the commits of memtier commands that were killed between their writes and their commit:
 * each left its record of paths in .memtier/commit-pending/ (lib/store); those paths are committed
 * now, one recovered commit per dead command, and the record removed. Runs before a command on a
 * git memory, so the recovered changes are not swept into that command's own commit.
 *
 * Only what would pass the store's guards now is committed (vetForCommit): the file may have
 * changed since the dead command wrote it (a credential pasted in, a hard link to a file outside
 * the memory put in its place). A refused path is left uncommitted and listed in `refused`.
 */
export function recoverPendingCommits(ctx: Ctx): CommitResult[] {
  if (!gitEnabled(ctx.env) || !isGitRepo(ctx.root)) return [];
  const dead = deadCommitRecords(ctx.root);
  if (dead.length === 0 || gitWriteBlocker(ctx.root)) return [];
  return openStore(ctx).mutate(() => dead.map((d) => {
    if (!existsSync(d.file)) return { committed: false, reason: 'recovered by another process', files: [] };
    const { ok, refused } = vetForCommit(ctx.root, d.paths);
    const r = commitNow(ctx, ok, `memtier recover: commit of an interrupted command (pid ${d.pid}${d.time ? `, started ${d.time}` : ''})\n\nThis command was stopped between its writes and its git commit; the next memtier\ncommand committed the paths it had recorded in .memtier/commit-pending/.`);
    rmSync(d.file, { force: true });
    return refused.length ? { ...r, refused } : r;
  }));
}

