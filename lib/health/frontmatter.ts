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
  const spec = '../format/frontmatter.js';
  try {
    const mod = (await import(spec)) as Record<string, unknown>;
    parser = typeof mod.parseFrontmatter === 'function' ? (mod.parseFrontmatter as Parser) : null;
  } catch {
    parser = null;
  }
  return parser;
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
  const p = await loadParser();
  if (!p) return undefined;
  try {
    p(text, file);
    return undefined;
  } catch (e) {
    const err = e as { message?: string; line?: number; hint?: string };
    const out: FrontmatterError = { line: err.line ?? 1, message: err.message ?? String(e) };
    if (err.hint) out.fix = err.hint;
    return out;
  }
}
