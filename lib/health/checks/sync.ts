/**
 * Issue #28, health knows sync: in a git memory, what stands between this clone and the others.
 * A git operation a person left stopped, a detached HEAD, conflict blocks in memory files (FAIL);
 * conflict copies sync left beside a file, commits not pushed or not pulled, and memtier's own
 * work a kill left unfinished (a sync's intent, a command's commit record) (WARN; --fix finishes
 * the last two).
 *
 * Cheap when nothing is wrong: a memory without a `.git` (or MEMTIER_GIT=off) costs one stat;
 * a git memory a few stats of `.git`, one readdir of the root and one `git rev-list` (two more
 * git calls only when there is something to say). Only local refs: it never fetches, so
 * "behind" is as of the last fetch. Conflict blocks are looked for once per file and kept
 * (the summary `conflict-block`; health --quiet takes the last full run's findings of unchanged
 * files, reuse.ts), so an unchanged memory is not read for them.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Ctx } from '../../core/context.js';
import { conflictMarkerLine, gitOperation, headBranch, headDetached } from '../../core/git-state.js';
import { lazyImport } from '../../core/lazy.js';
import { ROOT_FILES } from '../../format/layout.js';
import { lockIsStale, LOCK_FILE } from '../../store/lock.js';
import { git, isGitRepo, recoverPendingCommits } from '../../git/index.js';
import { deadCommitRecords, gitEnabled, PENDING_DIR } from '../../store/store.js';
import type { MemFile } from '../../memory/snapshot.js';
import { isNum, summaryOf } from '../summary.js';
import type { Check, CheckEnv, Finding } from '../types.js';

/**
 * What a sync killed midway leaves (lib/git/sync.ts SYNC_INTENT, named again here: the sync module
 * and its merge code load only when --fix finishes one): the next memtier command finishes it.
 */
export const SYNC_INTENT = '.memtier/sync-intent.json';

/** A conflict copy sync left beside NAME.md: `NAME.conflict-MACHINE.md`. */
export const CONFLICT_COPY_RE = /\.conflict-[A-Za-z0-9._-]+\.md$/;

/** Unpushed commits younger than this are a command's fresh commit on its way, not a sync that is missing. */
export const UNPUSHED_MS = 60 * 60_000;

const ID = 'sync';
const BLOCK = 'git conflict block';
const INTENT = 'memtier sync was interrupted';
const PENDING = 'a memtier command was stopped';

/** Is this finding a conflict block in a file (it depends on that file alone: kept per file, reuse.ts)? */
export const isConflictBlockFinding = (x: Finding): boolean => x.message.startsWith(BLOCK);

/** Does the check look at this memory (a git repository memtier commits to)? */
const active = (root: string, env: CheckEnv): boolean => gitEnabled(env.ctx.env) && isGitRepo(root);

/** The line of f's first conflict block, 0 for none (or an unreadable file: syntax reports it), kept per file. */
const blockLine = (f: MemFile, env: CheckEnv): number =>
  summaryOf(env, 'conflict-block', f, () => (f.text === undefined ? 0 : conflictMarkerLine(f.text) ?? 0), (x) => (isNum(x) && x >= 0 ? x : undefined));

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** "3 days", "5 hours", "40 minutes". */
export function ageText(ms: number): string {
  const min = Math.floor(ms / 60_000);
  if (min < 60) return plural(min, 'minute');
  const h = Math.floor(min / 60);
  if (h < 48) return plural(h, 'hour');
  return plural(Math.floor(h / 24), 'day');
}

/** The conflict copies at the root (`MEMORY.conflict-laptop.md`: the snapshot lists only memtier's own root files). */
function rootCopies(root: string): string[] {
  let names: string[];
  try { names = readdirSync(root); } catch { return []; }
  return names.filter((n) => CONFLICT_COPY_RE.test(n) && (ROOT_FILES as readonly string[]).includes(n.replace(CONFLICT_COPY_RE, '.md')));
}

function copyFinding(root: string, rel: string): Finding {
  const dir = dirname(rel);
  const name = basename(rel);
  // (a second copy from the same machine is NAME.conflict-MACHINE-2.md: lib/git/sync.ts conflictCopyPath)
  const machine = /\.conflict-([A-Za-z0-9._-]+?)(?:-\d+)?\.md$/.exec(name)![1]!;
  const orig = (dir === '.' ? '' : `${dir}/`) + name.replace(CONFLICT_COPY_RE, '.md');
  const gone = existsSync(join(root, orig)) ? '' : ` (${orig} itself is gone)`;
  return {
    check: ID, severity: 'warn', file: rel,
    message: `conflict copy of ${orig} left by memtier sync: ${machine}'s version of what both machines changed${gone}`,
    fix: `merge what you want to keep into ${orig}, then run "memtier resolve ${orig}"`,
  };
}

