/**
 * The `memtier watch` socket as a stranger sees it: a raw node:net client speaking the protocol of
 * lib/watch/protocol.ts (one JSON line, `A`, one reply line), not the CLI's client. The server
 * runs what argv names, not what the `command` field says, and only reads; the socket is 0600 in a
 * 0700 folder whatever the umask; a request for another root is declined; only the environment
 * variables a read uses are taken from a request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestEnv } from '../../lib/watch/protocol.js';
import { BIN, FIXED_NOW, readTree, REPO, runBin, tmpTree } from '../helpers.js';

const ENV = { PATH: process.env.PATH, HOME: tmpdir(), MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' };
const BUILD = readFileSync(join(REPO, 'dist', 'build-id'), 'utf8').trim();

function memory(word: string): string {
  return tmpTree({
    'MEMORY.md': '# Memory\n- [People](memory/semantic/people.md) — who is who\n',
    'memory/episodic/2026-05-01.md': `- 10:00 [EVENT] standup about the ${word} deploy ^st0000001\n`,
    'memory/semantic/people.md': `---\ntags: [people]\n---\n# People\n## Dana\nDana runs the ${word} team.\n`,
  });
}

/** One request over a raw socket: the reply object, or undefined when the server closes without one. */
function raw(socket: string, req: unknown): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let buf = '';
    const timer = setTimeout(() => { s.destroy(); reject(new Error('no reply within 15 s')); }, 15_000);
    s.on('error', (e) => { clearTimeout(timer); reject(e); });
    s.on('connect', () => s.write((typeof req === 'string' ? req : JSON.stringify(req)) + '\n'));
    s.on('data', (d) => { buf += String(d); });
    s.on('close', () => {
      clearTimeout(timer);
      const lines = buf.split('\n').filter((l) => l && l !== 'A');
      resolve(lines.length ? JSON.parse(lines[0]!) : undefined);
    });
  });
}

