/**
 * The store across real processes (test/store/worker.mjs runs the COMPILED store from dist/):
 * SIGKILL at every named crash point, dead and live lock holders, a compromised lock, a full
 * disk (ulimit -f), 8 concurrent writers, and a refused secret never echoed on stderr.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { REPO, rmTree, tmpTree } from '../helpers.js';
import { buildDist, idsOf, runWorker, snapshotBytes, store, thrown, WORKER } from './util.js';
import { findOrphanTemps, readMemoryFile } from '../../lib/store/store.js';
import { parseEntries } from '../../lib/format/entry.js';

const LOG = 'memory/working-buffer.md';
const HEAD = '# Working buffer\n\n';
const roots: string[] = [];
function newRoot(files: Record<string, string | Buffer> = { [LOG]: HEAD }): string {
  const r = tmpTree(files);
  roots.push(r);
  return r;
}
afterEach(() => {
  while (roots.length) rmTree(roots.pop()!);
});

beforeAll(buildDist, 120_000);

/** Nothing a crash may leave behind: no lock, no lock leftovers, no temp file. */
function expectClean(root: string): void {
  expect(existsSync(join(root, '.memtier/lock'))).toBe(false);
  const state = existsSync(join(root, '.memtier')) ? readdirSync(join(root, '.memtier')) : [];
  expect(state.filter((n) => n.startsWith('lock'))).toEqual([]);
  expect(findOrphanTemps(root)).toEqual([]);
}

/** The log decodes, every line after the header is a complete entry with an id, no id twice. */
function expectLogParses(root: string, rel = LOG): string[] {
  const text = readMemoryFile(root, rel)!;
  expect(text.startsWith(HEAD)).toBe(true);
  expect(text.endsWith('\n')).toBe(true);
  const lines = text.slice(HEAD.length).split('\n').slice(0, -1);
  for (const l of lines) expect(l).toMatch(/^- \d{2}:\d{2} \[EVENT\] .* \^[A-Za-z0-9-]{3,64}$/);
  const entries = parseEntries(text);
  expect(entries.length).toBe(lines.length);
  const ids = idsOf(text);
  expect(new Set(ids).size).toBe(ids.length);
  return ids;
}

