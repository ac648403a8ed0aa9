/**
 * The proof at the end of a chaos run. A fresh process runs recovery (what the next command does:
 * `memtier rotate`, a writing command, so it breaks a dead holder's lock, quarantines torn tails,
 * finishes an interrupted rotation and commits what killed commands left recorded) twice, and the
 * second run must change nothing. Then:
 *
 *   - every acknowledged entry is there exactly once outside memory/.trash/: exactly one line of the
 *     logs (buffer, episodic days, archive) ends with its `^id`, and no other file holds it twice.
 *     Other files may hold one copy each, by design: the review files a decision into
 *     memory/semantic/decisions.md and a promotion indexes it in MEMORY.md, each with the same id;
 *   - except what this run removed itself: an entry whose `forget` was acknowledged is in no file
 *     outside the trash and is in memory/.trash/forgotten/; one whose `forget` was killed is either
 *     still there once or (gone) in the trash. A superseded entry stays, struck through;
 *   - nothing is there twice: no `^id` ends two lines of the logs or two lines of one file,
 *     acknowledged or not;
 *   - every file parses: UTF-8, frontmatter, JSON state, no torn line left in a log;
 *   - no temp file, lock, interrupted rotation, commit record or `.git/index.lock` is left;
 *     `git fsck` is clean; `memtier health` has no FAIL the memory did not have before the run;
 *   - the person's hand edits survived (the last acknowledged one, or a later one, is there once);
 *   - files outside the root are byte for byte what they were.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const REPO = new URL('../..', import.meta.url).pathname;
const dist = (p) => import(pathToFileURL(join(REPO, 'dist/lib', p)).href);
const { parseFrontmatter } = await dist('format/frontmatter.js');
const { isTornEntry } = await dist('store/store.js');
const { findOrphanTemps } = await dist('store/fsync.js');

const ID_TAIL = /\s\^([A-Za-z0-9][A-Za-z0-9-]{2,63})\s*$/;

/** Every file under `dir` (relative path → sha256), `.git` left out unless asked. */
export function hashTree(dir, { git = false, skip = [] } = {}) {
  const out = new Map();
  const walk = (rel) => {
    for (const d of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (skip.includes(r) || (d.name === '.git' && !git)) continue;
      if (d.isDirectory()) walk(r);
      else out.set(r, d.isFile() ? createHash('sha256').update(readFileSync(join(dir, r))).digest('hex') : `(${d.isSymbolicLink() ? 'link' : 'special'})`);
    }
  };
  if (existsSync(dir)) walk('');
  return out;
}

/** The log files: where an entry lives until it is forgotten (buffer, days, archive, a rotation aside). */
const isLog = (rel) => rel === 'memory/working-buffer.md' || /^memory\/(episodic|archive|\.rotating)\//.test(rel);

