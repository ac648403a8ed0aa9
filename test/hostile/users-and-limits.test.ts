/**
 * Hostile cases of issue 29: another local user (the `nobody` account) and the owner's searches,
 * files under the root that are not memory, request sizes the servers read, and a memory whose
 * .memtier/ cannot be written. Each runs the real binary (or the real server) on a memory built
 * from the skeleton.
 *
 * - 1: a watch.json or socket another user could have made is never asked (their reply is never
 *   printed, the conversation never reaches them); the server writes watch.json 0600 and makes
 *   .memtier/ 0700 whatever the umask.
 * - 2: `get`, MCP's memory_get and memtier:/// resources, and OpenClaw's memory_get read memory
 *   files only (.git/config, .env, .ssh/, .memtier/, the trash refused with not-memory, unread).
 * - 8: a 20 MB request line to the watch socket and a 16 MiB MCP message are refused as they
 *   arrive; the next request is answered.
 * - 12: a file over 4 MiB is named by search (text and --json) and by health, not silently left out.
 * - 13: recall answers (uncached, unrecorded) when .memtier/ cannot be written.
 *
 * The cases needing another user run as root with `nobody`; elsewhere they are skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { main } from '../../lib/cli/main.js';
import { memoryGet } from '../../lib/openclaw/plugin.js';
import { commandRunner } from '../../lib/watch/runner.js';
import { BIN, FIXED_NOW, REPO, testCtx, trackTemp } from '../helpers.js';
import { expectNoCrash, makeMemory, runCli, snapshotMemory, withoutHousekeeping, type RunResult } from './kit.js';

const NOBODY = 65534;
// ... and only where `nobody` can run this Node (CI's Node 24 lives in a 0700 temp folder of root's)
const asRoot = process.getuid?.() === 0 && spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim() === String(NOBODY)
  && spawnSync(process.execPath, ['-e', ''], { uid: NOBODY, gid: NOBODY }).status === 0;
const BUILD = readFileSync(join(REPO, 'dist', 'build-id'), 'utf8').trim();
const DAY = 'memory/episodic/2026-05-14.md';
const DAY_TEXT = '# 2026-05-14\n\n- 09:00 [DECISION] deploy with kubernetes on friday ^k8sdecide1\n';
/** What a fake server answers: must never be printed. */
const FAKE = 'FAKE-ANSWER-FROM-ANOTHER-USER-7c1e';

/** A memory with one day of entries; the real binary finds the entry through `search kubernetes`. */
function memory(): string {
  return makeMemory({ [DAY]: DAY_TEXT });
}

/** A folder of its own under the temp folder, whose parents anyone may traverse (for `nobody`). */
function freshDir(owner = 0, mode = 0o700): string {
  const d = trackTemp(mkdtempSync(join(tmpdir(), 'memtier-hostile-users-')));
  chownSync(d, owner, owner);
  chmodSync(d, mode);
  return d;
}

/**
 * A server that answers any request with FAKE, listening on `socket` as user `uid`, logging what
 * it was sent to `log`: what another local user would run.
 */
async function fakeServer(socket: string, log: string, uid: number, socketMode: number): Promise<ChildProcess> {
  const script = `
    const net = require('node:net'); const fs = require('node:fs');
    const [sock, log, mode] = process.argv.slice(1);
    net.createServer((s) => {
      let got = '';
      s.on('error', () => {});
      s.on('data', (d) => {
        got += d;
        if (!got.includes('\\n')) return;
        fs.appendFileSync(log, got);
        s.write('A\\n');
        s.end(JSON.stringify({ ok: true, code: 0, out: ${JSON.stringify(FAKE + '\n')}, err: '' }) + '\\n');
      });
    }).listen(sock, () => { fs.chmodSync(sock, Number(mode)); process.stdout.write('ready\\n'); });`;
  writeFileSync(log, '');
  chownSync(log, uid, uid);
  const p = spawn(process.execPath, ['-e', script, socket, log, String(socketMode)], { uid, gid: uid, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    p.stderr!.on('data', (d) => { err += String(d); });
    p.stdout!.on('data', (d) => { if (String(d).includes('ready')) resolve(); });
    p.on('exit', (c) => reject(new Error(`fake server exited ${c}: ${err}`)));
  });
  return p;
}