describe('crash points: SIGKILL, then the next command', () => {
  const POINTS: [string, 'append' | 'replace'][] = [
    ['append.before-write', 'append'],
    ['append.partial-write', 'append'],
    ['append.after-write', 'append'],
    ['replace.temp-written', 'replace'],
    ['replace.before-rename', 'replace'],
    ['replace.after-rename', 'replace'],
  ];

  it.each(POINTS)('%s: every acknowledged entry present exactly once, nothing left behind', async (point, mode) => {
    const root = newRoot();
    const r = await runWorker([mode, root, LOG, '8', 'c'], { MEMTIER_CRASH_AT: point, MEMTIER_CRASH_SKIP: '3' });
    expect(r.signal).toBe('SIGKILL');
    expect(r.acks).toEqual(['cx0000', 'cx0001', 'cx0002']);
    // The crash really left its debris: the dead holder's lock, and a temp file mid-replace.
    expect(readFileSync(join(root, '.memtier/lock'), 'utf8')).toMatch(/^\d+ /);
    if (point === 'replace.temp-written' || point === 'replace.before-rename') expect(findOrphanTemps(root)).toHaveLength(1);
    if (point === 'append.partial-write') expect(readFileSync(join(root, LOG), 'utf8').endsWith('\n')).toBe(false);

    // The next command (in this process, a different pid) takes the dead holder's lock and repairs.
    const s = store(root);
    s.mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] the next command ^nextx00001\n'));

    const ids = expectLogParses(root);
    for (const id of [...r.acks, 'nextx00001']) expect(ids.filter((x) => x === id)).toHaveLength(1);
    expectClean(root);
    const torn = existsSync(join(root, 'memory/.trash/torn')) ? readdirSync(join(root, 'memory/.trash/torn')) : [];
    if (point === 'append.partial-write') {
      expect(torn).toHaveLength(1);
      const saved = readFileSync(join(root, 'memory/.trash/torn', torn[0]!), 'utf8');
      expect(saved.startsWith('- 14:30 [EVENT] c entry 3 ')).toBe(true);
      expect(readFileSync(join(root, LOG), 'utf8')).not.toContain('c entry 3 ');
      expect(s.lastRepair.torn).toEqual([{ file: LOG, savedTo: `memory/.trash/torn/${torn[0]}` }]);
    } else {
      expect(torn).toEqual([]);
    }
    if (point === 'append.after-write' || point === 'replace.after-rename') expect(ids).toContain('cx0003'); // written, not yet acknowledged
    if (point === 'append.before-write' || point.startsWith('replace.t') || point === 'replace.before-rename') expect(ids).not.toContain('cx0003');
  });

  it('a crash during the repair of a crash is repaired by the command after it', async () => {
    const root = newRoot();
    const first = await runWorker(['append', root, LOG, '8', 'c'], { MEMTIER_CRASH_AT: 'append.partial-write', MEMTIER_CRASH_SKIP: '2' });
    expect(first.acks).toEqual(['cx0000', 'cx0001']);
    // The next command dies while saving the torn line to the trash (its atomic replace).
    const second = await runWorker(['append', root, LOG, '1', 'd'], { MEMTIER_CRASH_AT: 'replace.before-rename' });
    expect(second.signal).toBe('SIGKILL');
    expect(second.acks).toEqual([]);
    store(root).mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] third ^nextx00001\n'));
    expect(expectLogParses(root)).toEqual(['cx0000', 'cx0001', 'nextx00001']);
    expectClean(root);
    const torn = readdirSync(join(root, 'memory/.trash/torn'));
    expect(torn).toHaveLength(1);
    expect(readFileSync(join(root, 'memory/.trash/torn', torn[0]!), 'utf8').startsWith('- 14:30 [EVENT] c entry 2 ')).toBe(true);
  });

  it('a writer killed right after breaking a dead holder\'s lock leaves the holder\'s intent to the next one (the torn append is cut by it)', async () => {
    const root = newRoot();
    const first = await runWorker(['append', root, LOG, '8', 'c'], { MEMTIER_CRASH_AT: 'append.partial-write', MEMTIER_CRASH_SKIP: '2' });
    expect(first.acks).toEqual(['cx0000', 'cx0001']);
    // the next writer breaks the dead holder's lock and dies before its repair
    const second = await runWorker(['append', root, LOG, '1', 'd'], { MEMTIER_CRASH_AT: 'lock.acquired' });
    expect(second.signal).toBe('SIGKILL');
    // the dead holder's lock, with its intent, is still set aside (it was removed at the break before)
    expect(readdirSync(join(root, '.memtier')).filter((n) => n.startsWith('lock.stale-'))).toHaveLength(1);
    const s = store(root);
    s.mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] third ^nextx00001\n'));
    // repaired by the intent (the recovery's report), not only by the append's fallback
    expect(s.lastRepair.torn.map((t) => t.file)).toEqual([LOG]);
    expect(expectLogParses(root)).toEqual(['cx0000', 'cx0001', 'nextx00001']);
    expectClean(root);
  });

  it('a torn entry found without a lock (fallback) is quarantined on the next append', () => {
    const root = newRoot({ [LOG]: HEAD + '- 14:30 [EVENT] complete ^aaaa000001\n- 14:30 [EVENT] half writ' });
    store(root).mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] next ^nextx00001\n'));
    expect(readFileSync(join(root, LOG), 'utf8')).toBe(HEAD + '- 14:30 [EVENT] complete ^aaaa000001\n- 14:31 [EVENT] next ^nextx00001\n');
    const torn = readdirSync(join(root, 'memory/.trash/torn'));
    expect(readFileSync(join(root, 'memory/.trash/torn', torn[0]!), 'utf8')).toBe('- 14:30 [EVENT] half writ\n');
    // A second torn line in the same minute does not overwrite the first quarantine file.
    writeFileSync(join(root, LOG), HEAD + '- 14:3');
    store(root).mutate((tx) => tx.append(LOG, '- 14:32 [EVENT] again ^nextx00002\n'));
    expect(readdirSync(join(root, 'memory/.trash/torn'))).toHaveLength(2);
  });
});

