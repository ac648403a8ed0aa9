/**
 * What git is doing in a memory repository, read from `.git` alone (no git process: every write
 * asks, so it costs a few stat calls). Used by the store (a write refuses while a person's
 * rebase, merge or cherry-pick is stopped, or on a detached HEAD), by sync and by health.
 *
 * memtier's own sync never starts a git rebase or merge (it merges in git's object store and
 * moves the branch itself, lib/git/sync.ts), so any operation found here is someone else's.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's git folder (`.git`, or where a `.git` file points: a worktree, a submodule). */
export function gitDirOf(root: string): string {
  const dot = join(root, '.git');
  try {
    if (statSync(dot).isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dot, 'utf8'));
      if (m) return resolve(root, m[1]!.trim());
    }
  } catch { /* a plain folder, or none */ }
  return dot;
}

export type GitOperation = 'rebase' | 'merge' | 'cherry-pick' | 'revert' | 'am';

/** An operation stopped in the repository (a person's `git pull --rebase` on a conflict, a killed rebase, …), with the command that ends it. */
export interface GitOperationState {
  op: GitOperation;
  /** Git's own marker for it, relative to the git folder (`rebase-merge`, `MERGE_HEAD`, …). */
  marker: string;
  /** How a person finishes or undoes it. */
  advice: string;
}

const OPS: { marker: string; op: GitOperation; advice: string }[] = [
  { marker: 'rebase-merge', op: 'rebase', advice: 'finish it (resolve the files, "git add" them, "git rebase --continue") or undo it ("git rebase --abort")' },
  { marker: 'rebase-apply', op: 'rebase', advice: 'finish it ("git rebase --continue" or "git am --continue") or undo it ("git rebase --abort" / "git am --abort")' },
  { marker: 'MERGE_HEAD', op: 'merge', advice: 'finish it (resolve the files, "git add" them, "git commit") or undo it ("git merge --abort")' },
  { marker: 'CHERRY_PICK_HEAD', op: 'cherry-pick', advice: 'finish it ("git cherry-pick --continue") or undo it ("git cherry-pick --abort")' },
  { marker: 'REVERT_HEAD', op: 'revert', advice: 'finish it ("git revert --continue") or undo it ("git revert --abort")' },
];

/** The git operation stopped in `root`'s repository, if any (undefined for none or no repository). */
export function gitOperation(root: string): GitOperationState | undefined {
  const dir = gitDirOf(root);
  for (const o of OPS) if (existsSync(join(dir, o.marker))) return { op: o.op, marker: o.marker, advice: o.advice };
  return undefined;
}

/** The branch HEAD is on (`main`), or undefined when HEAD is detached (or unreadable). */
export function headBranch(root: string): string | undefined {
  let head: string;
  try { head = readFileSync(join(gitDirOf(root), 'HEAD'), 'utf8').trim(); } catch { return undefined; }
  const m = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
  return m ? m[1] : undefined;
}

/** Is HEAD detached (a commit checked out, not a branch)? False when there is no repository. */
export function headDetached(root: string): boolean {
  let head: string;
  try { head = readFileSync(join(gitDirOf(root), 'HEAD'), 'utf8').trim(); } catch { return false; }
  return !head.startsWith('ref:');
}

/**
 * Why memtier must not write in this repository now, with what to do, or undefined when it may:
 * a git operation a person (or a killed git) left stopped, or a detached HEAD. Writing then would
 * land on a commit that is not the branch, or inside a file git is still merging.
 */
export function gitWriteBlocker(root: string): { reason: string; hint: string; state: 'operation' | 'detached' } | undefined {
  if (!existsSync(join(root, '.git'))) return undefined;
  const op = gitOperation(root);
  if (op) {
    return {
      state: 'operation',
      reason: `a git ${op.op} is in progress in the memory repository (.git/${op.marker}); memtier did not start it and writes nothing until it ends`,
      hint: `${op.advice} in ${root}, then run the command again`,
    };
  }
  if (headDetached(root)) {
    return {
      state: 'detached',
      reason: 'the memory repository has a detached HEAD (a commit is checked out, not a branch): a write would be committed on no branch',
      hint: `go back to the branch ("git switch main", or "git switch -c NAME" to keep commits made here) in ${root}, then run the command again`,
    };
  }
  return undefined;
}

/** A line of a git conflict block (`<<<<<<< `, `=======`, `>>>>>>> `, diff3's `||||||| `). */
export const CONFLICT_MARKER_RE = /^(?:<{7}(?: |$)|={7}$|>{7}(?: |$)|\|{7}(?: |$))/;

/**
 * The 1-based line of the first git conflict block in `text` (a `<<<<<<<` line followed later by
 * `=======` and `>>>>>>>` lines), or undefined. A lone `=======` (a setext heading's underline
 * is `===`, but seven of them is also legal markdown) is not a conflict.
 */
export function conflictMarkerLine(text: string): number | undefined {
  if (!text.includes('<<<<<<<')) return undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^<{7}(?: |$)/.test(lines[i]!)) continue;
    let sep = false;
    for (let j = i + 1; j < lines.length; j++) {
      if (!sep && /^={7}\s*$/.test(lines[j]!)) sep = true;
      else if (sep && /^>{7}(?: |$)/.test(lines[j]!)) return i + 1;
      else if (/^<{7}(?: |$)/.test(lines[j]!)) break;
    }
  }
  return undefined;
}