/** Commits ahead of and behind `base` (a ref), or undefined when git cannot tell. */
function counts(ctx: Pick<Ctx, 'root' | 'env'>, base: string): { ahead: number; behind: number } | undefined {
  const r = git(ctx, ['rev-list', '--left-right', '--count', `HEAD...${base}`]);
  const m = /^(\d+)\s+(\d+)\s*$/.exec(r.stdout);
  return r.code === 0 && m ? { ahead: Number(m[1]), behind: Number(m[2]) } : undefined;
}

/** Unpushed and unpulled commits against the branch's upstream (local refs only), as findings and figures. */
function remoteState(ctx: Pick<Ctx, 'root' | 'env'>, nowMs: number, figures: Record<string, unknown>): Finding[] {
  const branch = headBranch(ctx.root);
  if (!branch) return []; // detached: reported on its own
  let base = '@{u}';
  let c = counts(ctx, base);
  let name: string | undefined;
  if (!c) {
    // no upstream (or its ref is gone): a memory with no remote is a local history, nothing to say
    const remotes = git(ctx, ['remote']).stdout.split('\n').map((s) => s.trim()).filter(Boolean);
    if (remotes.length === 0) return [];
    const refs = new Set(git(ctx, ['for-each-ref', '--format=%(refname)', 'refs/remotes/']).stdout.split('\n').filter(Boolean));
    const found = remotes.find((r) => refs.has(`refs/remotes/${r}/${branch}`));
    if (!found) {
      figures.synced = false;
      return [{
        check: ID, severity: 'warn',
        message: `the memory has a remote (${remotes.join(', ')}) but branch ${branch} has never been synced with it: no other machine has its history`,
        fix: 'run "memtier sync"',
      }];
    }
    base = `refs/remotes/${found}/${branch}`;
    name = `${found}/${branch}`;
    c = counts(ctx, base);
    if (!c) return [];
  }
  figures.ahead = c.ahead;
  figures.behind = c.behind;
  if (c.ahead === 0 && c.behind === 0) return [];
  name ??= git(ctx, ['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{u}']).stdout.trim() || 'the upstream';
  figures.upstream = name;
  const out: Finding[] = [];
  if (c.ahead > 0) {
    const times = git(ctx, ['log', '--format=%ct', `${base}..HEAD`]).stdout.split('\n').filter((l) => /^\d+$/.test(l)).map(Number);
    const oldest = times.length ? Math.min(...times) * 1000 : undefined;
    const age = oldest === undefined ? undefined : nowMs - oldest;
    if (age !== undefined) figures.unpushedForMs = Math.max(0, age);
    if (age !== undefined && age >= UNPUSHED_MS) {
      out.push({
        check: ID, severity: 'warn',
        message: `${plural(c.ahead, 'commit')} not pushed to ${name}, the oldest for ${ageText(age)}: the other machines do not have ${c.ahead === 1 ? 'it' : 'them'}`,
        fix: 'run "memtier sync"',
      });
    }
  }
  if (c.behind > 0) {
    out.push({
      check: ID, severity: 'warn',
      message: `${plural(c.behind, 'commit')} on ${name} not in the local branch ${branch} (as of the last fetch): this clone answers from an older memory`,
      fix: 'run "memtier sync"',
    });
  }
  return out;
}

