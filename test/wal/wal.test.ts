import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEntries } from '../../lib/format/entry.js';
import { parseSessionState } from '../../lib/format/session-state.js';
import { rotate } from '../../lib/wal/rotate.js';
import { walWrite } from '../../lib/wal/wal.js';
import { addEntries } from '../../lib/wal/episodic.js';
import { REPO, readTree, runCli, testCtx, tmpTree } from '../helpers.js';

const WORKER = join(REPO, 'test/wal/worker.mjs');

/** Every entry text in the buffer and the episodic days, with its count. */
function entryCounts(root: string): Map<string, number> {
  const counts = new Map<string, number>();
  const files = [join(root, 'memory/working-buffer.md')];
  const ep = join(root, 'memory/episodic');
  if (existsSync(ep)) for (const f of readdirSync(ep)) files.push(join(ep, f));
  for (const f of files) {
    if (!existsSync(f)) continue;
    for (const e of parseEntries(readFileSync(f, 'utf8'))) counts.set(e.text, (counts.get(e.text) ?? 0) + 1);
  }
  return counts;
}

function leftovers(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const d of readdirSync(join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) { if (!r.startsWith('memory/.trash')) walk(r); }
      else if (d.name.includes('.memtier-tmp-') || r === '.memtier/lock' || r.startsWith('memory/.rotating/')) out.push(r);
    }
  };
  walk('');
  return out;
}

