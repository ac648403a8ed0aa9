/**
 * `memtier close-day [DATE] [--date D]`: append the closure block (Updated / Decisions / Signal /
 * Open) to an episodic day, built from its entries. Never writes a second block.
 */
import type { Args, CommandResult, CommandSpec } from '../cli/spec.js';
import { flagString } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { localDate } from '../core/clock.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { classify, dayFile, episodicPath, PATHS } from '../format/layout.js';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, readMemoryFile } from '../store/store.js';
import { closureAppend } from '../format/closure.js';
import { readTimes } from '../format/time/read.js';
import { parseEntries } from '../format/entry.js';
import { rotate, ROTATING_DIR, type RotateResult } from '../wal/rotate.js';

/**
 * The day `value` names: `YYYY-MM-DD`, or (with `today`) a day in words, as lib/format/time reads
 * it for a question (the most recent such day): yesterday, "last friday", friday, 昨天, 上周五.
 */
export function parseDay(value: string, source: string, today?: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    if (!Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value)) return value;
  } else if (today) {
    const t = value.trim();
    const found = readTimes(t, today, { lean: 'ask', bareWeekdays: true });
    const p = found.length === 1 ? found[0]! : undefined;
    if (p && p.from === p.to && p.start === 0 && p.end === t.length) return p.from;
  }
  throw new UsageError(`${source} "${value.slice(0, 40)}" is not a date`, 'write it as YYYY-MM-DD (e.g. 2026-05-14) or a day in words: yesterday, "last friday", 昨天, 上周五');
}

/** OpenClaw daily files for a day (memory/YYYY-MM-DD.md, memory/YYYY-MM-DD-slug.md). */
export function legacyDayFiles(root: string, date: string): string[] {
  try {
    return readdirSync(join(root, 'memory')).filter((n) => n === `${date}.md` || (n.startsWith(`${date}-`) && n.endsWith('.md'))).sort().map((n) => `memory/${n}`);
  } catch {
    return [];
  }
}

/** Does the working buffer (or an interrupted rotation) hold any entry line? */
function bufferHasEntries(ctx: Ctx): boolean {
  try {
    if (parseEntries(readMemoryFile(ctx.root, PATHS.buffer) ?? '').length > 0) return true;
  } catch { return false; } // an unreadable buffer is health's business; close-day does not rotate it
  return existsSync(join(ctx.root, ROTATING_DIR)) && readdirSync(join(ctx.root, ROTATING_DIR)).some((n) => n.endsWith('.md'));
}

