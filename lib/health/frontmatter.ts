/**
 * Frontmatter validation for the syntax check: a line-level check of the YAML subset memtier
 * writes (`key: value`, `key: [a, b]`, indented lists and continuations) first, then
 * lib/format/frontmatter.ts parseFrontmatter (the store's strict parser, gray-matter underneath,
 * loaded lazily) for what the line check cannot see.
 */
import type { FrontmatterBlock } from './markdown.js';

export interface FrontmatterError { line: number; message: string; fix?: string }

type Parser = (text: string, file?: string) => unknown;
let parser: Parser | null | undefined;

async function loadParser(): Promise<Parser | null> {
  if (parser !== undefined) return parser;
  const { parseFrontmatter } = await import('../format/frontmatter.js');
  parser = parseFrontmatter as Parser;
  return parser;
}

/** A plain YAML scalar that cannot fail to parse: no indicator characters, no `: ` or ` #`. */
const PLAIN = /^(?![-?:,[\]{}#&*!|>'"%@`])(?:[^:#\n]|:(?! )|#(?<! #))*$/u;
const QUOTED = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')$/;
const simpleScalar = (v: string): boolean => v === '' || PLAIN.test(v) || QUOTED.test(v);
const simpleFlowList = (v: string): boolean => /^\[(.*)\]$/.test(v) && v.slice(1, -1).split(',').every((x) => x.trim() === '' || simpleScalar(x.trim()));

/**
 * Is every line of the block in the YAML subset that always parses (`key: plain`, `key: "q"`,
 * `key: [a, b]`, `  - item`, comments, blank lines, no duplicate keys)? Then the strict parser
 * (gray-matter, ~40-100 ms to load) is not needed for this file.
 */
export function isSimpleYaml(fm: FrontmatterBlock): boolean {
  const keys = new Set<string>();
  let listOpen = false;
  for (const { text } of fm.body) {
    if (text.trim() === '' || /^#/.test(text)) continue;
    const item = /^ {2,}- (.*)$/.exec(text);
    if (item) { if (!listOpen || !simpleScalar(item[1]!.trim())) return false; continue; }
    const m = /^([A-Za-z_][\w.-]*):(?: (.*))?$/.exec(text);
    if (!m || keys.has(m[1]!)) return false;
    keys.add(m[1]!);
    const v = (m[2] ?? '').trim();
    listOpen = v === '';
    if (!simpleScalar(v) && !simpleFlowList(v)) return false;
  }
  return true;
}

function lightCheck(fm: FrontmatterBlock): FrontmatterError | undefined {
  for (const { line, text } of fm.body) {
    if (text.trim() === '' || /^\s*#/.test(text)) continue;
    if (/^\s+\S/.test(text)) continue; // list item or continuation of the previous key
    const m = /^([A-Za-z_][\w.-]*)\s*:(.*)$/.exec(text);
    if (!m) return { line, message: `"${text.slice(0, 60)}" is not a \`key: value\` line` };
    const v = m[2]!.trim();
    if (v.startsWith('[') && !v.endsWith(']')) return { line, message: `the list for "${m[1]}" is not closed with "]"` };
    if ((v.startsWith('"') && !v.endsWith('"')) || (v.startsWith("'") && !v.endsWith("'")) || v === '"' || v === "'") return { line, message: `the quoted value of "${m[1]}" is not closed` };
  }
  return undefined;
}

export async function validateFrontmatter(text: string, file: string, fm: FrontmatterBlock): Promise<FrontmatterError | undefined> {
  const light = lightCheck(fm);
  if (light) return light;
  if (isSimpleYaml(fm)) return undefined;
  const p = await loadParser();
  if (!p) return undefined;
  try {
    p(text, file);
    return undefined;
  } catch (e) {
    const err = e as { message?: string; line?: number; hint?: string; rule?: string };
    const out: FrontmatterError = { line: err.line ?? 1, message: `${err.message ?? String(e)}${err.rule && err.rule !== 'frontmatter' ? ` (rule ${err.rule})` : ''}` };
    if (err.hint) out.fix = err.hint;
    return out;
  }
}
