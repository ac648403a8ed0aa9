#!/usr/bin/env node
// `npm run demo`: memtier on a bundled default, through the real binary.
// Creates ./demo-memory from memory-skeleton/ (idempotent), writes WAL entries and typed entries,
// rotates the buffer, shows boot, health and a search, and says where the files are.
// Safe to run again: init keeps every file, new entries are appended.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(repo, 'bin', 'memtier.js');
const root = resolve(process.cwd(), process.argv[2] ?? 'demo-memory');
const shown = relative(process.cwd(), root) || '.';

if (!existsSync(join(repo, 'dist', 'lib', 'cli', 'main.js'))) {
  console.error('memtier is not built yet: run "npm ci" (or "npx tsc -p .") first, then "npm run demo".');
  process.exit(2);
}

const env = { ...process.env };
delete env.MEMTIER_ROOT; // the demo memory is named on every command line

function memtier(args, { allowFail = false, show = true } = {}) {
  const [cmd, ...rest] = args;
  const argv = cmd === 'init' ? args : [cmd, '--root', root, ...rest];
  console.log(`\n$ memtier ${args.map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  const r = spawnSync(process.execPath, [bin, ...argv], { env, encoding: 'utf8' });
  const out = (r.stdout ?? '') + (r.stderr ?? '');
  if (show && out.trim()) console.log(out.trimEnd().split('\n').map((l) => `  ${l}`).join('\n'));
  if (r.status !== 0 && !allowFail) {
    console.error(`\nmemtier ${cmd} failed (exit ${r.status}); the demo stops here.`);
    process.exit(r.status ?? 2);
  }
  if (r.status !== 0) console.log(`  (exit ${r.status}: ${r.status === 1 ? 'findings, shown above' : 'failure, shown above'})`);
  return r;
}

console.log(`memtier demo: a memory in ${root}`);

memtier(['init', shown]);

const TASK = 'migrate the team wiki to markdown';
let state = '';
try { state = readFileSync(join(root, 'SESSION-STATE.md'), 'utf8'); } catch { /* a fresh memory */ }
const again = state.includes(TASK);
if (again) {
  console.log(`\n(${shown} already holds the demo entries: skipping the writes so a second run adds no duplicates;\n rm -rf ${shown} for a fresh start)`);
} else {
// The WAL: written before the agent answers (memory/working-buffer.md + SESSION-STATE.md).
memtier(['wal', 'task', TASK]);
memtier(['wal', 'decide', 'keep the wiki in git, not in a database: diffs and history for free']);
memtier(['wal', 'context', 'deadline', '2026-06-01']);
memtier(['wal', 'pending', 'convert the 40 Confluence pages']);

// Typed entries go straight to today's episodic day (memory/episodic/YYYY-MM-DD.md).
memtier(['add', '--type', 'PREF', '--tags', 'style', 'prefers short answers with a list of next steps']);
memtier(['add', '--type', 'TECH', '--tags', 'docker', 'the wiki preview runs in docker on port 8080']);
memtier(['add', '--type', 'LESSON', '--tags', 'friction', 'pandoc drops Confluence macros silently; check the diff before committing']);
}

// Rotation: the buffer's entries move to today's episodic file (automatic past 80 lines).
memtier(['rotate', '--force']);

// After compaction or a restart, the agent reloads this:
memtier(['boot', '--max-chars', '4000']);

// The invariants (exit 1 means findings; a demo memory may have a few).
memtier(['health'], { allowFail: true });

// Ranked search over every tier.
memtier(['search', 'wiki database decision'], { allowFail: true });

console.log(`
Done. The memory is plain markdown in ${root}:
  ${shown}/MEMORY.md                  always loaded (≤ 60 lines)
  ${shown}/SESSION-STATE.md           the WAL's state: task, context, decisions, pending
  ${shown}/memory/working-buffer.md   the WAL log (rotated into memory/episodic/)
  ${shown}/memory/episodic/           one file per day, typed entries with ^ids
  ${shown}/FORMAT.md                  the contract for every file (TAGS.md: the tag vocabulary)

Try next:
  node bin/memtier.js wal get --root ${shown}
  node bin/memtier.js close-day --root ${shown}
  node bin/memtier.js get --root ${shown} MEMORY.md:1-10
  node bin/memtier.js watch --detach --root ${shown}   (a warm server for search/recall; --stop ends it)
  ${shown}/memory/scripts/wal decide "…"   (needs memtier on PATH: npm link)
  npm run demo                               (again: init keeps every file; the demo writes are skipped)`);
