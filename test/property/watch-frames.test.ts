/**
 * The `memtier watch` socket under generated frames (issue #29): one server process for the file,
 * spoken to with raw node:net clients, never the CLI's own. Whatever a client sends — arbitrary
 * bytes, broken JSON, JSON of any shape, requests with wrong types and extra keys, path-like and
 * unicode strings (NUL, lone surrogates), deep nesting, long strings, a line split at any byte,
 * a client that leaves mid-request, several at once —
 * - a complete line gets the answer the protocol promises: `{"ok":false,"decline":"bad request"}`
 *   for a line that is not a JSON object, else `A` then one reply (ok with an exit code or a
 *   status, or a decline saying what is wrong, never a "server error"); a line that never ends
 *   gets nothing and its connection closes when the client ends;
 * - no answer and nothing on the server's stderr carries a stack trace, a path of memtier's own
 *   code, or memtier's "this is a bug" message (an internal error);
 * - the server is still alive and answers a status request afterwards;
 * - answers arrive within a generous limit (a timeout on waiting, not a speed assertion);
 * - its memory (VmRSS) levels off under a stream of lines near and over the 1 MiB cap;
 * - a line over the cap is declined as it passes the cap, without waiting for its end.
 * Fixed seed (test/property/settings.ts SEED, FC_SEED to replay another).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BYTES } from '../../lib/watch/protocol.js';
import { BIN, FIXED_NOW, REPO, tmpTree } from '../helpers.js';
import { SEED } from './settings.js';

const ENV = { PATH: process.env.PATH ?? '', HOME: '', MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' };
/** The build the server runs (from its announcement: dist/ may be rebuilt while this file runs). */
let BUILD = '';
/** How long one exchange may take before the test fails as "no answer" (generous: CPU is shared). */
const ANSWER_MS = 15_000;
const BAD_REQUEST = JSON.stringify({ ok: false, decline: 'bad request' });

let root: string;
let other: string;
let socket: string;
let server: ChildProcess;
let serverErr = '';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function memory(word: string): string {
  return tmpTree({
    'MEMORY.md': '# Memory\n- [People](memory/semantic/people.md) — who is who\n',
    'memory/episodic/2026-05-01.md': `- 10:00 [EVENT] standup about the ${word} deploy ^st0000001\n- 11:00 [DECISION] we ship ${word} on Fridays ^st0000002\n`,
    'memory/semantic/people.md': `---\ntags: [people]\n---\n# People\n## Dana\nDana runs the ${word} team.\n`,
  });
}

/** What came back on one connection: its lines (without newlines), whether it closed, and the time taken. */
interface Exchange { lines: string[]; ms: number }

/**
 * Send `chunks` on a new connection (each written separately, a moment apart, so a line can be
 * split at any byte), then: `end` half-closes, `open` waits for the server to close, `abort`
 * destroys the socket at once. Resolves with what the server sent once the connection closes;
 * rejects when that takes longer than ANSWER_MS.
 */
function exchange(chunks: Buffer[], how: 'open' | 'end' | 'abort' = 'open', ms = ANSWER_MS): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const s = connect(socket);
    const got: Buffer[] = [];
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      s.destroy();
      const text = Buffer.concat(got).toString('utf8');
      const lines = text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      resolve({ lines, ms: Date.now() - t0 });
    };
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      s.destroy();
      reject(new Error(`no answer within ${ms} ms (got ${JSON.stringify(Buffer.concat(got).toString('utf8').slice(0, 200))})`));
    }, ms);
    s.on('data', (d: Buffer) => got.push(d));
    s.on('close', finish);
    // the server closes as soon as it answered (or declined a line over the cap): a write after that fails
    s.on('error', finish);
    s.on('connect', async () => {
      for (let i = 0; i < chunks.length && !s.destroyed; i++) {
        if (i > 0) await sleep(1);
        if (!s.write(chunks[i]!)) await new Promise((r) => { s.once('drain', r); s.once('close', r); });
      }
      if (how === 'abort') { s.destroy(); finish(); }
      else if (how === 'end' && !s.destroyed) s.end();
    });
  });
}

const line = (o: unknown): Buffer => Buffer.from((typeof o === 'string' ? o : JSON.stringify(o)) + '\n', 'utf8');