/** Announce a server for `root` in .memtier/watch.json, as `uid` with `mode`. */
function announce(root: string, socket: string, uid: number, mode: number): void {
  mkdirSync(join(root, '.memtier'), { recursive: true });
  const file = join(root, '.memtier/watch.json');
  writeFileSync(file, JSON.stringify({ pid: process.pid, socket, build: BUILD, version: '0', root, started: FIXED_NOW }));
  chownSync(file, uid, uid);
  chmodSync(file, mode);
}

/** The real binary with a server allowed (MEMTIER_WATCH unset). */
const cli = (root: string, args: string[], input?: string): RunResult => runCli(root, args, { env: { MEMTIER_WATCH: undefined, MEMTIER_GIT: 'off' }, ...(input !== undefined ? { input } : {}), timeoutMs: 20_000 });

const CONVERSATION = JSON.stringify([{ role: 'user', content: 'the private conversation: how do we deploy with kubernetes, PRIVATE-TURN-5d1' }]);

describe.skipIf(!asRoot)('finding 1: another local user cannot answer the owner\'s searches', () => {
  const servers: ChildProcess[] = [];
  afterAll(() => { for (const s of servers) if (s.exitCode === null) s.kill('SIGKILL'); });

  /** A root-owned fake server at the memory's own socket place, .memtier/run/watch.sock (0700). */
  async function ownSocket(root: string): Promise<{ socket: string; log: string }> {
    mkdirSync(join(root, '.memtier/run'), { recursive: true, mode: 0o700 });
    chmodSync(join(root, '.memtier/run'), 0o700);
    const socket = join(root, '.memtier/run/watch.sock');
    const log = join(freshDir(), 'log');
    servers.push(await fakeServer(socket, log, 0, 0o600));
    return { socket, log };
  }

  /** The CLI ran the search itself: the real entry, not the fake answer, and nothing was sent. */
  const expectLocal = (r: RunResult, log: string): void => {
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(DAY);
    expect(r.stdout + r.stderr).not.toContain(FAKE);
    expect(readFileSync(log, 'utf8'), 'the request reached the other server').toBe('');
  };

  it('control: the owner\'s own announcement and socket are asked (the fake answer is printed)', async () => {
    const root = memory();
    const { socket, log } = await ownSocket(root);
    announce(root, socket, 0, 0o600);
    const r = cli(root, ['search', 'kubernetes']);
    expect(r.stdout).toContain(FAKE);
    expect(readFileSync(log, 'utf8')).toContain('"search"');
  });

  it('a watch.json written by another user is ignored', async () => {
    const root = memory();
    const { socket, log } = await ownSocket(root);
    announce(root, socket, NOBODY, 0o600);
    expectLocal(cli(root, ['search', 'kubernetes']), log);
    const req = runCli(root, ['search', 'kubernetes'], { env: { MEMTIER_WATCH: 'require', MEMTIER_GIT: 'off' } });
    expect(req.code).toBe(2);
    expect(req.stderr).toMatch(/not trusted: \.memtier\/watch\.json belongs to another user \(uid 65534\)/);
  });

  it('a watch.json others can write (0666, as umask 000 made it) is ignored', async () => {
    const root = memory();
    const { socket, log } = await ownSocket(root);
    announce(root, socket, 0, 0o666);
    expectLocal(cli(root, ['search', 'kubernetes']), log);
    expectLocal(cli(root, ['recall', '--messages', '-'], CONVERSATION), log);
  });

  it('a socket of another user (named by a watch.json someone could not have written otherwise) is never connected to; the conversation never reaches it', async () => {
    const root = memory();
    const theirs = freshDir(NOBODY, 0o700);
    const socket = join(theirs, 'memtier-0123456789abcdef.sock');
    const log = join(theirs, 'log');
    servers.push(await fakeServer(socket, log, NOBODY, 0o666));
    expect(statSync(socket).uid).toBe(NOBODY);
    announce(root, socket, 0, 0o600);
    expectLocal(cli(root, ['search', 'kubernetes']), log);
    const r = cli(root, ['recall', '--messages', '-'], CONVERSATION);
    expectLocal(r, log);
    expect(readFileSync(log, 'utf8')).not.toContain('PRIVATE-TURN');
  });

  it('an owner\'s socket in a folder anyone can write is not trusted (it could be swapped)', async () => {
    const root = memory();
    const open = freshDir(0, 0o777);
    const socket = join(open, 'memtier-0123456789abcdef.sock');
    const log = join(freshDir(), 'log');
    servers.push(await fakeServer(socket, log, 0, 0o600));
    announce(root, socket, 0, 0o600);
    expectLocal(cli(root, ['search', 'kubernetes']), log);
  });

  it('a FIFO at .memtier/watch.json does not block the CLI', () => {
    const root = memory();
    mkdirSync(join(root, '.memtier'), { recursive: true });
    spawnSync('mkfifo', [join(root, '.memtier/watch.json')]);
    const r = runCli(root, ['search', 'kubernetes'], { env: { MEMTIER_WATCH: undefined, MEMTIER_GIT: 'off' }, timeoutMs: 15_000 });
    expectNoCrash(r);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(DAY);
  });

  it('memtier watch under umask 000 writes watch.json 0600 and makes .memtier/ and its index 0700', async () => {
    const root = memory();
    expect(existsSync(join(root, '.memtier'))).toBe(false);
    const env = { PATH: process.env.PATH, HOME: root, MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' };
    const server = spawn('/bin/sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, BIN, 'watch', '--root', root], { env, stdio: 'ignore' });
    servers.push(server);
    try {
      for (let i = 0; i < 300 && !existsSync(join(root, '.memtier/watch.json')); i++) await new Promise((r) => setTimeout(r, 50));
      expect(statSync(join(root, '.memtier/watch.json')).mode & 0o777).toBe(0o600);
      expect(statSync(join(root, '.memtier')).mode & 0o777).toBe(0o700);
      expect(statSync(join(root, '.memtier/index')).mode & 0o777).toBe(0o700);
      const r = runCli(root, ['search', 'kubernetes'], { env: { MEMTIER_WATCH: 'require', MEMTIER_GIT: 'off' } });
      expect(r.code, r.stderr).toBe(0);
    } finally {
      server.kill('SIGTERM');
    }
  }, 30_000);
});

describe('finding 1: .memtier/ is private whichever command makes it first', () => {
  it('under umask 000, a write, a search (its index) and recall make .memtier/ and .memtier/index 0700', () => {
    for (const args of [['wal', 'decide', 'use sqlite'], ['search', 'kubernetes'], ['recall', '--query', 'kubernetes'], ['cron', '--take-upkeep', '--dry-run']]) {
      const root = memory();
      expect(existsSync(join(root, '.memtier'))).toBe(false);
      const env = { PATH: process.env.PATH, HOME: root, MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_ROOT: root, MEMTIER_WATCH: 'off', MEMTIER_GIT: 'off' };
      const r = spawnSync('/bin/sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, BIN, ...args], { cwd: root, env, encoding: 'utf8', timeout: 20_000 });
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      if (!existsSync(join(root, '.memtier'))) continue; // this command needed no state
      expect(statSync(join(root, '.memtier')).mode & 0o777, args.join(' ')).toBe(0o700);
      if (existsSync(join(root, '.memtier/index'))) expect(statSync(join(root, '.memtier/index')).mode & 0o777, args.join(' ')).toBe(0o700);
    }
  });
});

/** Files under the root that are not memory, each with a sentinel that must never be printed. */
const NOT_MEMORY: Record<string, string> = {
  '.git/config': '[remote "origin"]\n\turl = https://x:SENTINEL-GITCONFIG-91f2@github.com/acme/mem.git\n',
  '.env': 'API_TOKEN=SENTINEL-DOTENV-33ab\n',
  '.ssh/id_ed25519': '-----BEGIN OPENSSH PRIVATE KEY-----\nSENTINEL-SSHKEY-0c7d\n-----END OPENSSH PRIVATE KEY-----\n',
  'memory/.trash/2026-05-14T09-00-00Z/memory/episodic/2026-05-13.md': '- 09:00 [EVENT] SENTINEL-TRASH-5e88 purged text ^trash00001\n',
  'memory/.snapshots/2026-05-14.md': '# snapshot\nSENTINEL-SNAPSHOT-a1b0\n',
  '.memtier/recall-cache.json': '{"entries":{"x":"SENTINEL-STATE-77aa"}}\n',
  'AGENTS.md': '# Agents\nSENTINEL-AGENTS-1f0e\n',
  'memory/notes.txt': 'SENTINEL-TXT-44d2\n',
  'memory/.env.local': 'SENTINEL-DOTENV2-9b3c\n',
  'knowledge/scripts/deploy.md': '# script\nSENTINEL-SCRIPTS-6a6a\n',
  'memory/semantic/.private/x.md': '# hidden\nSENTINEL-HIDDEN-0d0d\n',
};
const SENTINEL = /SENTINEL-[A-Z0-9]+-[0-9a-f]{4}/;
/** Ways to name a file that is not memory through a memory path. */
const DISGUISED = ['memory/semantic/../../.env', './.git/config', 'memory//../.ssh/id_ed25519', 'knowledge/../AGENTS.md#L1', '.git/config:1-3'];

describe('finding 2: get and memory_get read memory files only', () => {
  let root: string;
  beforeAll(() => {
    root = memory();
    for (const [rel, text] of Object.entries(NOT_MEMORY)) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
    writeFileSync(join(root, 'knowledge/vendor.md'), '# Vendor\n\nThe vendor call moved to Thursday.\n');
    writeFileSync(join(root, 'USER.md'), '# User\n\nPrefers short answers.\n');
  });

  it.each([...Object.keys(NOT_MEMORY), ...DISGUISED])('get %s is refused (not-memory), nothing of it printed', (path) => {
    const before = withoutHousekeeping(snapshotMemory(root));
    for (const json of [false, true]) {
      const r = runCli(root, ['get', path, ...(json ? ['--json'] : [])], { env: { MEMTIER_GIT: 'off' } });
      expectNoCrash(r);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stdout + r.stderr).not.toMatch(SENTINEL);
      if (json) expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'not-memory', rule: 'memory-files-only' });
      else expect(r.stderr).toMatch(/^memtier: \S+: not a memory file: only MEMORY\.md, .*\.md files under memory\/ and knowledge\/.*\[memory-files-only\]/);
    }
    expect(withoutHousekeeping(snapshotMemory(root))).toEqual(before);
  });

  it('memory files still read: the root files, memory/, knowledge/, by citation', () => {
    for (const [path, want] of [['MEMORY.md', /#/], ['USER.md', /short answers/], ['knowledge/vendor.md', /Thursday/], [`${DAY}#L3`, /kubernetes/], [`./${DAY}:3`, /kubernetes/]] as const) {
      const r = runCli(root, ['get', path], { env: { MEMTIER_GIT: 'off' } });
      expect(r.code, `${path}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(want);
    }
  });

  it('MCP memory_get and memtier:/// resources refuse the same files', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath, args: [BIN, 'mcp', '--root', root], stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', HOME: root, MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' },
    });
    const client = new Client({ name: 'memtier-hostile', version: '1.0.0' });
    await client.connect(transport);
    try {
      for (const path of ['.git/config', '.env', '.ssh/id_ed25519', 'memory/.trash/2026-05-14T09-00-00Z/memory/episodic/2026-05-13.md', 'memory/semantic/../../.env']) {
        const r = (await client.callTool({ name: 'memory_get', arguments: { path } })) as { content: { text: string }[]; isError?: boolean };
        expect(r.isError, path).toBe(true);
        expect(r.content[0]!.text).toMatch(/: not a memory file.*\[memory-files-only\]/);
        expect(r.content[0]!.text).not.toMatch(SENTINEL);
        const res = await client.readResource({ uri: `memtier:///${path}` }).then((x) => JSON.stringify(x), (e: Error) => `error: ${e.message}`);
        expect(res, path).toMatch(/^error: .*not a memory file/);
        expect(res).not.toMatch(SENTINEL);
      }
      const ok = (await client.callTool({ name: 'memory_get', arguments: { path: 'knowledge/vendor.md' } })) as { content: { text: string }[]; isError?: boolean };
      expect(ok.isError).toBeFalsy();
      expect(ok.content[0]!.text).toContain('Thursday');
    } finally {
      await client.close();
    }
  });

  it('OpenClaw memory_get answers an error status with code not-memory', async () => {
    const run = commandRunner(testCtx(root, FIXED_NOW, 'UTC', { MEMTIER_GIT: 'off' }), main, undefined).run;
    for (const path of ['.git/config', '.env', '.ssh/id_ed25519', 'memory/.snapshots/2026-05-14.md']) {
      const r = await memoryGet(run, { path });
      expect(r).toMatchObject({ status: 'error', code: 'not-memory', text: '' });
      expect(JSON.stringify(r)).not.toMatch(SENTINEL);
    }
    expect(await memoryGet(run, { path: 'knowledge/vendor.md' })).toMatchObject({ status: 'ok', text: expect.stringContaining('Thursday') });
  });
});

describe('finding 8: request sizes are capped as they arrive', () => {
  it('a 20 MB line to the watch socket is declined before it is read whole; the next search is answered', async () => {
    const root = memory();
    const env = { PATH: process.env.PATH, HOME: root, MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' };
    const server = spawn(process.execPath, [BIN, 'watch', '--root', root], { env, stdio: 'ignore' });
    try {
      for (let i = 0; i < 300; i++) {
        if (existsSync(join(root, '.memtier/watch.json')) && runCli(root, ['watch', '--status'], { env: { MEMTIER_GIT: 'off' } }).code === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const socket = JSON.parse(readFileSync(join(root, '.memtier/watch.json'), 'utf8')).socket as string;
      // one line of 20 MB, never ended: a server that reads it whole never answers
      const outcome = await new Promise<{ reply: string; written: number; ms: number }>((resolve) => {
        const t0 = Date.now();
        const s = connect(socket);
        let reply = '';
        let written = 0;
        const piece = Buffer.alloc(1024 * 1024, 'a');
        const done = (): void => { clearTimeout(timer); s.destroy(); resolve({ reply, written, ms: Date.now() - t0 }); };
        const timer = setTimeout(done, 10_000);
        s.on('data', (d) => { reply += String(d); });
        s.on('close', done);
        s.on('error', done);
        const pump = (): void => {
          while (written < 20 * 1024 * 1024 && !s.destroyed) {
            written += piece.length;
            if (!s.write(written === piece.length ? Buffer.concat([Buffer.from('{"op":"run","argv":["search","'), piece]) : piece)) { s.once('drain', pump); return; }
          }
        };
        s.on('connect', pump);
      });
      expect(outcome.reply, `after ${outcome.ms} ms, ${outcome.written} bytes written`).toMatch(/"decline":"request over the 1 MiB limit"/);
      expect(outcome.ms).toBeLessThan(10_000);
      const t0 = Date.now();
      const r = runCli(root, ['search', 'kubernetes'], { env: { MEMTIER_WATCH: 'require', MEMTIER_GIT: 'off' }, timeoutMs: 10_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(DAY);
      expect(Date.now() - t0).toBeLessThan(10_000);
      // a conversation over the limit is not sent: the CLI answers it itself (or says why, when a server is required)
      const long = JSON.stringify([{ role: 'assistant', content: 'x '.repeat(700_000) }, { role: 'user', content: 'how do we deploy with kubernetes' }]);
      const own = runCli(root, ['recall', '--messages', '-'], { env: { MEMTIER_WATCH: undefined, MEMTIER_GIT: 'off' }, input: long });
      expect(own.code, own.stderr).toBe(0);
      expect(own.stdout).toContain(`${DAY}#L3`);
      const req = runCli(root, ['recall', '--messages', '-'], { env: { MEMTIER_WATCH: 'require', MEMTIER_GIT: 'off' }, input: long });
      expect([req.code, req.stderr]).toEqual([2, expect.stringMatching(/the request is over the 1 MiB a memtier watch reads/)]);
    } finally {
      server.kill('SIGTERM');
    }
  }, 60_000);

  it('a 16 MiB MCP message gets a JSON-RPC error for its id, and the server goes on', async () => {
    const root = memory();
    const p = spawn(process.execPath, [BIN, 'mcp', '--root', root], { env: { PATH: process.env.PATH, HOME: root, MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' }, stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      let out = '';
      p.stdout!.on('data', (d) => { out += String(d); });
      p.stdin!.on('error', () => undefined);
      const send = (o: unknown): boolean => p.stdin!.write(JSON.stringify(o) + '\n');
      const reply = (id: number, ms: number): Promise<Record<string, any> | undefined> => new Promise((resolve) => {
        const t0 = Date.now();
        const iv = setInterval(() => {
          const line = out.split('\n').find((l) => l.includes(`"id":${id},`) || l.includes(`"id":${id}}`));
          if (line || Date.now() - t0 > ms) { clearInterval(iv); resolve(line ? JSON.parse(line) : undefined); }
        }, 20);
      });
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } } });
      expect(await reply(1, 20_000)).toMatchObject({ result: { serverInfo: { name: 'memtier' } } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const t0 = Date.now();
      p.stdin!.write(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"${'a'.repeat(16 * 1024 * 1024)}"}}}\n`);
      send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'memory_search', arguments: { query: 'kubernetes' } } });
      const big = await reply(7, 10_000);
      expect(big, 'an answer to the oversized message').toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringMatching(/over the 4 MiB/) } });
      const next = await reply(8, 10_000);
      expect(next, 'the next call is answered').toBeDefined();
      expect(JSON.stringify(next)).toContain(DAY);
      expect(Date.now() - t0).toBeLessThan(20_000);
    } finally {
      p.kill('SIGKILL');
    }
  }, 60_000);
});

describe.skipIf(!asRoot)('finding 13: recall answers when .memtier/ cannot be written', () => {
  it('as the memory\'s owner (nobody) with .memtier/ read-only: the block, exit 0, nothing written', () => {
    const root = memory();
    chmodSync(dirname(root), 0o755);
    spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, root]);
    mkdirSync(join(root, '.memtier'), { recursive: true });
    chownSync(join(root, '.memtier'), NOBODY, NOBODY);
    chmodSync(join(root, '.memtier'), 0o555);
    const before = snapshotMemory(root);
    const env = { PATH: process.env.PATH, HOME: root, MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_ROOT: root, MEMTIER_WATCH: 'off', MEMTIER_GIT: 'off', MEMTIER_CODE_CACHE: 'off' };
    const run = (args: string[], input?: string): RunResult => {
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: root, env, uid: NOBODY, gid: NOBODY, encoding: 'utf8', timeout: 30_000, ...(input !== undefined ? { input } : {}) });
      return { code: r.status ?? 128, stdout: r.stdout ?? '', stderr: r.stderr ?? '', signal: r.signal };
    };
    // the case itself: writes fail for this user
    const w = run(['wal', 'decide', 'use sqlite']);
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/no permission to write/);
    for (const args of [['recall', '--query', 'kubernetes'], ['recall', '--query', 'kubernetes', '--json'], ['recall', '--messages', '-']]) {
      const r = run(args, args.includes('-') ? CONVERSATION : undefined);
      expectNoCrash(r);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`${DAY}#L3`);
      if (args.includes('--json')) expect(JSON.parse(r.stdout)).toMatchObject({ cached: false });
      else expect(r.stderr).toMatch(/recall not recorded in the recall history: no permission to write/);
    }
    expect(snapshotMemory(root)).toEqual(before);
  });
});

describe('finding 12: a file over the 4 MiB limit is said, not silently left out', () => {
  const BIG = 'memory/semantic/big-export.md';
  const bigText = (): string => `---\ntitle: big export\n---\n# Big export\n\nthe zanzibarquux contract is in here.\n${'filler line of an exported chat log\n'.repeat(130_000)}`;

  it('search (text and --json) names the file it could not search, built or from the cache; health says search leaves it out', () => {
    const root = memory();
    writeFileSync(join(root, BIG), bigText());
    for (const round of ['first search (builds the index)', 'second search (the cache)']) {
      const r = runCli(root, ['search', 'zanzibarquux']);
      expectNoCrash(r);
      expect(r.code, round).toBe(0);
      expect(r.stdout, round).toMatch(/no match for "zanzibarquux"/);
      expect(r.stdout, round).toContain(`not searched: 1 file over the 4 MiB limit (${BIG})`);
    }
    // a query that finds something still says what it could not look into
    const hit = runCli(root, ['search', 'kubernetes']);
    expect(hit.stdout).toContain(`${DAY}#L3`);
    expect(hit.stdout).toContain(`not searched: 1 file over the 4 MiB limit (${BIG})`);
    const j = runCli(root, ['search', 'zanzibarquux', '--json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ total: 0, tooLarge: [BIG] });
    const h = runCli(root, ['health', '--quiet']);
    expect(h.code).toBe(1);
    expect(h.stdout + h.stderr).toMatch(new RegExp(`${BIG}: cannot be read: file is \\d+ bytes, over the 4194304-byte limit; search leaves it out`));
    expect(h.stdout + h.stderr).toMatch(/split it into smaller notes/);
  });

  it('a memory without such a file says nothing of the kind', () => {
    const root = memory();
    const r = runCli(root, ['search', 'kubernetes']);
    expect(r.stdout).not.toMatch(/not searched/);
    expect(JSON.parse(runCli(root, ['search', 'kubernetes', '--json']).stdout).tooLarge).toBeUndefined();
  });
});