export const check: Check = {
  id: ID,
  description: 'in a git memory: no git rebase/merge stopped, no detached HEAD, no conflict block in a memory file (FAIL); no conflict copy left by sync, no commits unpushed for over an hour or not pulled (as of the last fetch), no sync or commit a kill left unfinished (WARN; --fix finishes them)',
  severity: 'fail',
  fixable: true,
  source: 'memtier (git sync, issue #28)',
  doc: {
    trigger: 'the memory is a git repository and: a rebase, merge, cherry-pick or revert is stopped in it, HEAD is detached, or a memory file holds a `<<<<<<<` … `=======` … `>>>>>>>` block (FAIL); a `NAME.conflict-MACHINE.md` copy sits beside NAME.md, the branch has commits its upstream lacks (the oldest over an hour old) or lacks commits its upstream has (local refs only: as of the last fetch), the memory has a remote it was never synced with, `.memtier/sync-intent.json` is left by a killed sync, or `.memtier/commit-pending/` holds the record of a command killed before its commit (WARN)',
    failing: 'FAIL .git/rebase-merge: a git rebase is stopped in the memory repository\nFAIL memory/semantic/people.md:12: git conflict block (<<<<<<< … >>>>>>>)\nWARN memory/semantic/people.conflict-laptop.md: conflict copy of memory/semantic/people.md\nWARN 3 commits not pushed to origin/main, the oldest for 3 days',
    fixed: 'git rebase --continue (or --abort); the conflict block edited down to what is true; what the copy adds merged into people.md, then "memtier resolve memory/semantic/people.md"; "memtier sync" pushed the 3 commits',
    why: 'a memory shared between machines is only shared when it is synced: a stopped rebase or a detached HEAD makes memtier refuse every write, a conflict block feeds both sides of a disagreement into every prompt, and unpushed commits are lost with the machine that holds them',
  },
  run(snap, env) {
    const ctx = env.ctx;
    if (!gitEnabled(ctx.env)) return { findings: [], skipped: 'MEMTIER_GIT=off' };
    if (!isGitRepo(snap.root)) return { findings: [], skipped: 'not a git repository' };
    const g = { root: snap.root, env: ctx.env };
    const out: Finding[] = [];
    const figures: Record<string, unknown> = {};

    const op = gitOperation(snap.root);
    if (op) {
      figures.operation = op.op;
      out.push({ check: ID, severity: 'fail', file: `.git/${op.marker}`, message: `a git ${op.op} is stopped in the memory repository: memtier writes nothing until it ends`, fix: op.advice });
    } else if (headDetached(snap.root)) {
      // (a stopped rebase detaches HEAD too: reported as the rebase)
      figures.detached = true;
      out.push({ check: ID, severity: 'fail', file: '.git/HEAD', message: 'HEAD is detached (a commit is checked out, not a branch): memtier writes nothing, and commits made here are on no branch', fix: 'go back to the branch ("git switch main"), or "git switch -c NAME" to keep commits made here' });
    }

    let blocks = 0;
    for (const f of snap.files) {
      // a full run works it out once per file (kept in health-summary.json); other runs take
      // what the last full run found in a file unchanged since
      const kept = env.memo ? undefined : env.keptFindings?.(ID, f);
      if (kept) { for (const x of kept) if (isConflictBlockFinding(x)) { out.push(x); blocks++; } continue; }
      const line = blockLine(f, env);
      if (line === 0) continue;
      blocks++;
      out.push({ check: ID, severity: 'fail', file: f.rel, line, message: `${BLOCK} (<<<<<<< … ======= … >>>>>>>): both sides of an unfinished merge are in the file`, fix: 'keep what is true of both sides, delete the marker lines, then commit ("memtier sync")' });
    }
    if (blocks) figures.conflictBlocks = blocks;

    const copies = [...rootCopies(snap.root), ...snap.files.filter((f) => CONFLICT_COPY_RE.test(f.rel)).map((f) => f.rel)];
    for (const rel of copies) out.push(copyFinding(snap.root, rel));
    if (copies.length) figures.conflictCopies = copies.length;

    if (existsSync(join(snap.root, SYNC_INTENT))) {
      figures.syncIntent = true;
      // a live holder of the memory's lock may be that sync, still at work
      const lock = join(snap.root, LOCK_FILE);
      if (existsSync(lock) && !lockIsStale(lock)) {
        out.push({ check: ID, severity: 'info', file: SYNC_INTENT, message: 'a memtier sync is in progress (or was interrupted: the memory is locked by a running command)' });
      } else {
        out.push({ check: ID, severity: 'warn', file: SYNC_INTENT, message: `${INTENT} (killed midway): the branch may not be where it merged to`, fix: 'run "memtier health --fix" (any memtier command also finishes it)', fixable: true });
      }
    }

    const dead = deadCommitRecords(snap.root);
    for (const d of dead) {
      const shown = d.paths.slice(0, 3).join(', ') + (d.paths.length > 3 ? `, … (${d.paths.length - 3} more)` : '');
      out.push({
        check: ID, severity: 'warn', file: `${PENDING_DIR}/${basename(d.file)}`,
        message: `${PENDING} between its writes and its git commit (pid ${d.pid}${d.time ? `, started ${d.time}` : ''}): ${plural(d.paths.length, 'file')} not committed${shown ? ` (${shown})` : ''}`,
        fix: 'run "memtier health --fix" (any memtier command also commits them)', fixable: true,
      });
    }
    if (dead.length) figures.deadCommitRecords = dead.length;

    out.push(...remoteState(g, ctx.clock.now().getTime(), figures));
    return { findings: out, figures };
  },
  // every file's conflict block (run() makes them all on a full run)
  summarize: (snap, env) => (active(snap.root, env) ? (f) => { blockLine(f, env); } : undefined),
  async fix(findings, _snap, env) {
    const done: string[] = [];
    // the sync first: it puts the branch where the killed sync merged to, then the records are committed on it
    if (findings.some((x) => x.message.startsWith(INTENT))) {
      const { recoverSync } = await lazyImport('git/sync.js', () => import('../../git/sync.js'));
      const r = recoverSync(env.ctx);
      done.push(r.recovered ? `finished the interrupted sync: ${r.message}` : `the interrupted sync was not finished: ${r.message}`);
    }
    if (findings.some((x) => x.message.startsWith(PENDING))) {
      for (const r of recoverPendingCommits(env.ctx)) {
        done.push(r.committed ? `committed what an interrupted command changed (${plural(r.files.length, 'file')}, ${r.commit?.slice(0, 10)})` : `an interrupted command's record: ${r.reason ?? 'nothing to commit'}`);
      }
    }
    return done;
  },
};
