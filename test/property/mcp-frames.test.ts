/**
 * `memtier mcp` under generated frames (issue #29): one server process for the file, spoken to as
 * raw lines on its standard input, never through the SDK's client. Whatever a client sends —
 * arbitrary bytes, broken JSON, JSON of any shape, JSON-RPC messages with wrong fields, deep
 * nesting, long strings, unicode (NUL, lone surrogates), tools/call of every tool it lists with
 * generated arguments (wrong types, extra and missing keys, negative and huge numbers, path-like
 * strings such as ../../etc/passwd and absolute paths), resource reads of any URI —
 * - every request gets its answer: a message that is no JSON gets a parse error (-32700, id null),
 *   one that is no JSON-RPC message an invalid-request error (-32600), a request its response
 *   (for its id); arguments outside a tool's schema get an error (a JSON-RPC error or a result
 *   with isError), arguments inside it a result; a path out of the memory is an error, never a read;
 * - standard output carries JSON-RPC only; no answer and nothing on stderr carries a stack trace,
 *   a path of memtier's own code, or memtier's "this is a bug" message (an internal error);
 * - the server is still alive and answers a ping afterwards;
 * - answers arrive within a generous limit (a timeout on waiting, not a speed assertion);
 * - its memory (VmRSS) levels off under a stream of messages near and over the 4 MiB cap;
 * - a message over the cap is refused for its id as it passes the cap, and the server goes on;
 *   one under the cap whose bytes are no UTF-8 (each becomes U+FFFD, three bytes) is answered.
 * Fixed seed (test/property/settings.ts SEED, FC_SEED to replay another).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_MESSAGE_BYTES } from '../../lib/mcp/server.js';
import { BIN, FIXED_NOW, REPO, runCli, tmpTree } from '../helpers.js';
import { SEED } from './settings.js';

/** How long one answer may take before the test fails as "no answer" (generous: CPU is shared). */
const ANSWER_MS = 15_000;

type Id = string | number | null;
interface Msg { jsonrpc?: unknown; id?: Id; result?: any; error?: { code: unknown; message: unknown; data?: unknown }; method?: unknown }
interface Tool { name: string; inputSchema: { type: 'object'; properties?: Record<string, JsonSchema>; required?: string[] } }
interface JsonSchema { type?: string | string[]; enum?: unknown[]; minimum?: number; maximum?: number; exclusiveMinimum?: number; minLength?: number; maxLength?: number; minItems?: number; maxItems?: number; pattern?: string; items?: JsonSchema; properties?: Record<string, JsonSchema>; required?: string[] }

let root: string;
let server: ChildProcess;
let stderr = '';
let tools: Tool[] = [];
/** Every message the server wrote, in order, and every stdout line that was no JSON. */
const msgs: Msg[] = [];
const notJson: string[] = [];
const waiters = new Set<() => void>();
let nextId = 0;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const sameId = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The first message from index `from` on that `pred` accepts; rejects after `ms`. */
function waitFor(pred: (m: Msg) => boolean, from: number, what: string, ms = ANSWER_MS): Promise<Msg> {
  return new Promise((resolvePromise, reject) => {
    const check = (): boolean => {
      for (let i = from; i < msgs.length; i++) {
        if (pred(msgs[i]!)) { waiters.delete(check); clearTimeout(timer); resolvePromise(msgs[i]!); return true; }
      }
      return false;
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      reject(new Error(`no ${what} within ${ms} ms (server ${server.exitCode === null ? 'alive' : `exited ${server.exitCode}`}; stderr: ${stderr.slice(-500)})`));
    }, ms);
    if (!check()) waiters.add(check);
  });
}

function write(b: Buffer | string): void {
  server.stdin!.write(b);
}

/** Send a request of ours and wait for its response. */
async function request(method: string, params?: unknown): Promise<Msg> {
  const id = `probe-${++nextId}`;
  const from = msgs.length;
  write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }) + '\n');
  return waitFor((m) => m.id === id && ('result' in m || 'error' in m), from, `answer to ${method} ${id}`);
}

/** The server is alive and answers a ping. */
async function assertAlive(): Promise<void> {
  expect(server.exitCode, `the server exited: ${stderr}`).toBeNull();
  expect(server.signalCode).toBeNull();
  expect(await request('ping')).toMatchObject({ jsonrpc: '2.0', result: {} });
}