const diffMaps = (a, b) => [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();

export function checkMemory({ root, env, acked, forgets, superseded, person, personFiles, outside, outsideBefore, healthBefore, bin }) {
  const failures = [];
  const fail = (s) => failures.push(s);
  const run = (args) => spawnSync(process.execPath, [bin, '--root', root, ...args], { env, encoding: 'utf8', timeout: 120_000 });
  const git = (args) => spawnSync('git', args, { cwd: root, encoding: 'utf8', timeout: 120_000 });

  // --- recovery, twice ---------------------------------------------------------------------------
  const first = run(['rotate', '--json']);
  if (first.status !== 0) fail(`recovery (memtier rotate) exited ${first.status}: ${first.stdout}${first.stderr}`);
  const headBefore = git(['rev-parse', 'HEAD']).stdout.trim();
  const before = hashTree(root, { skip: ['.memtier'] });
  const second = run(['rotate', '--json']);
  if (second.status !== 0) fail(`second recovery exited ${second.status}: ${second.stdout}${second.stderr}`);
  const changed = diffMaps(before, hashTree(root, { skip: ['.memtier'] }));
  if (changed.length) fail(`the second recovery changed files: ${changed.join(', ')}`);
  if (git(['rev-parse', 'HEAD']).stdout.trim() !== headBefore) fail('the second recovery made a commit');

  // --- read every file once ----------------------------------------------------------------------
  const files = new Map(); // rel → text (memory files, outside the trash)
  const trash = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const [rel] of hashTree(root)) {
    if (rel.startsWith('.memtier/')) {
      // Its JSON state files parse (the index cache's units.json is JSON arrays back to back, by design).
      if (/^\.memtier\/[^/]+\.json$/.test(rel)) {
        try { JSON.parse(readFileSync(join(root, rel), 'utf8')); } catch (e) { fail(`${rel}: not valid JSON (${e.message})`); }
      }
      continue;
    }
    let text;
    try { text = decoder.decode(readFileSync(join(root, rel))); } catch { fail(`${rel}: not valid UTF-8`); continue; }
    if (rel.startsWith('memory/.trash/')) { trash.push(text); continue; }
    if (rel.endsWith('.md')) files.set(rel, text);
  }

  // --- every file parses --------------------------------------------------------------------------
  for (const [rel, text] of files) {
    try { parseFrontmatter(text.replace(/\r\n/g, '\n'), rel); } catch (e) { fail(`${rel}: frontmatter does not parse: ${e.message}`); }
    if (isLog(rel)) {
      if (text.length && !text.endsWith('\n')) fail(`${rel}: does not end with a newline (a torn tail left behind)`);
      text.split('\n').forEach((line, i) => { if (isTornEntry(line)) fail(`${rel}:${i + 1}: a torn entry: ${line.slice(0, 120)}`); });
    }
  }

  // --- where each id is ---------------------------------------------------------------------------
  const inLogs = new Map(); // id → count of log lines ending with it
  const where = new Map(); // id → [rel:line]
  for (const [rel, text] of files) {
    const seen = new Map();
    text.split('\n').forEach((line, i) => {
      if (!/^[-*] /.test(line)) return;
      const m = ID_TAIL.exec(line);
      if (!m) return;
      const id = m[1];
      seen.set(id, (seen.get(id) ?? 0) + 1);
      if (isLog(rel)) inLogs.set(id, (inLogs.get(id) ?? 0) + 1);
      if (!where.has(id)) where.set(id, []);
      where.get(id).push(`${rel}:${i + 1}`);
    });
    for (const [id, n] of seen) if (n > 1 && !isLog(rel)) fail(`duplicated: ^${id} ends ${n} lines of ${rel}`);
  }
  const trashText = trash.join('\n');

  let lost = 0;
  let duplicated = 0;
  const lostIds = [];
  for (const [id, info] of acked) {
    const n = inLogs.get(id) ?? 0;
    const f = forgets.get(id);
    if (f) {
      const anywhere = where.get(id) ?? [];
      if (f.acked && anywhere.length) fail(`^${id}: forgotten (acknowledged) but still in ${anywhere.join(', ')}`);
      if (n > 1) { duplicated++; fail(`duplicated: ^${id} (forget was killed) is in the logs ${n} times: ${anywhere.join(', ')}`); }
      if (n === 0 && !trashText.includes(`^${id}`)) { lost++; lostIds.push(id); fail(`lost: ^${id} (${info.kind} by ${info.role}) was forgotten${f.acked ? '' : ' (the forget was killed)'} but is not in memory/.trash/`); }
      continue;
    }
    if (n === 0) { lost++; lostIds.push(id); fail(`lost: ^${id} (${info.kind} by ${info.role}, acknowledged) is in no log${where.has(id) ? ` (only in ${where.get(id).join(', ')})` : ''}${trashText.includes(`^${id}`) ? '; it is in the trash' : ''}`); }
    else if (n > 1) { duplicated++; fail(`duplicated: ^${id} (${info.kind} by ${info.role}) is in the logs ${n} times: ${where.get(id).join(', ')}`); }
    else if (info.entry && !superseded.has(id)) {
      // The words the command acknowledged are the words stored (a rotation drops only the date).
      const core = info.entry.slice(info.entry.indexOf('['), info.entry.lastIndexOf(' ^'));
      const logLine = where.get(id).map((w) => w.replace(/:\d+$/, '')).find(isLog);
      const line = files.get(logLine).split('\n').find((l) => l.endsWith(`^${id}`));
      if (!line.includes(core)) {
        // Show where the two differ, not just their starts.
        const from = line.indexOf(core.slice(0, 12));
        let at = 0;
        while (at < core.length && from >= 0 && line[from + at] === core[at]) at++;
        const around = (t, i) => JSON.stringify(t.slice(Math.max(0, i - 40), i + 80));
        fail(`^${id}: stored words differ from the acknowledged ones at character ${at} of ${core.length}: stored ${from < 0 ? JSON.stringify(line.slice(0, 160)) : around(line, from + at)}, acknowledged ${around(core, at)}`);
      }
    }
  }
  for (const [id, n] of inLogs) {
    if (n > 1 && !acked.has(id)) { duplicated++; fail(`duplicated: ^${id} (not acknowledged) is in the logs ${n} times: ${where.get(id).join(', ')}`); }
  }
  for (const id of superseded) {
    if (forgets.has(id)) continue;
    const line = (where.get(id) ?? []).map((w) => w.replace(/:\d+$/, '')).filter(isLog).map((rel) => files.get(rel).split('\n').find((l) => l.endsWith(`^${id}`)))[0];
    if (line && !/~~.*~~ superseded by \^/.test(line)) fail(`^${id}: superseded (acknowledged) but not struck through: ${line.slice(0, 160)}`);
  }

  // --- nothing left behind ------------------------------------------------------------------------
  for (const t of findOrphanTemps(root)) fail(`temp file left: ${t}`);
  const state = existsSync(join(root, '.memtier')) ? readdirSync(join(root, '.memtier')) : [];
  for (const n of state.filter((s) => s.startsWith('lock'))) fail(`lock left: .memtier/${n}`);
  const pending = join(root, '.memtier/commit-pending');
  if (existsSync(pending) && readdirSync(pending).length) fail(`commit records left: ${readdirSync(pending).join(', ')}`);
  const rotating = join(root, 'memory/.rotating');
  if (existsSync(rotating) && readdirSync(rotating).length) fail(`interrupted rotation left: ${readdirSync(rotating).join(', ')}`);
  if (existsSync(join(root, '.git/index.lock'))) fail('.git/index.lock left');
  // Any other git lock a killed git left (HEAD.lock, refs/heads/NAME.lock, …) blocks every commit.
  const gitLocks = spawnSync('find', ['.git', '-name', '*.lock', '-not', '-path', '.git/memtier-stale-locks/*'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  if (gitLocks) fail(`git lock files left: ${gitLocks.split('\n').join(', ')}`);

  const fsck = git(['fsck', '--no-progress', '--no-dangling']);
  if (fsck.status !== 0 || /error|missing|broken|corrupt/i.test(fsck.stderr + fsck.stdout)) fail(`git fsck: exit ${fsck.status}: ${(fsck.stdout + fsck.stderr).slice(0, 600)}`);

  // --- health -------------------------------------------------------------------------------------
  const h = spawnSync(process.execPath, [bin, 'health', '--root', root, '--json'], { env, encoding: 'utf8', timeout: 120_000 });
  let findings = [];
  try { findings = JSON.parse(h.stdout).findings ?? []; } catch { fail(`health did not answer JSON (exit ${h.status}): ${h.stderr.slice(0, 400)}`); }
  for (const f of findings.filter((x) => x.severity === 'fail')) {
    const s = `${f.check}: ${f.file ?? ''}${f.line ? `:${f.line}` : ''}: ${f.message}`;
    if (!healthBefore.includes(s)) fail(`health FAIL after the run: ${s}`);
  }

  // --- the person's edits, the neighbours ----------------------------------------------------------
  for (const [rel, last] of person) {
    const { prefix } = personFiles.find((p) => p.rel === rel);
    const lines = (files.get(rel) ?? '').split('\n').filter((l) => l.startsWith(prefix));
    const n = lines.length === 1 ? Number(lines[0].slice(prefix.length)) : NaN;
    if (!(n >= last)) fail(`hand edit of ${rel} lost: the person's last acknowledged edit was ${last}, the file has ${lines.length ? lines.join(' | ') : 'no marker line'}`);
  }
  const outsideChanged = diffMaps(outsideBefore, hashTree(outside));
  if (outsideChanged.length) fail(`files outside the root changed: ${outsideChanged.join(', ')}`);

  const logIds = [...inLogs.keys()].length;
  return { failures, lost, duplicated, lostIds, stats: { files: files.size, logIds, trashFiles: trash.length } };
}