/** A status request is answered by this server: the liveness check after every case. */
async function assertAlive(): Promise<void> {
  expect(server.exitCode, `the server exited: ${serverErr}`).toBeNull();
  expect(server.signalCode).toBeNull();
  const r = await exchange([line({ op: 'status' })]);
  expect(r.lines[0]).toBe('A');
  const reply = JSON.parse(r.lines[1]!);
  expect(reply).toMatchObject({ ok: true, status: { pid: server.pid, root } });
}

/** What no answer may carry: a stack frame, a path of memtier's code or of Node's, memtier's own "this is a bug". */
function leak(text: string): string | undefined {
  if (text.includes('    at ')) return 'a stack frame ("    at ")';
  if (/\bat [^\n"]*\((?:file:\/\/|\/)[^)]*:\d+:\d+\)/.test(text)) return 'a stack frame (file:line:col)';
  for (const p of [`${REPO}/lib`, `${REPO}/dist`, `${REPO}/bin`, 'node_modules/', 'node:internal']) if (text.includes(p)) return `a path of the implementation (${p})`;
  if (/this is a bug in memtier/.test(text)) return 'an internal error ("this is a bug in memtier")';
  return undefined;
}
function expectNoLeak(text: string, what: string): void {
  const why = leak(text);
  expect(why, `${what}: ${why}\n${text.slice(0, 2000)}`).toBeUndefined();
}

function rssKb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

// ---- the frames ------------------------------------------------------------------------------

/** A JSON value the server must never see: `{"op":"stop"}` (it would stop, as asked). */
const stops = (text: string): boolean => {
  try { const v = JSON.parse(text) as { op?: unknown } | null; return v !== null && typeof v === 'object' && v.op === 'stop'; } catch { return false; }
};

/** Strings that stress paths, numbers, flags and text: traversal, absolute paths, NUL, lone surrogates, bidi. */
const TRICKY = [
  '', ' ', '-', '--', '../../etc/passwd', '/etc/passwd', '/proc/self/environ', '..', '.', '~', '~/.ssh/id_rsa', 'C:\\Windows\\system32',
  'memory/../../../etc/shadow', '\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud83d', '\u202e', '\ufeff', '🙂', '部署', '%s%n', '${HOME}', '$(id)',
  '-1', '0', '1e309', 'NaN', '9007199254740993', '-9999999999', '2026-13-45', 'null', '{}', '[]', '"', '\\', '\r', '\t',
];
const str = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z]{1,10}$/) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
);
const num = fc.oneof(fc.integer(), fc.constantFrom(-1, 0, 1, 2 ** 53, -(2 ** 53), 1e308, -1e308, 5e-324, 0.5), fc.double({ noNaN: true, noDefaultInfinity: true }));
/** Any JSON value, of any shape. */
const anyJson = fc.jsonValue({ maxDepth: 3 });
/** A value of the wrong type for any field. */
const wrong = fc.oneof(num, fc.boolean(), fc.constant(null), fc.array(str, { maxLength: 3 }), fc.dictionary(str, str, { maxKeys: 3 }), anyJson);

const argvWord = (): fc.Arbitrary<string> => fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('search', 'recall', 'billing', 'deploy', 'Dana', '--json', '--k', '3', '--query', '--messages', '-', '--messages=-', '--since', '2026-05-01', '--until', '--type', 'DECISION', '--tags', 'people', '--tier', 'warm', '--explain', '--help', '--max-chars', '--context-used', '--now', '--', 'wal', 'add', 'init', 'watch', '--stop', 'health') },
  { weight: 1, arbitrary: fc.constant('--root') },
  { weight: 2, arbitrary: fc.constant(`--root=${root}`) },
  { weight: 1, arbitrary: fc.constant(other) },
  { weight: 3, arbitrary: str },
);

/** A field left out of a generated object. */
const MISSING = Symbol('missing');
/** Mostly `good`, sometimes a value of the wrong type, sometimes missing. */
const field = <T>(good: fc.Arbitrary<T>, goodWeight = 16): fc.Arbitrary<T | unknown> => fc.oneof(
  { weight: goodWeight, arbitrary: good },
  { weight: 1, arbitrary: wrong },
  { weight: 1, arbitrary: fc.constant(MISSING) },
);
const present = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== MISSING));