/** What no answer may carry: a stack frame, a path of memtier's code or of Node's, memtier's own "this is a bug". */
function leak(text: string): string | undefined {
  if (text.includes('    at ')) return 'a stack frame ("    at ")';
  if (/\bat [^\n"]*\((?:file:\/\/|\/)[^)]*:\d+:\d+\)/.test(text)) return 'a stack frame (file:line:col)';
  for (const p of [`${REPO}/lib`, `${REPO}/dist`, `${REPO}/bin`, 'node_modules/', 'node:internal']) if (text.includes(p)) return `a path of the implementation (${p})`;
  if (/this is a bug in memtier/.test(text)) return 'an internal error ("this is a bug in memtier")';
  // what a read outside the memory would show: /etc/passwd, the process environment
  if (/root:x?:0:0:/.test(text)) return 'the contents of /etc/passwd';
  if (text.includes('MEMTIER_NOW=')) return 'the process environment';
  return undefined;
}
function expectNoLeak(text: string, what: string): void {
  const why = leak(text);
  expect(why, `${what}: ${why}\n${text.slice(0, 2000)}`).toBeUndefined();
}

/** Standard output carried JSON-RPC only, and stderr nothing that leaks. */
function expectCleanStreams(): void {
  expect(notJson.map((l) => l.slice(0, 200)), 'stdout lines that are no JSON').toEqual([]);
  for (const m of msgs) expect(m.jsonrpc, JSON.stringify(m).slice(0, 300)).toBe('2.0');
  expectNoLeak(stderr, 'the server\'s stderr');
}

function rssKb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

// ---- what a line asks for ------------------------------------------------------------------------

type Expect =
  | { kind: 'none' } // a notification, a response, a blank line: nothing to answer
  | { kind: 'answer'; id: string | number } // a request: its response (result or error)
  | { kind: 'error'; ids: Id[]; code?: number }; // no request that can be read: an error for one of `ids`

const isId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** JSON-RPC 2.0's rule for one line, as the client sees it (independent of the SDK's own checks). */
function expectation(line: string): Expect {
  if (!line.trim()) return { kind: 'none' };
  let v: unknown;
  try { v = JSON.parse(line); } catch { return { kind: 'error', ids: [null], code: -32700 }; }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { kind: 'error', ids: [null], code: -32600 };
  const o = v as Record<string, unknown>;
  if ('method' in o) {
    if (!('id' in o)) return { kind: 'none' }; // a notification (even a malformed one may go unanswered)
    return isId(o.id) ? { kind: 'answer', id: o.id } : { kind: 'error', ids: [null] };
  }
  if ('result' in o || 'error' in o) return { kind: 'none' }; // a response to the server (it asked nothing)
  return { kind: 'error', ids: [null, ...(isId(o.id) ? [o.id] : [])] };
}

/** Send one line (bytes, no newline inside), then a ping; check the answer the line asks for. */
async function roundTrip(line: Buffer): Promise<Msg[]> {
  const text = line.toString('utf8');
  const what = `line ${JSON.stringify(text.slice(0, 300))}${text.length > 300 ? `… (${line.length} bytes)` : ''}`;
  const exp = expectation(text);
  const from = msgs.length;
  write(Buffer.concat([line, Buffer.from('\n')]));
  const pingId = `probe-${++nextId}`;
  write(JSON.stringify({ jsonrpc: '2.0', id: pingId, method: 'ping' }) + '\n');
  await waitFor((m) => m.id === pingId, from, `ping after ${what}`);
  if (exp.kind === 'answer') {
    const a = await waitFor((m) => sameId(m.id, exp.id) && ('result' in m || 'error' in m), from, `answer to ${what}`);
    if (a.error) { expect(typeof a.error.code, what).toBe('number'); expect(typeof a.error.message, what).toBe('string'); }
  } else if (exp.kind === 'error') {
    // answered as the line is read: before the ping that followed it
    const upTo = msgs.findIndex((m, i) => i >= from && m.id === pingId);
    const errs = msgs.slice(from, upTo).filter((m) => m.error && exp.ids.some((id) => sameId(m.id, id)));
    expect(errs.length, `${what}: an error answer (ids ${JSON.stringify(exp.ids)}), got ${JSON.stringify(msgs.slice(from, upTo + 1)).slice(0, 500)}`).toBeGreaterThanOrEqual(1);
    if (exp.code !== undefined) expect(errs[0]!.error!.code, what).toBe(exp.code);
  }
  const got = msgs.slice(from);
  for (const m of got) expectNoLeak(JSON.stringify(m), what);
  return got;
}

// ---- generated frames ----------------------------------------------------------------------------

const TRICKY = [
  '', ' ', '-', '--', '../../etc/passwd', '/etc/passwd', '/proc/self/environ', '..', '.', '~', '~/.ssh/id_rsa', 'C:\\Windows\\system32',
  'memory/../../../etc/shadow', '\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud83d', '\u202e', '\ufeff', '🙂', '部署', '%s%n', '${HOME}', '$(id)',
  '-1', '0', '1e309', 'NaN', '9007199254740993', '-9999999999', '2026-13-45', 'null', '{}', '[]', '"', '\\', '\r', '\t', '__proto__', 'constructor',
];
const str = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z]{1,10}$/) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
);
const num = fc.oneof(fc.integer(), fc.constantFrom(-1, 0, 1, 2 ** 53, -(2 ** 53), 2 ** 53 + 2, 1e308, -1e308, 5e-324, 0.5, -0), fc.double({ noNaN: true, noDefaultInfinity: true }));
const anyJson = fc.jsonValue({ maxDepth: 3 });
const wrong = fc.oneof(num, fc.boolean(), fc.constant(null), fc.array(str, { maxLength: 3 }), fc.dictionary(str, str, { maxKeys: 3 }), anyJson);
const MISSING = Symbol('missing');
const present = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== MISSING));

