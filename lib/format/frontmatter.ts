/**
 * Strict frontmatter: YAML only, closed fence required, every parse error reported with file
 * and line.
 *
 * gray-matter alone is unsafe for memory files: a `---js` fence makes it `eval` the block
 * (reproduced), a missing closing `---` silently empties the body, and deep nesting throws a
 * bare RangeError. So the fences and the language are checked here, gray-matter only ever sees
 * a normalized `---\n<yaml>\n---\n` document with its JavaScript/CoffeeScript/JSON engines
 * replaced by ones that refuse, and every error becomes a FrontmatterError.
 *
 * gray-matter costs ~70 ms to load, so it is required lazily (synchronously, via createRequire)
 * and only for a text that starts with a fence.
 */
import { createRequire } from 'node:module';
import { MemtierError } from '../core/errors.js';

export class FrontmatterError extends MemtierError {
  constructor(message: string, file: string, line: number, hint: string, cause?: unknown, rule = 'frontmatter') {
    super(message, cause === undefined ? { code: 'frontmatter', file, line, hint, rule } : { code: 'frontmatter', file, line, hint, rule, cause });
    this.name = 'FrontmatterError';
  }
}

/**
 * Limits that keep a hostile frontmatter from eating the process (FORMAT.md "Frontmatter
 * limits"): its YAML text, its `*alias` references, its nesting, and the number of values it
 * expands to once aliases are followed (a YAML "billion laughs" is small on disk and huge in
 * memory). Checked before and after parsing; each refusal is a FrontmatterError with a rule.
 */
export const FRONTMATTER_LIMITS = { bytes: 64 * 1024, aliases: 100, depth: 64, values: 100_000 } as const;

export interface Frontmatter {
  /** The YAML mapping (empty when there is no frontmatter). Dates are `YYYY-MM-DD` (or ISO) strings. */
  data: Record<string, unknown>;
  /** The text after the closing fence (the whole text when there is no frontmatter). */
  body: string;
  hasFrontmatter: boolean;
  /** 1-based line of the text where `body` starts. */
  bodyLine: number;
}

/** Languages accepted after the opening fence (`---` or `---yaml`). */
const ALLOWED_LANGS = new Set(['', 'yaml']);

type Matter = (input: string, options: Record<string, unknown>) => { data: unknown };
let matterFn: Matter | undefined;
function grayMatter(): Matter {
  if (!matterFn) matterFn = createRequire(import.meta.url)('gray-matter') as Matter;
  return matterFn;
}

const refuse = (lang: string) => ({
  parse(): never {
    throw new Error(`the ${lang} frontmatter engine is disabled`);
  },
  stringify(): never {
    throw new Error(`the ${lang} frontmatter engine is disabled`);
  },
});
const SAFE_ENGINES = { javascript: refuse('javascript'), js: refuse('js'), coffee: refuse('coffee'), coffeescript: refuse('coffeescript'), cson: refuse('cson'), json: refuse('json') };

/** Does this text open with a frontmatter fence (`---` not followed by a fourth `-`)? */
export function startsWithFrontmatter(text: string): boolean {
  return text.startsWith('---') && text.charAt(3) !== '-';
}

/**
 * Parse `text` (already LF-normalized, as decodeStrict returns it). Throws FrontmatterError
 * (code `frontmatter`, with `file` and `line`) on a non-YAML fence, a missing closing fence,
 * invalid YAML, YAML that is not a mapping, or nesting too deep to parse.
 */