/** A request of the protocol's shape, each field mostly right, else of the wrong type or missing; extra keys too. */
const shapedRequest = (): fc.Arbitrary<Record<string, unknown>> => fc.record({
  op: fc.oneof({ weight: 12, arbitrary: fc.constant('run') }, { weight: 2, arbitrary: fc.constant('status') }, { weight: 1, arbitrary: fc.constantFrom('RUN', 'Stop', 'stop ', '', 'status\u0000') }, { weight: 1, arbitrary: wrong }, { weight: 1, arbitrary: fc.constant(MISSING) }),
  build: field(fc.oneof({ weight: 8, arbitrary: fc.constant(BUILD) }, { weight: 1, arbitrary: str })),
  command: fc.oneof({ weight: 4, arbitrary: fc.constant(MISSING) }, { weight: 3, arbitrary: fc.constant('same') }, { weight: 1, arbitrary: fc.constantFrom('search', 'recall', 'wal', 'add') }, { weight: 1, arbitrary: str }, { weight: 1, arbitrary: wrong }),
  argv: field(fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom('search', 'recall'), fc.array(argvWord(), { maxLength: 7 })).map(([c, rest]) => [c, ...rest]) },
    { weight: 2, arbitrary: fc.array(argvWord(), { maxLength: 6 }) },
    { weight: 1, arbitrary: fc.array(fc.oneof(argvWord(), wrong), { maxLength: 4 }) },
  )),
  env: field(fc.oneof(
    { weight: 4, arbitrary: fc.constant({ MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' }) },
    { weight: 1, arbitrary: fc.constant({}) },
    // every key a request may set, and some it may not, with any value (MEMTIER_DEBUG aside: it asks for stack traces)
    { weight: 3, arbitrary: fc.dictionary(fc.constantFrom('MEMTIER_ROOT', 'OPENCLAW_WORKSPACE', 'OPENCLAW_SESSION_ID', 'MEMTIER_NOW', 'MEMTIER_TZ', 'TZ', 'MEMTIER_CJK', 'MEMTIER_GIT', 'MEMTIER_PARALLEL_STAT_MIN', 'MEMTIER_LOCK_TIMEOUT_MS', 'MEMTIER_BUFFER_MAX_LINES', 'MEMTIER_ARCHIVE_DAYS', 'MEMTIER_HEALTH_BUFFER_LINES', 'MEMTIER_CRASH_AT', 'PATH', 'HOME', 'NODE_OPTIONS'), fc.oneof(str, fc.constant(root), fc.constant('lock.acquired'), wrong), { maxKeys: 4 }) },
  )),
  cwd: field(fc.oneof({ weight: 6, arbitrary: fc.constant(root) }, { weight: 1, arbitrary: fc.constant(other) }, { weight: 2, arbitrary: fc.constantFrom('/', '/etc', '/proc/self', '/nonexistent/dir', 'relative/dir', '../../etc', `${root}/../..`, `${root}/memory`) }, { weight: 1, arbitrary: str })),
  stdin: fc.oneof({ weight: 6, arbitrary: fc.constant(MISSING) }, { weight: 1, arbitrary: str }, { weight: 2, arbitrary: fc.constant(JSON.stringify([{ role: 'user', content: 'who runs billing?' }])) }, { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v)) }, { weight: 1, arbitrary: wrong }),
  extra: fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.dictionary(str, anyJson, { maxKeys: 2 }) }),
}).map(({ extra, ...r }) => {
  // `same`: the command field names what argv runs (as the CLI's client sends it)
  if (r.command === 'same') r.command = Array.isArray(r.argv) && typeof r.argv[0] === 'string' ? r.argv[0] : MISSING;
  return { ...extra, ...present(r) };
});

/** Nesting as deep as a line allows (JSON.parse of it is fine; nothing may recurse on it). */
const deep = fc.tuple(fc.integer({ min: 1, max: 60_000 }), fc.constantFrom('array', 'object'), fc.constantFrom('argv', 'env', 'op', 'top')).map(([n, kind, where]) => {
  const value = kind === 'array' ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  if (where === 'top') return value;
  return `{"op":"run","build":${JSON.stringify(BUILD)},"argv":["search","billing"],"env":{},"cwd":${JSON.stringify(root)},${JSON.stringify(where)}:${value}}`;
});

/**
 * A long string in a field of a request (well under the cap here; the cap has its own cases), made
 * of units: words, non-ASCII letters, NULs, lone surrogates. Its all-letter words stay under 1,000
 * letters (a longer one is its own case below: the stemmer).
 */
