/**
 * The shell blocks a user would paste from README.md and docs/guide.md run, in the order of the
 * page, as a reader would run them: `memtier` on PATH (a wrapper of this tree's bin/memtier.js,
 * the built dist/), a fresh HOME per page, MEMTIER_ROOT=~/memory, the clock fixed. Each block is
 * one `bash -e -o pipefail` and must exit 0; some say what they must print. A block that cannot run
 * here (it installs a host, needs the network) says why in `<!-- not run: reason -->` above it,
 * and those stay few. The README's first block, `npm ci && npm run demo`, is run as what
 * `npm run demo` runs: scripts/demo.js, through the real binary.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, REPO, tmpTree } from '../helpers.js';
import { read, shBlocks } from './markdown.js';

const PAGES = ['README.md', 'docs/guide.md'];
const NOW = '2026-05-15T14:30:00Z';

/** What a block must print (stdout and stderr together): the block is the one holding `holds`. */
const EXPECT: { page: string; holds: string; prints: RegExp[] }[] = [
  { page: 'README.md', holds: 'memtier search "database decision"', prints: [/use Postgres, not MySQL: we need JSONB/, /ok: 0 failures|^(?![\s\S]*FAIL)/] },
  { page: 'README.md', holds: 'memtier init --claude-code', prints: [/\.claude\/settings\.json/, /\.mcp\.json/] },
  { page: 'README.md', holds: 'memtier init --codex', prints: [/\[mcp_servers\.memtier\]/, /## Memory \(memtier\)/] },
  { page: 'docs/guide.md', holds: 'memtier wal decide "use Postgres', prints: [/logged \^\w+ to memory\/working-buffer\.md/, /use Postgres, not MySQL/] },
  { page: 'docs/guide.md', holds: 'memtier wal done', prints: [/moved from Pending to Done/] },
  { page: 'docs/guide.md', holds: 'memtier extract "We decided', prints: [/\[DECISION\] We decided to switch the queue to Kafka/, /\[LESSON\] Turns out/, /\[PREF\] From now on[\s\S]*added \^/] },
  { page: 'docs/guide.md', holds: 'memtier graph related Ana', prints: [/Postgres \(2 hops\)/, /flowchart|graph LR/] },
  { page: 'docs/guide.md', holds: 'memtier search "what did we decide about the database"', prints: [/explain: bm25=/] },
  { page: 'docs/guide.md', holds: 'memtier watch --detach', prints: [/memtier watch started/] },
  { page: 'docs/guide.md', holds: 'memtier health --fix --dry-run', prints: [/0 failures/] },
  { page: 'docs/guide.md', holds: 'git remote add origin', prints: [/synced with origin\/main: .*pushed/] },
  { page: 'docs/guide.md', holds: 'memtier clone', prints: [/cloned the memory/, /synced with origin\/main/] },
];

/** A scratch HOME with `memtier` on PATH, as `npm link` would put it. */
function scratch(): { home: string; env: NodeJS.ProcessEnv } {
  const home = tmpTree({}, 'memtier-docs-');
  const bin = join(home, '.local', 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'memtier'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'memtier'), 0o755);
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    MEMTIER_ROOT: join(home, 'memory'),
    MEMTIER_NOW: NOW,
    MEMTIER_TZ: 'UTC',
    GIT_CONFIG_NOSYSTEM: '1',
    LANG: 'C.UTF-8',
  };
  return { home, env };
}

const homes: { home: string; env: NodeJS.ProcessEnv }[] = [];
afterAll(() => {
  // a block that failed before its `memtier watch --stop` leaves no server behind
  for (const { home, env } of homes) {
    if (existsSync(join(home, 'memory', '.memtier'))) spawnSync(process.execPath, [BIN, 'watch', '--stop', '--root', join(home, 'memory')], { env, encoding: 'utf8' });
  }
});

describe.each(PAGES)('%s: the shell blocks a user would paste', (page) => {
  const blocks = shBlocks(read(page));
  const run = blocks.filter((b) => b.notRun === undefined);
  const s = scratch();
  homes.push(s);

  it('has blocks to run, and marks the few it cannot run with a reason', () => {
    expect(run.length).toBeGreaterThan(0);
    for (const b of blocks.filter((x) => x.notRun !== undefined)) expect(b.notRun!.length, `line ${b.line}`).toBeGreaterThan(10);
  });

  it.each(run.map((b) => [b.line, b] as const))('the block at line %i exits 0', (_line, block) => {
    const r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', block.code], { cwd: s.home, env: s.env, encoding: 'utf8', timeout: 60_000 });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, `${page}:${block.line} exited ${r.status}${r.signal ? ` (${r.signal})` : ''}:\n${block.code}\n--- output ---\n${out.slice(-3000)}`).toBe(0);
    for (const e of EXPECT.filter((x) => x.page === page && block.code.includes(x.holds))) {
      for (const re of e.prints) expect(out, `${page}:${block.line} should print ${re}`).toMatch(re);
    }
  });

  it('every expectation names a block of the page', () => {
    for (const e of EXPECT.filter((x) => x.page === page)) expect(run.some((b) => b.code.includes(e.holds)), e.holds).toBe(true);
  });
});

describe('the blocks not run', () => {
  it('are few: at most 6 in README.md and docs/guide.md together', () => {
    const n = PAGES.flatMap((p) => shBlocks(read(p))).filter((b) => b.notRun !== undefined).length;
    expect(n).toBeLessThanOrEqual(6);
  });
});

describe('npm run demo', () => {
  it('runs memtier on a bundled default memory through the real binary (scripts/demo.js), and again', () => {
    const dir = tmpTree({}, 'memtier-demo-');
    const env = { PATH: process.env.PATH, HOME: dir, MEMTIER_NOW: NOW, MEMTIER_TZ: 'UTC' };
    const first = spawnSync(process.execPath, [join(REPO, 'scripts', 'demo.js')], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    expect(first.status, first.stderr + first.stdout.slice(-2000)).toBe(0);
    expect(first.stdout).toMatch(/Done\. The memory is plain markdown in /);
    expect(first.stdout).toMatch(/keep the wiki in git, not in a database/);
    expect(existsSync(join(dir, 'demo-memory', 'MEMORY.md'))).toBe(true);
    const again = spawnSync(process.execPath, [join(REPO, 'scripts', 'demo.js')], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/already holds the demo entries/);
  });
});
