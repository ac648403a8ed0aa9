/**
 * Documentation generated from the registry: docs/guide.md's check table and one doc entry per
 * check (`memtier health --list --markdown`, `memtier health --explain ID`).
 */
import { CHECKS } from './checks/index.js';
import type { Check } from './types.js';

export const TABLE_START = '<!-- health-checks:start -->';
export const TABLE_END = '<!-- health-checks:end -->';

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The markdown table of checks, in registry order (what goes between the markers of docs/guide.md). */
export function checksTable(checks: readonly Check[] = CHECKS): string {
  const rows = [
    '| check | what it verifies | severity | `--fix` | from |',
    '| --- | --- | --- | --- | --- |',
    ...checks.map((c) => `| \`${c.id}\` | ${cell(c.description)} | ${c.severity} | ${c.fixable ? 'yes' : 'no'} | ${cell(c.source)} |`),
  ];
  return rows.join('\n') + '\n';
}

/** The table wrapped in its markers, ready to paste into docs/guide.md. */
export function checksTableBlock(checks: readonly Check[] = CHECKS): string {
  return `${TABLE_START}\n${checksTable(checks)}${TABLE_END}\n`;
}

/** The text of docs/guide.md between the markers, or undefined when the markers are absent. */
export function tableInReadme(readme: string): string | undefined {
  const a = readme.indexOf(TABLE_START);
  const b = readme.indexOf(TABLE_END);
  if (a < 0 || b < a) return undefined;
  return readme.slice(a + TABLE_START.length, b).replace(/^\n/, '');
}

const fence = (s: string): string => '```\n' + s + '\n```';

/** The doc entry of one check: what triggers it, a failing example, the fix, why it matters. */
export function checkDoc(c: Check): string {
  return [
    `### \`${c.id}\``,
    '',
    `${c.description}. Severity: ${c.severity}; ${c.fixable ? 'repaired by `--fix`' : 'reported, never changed by `--fix`'}. From: ${c.source}.`,
    '',
    `**Triggers:** ${c.doc.trigger}.`,
    '',
    '**Failing:**',
    '',
    fence(c.doc.failing),
    '',
    '**Fixed:**',
    '',
    fence(c.doc.fixed),
    '',
    `**Why:** ${c.doc.why}.`,
    '',
  ].join('\n');
}