describe('wal', () => {
  it('each write appends a typed entry to the buffer and updates SESSION-STATE.md', () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n' });
    const ctx = testCtx(root);
    walWrite(ctx, { kind: 'task', text: 'ship v1' });
    walWrite(ctx, { kind: 'decide', text: 'use Postgres' });
    walWrite(ctx, { kind: 'context', key: 'deadline', text: '2026-06-01' });
    walWrite(ctx, { kind: 'context', key: 'deadline', text: '2026-06-15' }); // updates, does not duplicate
    walWrite(ctx, { kind: 'pending', text: 'ask Ana for the quota' });
    walWrite(ctx, { kind: 'blocker', text: 'staging is down' });
    const r = walWrite(ctx, { kind: 'done', text: 'ask Ana' });
    expect(r.note).toBe('moved from Pending to Done: ask Ana for the quota');
    const buf = parseEntries(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8'));
    expect(buf.map((e) => [e.type, e.text])).toEqual([
      ['PROJ', 'task: ship v1'], ['DECISION', 'use Postgres'], ['TEMP', 'context: deadline = 2026-06-01'],
      ['TEMP', 'context: deadline = 2026-06-15'], ['PROJ', 'pending: ask Ana for the quota'], ['PROJ', 'blocker: staging is down'], ['PROJ', 'done: ask Ana'],
    ]);
    expect(buf.every((e) => e.date === '2026-05-15' && e.time === '14:30' && e.id)).toBe(true);
    const st = parseSessionState(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).state;
    expect(st).toEqual({
      currentTask: 'ship v1',
      keyContext: [['deadline', '2026-06-15']],
      recentDecisions: ['2026-05-15 14:30 — use Postgres'],
      pending: [],
      blockers: ['staging is down'],
      done: ['2026-05-15 14:30 — ask Ana for the quota'],
    });
  });

  it('keeps hand edits and unknown sections of SESSION-STATE.md', () => {
    const hand = '# Session State\nWritten by hand.\n\n## Current Task\nold task\n\n## My Notes\nkeep me\n  indented too\n\n## Pending\n- first\n';
    const root = tmpTree({ 'MEMORY.md': '# M\n', 'SESSION-STATE.md': hand });
    walWrite(testCtx(root), { kind: 'pending', text: 'second' });
    const text = readFileSync(join(root, 'SESSION-STATE.md'), 'utf8');
    expect(text).toContain('Written by hand.\n');
    expect(text).toContain('## My Notes\nkeep me\n  indented too\n');
    expect(text).toContain('## Pending\n- first\n- second\n');
    expect(text.indexOf('## Current Task')).toBeLessThan(text.indexOf('## My Notes'));
  });

  it('rotates into the episodic day once the buffer reaches its limit, keeping ids', () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const ctx = testCtx(root, undefined, 'UTC', { MEMTIER_BUFFER_MAX_LINES: '10' });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(walWrite(ctx, { kind: 'decide', text: `d${i}` }).id);
    const day = parseEntries(readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8'));
    const buf = parseEntries(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8'));
    expect(day.length + buf.length).toBe(12);
    expect(day.length).toBeGreaterThan(0);
    expect([...day, ...buf].map((e) => e.id).sort()).toEqual([...ids].sort());
    expect(day[0]!.date).toBeUndefined(); // same-day entries drop the date: the file name has it
    expect(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8')).toMatch(/^# Working buffer/);
  });

  it('rotation moves hand-written lines too, and a second rotation changes nothing', () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n', 'memory/working-buffer.md': '# Working buffer\n\n- a note typed by hand\nplain prose line\n' });
    const ctx = testCtx(root);
    const r = rotate(ctx, { force: true });
    expect(r.moved).toBe(2);
    const day = readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8');
    expect(day).toMatch(/^- a note typed by hand \^r[0-9a-f]{9}$/m);
    expect(day).toMatch(/^- plain prose line \^r[0-9a-f]{9}$/m);
    const before = readTree(root);
    expect(rotate(ctx, { force: true }).message).toBe('nothing to rotate');
    const after = readTree(root);
    expect(after).toEqual(before);
  });

  it('addEntries writes to the day of each entry and refuses a duplicate id', () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const ctx = testCtx(root);
    const r = addEntries(ctx, [
      { type: 'EVENT', text: 'Caroline: I went to a support group', id: 'd1-3', at: new Date('2023-05-08T13:56:00Z') },
      { type: 'EVENT', text: 'Melanie: painted a sunrise', tags: ['art'], id: 'd2-1', at: new Date('2023-05-25T10:00:00Z') },
    ]);
    expect(r).toEqual([
      { path: 'memory/episodic/2023-05-08.md', id: 'd1-3', line: 3 },
      { path: 'memory/episodic/2023-05-25.md', id: 'd2-1', line: 3 },
    ]);
    expect(readFileSync(join(root, 'memory/episodic/2023-05-25.md'), 'utf8')).toBe('# 2023-05-25\n\n- 10:00 [EVENT] Melanie: painted a sunrise #art ^d2-1\n');
    expect(() => addEntries(ctx, [{ text: 'again', id: 'd1-3', at: new Date('2023-05-08T15:00:00Z') }])).toThrow(/already exists/);
  });

  it('the entry a write reports is the line stored: bidi, escape and control characters are stripped before it is built (chaos seed 1)', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const text = 'a~~struck~~\u202b - 22:15 \u001b[31mred\u001b[0m \u0007bell \u2066iso\u2069 \u202b^deadbeef01 end';
    for (const argv of [['wal', 'decide', text], ['wal', 'pending', text], ['add', text]]) {
      const r = await runCli([...argv, '--root', root, '--json']);
      expect(r.code).toBe(0);
      const { id, entry } = JSON.parse(r.stdout) as { id: string; entry?: string };
      const files = [join(root, 'memory/working-buffer.md'), ...(existsSync(join(root, 'memory/episodic')) ? readdirSync(join(root, 'memory/episodic')).map((f) => join(root, 'memory/episodic', f)) : [])];
      const stored = files.flatMap((f) => readFileSync(f, 'utf8').split('\n')).find((l) => l.endsWith(`^${id}`));
      expect(stored).toContain('a~~struck~~ - 22:15 red bell iso \\^deadbeef01 end');
      if (entry !== undefined) expect(stored).toBe(entry);
    }
  });

  it('CLI: wal, add, rotate, get, snapshot and restore with --json', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const r1 = await runCli(['wal', 'decide', 'use', 'Postgres', '--root', root, '--json']);
    expect(r1.code).toBe(0);
    expect(JSON.parse(r1.stdout)).toMatchObject({ ok: true, kind: 'decide', entry: expect.stringMatching(/^- 2026-05-15 14:30 \[DECISION\] use Postgres \^/) });
    expect((await runCli(['wal', 'snapshot', 'before', '--root', root])).code).toBe(0);
    // --if-changed: nothing new while the state equals the newest snapshot
    const same = await runCli(['wal', 'snapshot', 'again', '--if-changed', '--root', root, '--json']);
    expect(JSON.parse(same.stdout)).toMatchObject({ ok: true, unchanged: true, snapshot: 'before' });
    expect(existsSync(join(root, 'memory/.snapshots/again.md'))).toBe(false);
    await runCli(['wal', 'task', 'new task', '--root', root]);
    const got = JSON.parse((await runCli(['wal', 'get', '--root', root, '--json'])).stdout);
    expect(got.state.currentTask).toBe('new task');
    expect((await runCli(['wal', 'restore', 'before', '--root', root])).code).toBe(0);
    expect(JSON.parse((await runCli(['wal', 'get', '--root', root, '--json'])).stdout).state.currentTask).toBe('');
    expect(existsSync(join(root, 'memory/.snapshots'))).toBe(true);
    const add = await runCli(['add', '--type', 'PREF', '--tags', 'style', 'prefers lists', '--root', root, '--json']);
    expect(JSON.parse(add.stdout)).toMatchObject({ path: 'memory/episodic/2026-05-15.md' });
    const rot = await runCli(['rotate', '--force', '--root', root, '--json']);
    expect(JSON.parse(rot.stdout)).toMatchObject({ rotated: true, moved: 2 });
    const bad = await runCli(['wal', 'context', 'onlykey', '--root', root]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/KEY and a VALUE/);
    const badType = await runCli(['add', '--type', 'NOPE', 'x', '--root', root]);
    expect(badType.code).toBe(2);
  });

  it('refuses a secret and leaves both files unchanged', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    await runCli(['wal', 'decide', 'first', '--root', root]);
    const before = readTree(root);
    const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const r = await runCli(['wal', 'decide', `the token is ${secret}`, '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).not.toContain(secret);
    expect(r.stderr).toMatch(/github-token/);
    expect(readTree(root)).toEqual(before);
  });
});