const long = fc.tuple(fc.integer({ min: 10_000, max: 100_000 }), fc.constantFrom('billing deploy ', `${'a'.repeat(999)} `, 'é', '部', '🙂', '\u0000', '\ud800', 'x\u0000'), fc.constantFrom('query', 'stdin', 'cwd', 'build')).map(([n, unit, where]) => {
  // n bytes as the line carries them (a NUL or a lone surrogate is written escaped: six bytes)
  const big = unit.repeat(Math.ceil(n / (Buffer.byteLength(JSON.stringify(unit)) - 2)));
  const req: Record<string, unknown> = { op: 'run', build: BUILD, argv: ['search', 'billing', '--root', root], env: {}, cwd: root };
  if (where === 'query') req.argv = ['search', big, '--root', root];
  else if (where === 'stdin') { req.argv = ['recall', '--messages', '-', '--root', root]; req.stdin = JSON.stringify([{ role: 'user', content: big }]); }
  else req[where] = big;
  return JSON.stringify(req);
});

/** JSON text broken at a point: cut short, a byte flipped, a quote or brace dropped or doubled. */
const brokenJson = fc.tuple(fc.oneof(shapedRequest().map((r) => JSON.stringify(r)), anyJson.map((v) => JSON.stringify(v))), fc.nat(), fc.constantFrom('cut', 'insert', 'drop'), fc.constantFrom('{', '}', '"', ',', ':', '\\', '\u0000', 'x', ']')).map(([t, at, how, ch]) => {
  const i = t.length ? at % t.length : 0;
  if (how === 'cut') return t.slice(0, i);
  if (how === 'insert') return t.slice(0, i) + ch + t.slice(i);
  return t.slice(0, i) + t.slice(i + 1);
});

/** The first line a client sends, as bytes (never a newline inside: that is `rest`). */
const payload = (): fc.Arbitrary<Buffer> => fc.oneof(
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b)) },
  { weight: 2, arbitrary: brokenJson.map((t) => Buffer.from(t, 'utf8')) },
  { weight: 2, arbitrary: anyJson.map((v) => Buffer.from(JSON.stringify(v), 'utf8')) },
  { weight: 10, arbitrary: shapedRequest().map((r) => Buffer.from(JSON.stringify(r), 'utf8')) },
  { weight: 1, arbitrary: deep.map((t) => Buffer.from(t, 'utf8')) },
  { weight: 1, arbitrary: long.map((t) => Buffer.from(t, 'utf8')) },
  // a request line with raw (unescaped) control bytes, a BOM, or a trailing CR
  { weight: 1, arbitrary: fc.tuple(shapedRequest(), fc.constantFrom('\ufeff', '\r', '\u0000', ' ', '\t')).map(([r, c]) => Buffer.from(c === '\r' ? JSON.stringify(r) + c : c + JSON.stringify(r), 'utf8')) },
).map((b) => Buffer.from(b.filter((x) => x !== 0x0a))).filter((b) => !stops(b.toString('utf8')));

interface Frame { first: Buffer; rest: Buffer; ended: boolean; splits: number[] }
/** A frame: its first line (ended by a newline or not), bytes after it (other lines: never read), split points. */
const frame = (): fc.Arbitrary<Frame> => fc.record({
  first: payload(),
  rest: fc.oneof({ weight: 4, arbitrary: fc.constant(Buffer.alloc(0)) }, { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) }, { weight: 1, arbitrary: fc.constant(line({ op: 'stop' })) }),
  ended: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  splits: fc.array(fc.nat(), { maxLength: 3 }),
});

function chunksOf(f: Frame): Buffer[] {
  const all = f.ended ? Buffer.concat([f.first, Buffer.from('\n'), f.rest]) : f.first;
  const at = [...new Set(f.splits.map((s) => (all.length ? s % all.length : 0)))].filter((s) => s > 0).sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const s of at) { out.push(all.subarray(from, s)); from = s; }
  out.push(all.subarray(from));
  return out;
}