export function parseFrontmatter(text: string, file: string): Frontmatter {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!startsWithFrontmatter(text)) return { data: {}, body: text, hasFrontmatter: false, bodyLine: 1 };
  const lines = text.split('\n');
  const lang = lines[0]!.slice(3).replace(/\r$/, '').trim().toLowerCase();
  if (!ALLOWED_LANGS.has(lang)) {
    throw new FrontmatterError(`frontmatter language "${lang.slice(0, 40)}" is not allowed (only YAML)`, file, 1,
      'start the frontmatter with a plain "---" line and write YAML; memtier never runs code from a file', undefined, 'frontmatter-language');
  }
  let close = -1;
  for (let i = 1; i < lines.length; i++) {
    if (/^---[ \t]*\r?$/.test(lines[i]!)) { close = i; break; }
  }
  if (close < 0) {
    throw new FrontmatterError('frontmatter opened on line 1 is never closed (no "---" line after it)', file, 1,
      'add a line with just "---" after the frontmatter fields, or remove the opening "---" if the file has no frontmatter', undefined, 'frontmatter-unclosed');
  }
  const yamlText = lines.slice(1, close).join('\n');
  checkLimits(yamlText, file);
  let data: unknown;
  try {
    data = grayMatter()(`---\n${yamlText}\n---\n`, { language: 'yaml', engines: SAFE_ENGINES }).data;
  } catch (e) {
    const mark = (e as { mark?: { line?: number } }).mark;
    const line = typeof mark?.line === 'number' ? Math.min(mark.line + 1, close + 1) : 1;
    const why = e instanceof RangeError
      ? 'frontmatter is nested too deeply to parse'
      : `frontmatter is not valid YAML: ${firstLine((e as Error)?.message ?? String(e))}`;
    throw new FrontmatterError(why, file, line, 'fix the YAML between the two "---" lines (key: value, one per line)', e);
  }
  if (data === null || data === undefined || (typeof data === 'string' && data.trim() === '')) data = {};
  if (typeof data !== 'object' || Array.isArray(data) || data instanceof Date) {
    throw new FrontmatterError(`frontmatter must be a set of "key: value" fields, not a ${Array.isArray(data) ? 'list' : typeof data}`, file, 2,
      'write one "key: value" field per line between the two "---" lines');
  }
  let normalized: Record<string, unknown>;
  try {
    normalized = normalizeDates(data, { left: FRONTMATTER_LIMITS.values }, 0) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof FrontmatterError) throw new FrontmatterError(e.message, file, 2, e.hint ?? '', undefined, e.rule);
    throw new FrontmatterError('frontmatter is nested too deeply to parse', file, 2, 'flatten the YAML between the two "---" lines', e, 'frontmatter-depth');
  }
  return { data: normalized, body: lines.slice(close + 1).join('\n'), hasFrontmatter: true, bodyLine: close + 2 };
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.replace(/ (?:at|in) line \d+, column \d+:?$/, '').slice(0, 200);
}

/**
 * Refuse, before parsing, a YAML text too big, with too many aliases, or nested too deeply in
 * flow (`[[[…]]]`) or block (indentation) style: js-yaml recurses per level and follows no
 * limit of its own.
 */
function checkLimits(yaml: string, file: string): void {
  const L = FRONTMATTER_LIMITS;
  const size = Buffer.byteLength(yaml);
  if (size > L.bytes) {
    throw new FrontmatterError(`frontmatter is ${size} bytes, over the ${L.bytes}-byte limit`, file, 1,
      'keep frontmatter to a few short fields and move the rest into the body', undefined, 'frontmatter-size');
  }
  const yamlLines = yaml.split('\n');
  let aliases = 0;
  let depth = 0;
  for (let i = 0; i < yamlLines.length; i++) {
    const text = yamlLines[i]!;
    const indent = /^[ \t-]*/.exec(text)![0].length;
    let flow = 0;
    let quote = '';
    for (let j = 0; j < text.length; j++) {
      const c = text[j]!;
      if (quote) { if (c === quote) quote = ''; continue; }
      if ((c === '"' || c === "'") && (j === 0 || /[\s[{,:]/.test(text[j - 1]!))) quote = c;
      else if (c === '#' && (j === 0 || /\s/.test(text[j - 1]!))) break;
      else if (c === '[' || c === '{') flow++;
      else if ((c === ']' || c === '}') && flow > 0) flow--;
      else if (c === '*' && (j === 0 || /[\s[{,:-]/.test(text[j - 1]!)) && /[^\s,\]}]/.test(text[j + 1] ?? ' ')) aliases++;
      depth = Math.max(depth, flow + Math.floor(indent / 2));
    }
    if (aliases > L.aliases) {
      throw new FrontmatterError(`frontmatter has more than ${L.aliases} YAML aliases (*name)`, file, i + 2,
        'write the values out instead of repeating anchors; memtier never writes aliases', undefined, 'frontmatter-aliases');
    }
    if (depth > L.depth) {
      throw new FrontmatterError(`frontmatter is nested more than ${L.depth} levels deep`, file, i + 2,
        'flatten the YAML between the two "---" lines', undefined, 'frontmatter-depth');
    }
  }
}

/**
 * YAML timestamps become strings (`2026-05-15`, or a full ISO time), so data is plain JSON.
 * The copy follows aliases, so it counts the values it makes (`budget.left`) and the depth.
 */
function normalizeDates(v: unknown, budget: { left: number }, depth: number): unknown {
  if (--budget.left < 0) {
    throw new FrontmatterError(`frontmatter expands to more than ${FRONTMATTER_LIMITS.values} values once its aliases are followed`, '', 2,
      'write the values out instead of repeating anchors; memtier never writes aliases', undefined, 'frontmatter-aliases');
  }
  if (depth > FRONTMATTER_LIMITS.depth) {
    throw new FrontmatterError(`frontmatter is nested more than ${FRONTMATTER_LIMITS.depth} levels deep`, '', 2,
      'flatten the YAML between the two "---" lines', undefined, 'frontmatter-depth');
  }
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) return String(v);
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (Array.isArray(v)) return v.map((x) => normalizeDates(x, budget, depth + 1));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = normalizeDates(x, budget, depth + 1);
    return out;
  }
  return v;
}