describe('the lock', () => {
  it('a holder killed with SIGKILL (lock.acquired) does not block the next writer', async () => {
    const root = newRoot();
    const r = await runWorker(['append', root, LOG, '3', 'k'], { MEMTIER_CRASH_AT: 'lock.acquired' });
    expect(r.signal).toBe('SIGKILL');
    expect(r.acks).toEqual([]);
    expect(readFileSync(join(root, '.memtier/lock'), 'utf8').split(' ')[0]).not.toBe(String(process.pid));
    // Default timeout (15 s): a dead holder's lock is broken at once, the write succeeds.
    store(root).mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] after the crash ^nextx00001\n'));
    expect(expectLogParses(root)).toEqual(['nextx00001']);
    expectClean(root);
  });

  it('a recycled pid (a live process started after the lock was written) does not hold the lock', () => {
    const root = newRoot({ [LOG]: HEAD, '.memtier/lock': '' });
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    writeFileSync(join(root, '.memtier/lock'), `${sleeper.pid} ${hostname()} 0123456789abcdef 2020-01-01T00:00:00.000Z\n`);
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(root, '.memtier/lock'), past, past);
    try {
      store(root, process.platform === 'linux' ? {} : { MEMTIER_LOCK_TIMEOUT_MS: '100' }).mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] x ^nextx00001\n'));
      expect(expectLogParses(root)).toEqual(['nextx00001']);
      expectClean(root);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('a lock with this process pid but a token it does not hold (a previous incarnation) is broken', () => {
    const root = newRoot({ [LOG]: HEAD, '.memtier/lock': `${process.pid} ${hostname()} feedfacefeedface 2026-05-15T14:00:00.000Z\n` });
    store(root, { MEMTIER_LOCK_TIMEOUT_MS: '200' }).mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] x ^nextx00001\n'));
    expectClean(root);
  });

  it('a lock with this process pid that is open here (another thread holds it) is respected, and broken once closed', () => {
    const root = newRoot({ [LOG]: HEAD, '.memtier/lock': `${process.pid} ${hostname()} feedfacefeedface 2026-05-15T14:00:00.000Z\n` });
    const fd = openSync(join(root, '.memtier/lock'), 'r');
    try {
      const e = thrown(() => store(root, { MEMTIER_LOCK_TIMEOUT_MS: '200' }).mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] x ^nextx00001\n')));
      expect(e.code).toBe('lock-timeout');
      expect(readFileSync(join(root, LOG), 'utf8')).toBe(HEAD);
    } finally {
      closeSync(fd);
    }
    store(root, { MEMTIER_LOCK_TIMEOUT_MS: '200' }).mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] x ^nextx00001\n'));
    expect(expectLogParses(root)).toEqual(['nextx00001']);
    expectClean(root);
  });

  it('a compromised lock (replaced by another process mid-mutation) aborts the write and changes nothing', () => {
    const root = newRoot({ [LOG]: HEAD + '- 14:30 [EVENT] one ^aaaa000001\n', 'MEMORY.md': '# Memory\n' });
    const lock = join(root, '.memtier/lock');
    const takeOver = (): void => {
      const r = spawnSync(process.execPath, ['-e', `const fs=require('fs');fs.writeFileSync(process.argv[1]+'.new', process.pid+' ${hostname()} 00000000deadbeef now\\n');fs.renameSync(process.argv[1]+'.new', process.argv[1]);`, lock]);
      expect(r.status).toBe(0);
    };
    for (const op of [
      (tx: any) => tx.write('MEMORY.md', '# Memory\n\nchanged\n'),
      (tx: any) => tx.append(LOG, '- 14:31 [EVENT] two ^bbbb000002\n'),
      (tx: any) => tx.move('MEMORY.md', 'memory/moved.md'),
      (tx: any) => tx.trash('MEMORY.md'),
    ]) {
      const before = snapshotBytes(root);
      before.delete('.memtier/lock');
      const e = thrown(() => store(root).mutate((tx) => { takeOver(); op(tx); }));
      expect(e.code).toBe('lock-compromised');
      const after = snapshotBytes(root);
      after.delete('.memtier/lock');
      expect(after).toEqual(before);
      expect(findOrphanTemps(root)).toEqual([]);
      // The other process's lock is not removed by the aborted writer.
      expect(readFileSync(lock, 'utf8')).toContain('00000000deadbeef');
      rmTree(lock);
    }
  });

  it('a live holder makes a second writer wait (lock-timeout when it waits too little)', async () => {
    const root = newRoot();
    const release = join(root, 'release-now');
    const child = spawn(process.execPath, [WORKER, 'hold', root, LOG, release, '- 14:30 [EVENT] by the holder ^hold000001'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
    const exited = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
    await new Promise<void>((res, rej) => {
      let buf = '';
      child.stdout.setEncoding('utf8').on('data', (s: string) => { buf += s; if (buf.includes('locked')) res(); });
      child.on('close', () => rej(new Error(`holder exited early: ${buf}`)));
    });
    try {
      const e = thrown(() => store(root, { MEMTIER_LOCK_TIMEOUT_MS: '150' }).mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] too early ^late000001\n')));
      expect(e.code).toBe('lock-timeout');
      expect(e.message).toContain(`pid ${child.pid}`);
      expect(readFileSync(join(root, LOG), 'utf8')).not.toContain('too early');
      // Release the holder from another process a little later; this writer waits for it.
      spawn('bash', ['-c', `sleep 0.3; : > "${release}"`], { stdio: 'ignore' });
      store(root).mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] after the holder ^late000002\n'));
      expect(expectLogParses(root)).toEqual(['hold000001', 'late000002']);
    } finally {
      writeFileSync(release, '');
    }
    expect(await exited).toBe(0);
    expectClean(root);
  });
});

