/**
 * `memtier cache set|get|list|clear` (seed 002's session cache): short-lived key/value data of
 * one agent session, in `.memtier/cache/SESSION.json` (derived state, gitignored), written
 * through the store (lock, atomic replace, secret refusal). Expired keys are never returned.
 */
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { PATHS } from '../format/layout.js';
import { assertSessionId, INVISIBLE_CHARS } from '../store/guards/paths.js';
import { assertNoSecrets, quoteInput } from '../store/guards/secrets.js';
import { openStore, readMemoryFile } from '../store/store.js';

export const DEFAULT_TTL = 3600;

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** `--ttl`: seconds (`600`) or a duration (`90s`, `30m`, `2h`, `7d`, `1w`); 0 = never expires. */
export function parseTtl(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TTL;
  if (/^\s*-/.test(value)) throw new UsageError(`--ttl takes a duration, 0 or more, got ${quoteInput(value.trim())}`, 'give seconds or a number with s, m, h, d or w: --ttl 600, --ttl 30m, --ttl 2h (0 = never expires)');
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$/i.exec(value);
  if (!m) throw new UsageError(`--ttl "${value.slice(0, 40)}" is not a duration`, 'give seconds or a number with s, m, h, d or w: --ttl 600, --ttl 30m, --ttl 2h (0 = never expires)');
  return Math.round(Number(m[1]) * UNIT_SECONDS[(m[2] || 's').toLowerCase()]!);
}
const MAX_KEY = 128;
const MAX_VALUE = 8 * 1024;

export interface CacheItem {
  value: string;
  /** ISO instant it was set. */
  set: string;
  /** ISO instant it expires, or null (never, --ttl 0). */
  expires: string | null;
}
export type CacheFile = Record<string, CacheItem>;

export function cachePath(session: string): string {
  return `${PATHS.state}/cache/${assertSessionId(session)}.json`;
}

/** The session id: --session, else $OPENCLAW_SESSION_ID, else "default" (allow-listed). */
export function sessionOf(ctx: Ctx, args: Args): string {
  return assertSessionId(flagString(args, 'session') ?? ctx.env.OPENCLAW_SESSION_ID ?? 'default');
}

function assertKey(key: string): string {
  if (key.length === 0 || key.length > MAX_KEY || INVISIBLE_CHARS.test(key) || /\s/.test(key)) {
    throw new UsageError(`invalid cache key "${key.replace(new RegExp(INVISIBLE_CHARS.source, 'gu'), '?').slice(0, 60)}"`, `a key is 1-${MAX_KEY} printable characters without spaces, e.g. current_url`);
  }
  return key;
}

/** A map without a prototype: a key such as "__proto__" or "toString" is an ordinary key. */
const emptyCache = (): CacheFile => Object.create(null) as CacheFile;

export function parseCache(text: string | undefined, rel: string): CacheFile {
  if (text === undefined || text.trim() === '') return emptyCache();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new MemtierError(`session cache is not valid JSON: ${(e as Error).message}`, { code: 'cache', file: rel, hint: 'it is derived data: run "memtier cache clear" to start it afresh' });
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    throw new MemtierError('session cache is not a JSON object', { code: 'cache', file: rel, hint: 'run "memtier cache clear" to start it afresh' });
  }
  const out = emptyCache();
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    const it = v as Partial<CacheItem> | null;
    if (!it || typeof it !== 'object' || typeof it.value !== 'string') continue;
    out[k] = { value: it.value, set: typeof it.set === 'string' ? it.set : '', expires: typeof it.expires === 'string' ? it.expires : null };
  }
  return out;
}

const live = (it: CacheItem, now: Date): boolean => it.expires === null || Date.parse(it.expires) > now.getTime();

/** Items not yet expired at `now`. */
export function liveItems(c: CacheFile, now: Date): CacheFile {
  const out = emptyCache();
  for (const [k, it] of Object.entries(c)) if (live(it, now)) out[k] = it;
  return out;
}

// a key "__proto__" is written as a JSON member like any other (JSON.parse reads it back as an own key)
const serialize = (c: CacheFile): string => JSON.stringify(c, null, 2) + '\n';