const METHODS = ['ping', 'initialize', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list', 'resources/subscribe', 'prompts/list', 'prompts/get', 'logging/setLevel', 'completion/complete', 'tasks/get', 'tasks/list', 'notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed', 'rpc.discover', ''];
const idArb = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1_000_000, max: 2 ** 31 }) }, { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map((s) => `gen-${s}`) }, { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 53, null, true, [1], { a: 1 }) });

/** A JSON-RPC message of any shape: each field mostly right, else wrong or missing; extra keys. */
const shapedMessage = fc.record({
  jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: fc.constantFrom('1.0', '2', 2, null) }, { weight: 1, arbitrary: fc.constant(MISSING) }),
  id: fc.oneof({ weight: 6, arbitrary: idArb }, { weight: 2, arbitrary: fc.constant(MISSING) }),
  method: fc.oneof({ weight: 7, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: str }, { weight: 1, arbitrary: wrong }, { weight: 1, arbitrary: fc.constant(MISSING) }),
  params: fc.oneof(
    { weight: 3, arbitrary: fc.constant(MISSING) },
    { weight: 3, arbitrary: fc.record({ name: fc.oneof(fc.constantFrom('memory_search', 'memory_get', 'memory_health', 'nope'), str), arguments: fc.oneof(fc.dictionary(str, anyJson, { maxKeys: 4 }), wrong), uri: fc.oneof(fc.constantFrom('memtier:///MEMORY.md', 'memtier:///../../etc/passwd', 'file:///etc/passwd'), str), requestId: idArb, level: str, cursor: str, _meta: wrong }, { requiredKeys: [] }) },
    { weight: 2, arbitrary: wrong },
  ),
  result: fc.oneof({ weight: 9, arbitrary: fc.constant(MISSING) }, { weight: 1, arbitrary: anyJson }),
  error: fc.oneof({ weight: 9, arbitrary: fc.constant(MISSING) }, { weight: 1, arbitrary: fc.oneof(fc.record({ code: num, message: str }), wrong) }),
  extra: fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.dictionary(str, anyJson, { maxKeys: 2 }) }),
}).map(({ extra, ...r }) => ({ ...extra, ...present(r) }));

