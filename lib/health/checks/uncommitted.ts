import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { git, isGitRepo, MEMORY_PATHSPECS } from '../../git/index.js';
import { gitEnabled, takeTouched } from '../../store/store.js';
import type { Check, Finding } from '../types.js';

/** A file changed this recently (either side of the clock) is taken to be under a person's hands. */
export const EDITING_MS = 10 * 60_000;

/** `git status --porcelain -z` entries: status code and path (the new path of a rename). */
function parseStatus(out: string): { code: string; path: string }[] {
  const parts = out.split('\0');
  const res: { code: string; path: string }[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.length < 4) continue;
    const code = p.slice(0, 2);
    res.push({ code, path: p.slice(3) });
    if (code[0] === 'R' || code[0] === 'C') i++; // the old path follows
  }
  return res;
}

/** Issue #12: in a git memory, what memtier or a person changed and nobody committed. */
export const check: Check = {
  id: 'uncommitted',
  description: 'in a git memory: memory files modified or untracked and not committed (files changed in the last 10 minutes are taken as being edited)',
  severity: 'warn',
  fixable: false,
  source: 'memtier (git history)',
  doc: {
    trigger: 'the memory is a git repository and `git status` lists memory files (MEMORY.md, SESSION-STATE.md, todos.md, memory/, knowledge/) as modified, deleted or untracked that were last changed more than 10 minutes ago',
    failing: ' M MEMORY.md          (edited by hand yesterday, never committed)\n?? memory/semantic/vendors.md',
    fixed: 'memtier sync   (or: git add MEMORY.md memory/semantic/vendors.md && git commit)',
    why: 'memtier commits what it writes, but a hand edit, a power cut before a commit or a git error leaves changes that a clone, a checkout or another machine never sees: the history is the memory\'s backup',
  },
  run(snap, env) {
    const ctx = env.ctx;
    if (!gitEnabled(ctx.env)) return { findings: [], skipped: 'MEMTIER_GIT=off' };
    if (!isGitRepo(snap.root)) return { findings: [], skipped: 'not a git repository' };
    const specs = MEMORY_PATHSPECS.filter((p) => existsSync(join(snap.root, p)));
    const r = git({ root: snap.root, env: ctx.env }, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...specs]);
    if (r.code !== 0) return { findings: [{ check: 'uncommitted', severity: 'info', file: '.', message: `git status failed: ${r.stderr.trim().split('\n').pop()}` }] };
    const now = ctx.clock.now().getTime();
    const out: Finding[] = [];
    let editing = 0;
    // what this very command changed (health --fix's repairs) is committed when it ends: not a
    // finding of its own report (an archive's moved days kept their old times and were warned)
    const mine = takeTouched(snap.root);
    const ours = (path: string): boolean => mine.some((m) => path === m || path.startsWith(`${m}/`));
    for (const { code, path } of parseStatus(r.stdout)) {
      if (path.startsWith('.memtier/') || path.startsWith('memory/.trash/')) continue;
      if (ours(path)) continue;
      let mtime: number | undefined;
      try { mtime = lstatSync(join(snap.root, path)).mtimeMs; } catch { mtime = undefined; }
      if (mtime !== undefined && Math.abs(now - mtime) < EDITING_MS) { editing++; continue; }
      const what = code === '??' ? 'untracked' : code.includes('D') ? 'deleted' : 'modified';
      out.push({ check: 'uncommitted', severity: 'warn', file: path, message: `${what} and not committed to git`, fix: `memtier sync (or: git add ${path} && git commit)` });
    }
    return { findings: out, figures: { uncommitted: out.length, beingEdited: editing } };
  },
};