/** The answer the protocol promises for `f` (the server reads the first line only), checked on `r`. */
function checkAnswer(f: Frame, r: Exchange): void {
  const what = `frame ${JSON.stringify(f.first.toString('utf8').slice(0, 300))}${f.first.length > 300 ? `… (${f.first.length} bytes)` : ''}`;
  for (const l of r.lines) expectNoLeak(l, what);
  if (!f.ended) { expect(r.lines, `${what}: a line that never ends gets no answer`).toEqual([]); return; }
  let parsed: unknown;
  let isJson = true;
  try { parsed = JSON.parse(f.first.toString('utf8')); } catch { isJson = false; }
  // a line that is no JSON object is not read further
  if (!isJson || parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) { expect(r.lines, what).toEqual([BAD_REQUEST]); return; }
  expect(r.lines.length, `${what}: ${JSON.stringify(r.lines).slice(0, 500)}`).toBe(2);
  expect(r.lines[0], what).toBe('A');
  const reply = JSON.parse(r.lines[1]!) as Record<string, unknown>;
  expect(typeof reply.ok, what).toBe('boolean');
  if (reply.ok === false) {
    expect(typeof reply.decline, what).toBe('string');
    expect(Object.keys(reply).sort(), what).toEqual(['decline', 'ok']);
    // a decline says what is wrong with the request; "server error" is an exception in the server
    expect(String(reply.decline), what).not.toMatch(/^server error/);
  } else if ('code' in reply) {
    expect([0, 1, 2], `${what}: exit code`).toContain(reply.code);
    expect(typeof reply.out, what).toBe('string');
    expect(typeof reply.err, what).toBe('string');
    expectNoLeak(String(reply.out) + String(reply.err), what);
  } else {
    expect(reply, what).toMatchObject({ ok: true, status: { pid: server.pid } });
  }
  const op = (parsed as { op?: unknown }).op;
  if (op === 'status') expect(reply, what).toMatchObject({ ok: true, status: { pid: server.pid } });
  // only the build of this server runs anything
  if (op !== 'status' && 'code' in reply) expect((parsed as { build?: unknown }).build, what).toBe(BUILD);
}

beforeAll(async () => {
  root = memory('billing');
  other = memory('billing');
  server = spawn(process.execPath, [BIN, 'watch', '--root', root], { cwd: root, env: { ...ENV, HOME: root }, stdio: ['ignore', 'ignore', 'pipe'] });
  server.stderr!.on('data', (d) => { serverErr += String(d); });
  for (let i = 0; i < 600 && !socket; i++) {
    if (server.exitCode !== null) throw new Error(`watch exited ${server.exitCode}: ${serverErr}`);
    if (existsSync(join(root, '.memtier/watch.json'))) {
      const info = JSON.parse(readFileSync(join(root, '.memtier/watch.json'), 'utf8')) as { socket: string; build: string };
      socket = info.socket;
      BUILD = info.build;
      try { await assertAlive(); } catch { socket = ''; }
    }
    if (!socket) await sleep(50);
  }
  if (!socket) throw new Error(`watch did not start: ${serverErr}`);
}, 40_000);

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    server.kill('SIGTERM');
    await Promise.race([new Promise((r) => server.once('exit', r)), sleep(5000)]);
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  }
});