export const command: CommandSpec = {
  name: 'cache',
  summary: 'session cache: set, get, list, clear',
  usage: ['cache set KEY VALUE [--ttl DURATION]', 'cache get KEY', 'cache list', 'cache clear [KEY]'],
  description: `Seed 002's session cache: transient key/value data of one agent session (a URL being read,
an intermediate result), kept out of the markdown memory. One JSON file per session in
.memtier/cache/SESSION.json (derived, gitignored). The session is --session, else
$OPENCLAW_SESSION_ID, else "default"; ids are 1-64 letters, digits, "_" or "-".
Values pass the same secret guard as every write (a credential is refused, never echoed).
Keys expire after --ttl (seconds, or 30m, 2h, 7d; default ${DEFAULT_TTL} s; 0 = never); expired keys are never
returned and are dropped at the next write. "get" of a missing or expired key exits 1.`,
  subcommands: { set: 'store KEY = VALUE with an expiry', get: 'print the value of KEY', list: 'list live keys with their expiry', clear: 'remove KEY, or every key of the session' },
  flags: [
    { name: 'ttl', type: 'string', value: 'DURATION', description: `time until the key expires (set): seconds, or 90s, 30m, 2h, 7d; 0 = never`, default: DEFAULT_TTL },
    { name: 'session', type: 'string', value: 'ID', description: 'session id (default $OPENCLAW_SESSION_ID or "default")' },
  ],
  examples: ['memtier cache set current_url https://example.org/docs --ttl 600', 'memtier cache get current_url', 'memtier cache list --json', 'memtier cache clear --session agent-7'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const [sub, ...rest] = args.positionals;
    const session = sessionOf(ctx, args);
    const rel = cachePath(session);
    const now = ctx.clock.now();
    switch (sub) {
      case 'set': {
        if (rest.length < 2) throw new UsageError('cache set needs a KEY and a VALUE', 'e.g. memtier cache set current_url https://example.org');
        const key = assertKey(rest[0]!);
        const value = rest.slice(1).join(' ');
        if (Buffer.byteLength(value) > MAX_VALUE) throw new UsageError(`value is over ${MAX_VALUE} bytes`, 'the session cache holds small values; write long content to a note');
        const ttl = parseTtl(flagString(args, 'ttl'));
        // Refuse credentials before anything is read or written (the value is never echoed).
        assertNoSecrets(value, rel);
        assertNoSecrets(`${key}=${value}`, rel);
        const item: CacheItem = { value, set: now.toISOString(), expires: ttl === 0 ? null : new Date(now.getTime() + ttl * 1000).toISOString() };
        openStore(ctx).mutate((tx) => {
          const cur = tx.read(rel);
          const c = liveItems(parseCache(cur, rel), now);
          c[key] = item;
          tx.write(rel, serialize(c), { expected: cur ?? null });
        });
        return { text: `cached ${key} for session ${session}${item.expires ? ` until ${item.expires}` : ' (no expiry)'}`, json: { ok: true, session, key, expires: item.expires } };
      }
      case 'get': {
        if (rest.length !== 1) throw new UsageError('cache get needs one KEY', 'e.g. memtier cache get current_url');
        const key = assertKey(rest[0]!);
        const items = liveItems(parseCache(readMemoryFile(ctx.root, rel), rel), now);
        const it = Object.hasOwn(items, key) ? items[key] : undefined;
        if (!it) return { exitCode: 1, text: args.quiet ? '' : `no live value for ${key} in session ${session}`, json: { ok: true, session, key, found: false } };
        return { text: it.value, json: { ok: true, session, key, found: true, value: it.value, set: it.set, expires: it.expires } };
      }
      case 'list': {
        if (rest.length) throw new UsageError('cache list takes no arguments');
        const items = liveItems(parseCache(readMemoryFile(ctx.root, rel), rel), now);
        const keys = Object.keys(items).sort();
        const text = keys.length ? keys.map((k) => `${k}\t${items[k]!.expires ?? 'never'}\t${items[k]!.value.length > 60 ? items[k]!.value.slice(0, 59) + '…' : items[k]!.value}`).join('\n') : `session ${session}: no live keys`;
        return { text, json: { ok: true, session, items: keys.map((k) => ({ key: k, ...items[k]! })) } };
      }
      case 'clear': {
        if (rest.length > 1) throw new UsageError('cache clear takes at most one KEY');
        const key = rest[0] === undefined ? undefined : assertKey(rest[0]);
        const removed = openStore(ctx).mutate((tx) => {
          const cur = tx.read(rel);
          if (cur === undefined) return 0;
          if (key === undefined) {
            let n = 0;
            try { n = Object.keys(liveItems(parseCache(cur, rel), now)).length; } catch { /* a broken cache is cleared all the same */ }
            tx.write(rel, serialize(emptyCache()), { expected: cur });
            return n;
          }
          const c = liveItems(parseCache(cur, rel), now);
          if (!Object.hasOwn(c, key)) return 0;
          delete c[key];
          tx.write(rel, serialize(c), { expected: cur });
          return 1;
        });
        const what = key === undefined ? `${removed} key${removed === 1 ? '' : 's'}` : removed ? key : `nothing (${key} was not set)`;
        return { text: `cleared ${what} from session ${session}`, json: { ok: true, session, removed, ...(key !== undefined ? { key } : {}) } };
      }
      default:
        throw new UsageError(sub ? `unknown cache subcommand "${sub}"` : 'cache needs a subcommand', 'one of: set, get, list, clear');
    }
  },
};
