/**
 * One chaos child (forked by test/chaos/harness.mjs with an IPC channel, in its own process
 * group so a SIGKILL also takes the git or search process it started). It waits for a job,
 * runs it, and replies; the parent counts a write as acknowledged only when this reply says the
 * command exited 0. A kill at any moment is the point: the child holds no state worth keeping.
 *
 * Jobs (from the parent):
 *   {op: 'cli', argv, env, stdin?}   the real CLI entry, main() from dist/, in this process
 *   {op: 'bin', argv, env}           bin/memtier.js as a process (a search through `memtier watch`)
 *   {op: 'git', root}                the committer: `git add -A && git commit` like a person's cron
 *   {op: 'edit', root, rel, tmpDir, marker, n}  the person: a hand edit of `rel` (an editor's save:
 *                                    a copy outside the root renamed over the file), then a read back
 *   {op: 'mark', root, rel, tmpDir, prefix, after, n, keep}  the person of one machine of the
 *                                    multi-machine run (test/chaos/machines.mjs): appends a marker
 *                                    line `PREFIXn` and drops its own oldest beyond `keep`, saved the
 *                                    same way
 * Replies: {code, stdout, stderr, ...}.
 */
import { Readable } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const REPO = new URL('../..', import.meta.url).pathname;
const { main } = await import(pathToFileURL(join(REPO, 'dist/lib/cli/main.js')).href);

async function runCli({ argv, env, stdin, cwd }) {
  // Crash points count their passes per process (MEMTIER_CRASH_SKIP): each job starts from zero.
  for (const k of Object.keys(globalThis)) if (k.startsWith('__memtierCrash_')) delete globalThis[k];
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env,
    cwd: cwd ?? env.HOME,
    stdin: stdin === undefined ? undefined : Readable.from([Buffer.from(stdin, 'utf8')]),
    stdout: { write: (s) => { stdout += s; return true; } },
    stderr: { write: (s) => { stderr += s; return true; } },
  });
  return { code, stdout, stderr };
}

function runBin({ argv, env }) {
  const r = spawnSync(process.execPath, [join(REPO, 'bin/memtier.js'), ...argv], { env, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status ?? 128, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** What a person's cron job would do: commit everything (the person's hand edits too). */
function runGit({ root, env }) {
  const git = (args) => spawnSync('git', ['-c', 'user.name=chaos', '-c', 'user.email=chaos@example.invalid', ...args], { cwd: root, env, encoding: 'utf8', timeout: 30_000 });
  const add = git(['add', '-A']);
  if (add.status !== 0) return { code: add.status ?? 128, stdout: '', stderr: add.stderr };
  const c = git(['commit', '-q', '-m', 'chaos: a person commits by hand']);
  // "nothing to commit" (exit 1) is fine; index.lock held by memtier's own commit is what we provoke.
  return { code: c.status ?? 128, stdout: c.stdout ?? '', stderr: c.stderr ?? '' };
}

/**
 * A hand edit, as an editor saves: read the file, set the person's marker line to `n`, write a
 * copy in a folder outside the memory and rename it over the file, then read it back. The marker
 * line is `PREFIX n` (replaced in place, or added after `after` when the file has none).
 */
function runEdit({ root, rel, tmpDir, prefix, after, n }) {
  const abs = join(root, rel);
  const text = readFileSync(abs, 'utf8');
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.startsWith(prefix));
  const line = `${prefix}${n}`;
  if (i >= 0) lines[i] = line;
  else {
    const j = lines.findIndex((l) => l.startsWith(after));
    lines.splice(j >= 0 ? j + 1 : lines.length, 0, line);
  }
  const tmp = join(tmpDir, `edit-${process.pid}`);
  writeFileSync(tmp, lines.join('\n'));
  renameSync(tmp, abs);
  const back = readFileSync(abs, 'utf8');
  return { code: back.includes(`${line}\n`) ? 0 : 1, stdout: '', stderr: '' };
}

/**
 * A person's note on one machine: append the line `PREFIXn` after the last of this person's
 * marker lines (after the `after` line when there is none) and drop the oldest of them beyond
 * `keep`, so the file does not grow without end. Saved as an editor saves (a copy renamed over
 * the file), then read back.
 */
function runMark({ root, rel, tmpDir, prefix, after, n, keep = 3 }) {
  const abs = join(root, rel);
  const lines = readFileSync(abs, 'utf8').split('\n');
  const mine = lines.map((l, i) => (l.startsWith(prefix) ? i : -1)).filter((i) => i >= 0);
  const drop = new Set(mine.slice(0, Math.max(0, mine.length + 1 - keep)));
  const out = lines.filter((_, i) => !drop.has(i));
  const line = `${prefix}${n}`;
  let last = -1;
  out.forEach((l, i) => { if (l.startsWith(prefix)) last = i; });
  let at = last >= 0 ? last + 1 : out.findIndex((l) => l.startsWith(after)) + 1;
  if (at <= 0) at = out.length;
  out.splice(at, 0, line);
  const tmp = join(tmpDir, `mark-${process.pid}`);
  writeFileSync(tmp, out.join('\n'));
  renameSync(tmp, abs);
  const back = readFileSync(abs, 'utf8');
  return { code: back.includes(`${line}\n`) ? 0 : 1, stdout: '', stderr: '' };
}

process.on('message', async (job) => {
  let reply;
  try {
    if (job.op === 'cli') reply = await runCli(job);
    else if (job.op === 'bin') reply = runBin(job);
    else if (job.op === 'git') reply = runGit(job);
    else if (job.op === 'edit') reply = runEdit(job);
    else if (job.op === 'mark') reply = runMark(job);
    else reply = { code: 2, stdout: '', stderr: `unknown job ${job.op}` };
  } catch (e) {
    reply = { code: 3, stdout: '', stderr: String(e?.stack ?? e) };
  }
  process.send({ seq: job.seq, ...reply });
});
process.send({ ready: true });
// The parent going away (its IPC channel closed) ends this child: no orphan outlives a run.
process.on('disconnect', () => process.exit(0));