let root: string;
let other: string;
let socket: string;
let server: ChildProcess;
const run = (argv: string[], extra: Record<string, unknown> = {}) => raw(socket, { op: 'run', build: BUILD, command: 'search', argv, env: { MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' }, cwd: root, ...extra });

beforeAll(async () => {
  root = memory('billing');
  other = memory('billing');
  // a private folder left loose by hand: the server tightens it
  mkdirSync(join(root, '.memtier/run'), { recursive: true });
  chmodSync(join(root, '.memtier/run'), 0o777);
  // under umask 000 every file the server creates with default modes is world-writable
  server = spawn('/bin/sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, BIN, 'watch', '--root', root], { env: ENV, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  server.stderr!.on('data', (d) => { err += String(d); });
  for (let i = 0; i < 300; i++) {
    if (existsSync(join(root, '.memtier/watch.json')) && runBin(['watch', '--status', '--root', root], { env: ENV }).code === 0) break;
    if (server.exitCode !== null) throw new Error(`watch exited ${server.exitCode}: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  socket = JSON.parse(readFileSync(join(root, '.memtier/watch.json'), 'utf8')).socket;
}, 30_000);

afterAll(() => {
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
});

describe('memtier watch socket', () => {
  it('is 0600 inside a 0700 folder of .memtier/, even under umask 000', () => {
    expect(socket).toBe(join(root, '.memtier/run/watch.sock'));
    expect(statSync(socket).isSocket()).toBe(true);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, '.memtier/run')).mode & 0o777).toBe(0o700);
  });

  it('runs what argv names, not the command field, and serves reads only', async () => {
    const before = readTree(root, { includeState: false });
    // the request of the issue: "search" in the command field, a WAL write in argv
    const forged = await run(['wal', 'decide', 'forged through the socket', '--root', root]);
    expect(forged).toMatchObject({ ok: false });
    expect(forged!.decline).toMatch(/"wal" is not served/);
    // a global flag's value is not the command: `--now search wal …` runs wal (main()'s rule)
    expect((await run(['--now', 'search', 'wal', 'decide', 'x', '--root', root]))!.decline).toMatch(/"wal" is not served/);
    expect((await run(['--root', root, 'add', 'forged', '--type', 'TECH'], { command: undefined }))!.decline).toMatch(/"add" is not served/);
    expect((await run(['--json'], { command: undefined }))!.decline).toMatch(/without a command/);
    // argv names search but the command field says otherwise: told apart, declined
    expect((await run(['search', 'billing', '--root', root], { command: 'recall' }))!.decline).toMatch(/says recall but its argv runs search/);
    expect(readTree(root)).toEqual(before);
    // a plain search is served, with the output the CLI prints itself
    const ok = await run(['search', 'billing', '--json', '--root', root]);
    expect(ok).toMatchObject({ ok: true, code: 0 });
    expect(ok!.out).toBe(runBin(['search', 'billing', '--json', '--root', root], { env: { ...ENV, MEMTIER_WATCH: 'off' } }).stdout);
  });

  it('declines a request for another root, by flag, environment or working folder', async () => {
    const state = (): Record<string, string> => readTree(other, { includeState: true });
    const before = state();
    const asks: [string[], Record<string, unknown>][] = [
      [['recall', '--query', 'billing', '--root', other], {}],
      [['recall', '--query', 'billing', `--root=${other}`], {}],
      [['recall', '--query', 'billing'], { env: { MEMTIER_ROOT: other } }],
      [['recall', '--query', 'billing'], { cwd: other, env: {} }],
    ];
    for (const [argv, extra] of asks) {
      const r = await run(argv, { command: 'recall', ...extra });
      expect(r, argv.join(' ')).toMatchObject({ ok: false });
      expect(r!.decline).toContain(`the request is for ${other}`);
    }
    expect(state()).toEqual(before); // no recall history, no index written there
    // the same root through a --root written differently is this root
    expect(await run(['search', 'billing', '--root', join(root, 'memory', '..')])).toMatchObject({ ok: true, code: 0 });
  });

  it('takes only the environment a read uses from a request; the rest is the server\'s', async () => {
    // a crash point armed by a request would kill the server at recall's lock: ignored
    const r = await run(['recall', '--query', 'who runs billing', '--json', '--root', root], { command: 'recall', env: { MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_CRASH_AT: 'lock.acquired', MEMTIER_GIT_BIN: '/bin/false', PATH: '/nonexistent' } });
    expect(r).toMatchObject({ ok: true, code: 0 });
    expect(String(r!.out)).toContain('memory/semantic/people.md');
    expect(await raw(socket, { op: 'status' })).toMatchObject({ ok: true, status: { pid: server.pid } });
    // an accepted key is the request's, set or unset: a bad clock is the request's own error
    const clock = await run(['search', 'billing', '--root', root], { env: { MEMTIER_NOW: 'not-a-time' } });
    expect(clock).toMatchObject({ ok: true, code: 2 });
    expect(String(clock!.err)).toMatch(/not-a-time/);
    // the merge itself
    const env = requestEnv({ PATH: '/usr/bin', HOME: '/home/u', MEMTIER_NOW: 'server', MEMTIER_GIT_BIN: 'git' }, { PATH: '/evil', MEMTIER_GIT_BIN: '/evil/git', MEMTIER_CRASH_AT: 'x', AWS_SECRET_ACCESS_KEY: 's', MEMTIER_TZ: 'UTC', MEMTIER_HEALTH_BUFFER_LINES: '120', TZ: 3 });
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/u', MEMTIER_GIT_BIN: 'git', MEMTIER_TZ: 'UTC', MEMTIER_HEALTH_BUFFER_LINES: '120' });
  });

  it('declines what it cannot read, and a client of another build, without running anything', async () => {
    expect(await run(['search', 'billing'], { build: 'older' })).toMatchObject({ ok: false, decline: expect.stringMatching(/runs build .*, the client older/) });
    expect((await run('search' as unknown as string[]))!.decline).toMatch(/argv must be a list of strings/);
    expect((await run(['search', 'billing'], { cwd: 'relative/dir' }))!.decline).toMatch(/cwd must be an absolute path/);
    expect((await run(['search', 'billing'], { env: null }))!.decline).toMatch(/env must be an object/);
    expect(await raw(socket, 'not json')).toEqual({ ok: false, decline: 'bad request' });
    expect(await raw(socket, 'null')).toMatchObject({ ok: false });
    expect(await raw(socket, { op: 'status' })).toMatchObject({ ok: true, status: { pid: server.pid } });
  });

  it('a root too deep for .memtier/run/ never listens in a temp folder someone else prepared', async () => {
    const tmp = tmpTree();
    const deep = join(tmpTree(), 'a-rather-long-folder-name-to-push-the-socket-path'.repeat(2));
    cpSync(memory('billing'), deep, { recursive: true });
    // the shared per-user folder is a link to a folder of someone else's choosing
    const elsewhere = tmpTree();
    symlinkSync(elsewhere, join(tmp, `memtier-${process.getuid!()}`));
    const env = { ...ENV, TMPDIR: tmp };
    const p = spawn(process.execPath, [BIN, 'watch', '--root', deep], { env, stdio: 'ignore' });
    try {
      let info: { socket: string } | undefined;
      for (let i = 0; i < 300 && !info; i++) {
        if (existsSync(join(deep, '.memtier/watch.json')) && runBin(['watch', '--status', '--root', deep], { env }).code === 0) info = JSON.parse(readFileSync(join(deep, '.memtier/watch.json'), 'utf8'));
        else await new Promise((r) => setTimeout(r, 50));
      }
      expect(info).toBeDefined();
      expect(dirname(info!.socket)).toMatch(new RegExp(`^${tmp}/memtier-[^/]+$`));
      expect(lstatSync(dirname(info!.socket)).isSymbolicLink()).toBe(false);
      expect(statSync(dirname(info!.socket)).mode & 0o777).toBe(0o700);
      expect(readdirSync(elsewhere)).toEqual([]);
      expect(runBin(['search', 'billing', '--root', deep], { env: { ...env, MEMTIER_WATCH: 'require' } }).code).toBe(0);
      expect(runBin(['watch', '--stop', '--root', deep], { env }).code).toBe(0);
      expect(existsSync(dirname(info!.socket))).toBe(false); // its own folder goes with it
    } finally {
      if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    }
  }, 30_000);
});