export const command: CommandSpec = {
  name: 'close-day',
  summary: 'write the closure block of a day from its entries',
  usage: ['close-day [DATE] [--date DATE]', 'close-day --file PATH'],
  description: `Appends the closure block to memory/episodic/DATE.md (default: today):

  ## Closure
  Updated: DATE
  Decisions: the day's [DECISION] entries, short, each with its (^id)
  Signal: the day's [LESSON] entries
  Open: "pending:" / "blocker:" entries no later "done:" entry of the day closed

Closing today first rotates the working buffer into today's file (as "memtier rotate --force"
does), so the block covers what the WAL logged today. An empty line says "none". Edit the values afterwards: this is a skeleton to refine.
A day whose last entry is already followed by a complete block is left alone; a partial block
gets only its missing lines. A day without an episodic file is an error (an OpenClaw daily file
memory/DATE.md is adopted first with "memtier adopt"). --file PATH closes one dated file itself,
e.g. a slug file memory/episodic/2026-10-05-vendor-call.md that shares its day with another.`,
  flags: [
    { name: 'date', type: 'string', value: 'DATE', description: 'the day to close: YYYY-MM-DD or a day in words (yesterday, "last friday", 昨天, 上周五; default: today in $MEMTIER_TZ)' },
    { name: 'file', type: 'string', value: 'PATH', description: 'close this dated file (YYYY-MM-DD[-slug].md, root-relative) instead of the day\'s episodic file' },
  ],
  examples: ['memtier close-day', 'memtier close-day 2026-05-14', 'memtier close-day yesterday', 'memtier close-day --date 2026-05-14 --json', 'memtier close-day --file memory/episodic/2026-05-14-vendor-call.md'],
  async run(ctx: Ctx, args: Args): Promise<CommandResult> {
    const flag = flagString(args, 'date');
    const file = flagString(args, 'file');
    // a day in words may come as several words: memtier close-day last friday
    const pos = args.positionals.length ? args.positionals.join(' ') : undefined;
    if ((args.positionals.length > 1 && args.positionals.some((p) => /^\d{4}-\d{2}-\d{2}$/.test(p))) || (flag && pos && flag !== pos)) throw new UsageError('close-day takes one date', 'e.g. memtier close-day 2026-05-14');
    if (file && (flag || pos)) throw new UsageError('close-day takes a date or --file, not both', 'e.g. memtier close-day --file memory/episodic/2026-05-14-vendor-call.md');
    const fileDate = file ? classify(file.replace(/^\.\//, '')).date : undefined;
    if (file && !fileDate) throw new UsageError(`--file ${file.slice(0, 80)} is not a dated day file`, 'name one such as memory/episodic/2026-05-14.md or memory/2026-05-14-vendor-call.md');
    const today = localDate(ctx.clock.now(), ctx.clock.tz);
    const date = fileDate ?? parseDay(flag ?? pos ?? today, flag ? '--date' : 'DATE', today);
    const rel = file ? file.replace(/^\.\//, '') : dayFile(ctx.root, date);
    // Closing today: today's WAL entries are still in the buffer; rotate them into the day first.
    let rotated: RotateResult | undefined;
    if (rel === dayFile(ctx.root, localDate(ctx.clock.now(), ctx.clock.tz)) && bufferHasEntries(ctx)) {
      rotated = rotate(ctx, { force: true });
    }
    const text = readMemoryFile(ctx.root, rel);
    if (text === undefined && file) throw new MemtierError(`no such file: ${rel}`, { code: 'missing', file: rel, hint: 'give the path relative to the memory root, as health prints it' });
    if (text === undefined) {
      const legacy = legacyDayFiles(ctx.root, date);
      throw new MemtierError(`no episodic file for ${date}`, {
        code: 'missing',
        file: rel,
        hint: legacy.length
          ? `the day lives in ${legacy.join(', ')} (OpenClaw): run "memtier adopt" to move it to ${rel}, then close it`
          : `nothing was logged that day; write entries with "memtier add" or "memtier wal", or pick another --date`,
      });
    }
    let plan = closureAppend(date, text);
    let written = false;
    if (plan.append !== undefined) {
      written = openStore(ctx).mutate((tx) => {
        const cur = tx.read(rel);
        if (cur === undefined) throw new MemtierError(`${rel} disappeared while closing the day`, { code: 'missing', file: rel, hint: 'run the command again' });
        if (cur !== text) plan = closureAppend(date, cur); // edited meanwhile: recompute under the lock
        if (plan.append === undefined) return false;
        tx.append(rel, plan.append);
        return true;
      });
    }
    const v = plan.values;
    const partial = plan.status.have.size > 0 && plan.status.missing.length > 0;
    const lines: string[] = [];
    if (rotated?.moved) lines.push(`rotated the working buffer first: ${rotated.message}`);
    if (!written) lines.push(`${rel} already ends with a closure block; nothing written`);
    else {
      lines.push(`${partial ? `completed the closure block of ${rel} (${plan.status.missing.join(', ')})` : `closed ${rel}`}:`);
      for (const k of plan.status.missing as (keyof typeof v)[]) lines.push(`  ${k}: ${v[k]}`);
      if (plan.status.earlierBlockLine) lines.push(`note: an earlier closure block at line ${plan.status.earlierBlockLine} is followed by later entries; this block covers the whole day`);
      lines.push(`edit the values in ${rel} if they need more than the entries say`);
    }
    if (!file && existsSync(join(ctx.root, 'memory', `${date}.md`))) lines.push(`note: memory/${date}.md (OpenClaw) also holds this day; "memtier adopt" moves it into memory/episodic/`);
    return {
      text: lines.join('\n'),
      json: { ok: true, path: rel, date, written, ...(rotated ? { rotated: { moved: rotated.moved, skipped: rotated.skipped, recovered: rotated.recovered } } : {}), missing: written ? plan.status.missing : [], values: v, ...(plan.status.earlierBlockLine ? { earlierBlockLine: plan.status.earlierBlockLine } : {}) },
    };
  },
};
