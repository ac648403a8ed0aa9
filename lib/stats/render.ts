/**
 * Text rendering of `memtier stats`: short aligned lists; on a terminal, small unicode bar
 * charts where a picture reads faster than a column of numbers (types, tags, months,
 * activation, growth).
 */
import { displayWidth, padDisplay } from '../format/width.js';
import type { Stats } from './collect.js';

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar of `width` cells for `value` out of `max`, in eighth-cell steps. */
export function bar(value: number, max: number, width = 20): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}

export function human(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

const num = (n: number): string => n.toLocaleString('en-US');

function chart(title: string, m: Record<string, number>, charts: boolean, fmt: (n: number) => string = num): string[] {
  const rows = Object.entries(m);
  if (rows.length === 0) return [];
  const w = Math.max(...rows.map(([k]) => displayWidth(k)));
  const max = Math.max(...rows.map(([, v]) => v));
  const vw = Math.max(...rows.map(([, v]) => fmt(v).length));
  return [title, ...rows.map(([k, v]) => `  ${padDisplay(k, w)}  ${fmt(v).padStart(vw)}${charts ? `  ${bar(v, max)}` : ''}`.trimEnd())];
}

const inline = (m: Record<string, number>, fmt: (n: number) => string = num): string => Object.entries(m).map(([k, v]) => `${k} ${fmt(v)}`).join(' · ');

export function renderStats(s: Stats, opts: { charts: boolean }): string {
  const c = opts.charts;
  const out: string[] = [];
  out.push(`Files      ${num(s.files.total)} files, ${human(s.bytes.total)} (trash ${human(s.bytes.trash)}, .memtier ${human(s.bytes.state)})`);
  out.push(`  by tier  ${inline(s.files.byTier)}`);
  out.push(`  size     ${inline(s.bytes.byTier, human)}`);
  out.push(`Tokens     HOT tier (loaded every session) ≈ ${num(s.tokens.hot)}; whole memory ≈ ${num(s.tokens.total)}`);
  if (Object.keys(s.tokens.hotFiles).length) out.push(`  HOT      ${inline(s.tokens.hotFiles)}`);
  out.push(`  by tier  ${inline(s.tokens.byTier)}`);
  out.push(`  (estimate: ${s.tokens.estimator})`);
  out.push(`Entries    ${num(s.entries.total)} (${num(s.entries.superseded)} superseded, ${num(s.entries.orphans)} orphans without [TYPE] or #tag)`);
  out.push(...chart('  by type', s.entries.byType, c).map((l, i) => (i ? '  ' + l : l)));
  out.push(...chart('  by tag (top 20)', s.entries.byTag, c).map((l, i) => (i ? '  ' + l : l)));
  out.push(...chart('  by month', s.entries.byMonth, c).map((l, i) => (i ? '  ' + l : l)));
  if (s.activation.buckets.length) {
    out.push(`Activation mean ${s.activation.mean ?? '-'} (${s.activation.source})`);
    out.push(...chart('', Object.fromEntries(s.activation.buckets.map((b) => [b.label, b.count])), c).slice(1));
  } else {
    out.push(`Activation ${s.activation.source}`);
  }
  out.push(...chart('Growth per week (bytes of files dated that week)', s.growth.bytesByWeek, c, human));
  out.push(...chart('Growth per month (entries)', s.growth.entriesByMonth, c));
  out.push('Largest files');
  for (const f of s.bytes.largest) out.push(`  ${human(f.bytes).padStart(9)}  ${f.file}`);
  return out.join('\n');
}