describe('a torn entry cut inside a character at the buffer\'s end', () => {
  // what a writer killed mid-append leaves when its repair did not happen (a write torn at a page
  // boundary inside a multi-byte character): the next wal and rotate cut it off to the trash, as an
  // append would, instead of refusing every write because the buffer is not valid UTF-8
  const torn = Buffer.concat([
    Buffer.from('# Working buffer\n\n- 2026-05-15 09:00 [PROJ] task: first ^abc123def456\n- 2026-05-15 09:05 [DECISION] café é'),
    Buffer.from([0xe2, 0x80]), // the first two bytes of "—": cut inside the character
  ]);

  it('wal writes, the torn bytes go to memory/.trash/torn/, the buffer is valid and keeps its complete entries', () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n' });
    mkdirSync(join(root, 'memory'), { recursive: true });
    writeFileSync(join(root, 'memory/working-buffer.md'), torn);
    walWrite(testCtx(root), { kind: 'decide', text: 'use Postgres' });
    const text = readFileSync(join(root, 'memory/working-buffer.md'), 'utf8');
    expect(parseEntries(text).map((e) => e.text)).toEqual(['task: first', 'use Postgres']);
    const saved = readdirSync(join(root, 'memory/.trash/torn'));
    expect(saved).toHaveLength(1);
    expect(readFileSync(join(root, 'memory/.trash/torn', saved[0]!), 'utf8')).toContain('[DECISION] café é');
  });

  it('rotate too; a person\'s invalid text is still refused, not cut', () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n' });
    mkdirSync(join(root, 'memory'), { recursive: true });
    writeFileSync(join(root, 'memory/working-buffer.md'), torn);
    rotate(testCtx(root), { force: true });
    expect(readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8')).toContain('task: first ^abc123def456');
    const person = tmpTree({ 'MEMORY.md': '# Memory\n' });
    mkdirSync(join(person, 'memory'), { recursive: true });
    writeFileSync(join(person, 'memory/working-buffer.md'), Buffer.concat([Buffer.from('# Working buffer\n\nnotes by hand: caf'), Buffer.from([0xe9]), Buffer.from(' au lait\n')]));
    expect(() => walWrite(testCtx(person), { kind: 'decide', text: 'use Postgres' })).toThrow(/not valid UTF-8/);
  });
});