describe('a full disk never leaves a truncated file (ulimit -f 64 = 64 KiB)', () => {
  const LIMIT = 'ulimit -f 64';
  it('atomic replace larger than the limit: io error, original byte-identical, no temp file', async () => {
    const original = '# People\n\n' + '- 14:30 [PEOPLE] Ana prefers mornings ^peop000001\n'.repeat(20);
    const root = newRoot({ 'memory/semantic/people.md': original });
    const r = await runWorker(['write', root, 'memory/semantic/people.md', String(200_000)], {}, LIMIT);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"code":"io"');
    expect(r.stderr).toMatch(/EFBIG|ENOSPC/);
    expect(r.stderr).toContain('memory/semantic/people.md');
    expect(readFileSync(join(root, 'memory/semantic/people.md'), 'utf8')).toBe(original);
    expectClean(root);
    // The same write without the limit succeeds (the limit is what failed it).
    const ok = await runWorker(['write', root, 'memory/semantic/people.md', String(200_000)]);
    expect(ok.code).toBe(0);
    expect(readFileSync(join(root, 'memory/semantic/people.md')).length).toBe(200_000);
  });

  it('a new file larger than the limit is not created', async () => {
    const root = newRoot();
    const r = await runWorker(['write', root, 'memory/semantic/new.md', String(100_000)], {}, LIMIT);
    expect(r.code).toBe(2);
    expect(existsSync(join(root, 'memory/semantic/new.md'))).toBe(false);
    expectClean(root);
  });

  it('durable append crossing the limit: io error, the log exactly as before', async () => {
    const log = HEAD + '- 14:30 [EVENT] filler line for the disk-full append test ^fill000001\n'.repeat(880);
    expect(Buffer.byteLength(log)).toBeLessThan(65_536);
    expect(Buffer.byteLength(log)).toBeGreaterThan(65_536 - 10_000);
    const root = newRoot({ [LOG]: log });
    const r = await runWorker(['appendbytes', root, LOG, '12000'], {}, LIMIT);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"code":"io"');
    expect(readFileSync(join(root, LOG), 'utf8')).toBe(log);
    expectClean(root);
  });
});

describe('concurrency', () => {
  it('8 processes appending 500 entries each: every entry present exactly once, the log parses', async () => {
    const root = newRoot();
    const results = await Promise.all(Array.from({ length: 8 }, (_, w) => runWorker(['append', root, LOG, '500', `w${w}`])));
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.acks).toHaveLength(500);
    }
    const ids = expectLogParses(root);
    expect(ids).toHaveLength(4000);
    const want = results.flatMap((r) => r.acks);
    expect(new Set(ids)).toEqual(new Set(want));
    // Each writer's entries appear in the order it acknowledged them.
    for (const r of results) expect(ids.filter((id) => id.startsWith(r.acks[0]!.slice(0, 3)))).toEqual(r.acks);
    expectClean(root);
  }, 180_000);
});

describe('worker threads of one process', () => {
  it('share the lock correctly (a thread never breaks a sibling thread\'s lock)', async () => {
    const root = newRoot();
    const storeUrl = pathToFileURL(join(REPO, 'dist/lib/store/store.js')).href;
    const clockUrl = pathToFileURL(join(REPO, 'dist/lib/core/clock.js')).href;
    const code = `
      const { workerData, parentPort } = await import('node:worker_threads');
      const { openStore } = await import(${JSON.stringify(storeUrl)});
      const { makeClock } = await import(${JSON.stringify(clockUrl)});
      const s = openStore({ root: workerData.root, env: {}, clock: makeClock({ now: '2026-05-15T14:30:00Z', tz: 'UTC' }) });
      let errors = 0;
      for (let i = 0; i < 150; i++) {
        try { s.mutate((tx) => tx.append(${JSON.stringify(LOG)}, '- 14:30 [EVENT] thread ' + workerData.n + ' ^t' + workerData.n + 'x' + i + '\\n')); }
        catch (e) { errors++; }
      }
      parentPort.postMessage(errors);`;
    const runs = [1, 2, 3].map((n) => new Promise<number>((res, rej) => {
      const w = new Worker(code, { eval: true, workerData: { root, n } });
      w.on('message', res);
      w.on('error', rej);
    }));
    expect(await Promise.all(runs)).toEqual([0, 0, 0]);
    expect(expectLogParses(root)).toHaveLength(450);
    expectClean(root);
  });
});

describe('a refused secret is not echoed by a real process', () => {
  it('stderr names the rule and the masked value, never the secret', async () => {
    const root = newRoot();
    let secret = '';
    for (let i = 0; i < 36; i++) secret += 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'[(i * 7919 + 13) % 57];
    const r = await runWorker(['secret', root, LOG, `- 14:30 [TECH] the token is gh${'p_'}${secret} ^cccc000001`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('[github-token]');
    expect(r.stderr).toContain('"code":"secret"');
    expect(r.stderr).toMatch(/ghp_\*\*\*\*\(40 chars\)/);
    expect(r.stderr + r.stdout).not.toContain(secret);
    expect(readFileSync(join(root, LOG), 'utf8')).toBe(HEAD);
  });
});
