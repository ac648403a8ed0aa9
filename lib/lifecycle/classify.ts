/**
 * `memtier classify`: seed 002's orphans — log entries without a type, or without a tag — typed
 * and tagged with extraction's rules (lib/capture/rules.ts), tags only from TAGS.md. Lines
 * of memtier's own logs (memory/episodic/, the working buffer) are rewritten in place with --apply
 * (the id, time and words kept; only `[TYPE]` and `#tags` added); an entry of a day a person wrote
 * in OpenClaw's layout (memory/YYYY-MM-DD.md) is reported, never rewritten. What no rule places
 * is reported too.
 */
import type { Ctx } from '../core/context.js';
import { extract, tagsIn } from '../capture/extract.js';
import { formatEntryLine, parseEntries, type EntryType, type LocatedEntry } from '../format/entry.js';
import { PATHS, tagsFile } from '../format/layout.js';
import { parseVocabulary } from '../health/vocabulary.js';
import { applyPlanned, dayFiles, plural, read, type Op } from './common.js';
import { replaceLine } from './entries.js';

export interface Placed { path: string; line: number; id?: string; text: string; type?: EntryType; tags: string[]; rule?: string; rewritten: boolean }

export interface ClassifyResult {
  ok: true;
  dryRun: boolean;
  changed: boolean;
  placed: Placed[];
  /** Orphans no rule placed (path:line and text). */
  unplaced: { path: string; line: number; text: string }[];
  message: string;
}

function plan(ctx: Ctx, dryRun: boolean): { ops: Op[]; result: ClassifyResult } {
  const tagsText = read(ctx, tagsFile(ctx.root));
  const vocabulary = tagsText === undefined ? undefined : parseVocabulary(tagsText);
  const now = ctx.clock.now();
  const files = [
    ...dayFiles(ctx.root, ['episodic']).map((f) => ({ rel: f.rel, own: true })),
    { rel: PATHS.buffer, own: true },
    ...dayFiles(ctx.root, ['legacy-daily']).map((f) => ({ rel: f.rel, own: false })),
  ];
  const placed: Placed[] = [];
  const unplaced: ClassifyResult['unplaced'] = [];
  const ops: Op[] = [];
  for (const f of files) {
    const text = read(ctx, f.rel);
    if (!text) continue;
    let next = text;
    const orphans: LocatedEntry[] = parseEntries(text).filter((e) => !e.superseded && (!e.type || e.tags.length === 0));
    for (const e of orphans) {
      let type = e.type;
      let rule: string | undefined;
      if (!type) {
        const p = extract([{ role: 'user', content: e.text }], { now, tz: ctx.clock.tz }).proposals[0];
        if (p) { type = p.type; rule = p.rule; }
      }
      const tags = e.tags.length ? [] : tagsIn(e.text, vocabulary);
      if (!type && !e.type) { unplaced.push({ path: f.rel, line: e.line, text: e.text }); if (!tags.length) continue; }
      if (type === e.type && tags.length === 0) continue;
      const line = formatEntryLine({ ...e, ...(type ? { type } : {}), text: `${e.text}${tags.map((t) => ` #${t}`).join('')}` });
      placed.push({ path: f.rel, line: e.line, ...(e.id ? { id: e.id } : {}), text: e.text, ...(type && type !== e.type ? { type } : {}), tags, ...(rule ? { rule } : {}), rewritten: f.own });
      if (f.own) next = replaceLine(next, e.line, [line]);
    }
    if (next !== text) ops.push({ kind: 'write', rel: f.rel, content: next, expected: text });
  }
  const rewritten = placed.filter((p) => p.rewritten).length;
  const message = placed.length || unplaced.length
    ? `${dryRun ? 'would type or tag' : 'typed or tagged'} ${plural(rewritten, 'entry', 'entries')}${placed.length > rewritten ? `; ${placed.length - rewritten} in notes a person wrote (reported, not rewritten)` : ''}${unplaced.length ? `; ${unplaced.length} no rule placed` : ''}`
    : 'no orphans: every log entry has a type and a tag';
  return { ops, result: { ok: true, dryRun, changed: ops.length > 0, placed, unplaced, message } };
}

export function runClassify(ctx: Ctx, opts: { apply?: boolean } = {}): ClassifyResult {
  const dryRun = !opts.apply;
  return applyPlanned(ctx, () => plan(ctx, dryRun), { dryRun }).result;
}