/** Nesting as deep as a line allows, alone or as a message's params. */
const deep = fc.tuple(fc.integer({ min: 1, max: 60_000 }), fc.constantFrom('array', 'object'), fc.constantFrom('params', 'arguments', 'top')).chain(([n, kind, where]) => idArb.map((id) => {
  const value = kind === 'array' ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  if (where === 'top') return value;
  if (where === 'params') return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/list","params":${value}}`;
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"memory_search","arguments":{"query":${value}}}}`;
}));

/** JSON text broken at a point: cut short, a character inserted or dropped. */
const brokenJson = fc.tuple(fc.oneof(shapedMessage.map((m) => JSON.stringify(m)), anyJson.map((v) => JSON.stringify(v))), fc.nat(), fc.constantFrom('cut', 'insert', 'drop'), fc.constantFrom('{', '}', '"', ',', ':', '\\', '\u0000', 'x', ']')).map(([t, at, how, ch]) => {
  const i = t.length ? at % t.length : 0;
  if (how === 'cut') return t.slice(0, i);
  if (how === 'insert') return t.slice(0, i) + ch + t.slice(i);
  return t.slice(0, i) + t.slice(i + 1);
});

/** A long string (well under the cap) in a message: a search query, a write, a method name. */
const long = fc.tuple(fc.integer({ min: 10_000, max: 200_000 }), fc.constantFrom('billing deploy ', 'é', '部', '🙂', '\u0000', '\ud800', 'x\u0000'), fc.constantFrom('query', 'text', 'method', 'id'), idArb).map(([n, unit, where, id]) => {
  // n bytes as the line carries them (a NUL or a lone surrogate is written escaped: six bytes)
  const big = unit.repeat(Math.ceil(n / (Buffer.byteLength(JSON.stringify(unit)) - 2)));
  if (where === 'method') return JSON.stringify({ jsonrpc: '2.0', id, method: big });
  if (where === 'id') return JSON.stringify({ jsonrpc: '2.0', id: big, method: 'ping' });
  const args = where === 'query' ? { query: big } : { text: big, type: 'TECH' };
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: where === 'query' ? 'memory_search' : 'memory_write', arguments: args } });
});

/** One line a client sends, as bytes (no newline inside). */
const frameLine = fc.oneof(
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b)) },
  { weight: 2, arbitrary: brokenJson.map((t) => Buffer.from(t, 'utf8')) },
  { weight: 2, arbitrary: anyJson.map((v) => Buffer.from(JSON.stringify(v), 'utf8')) },
  { weight: 8, arbitrary: shapedMessage.map((m) => Buffer.from(JSON.stringify(m), 'utf8')) },
  { weight: 1, arbitrary: deep.map((t) => Buffer.from(t, 'utf8')) },
  { weight: 1, arbitrary: long.map((t) => Buffer.from(t, 'utf8')) },
  // a message with a BOM before it, a CR after it, raw control bytes, blank
  { weight: 1, arbitrary: fc.tuple(shapedMessage, fc.constantFrom('\ufeff', '\r', '\u0000', ' ', '\t', '\u2028')).map(([m, c]) => Buffer.from(c === '\r' ? JSON.stringify(m) + c : c + JSON.stringify(m), 'utf8')) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t', '\r').map((t) => Buffer.from(t)) },
).map((b) => Buffer.from(b.filter((x) => x !== 0x0a)));

// ---- tool arguments from the schemas the server lists ---------------------------------------------

const PATHS = ['../../etc/passwd', '/etc/passwd', '/proc/self/environ', 'memory/../../../etc/passwd', '..', '../', '/', '/tmp', 'memory/../../outside.md', '.git/config', '.memtier/watch.json', '.env', 'memory/.trash/x.md', '~/.ssh/id_rsa', 'MEMORY.md', 'SESSION-STATE.md', 'memory/episodic/2026-05-15.md', 'memory/episodic/2026-05-15.md#L1', 'knowledge/none.md', 'MEMORY.md\u0000.txt', 'memory/%2e%2e/%2e%2e/etc/passwd', 'memory\\..\\..\\etc\\passwd'];
/** Paths that leave the memory (absolute, or `..` past its root): memory_get must refuse them. */
const escapes = (p: string): boolean => {
  if (p.includes('\u0000') || p.includes('#') || p.includes(':')) return false;
  const rel = relative(root, resolve(root, p));
  return rel === '..' || rel.startsWith('../') || isAbsolute(rel);
};

/** A value for a property of a tool's JSON Schema: mostly fitting it (bounds included), else anything. */
function valueFor(s: JsonSchema, key: string): fc.Arbitrary<unknown> {
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const fit: fc.Arbitrary<unknown>[] = [];
  if (s.enum) fit.push(fc.constantFrom(...s.enum));
  if (types.includes('string') && !s.enum) {
    const max = s.maxLength ?? 200;
    fit.push(fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('billing', 'deploy', 'broker port', 'Dana', 'the staging cluster lives in fra1', '2026-05-15', '2026-05-14') },
      { weight: key === 'path' ? 6 : 2, arbitrary: fc.constantFrom(...PATHS, `${root}/MEMORY.md`, `${root}/../outside.md`, root) },
      { weight: 3, arbitrary: str },
      { weight: 1, arbitrary: fc.integer({ min: Math.max(1, max - 2), max: max + 2 }).map((n) => 'w'.repeat(n)) }, // at its length limit
      { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 120_000 }).map((n) => 'ab c'.repeat(n / 4)) }, // long, of short words
    ));
  }
  if (types.includes('number') || types.includes('integer')) {
    const lo = s.minimum ?? s.exclusiveMinimum ?? -1e6;
    const hi = s.maximum ?? 1e6;
    fit.push(fc.oneof(
      fc.integer({ min: Math.ceil(Math.max(lo, -1e6)), max: Math.floor(Math.min(hi, 1e6)) }),
      fc.constantFrom(lo, hi, lo - 1, hi + 1, 0, -1, 0.5, 1e308, -1e308, 2 ** 53, 5e-324, -0),
    ));
  }
  if (types.includes('array')) {
    const item = s.items ? valueFor(s.items, key) : anyJson;
    fit.push(fc.oneof(
      { weight: 4, arbitrary: fc.array(item, { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.constant(s.maxItems ?? 50).chain((n) => fc.array(item, { minLength: n + 1, maxLength: n + 1 })) }, // one over
    ));
  }
  if (types.includes('object')) fit.push(objectFor(s));
  if (types.includes('boolean')) fit.push(fc.boolean());
  return fc.oneof({ weight: 14, arbitrary: fit.length ? fc.oneof(...fit) : anyJson }, { weight: 1, arbitrary: wrong });
}

/** Arguments for an object schema: each property present or not (required ones mostly present), extra keys. */
function objectFor(s: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, p] of Object.entries(props)) {
    model[k] = fc.oneof({ weight: required.has(k) ? 10 : 4, arbitrary: valueFor(p, k) }, { weight: required.has(k) ? 1 : 4, arbitrary: fc.constant(MISSING) });
  }
  return fc.tuple(fc.record(model), fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.dictionary(fc.oneof(str, fc.constantFrom('__proto__', 'constructor', 'root', 'argv', '--root')), anyJson, { maxKeys: 3 }) }))
    .map(([o, extra]) => ({ ...extra, ...present(o) }));
}

/** A tools/call: a listed tool (sometimes an unknown one) and its arguments (sometimes no object at all). */
const toolCall = (): fc.Arbitrary<{ name: string; args: unknown }> => fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...tools).chain((t) => objectFor(t.inputSchema).map((args) => ({ name: t.name, args: args as unknown }))) },
  { weight: 1, arbitrary: fc.constantFrom(...tools).chain((t) => fc.oneof(wrong, fc.constant(MISSING)).map((args) => ({ name: t.name, args }))) },
  { weight: 1, arbitrary: fc.tuple(fc.oneof(str, fc.constantFrom('memory_searc', 'MEMORY_SEARCH', 'memory_search ', 'memory_get\u0000')), fc.dictionary(str, anyJson, { maxKeys: 2 })).map(([name, args]) => ({ name, args: args as unknown })) },
);

/** memtier's tool table as the server runs it (dist/lib/tools/catalog.js: the build, not lib/ being edited). */
let table: Record<string, { inputSchema: z.ZodRawShape }> = {};

/**
 * Whether memtier's own schema (the zod shape the server registers for the tool) accepts `args`:
 * false for a tool the server does not list, undefined for one the table does not know.
 */
function accepted(name: string, args: unknown): boolean | undefined {
  if (!tools.some((t) => t.name === name)) return false;
  if (!Object.hasOwn(table, name)) return undefined;
  if (args === MISSING) args = {};
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return false;
  return z.object(table[name]!.inputSchema).safeParse(args).success;
}

// ---- the server ------------------------------------------------------------------------------------

beforeAll(async () => {
  const catalog = (await import(pathToFileURL(join(REPO, 'dist', 'lib', 'tools', 'catalog.js')).href)) as { toolTable(): typeof table };
  table = catalog.toolTable();
  root = join(tmpTree(), 'mem');
  const init = await runCli(['init', root]);
  expect(init.code, init.stderr).toBe(0);
  for (const t of ['the broker runs on port 7001', 'Dana runs the billing team']) {
    const r = await runCli(['add', '--root', root, '--type', 'TECH', t]);
    expect(r.code, r.stderr).toBe(0);
  }
  server = spawn(process.execPath, [BIN, 'mcp', '--root', root], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: root, MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  server.stdin!.on('error', () => undefined);
  server.stderr!.on('data', (d) => { stderr += String(d); });
  let buf = '';
  server.stdout!.on('data', (d) => {
    buf += String(d);
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const l = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      try { msgs.push(JSON.parse(l) as Msg); } catch { notJson.push(l); }
    }
    for (const w of [...waiters]) w();
  });
  const init2 = await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } });
  expect(init2).toMatchObject({ result: { serverInfo: { name: 'memtier' } } });
  write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const list = await request('tools/list');
  tools = list.result.tools as Tool[];
  expect(tools.map((t) => t.name)).toContain('memory_search');
}, 40_000);

afterAll(async () => {
  if (!server) return;
  server.stdin!.end();
  await Promise.race([new Promise((r) => server.once('exit', r)), sleep(5000)]);
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
});

describe('memtier mcp, generated frames', () => {
  it('answers every line as JSON-RPC says (a parse error, an invalid request, a response), and goes on serving', async () => {
    await fc.assert(fc.asyncProperty(frameLine, async (line) => {
      await roundTrip(line);
    }), { seed: SEED, numRuns: 200 });
    await assertAlive();
    expectCleanStreams();
  });

  it('answers tools/call of every listed tool with generated arguments: an error outside the schema, a result inside it', async () => {
    await fc.assert(fc.asyncProperty(toolCall(), async ({ name, args }) => {
      const params = { name, ...(args === MISSING ? {} : { arguments: args }) };
      const what = `${name} ${JSON.stringify(args === MISSING ? '(no arguments)' : args).slice(0, 300)}`;
      const a = await request('tools/call', params);
      expectNoLeak(JSON.stringify(a), what);
      const ok = accepted(name, args);
      if (ok === undefined) { expect(a.error !== undefined || Array.isArray(a.result?.content), what).toBe(true); return; }
      if (!ok) {
        expect(a.error !== undefined || a.result?.isError === true, `${what}: an error answer, got ${JSON.stringify(a).slice(0, 300)}`).toBe(true);
        return;
      }
      expect(a.error, `${what}: ${JSON.stringify(a.error)}`).toBeUndefined();
      const content = a.result.content as { type: string; text: string }[];
      expect(content[0]!.type, what).toBe('text');
      // a result is memtier's --json output; a tool error carries memtier's message
      if (a.result.isError) expect(content[0]!.text, what).toMatch(/^memtier: /);
      else expect(() => JSON.parse(content[0]!.text), what).not.toThrow();
      const path = (args as { path?: unknown }).path;
      if (name === 'memory_get' && typeof path === 'string' && escapes(path)) expect(a.result.isError, `${what}: a path out of the memory`).toBe(true);
    }), { seed: SEED, numRuns: 150 });
    await assertAlive();
    expectCleanStreams();
  });

  it('answers resources/read of any URI, never with a file outside the memory', async () => {
    const uri = fc.oneof(
      fc.constantFrom('memtier:///MEMORY.md', 'memtier:///SESSION-STATE.md', 'memtier://', 'memtier:', 'file:///etc/passwd', 'memtier://host/etc/passwd', 'http://example.com/x'),
      fc.constantFrom(...PATHS, `${root}/MEMORY.md`, `${root}/../outside.md`).map((p) => `memtier:///${p}`),
      str.map((s) => `memtier:///${s}`),
      str,
    );
    await fc.assert(fc.asyncProperty(uri, async (u) => {
      const a = await request('resources/read', { uri: u });
      expectNoLeak(JSON.stringify(a), `resources/read ${JSON.stringify(u)}`);
      if (a.result) for (const c of a.result.contents as { text?: string }[]) expect(typeof c.text).toBe('string');
    }), { seed: SEED, numRuns: 60 });
    await assertAlive();
    expectCleanStreams();
  });

  it('refuses a message over the 4 MiB cap for its id as it passes the cap, and goes on', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 1024 * 1024 }),
      fc.oneof(fc.integer({ min: 1_000_000, max: 2 ** 31 }), fc.string({ unit: 'grapheme-ascii', maxLength: 10 }).map((s) => `big-${s}`)),
      fc.constantFrom(0x61, 0xff, 0x22),
      async (extra, id, fill) => {
        const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"`);
        const from = msgs.length;
        // the line is never closed as JSON; its newline comes last
        write(Buffer.concat([head, Buffer.alloc(MAX_MESSAGE_BYTES + extra - head.length, fill), Buffer.from('\n')]));
        const a = await waitFor((m) => sameId(m.id, id), from, `the refusal of ${MAX_MESSAGE_BYTES + extra} bytes`);
        expect(a).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600, message: expect.stringMatching(/over the 4 MiB/) } });
        await assertAlive();
      },
    ), { seed: SEED, numRuns: 4 });
    expectCleanStreams();
  });

  it('answers a message just under the cap whose bytes are no UTF-8 (three times its size once decoded), and goes on', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 64 * 1024 }),
      fc.constantFrom(Buffer.from([0xff]), Buffer.from([0x80]), Buffer.from([0xc3]), Buffer.from('é'), Buffer.from('a')),
      fc.integer({ min: 2_000_000, max: 2 ** 31 }),
      async (short, unit, id) => {
        const head = Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"pad":"`);
        const tail = Buffer.from('"}}');
        const n = Math.floor((MAX_MESSAGE_BYTES - short - head.length - tail.length) / unit.length);
        const line = Buffer.concat([head, Buffer.alloc(n * unit.length, unit), tail]);
        expect(line.length).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
        const from = msgs.length;
        write(Buffer.concat([line, Buffer.from('\n')]));
        expect(await waitFor((m) => m.id === id, from, `the answer to ${line.length} bytes of ${unit.toString('hex')}`)).toMatchObject({ result: {} });
        await assertAlive();
      },
    ), { seed: SEED, numRuns: 4 });
    expectCleanStreams();
  });

  // Found by test/property/watch-frames.test.ts: the Porter2 stemmer took time quadratic in a
  // word's length (one 40,000-letter word held the server ~45 s, every later call waiting). Words
  // over MAX_STEM_LEN letters are not stemmed, and memory_search's query has a length limit.
  it('answers memory_search of one very long word within the limit', async () => {
    const from = msgs.length;
    write(JSON.stringify({ jsonrpc: '2.0', id: 'long-word', method: 'tools/call', params: { name: 'memory_search', arguments: { query: 'a'.repeat(40_000) } } }) + '\n');
    expect(await waitFor((m) => m.id === 'long-word', from, 'the answer to a 40,000-letter word', 5000)).toMatchObject({ result: {} });
    await assertAlive();
  });

  it('keeps its memory bounded under messages near and over the cap', async () => {
    const pad = (id: number, n: number, byte: number): Buffer => Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"pad":"`), Buffer.alloc(n, byte), Buffer.from('"}}\n')]);
    // no JSON: a string never closed, read to its end (a line of brackets is parsed slowly by V8 itself: see the frames)
    const broken = Buffer.concat([Buffer.from('["'), Buffer.alloc(MAX_MESSAGE_BYTES - 10, 'b'), Buffer.from('\n')]);
    const writeCall = (id: number): Buffer => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'memory_write', arguments: { text: 'w '.repeat(512 * 1024), type: 'TECH' } } }) + '\n');
    let id = 3_000_000;
    const round = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        const ids = [++id, ++id, ++id];
        const from = msgs.length;
        write(pad(ids[0]!, MAX_MESSAGE_BYTES - 200, 0x61));
        write(broken);
        write(writeCall(ids[1]!));
        write(pad(ids[2]!, MAX_MESSAGE_BYTES + 4096, 0x6f));
        expect(await waitFor((m) => m.id === ids[0], from, 'ping')).toMatchObject({ result: {} });
        const w = await waitFor((m) => m.id === ids[1], from, 'write');
        expect(w.error !== undefined || w.result?.isError === true).toBe(true);
        expect(await waitFor((m) => m.id === ids[2], from, 'refusal')).toMatchObject({ error: { code: -32600 } });
      }
    };
    await round(3); // warm: the heap grows to its working size
    const before = rssKb(server.pid!);
    await round(6); // twice as much again: ~80 MiB more through the server
    const after = rssKb(server.pid!);
    await assertAlive();
    // levels off: a leak of these messages would add ~80 MiB (the heap's own slack is allowed)
    expect(after - before, `VmRSS ${before} kB → ${after} kB`).toBeLessThan(48 * 1024);
    expectCleanStreams();
  });
});
