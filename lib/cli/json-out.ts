/**
 * `--json` output written in pieces: exactly the text of `JSON.stringify(value, null, 2)`, but the
 * top-level object and the arrays and objects it holds are walked here and each of their items
 * stringified on its own, so a large result (dream's 27,000 candidates: 28 MB of JSON) never
 * exists as one string, nor as one buffer of its bytes.
 *
 * Identity with JSON.stringify: a value with `toJSON` is replaced by what it returns (called with
 * its key, as JSON.stringify does); in an object, keys whose value is undefined, a function or a
 * symbol are left out; in an array such a value is `null`. Deeper values are JSON.stringify's own,
 * re-indented (its output holds no raw line break but those of its layout: a line break inside a
 * string is written `\n`).
 */

/** Levels walked here (the top object, and the arrays and objects it holds); below, JSON.stringify. */
const WALKED = 2;
/** Bytes gathered before a piece is handed to the writer. */
const PIECE = 1 << 16;

type Json = unknown;

function toJsonValue(v: Json, key: string): Json {
  return v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON(k: string): Json }).toJSON(key) : v;
}

const isWalked = (v: Json): v is object => v !== null && typeof v === 'object' && (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/** JSON.stringify(v, null, 2) of a value at `indent`, or undefined when it has no JSON (undefined, a function, a symbol). */
function leaf(v: Json, indent: string): string | undefined {
  const s = JSON.stringify(v, null, 2) as string | undefined;
  return s === undefined || indent === '' || !s.includes('\n') ? s : s.replace(/\n/g, `\n${indent}`);
}

function write(v: Json, indent: string, depth: number, emit: (s: string) => void): boolean {
  if (depth >= WALKED || !isWalked(v)) {
    const s = leaf(v, indent);
    if (s === undefined) return false;
    emit(s);
    return true;
  }
  const inner = `${indent}  `;
  if (Array.isArray(v)) {
    if (v.length === 0) { emit('[]'); return true; }
    emit('[');
    for (let i = 0; i < v.length; i++) {
      emit(i === 0 ? `\n${inner}` : `,\n${inner}`);
      if (!write(toJsonValue(v[i], String(i)), inner, depth + 1, emit)) emit('null');
    }
    emit(`\n${indent}]`);
    return true;
  }
  let first = true;
  for (const k of Object.keys(v)) {
    const x = toJsonValue((v as Record<string, Json>)[k], k);
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
    emit(`${first ? '{' : ','}\n${inner}${JSON.stringify(k)}: `);
    first = false;
    write(x, inner, depth + 1, emit);
  }
  emit(first ? '{}' : `\n${indent}}`);
  return true;
}

/**
 * Write `JSON.stringify(value, null, 2)` through `out`, in pieces of about 64 KB, each passed
 * through `map` first (a per-character escape, so pieces may be cut anywhere). Returns false when
 * the value has no JSON (nothing written), as JSON.stringify returns undefined.
 */
export function writeJson(value: Json, out: (s: string) => void, map: (s: string) => string = (s) => s): boolean {
  let buf = '';
  const emit = (s: string): void => {
    buf += s;
    if (buf.length >= PIECE) { out(map(buf)); buf = ''; }
  };
  const ok = write(toJsonValue(value, ''), '', 0, emit);
  if (buf) out(map(buf));
  return ok;
}