describe('wal under crashes and concurrency (real processes)', () => {
  beforeAll(() => {
    execFileSync('npx', ['tsc', '-p', '.'], { cwd: REPO, stdio: 'ignore' });
  }, 120_000);

  const POINTS = ['rotate.after-rename', 'rotate.after-merge', 'rotate.before-cleanup', 'append.after-write', 'append.partial-write', 'replace.before-rename', 'replace.after-rename'];
  for (const point of POINTS) {
    it(`SIGKILL at ${point}: every acknowledged entry exactly once after the next command`, () => {
      const root = tmpTree({ 'MEMORY.md': '# M\n' });
      const env = { ...process.env, MEMTIER_BUFFER_MAX_LINES: '6', MEMTIER_CRASH_AT: point, MEMTIER_CRASH_SKIP: '5', MEMTIER_NOW: '2026-05-15T14:30:00Z' };
      const r = spawnSync(process.execPath, [WORKER, root, 'w', '30'], { env, encoding: 'utf8' });
      expect(r.signal).toBe('SIGKILL');
      const acked = r.stdout.split('\n').filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
      expect(acked.length).toBeGreaterThan(0);
      // the next command: one more write (finishes the rotation, repairs a torn line)
      const next = spawnSync(process.execPath, [WORKER, root, 'next', '1'], { env: { ...process.env, MEMTIER_BUFFER_MAX_LINES: '6', MEMTIER_NOW: '2026-05-15T14:30:00Z' }, encoding: 'utf8' });
      expect(next.status, next.stderr).toBe(0);
      const counts = entryCounts(root);
      for (const a of acked) expect(counts.get(a), a).toBe(1);
      for (const [text, n] of counts) expect(n, text).toBe(1);
      expect(leftovers(root)).toEqual([]);
    });
  }

  it('8 processes writing at once, with rotations: every entry exactly once', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const env = { ...process.env, MEMTIER_BUFFER_MAX_LINES: '20', MEMTIER_NOW: '2026-05-15T14:30:00Z' };
    const N = 60;
    const outs = await Promise.all(Array.from({ length: 8 }, (_, w) => new Promise<string>((resolve, reject) => {
      const p = spawn(process.execPath, [WORKER, root, `p${w}`, String(N)], { env });
      let out = '';
      let err = '';
      p.stdout.on('data', (d) => { out += d; });
      p.stderr.on('data', (d) => { err += d; });
      p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`worker ${w} exited ${code}: ${err}`))));
    })));
    expect(outs.join('').split('\n').filter(Boolean)).toHaveLength(8 * N);
    const counts = entryCounts(root);
    for (let w = 0; w < 8; w++) for (let i = 0; i < N; i++) expect(counts.get(`p${w}-${i}`), `p${w}-${i}`).toBe(1);
    expect(leftovers(root)).toEqual([]);
    // every line of every log parses as an entry (no torn or interleaved lines)
    const day = readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8').split('\n').filter((l) => l.startsWith('- '));
    expect(day.every((l) => /^- (\d{4}-\d{2}-\d{2} )?\d{2}:\d{2} \[DECISION\] p\d-\d+ \^[0-9a-z]+$/.test(l))).toBe(true);
  }, 120_000);
});

describe('wal done', () => {
  it('moves the one item its text picks out, and none when it matches several', () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const ctx = testCtx(root);
    walWrite(ctx, { kind: 'pending', text: 'review the API draft' });
    walWrite(ctx, { kind: 'pending', text: 'review the API budget' });
    const amb = walWrite(ctx, { kind: 'done', text: 'review the API' });
    expect(amb.note).toBe('matches 2 items (review the API draft; review the API budget): none moved; give more of the text');
    let st = parseSessionState(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).state;
    expect(st.pending).toEqual(['review the API draft', 'review the API budget']);
    const one = walWrite(ctx, { kind: 'done', text: 'API budget' });
    expect(one.note).toBe('moved from Pending to Done: review the API budget');
    st = parseSessionState(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).state;
    expect(st.pending).toEqual(['review the API draft']);
  });
});