describe('memtier watch socket, generated frames', () => {
  it('answers every complete line as the protocol says, and goes on serving', async () => {
    await fc.assert(fc.asyncProperty(frame(), async (f) => {
      const r = await exchange(chunksOf(f), f.ended ? 'open' : 'end');
      checkAnswer(f, r);
      await assertAlive();
    }), { seed: SEED, numRuns: 200 });
    expectNoLeak(serverErr, 'the server\'s stderr');
  });

  it('answers several clients at once, each its own line', async () => {
    await fc.assert(fc.asyncProperty(fc.array(frame().map((f) => ({ ...f, ended: true })), { minLength: 2, maxLength: 6 }), async (fs) => {
      const rs = await Promise.all(fs.map((f) => exchange(chunksOf(f))));
      fs.forEach((f, i) => checkAnswer(f, rs[i]!));
      await assertAlive();
    }), { seed: SEED, numRuns: 25 });
    expectNoLeak(serverErr, 'the server\'s stderr');
  });

  it('survives clients that leave mid-line, or right after their request', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(frame(), fc.nat(), fc.constantFrom('mid-line', 'after-request')), { minLength: 1, maxLength: 5 }), async (cs) => {
      await Promise.all(cs.map(([f, cut, when]) => {
        const all = Buffer.concat([f.first, Buffer.from('\n')]);
        return exchange([when === 'mid-line' ? all.subarray(0, all.length ? cut % all.length : 0) : all], 'abort');
      }));
      await assertAlive();
    }), { seed: SEED, numRuns: 25 });
    expectNoLeak(serverErr, 'the server\'s stderr');
  });

  it('declines a line over the 1 MiB cap as it passes the cap (never read to its end), and goes on', async () => {
    // the longest line it reads is read whole (and is no JSON here); one byte more is declined
    const exact = Buffer.alloc(MAX_REQUEST_BYTES, 'x'.charCodeAt(0));
    expect((await exchange([exact, Buffer.from('\n')])).lines).toEqual([BAD_REQUEST]);
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 2 * 1024 * 1024 }),
      fc.uint8Array({ minLength: 1, maxLength: 16 }).map((b) => Buffer.from(b.map((x) => (x === 0x0a ? 0x20 : x)))),
      fc.constantFrom('request', 'bytes'),
      fc.boolean(),
      async (extra, fill, shape, ended) => {
        const size = MAX_REQUEST_BYTES + extra;
        const head = shape === 'request' ? Buffer.from(`{"op":"run","build":${JSON.stringify(BUILD)},"argv":["search","`) : Buffer.alloc(0);
        const body = Buffer.alloc(size - head.length, fill);
        // sent in 256 KiB pieces and never ended unless `ended`: the decline must not wait for the newline
        const pieces: Buffer[] = [head];
        for (let i = 0; i < body.length; i += 256 * 1024) pieces.push(body.subarray(i, i + 256 * 1024));
        if (ended) pieces.push(Buffer.from('\n'));
        const r = await exchange(pieces, 'open');
        expect(r.lines, `${size} bytes`).toEqual([JSON.stringify({ ok: false, decline: `request over the ${MAX_REQUEST_BYTES >> 20} MiB limit` })]);
        await assertAlive();
      },
    ), { seed: SEED, numRuns: 6 });
    expectNoLeak(serverErr, 'the server\'s stderr');
  });

  // Found by this file: the Porter2 stemmer takes time quadratic in a word's length, and one
  // 20,000-letter word in a query held the server's event loop ~12 s (every other client, and the
  // cap's own decline, waited with it). Words over MAX_STEM_LEN letters are no longer stemmed.
  it('answers a search for one very long word within the limit (the stemmer is not run on it)', async () => {
    const r = await exchange([line({ op: 'run', build: BUILD, argv: ['search', 'a'.repeat(40_000), '--root', root], env: {}, cwd: root })], 'open', 5000);
    expect(r.lines[0]).toBe('A');
    expect(JSON.parse(r.lines[1]!)).toMatchObject({ ok: true, code: 0 });
    await assertAlive();
  });

  it('keeps its memory bounded under lines near and over the cap', async () => {
    const near = (i: number): Buffer => Buffer.concat([Buffer.from(`{"op":"run","build":${JSON.stringify(BUILD)},"argv":["search","billing","--root",${JSON.stringify(root)}],"env":{},"cwd":${JSON.stringify(root)},"pad${i}":"`), Buffer.alloc(MAX_REQUEST_BYTES - 400, 'p'), Buffer.from('"}\n')]);
    const broken = Buffer.concat([Buffer.alloc(MAX_REQUEST_BYTES - 10, '{'), Buffer.from('\n')]);
    const over = Buffer.alloc(MAX_REQUEST_BYTES + 64 * 1024, 'o');
    const round = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        const [a, b, c] = await Promise.all([exchange([near(i)]), exchange([broken]), exchange([over])]);
        expect(a.lines[0]).toBe('A');
        expect(JSON.parse(a.lines[1]!)).toMatchObject({ ok: true, code: 0 });
        expect(b.lines).toEqual([BAD_REQUEST]);
        expect(c.lines[0]).toMatch(/over the 1 MiB limit/);
      }
    };
    await round(8); // warm: the heap grows to its working size
    const before = rssKb(server.pid!);
    await round(24); // three times as much again: ~72 MiB more through the server
    const after = rssKb(server.pid!);
    await assertAlive();
    // levels off: what a leak of these lines would add is ~72 MiB (the heap's own slack is allowed)
    expect(after - before, `VmRSS ${before} kB → ${after} kB`).toBeLessThan(48 * 1024);
  });
});
