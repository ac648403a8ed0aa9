/**
 * MEMORY.md, the HOT index loaded every session: its hard budget (lines and bytes, the same
 * limits `health` checks: MEMTIER_HEALTH_MEMORY_LINES / MEMTIER_HEALTH_MEMORY_BYTES, default 60
 * lines and 6 KiB) and budget-respecting edits of one of its sections.
 */
import { lineCount } from '../format/lines.js';
import type { Ctx } from '../core/context.js';
import { limitsFrom } from '../memory/limits.js';

export const DEFAULT_MEMORY_LINES = 60;

export function memoryBudget(ctx: Ctx): { lines: number; bytes: number } {
  const l = limitsFrom(ctx.env);
  return { lines: l.memoryLines, bytes: l.memoryBytes };
}


export function fitsBudget(text: string, budget: { lines: number; bytes: number }): boolean {
  return lineCount(text) <= budget.lines && Buffer.byteLength(text) <= budget.bytes;
}

/**
 * Add `lines` to the end of section `heading` (created at the end when missing), one at a time
 * while the file stays within `budget`. Returns the new text and which lines did not fit.
 */
export function addToSection(text: string, heading: string, lines: string[], budget: { lines: number; bytes: number }): { text: string; added: string[]; overflow: string[] } {
  let cur = text.endsWith('\n') || text === '' ? text : text + '\n';
  const added: string[] = [];
  const overflow: string[] = [];
  for (const l of lines) {
    const next = insertInSection(cur, heading, l);
    if (fitsBudget(next, budget)) { cur = next; added.push(l); } else overflow.push(l);
  }
  return { text: cur, added, overflow };
}

function insertInSection(text: string, heading: string, line: string): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  const h = lines.findIndex((l) => l.trim().toLowerCase() === heading.toLowerCase());
  if (h < 0) return `${lines.join('\n')}${lines.length && lines[0] !== '' ? '\n\n' : ''}${heading}\n${line}\n`;
  let end = h + 1;
  while (end < lines.length && !/^#{1,6}\s/.test(lines[end]!)) end++;
  let at = end;
  while (at > h + 1 && lines[at - 1]!.trim() === '') at--;
  lines.splice(at, 0, line);
  return lines.join('\n') + '\n';
}
