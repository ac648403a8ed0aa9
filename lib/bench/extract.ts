/**
 * `memtier bench extract [--data FILE] [--runs N]`: extraction quality on annotated sets, and its
 * cost as a cold whole process.
 *
 * Two kinds of set, told apart by their shape:
 *
 *   conversation  `{now, tz, messages: [{lang, text, expect: [{type, contains}], never?: [text]}]}`
 *                 (default: the package's test/fixtures/extract/annotated.json). Each message is
 *                 extracted alone; a proposal is right when an expected entry of the message has
 *                 its type and its `contains` is in the proposal's text (each expected entry
 *                 matched once). Also counted, and to stay at zero: a proposal holding a credential
 *                 (the store's secret table) or a `never` text (what the message asked not to keep).
 *   notes         `{now, tz, days: [{lang, day, lines: [{text, type}]}]}` (default: the package's
 *                 test/fixtures/extract/freeform-notes.json): free-form daily notes, each line
 *                 extracted alone with its note's day, as review and consolidate read an untyped
 *                 bullet. `type` is the line's type, "none", or a list of acceptable types (with
 *                 "none" in it, no proposal is acceptable too). Precision: proposals whose type the
 *                 line accepts / all proposals; recall: typed lines (no "none") with a proposal of
 *                 an accepted type / all typed lines.
 *
 * Without --data both defaults are scored. Reported per set: precision and recall overall, per
 * type and per language, and each wrong or missed item. Then `memtier extract --messages F --json`
 * on a 200-message conversation made of the conversation set's messages (a notes set's lines when
 * only that is given), as a whole process, against bare `node -e ""` (medians, interleaved).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Args, CommandResult, Io } from '../cli/spec.js';
import { flagNumber, flagString } from '../cli/spec.js';
import { findBin } from '../core/bin.js';
import type { Ctx } from '../core/context.js';
import { makeClock } from '../core/clock.js';
import { makeTestCtx } from '../core/context.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { extract, type Proposal } from '../capture/extract.js';
import type { BenchSpec } from '../commands/bench.js';
import { initMemory } from '../commands/init.js';
import { scanSecrets } from '../store/guards/secrets.js';

interface Annotated { lang: string; text: string; expect: { type: string; contains: string }[]; never?: string[] }
/** A conversation set: messages with the entries each should yield. */
export interface DataSet { now: string; tz: string; messages: Annotated[] }
/** A line of a free-form note: its type, "none", or the types it accepts (with "none": no proposal is acceptable too). */
export interface NoteLine { text: string; type: string | string[] }
/** A notes set: daily notes of free-form lines, each line annotated. */
export interface NotesSet { now: string; tz: string; days: { lang: string; day: string; lines: NoteLine[] }[] }

export interface PR { proposed: number; expected: number; correct: number; precision: number; recall: number }
/** A notes set's counts: `correct` proposals of an accepted type (precision), `found` typed lines with one (recall). */
export interface NotesPR extends PR { found: number }
export type Miss = { text: string; expected?: string; proposed?: string };

export interface NotesReport {
  data: string;
  /** Lines, and lines annotated with a type (not "none"). */
  lines: number;
  typed: number;
  overall: NotesPR;
  byType: Record<string, NotesPR>;
  byLang: Record<string, NotesPR>;
  /** Each wrong proposal and missed line, for reading. */
  misses: Miss[];
}

export interface ExtractBenchReport {
  /** The conversation set (its fields at the top, as before the notes set): absent when --data is a notes set. */
  data?: string;
  messages?: number;
  overall?: PR;
  byType?: Record<string, PR>;
  byLang?: Record<string, PR>;
  credentialsProposed?: number;
  neverTextProposed?: number;
  /** Each wrong or missed item, for reading. */
  misses?: Miss[];
  /** The free-form notes set. */
  notes?: NotesReport;
  cold?: { messages: number; bareNodeMs: number; extractMs: number; ratio: number; runs: number };
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : 0; };
const pr = (c: { proposed: number; expected: number; correct: number }): PR => ({ ...c, precision: r3(c.proposed ? c.correct / c.proposed : 1), recall: r3(c.expected ? c.correct / c.expected : 1) });

/** Score the extraction of each message against its annotations. */
export function scoreExtraction(ds: DataSet): { messages: number; overall: PR; byType: Record<string, PR>; byLang: Record<string, PR>; credentialsProposed: number; neverTextProposed: number; misses: Miss[] } {
  const now = new Date(ds.now);
  const count = () => ({ proposed: 0, expected: 0, correct: 0 });
  const all = count();
  const byType: Record<string, ReturnType<typeof count>> = {};
  const byLang: Record<string, ReturnType<typeof count>> = {};
  const misses: Miss[] = [];
  let credentials = 0;
  let never = 0;
  const bump = (m: Record<string, ReturnType<typeof count>>, k: string, f: 'proposed' | 'expected' | 'correct'): void => { (m[k] ??= count())[f]++; };
  for (const msg of ds.messages) {
    const { proposals } = extract([{ role: 'user', content: msg.text }], { now, tz: ds.tz });
    const open = [...msg.expect];
    const matched = new Set<Proposal>();
    for (const p of proposals) {
      const i = open.findIndex((e) => e.type === p.type && p.text.includes(e.contains));
      if (i >= 0) { open.splice(i, 1); matched.add(p); }
      if (scanSecrets(p.text).length) credentials++;
      if ((msg.never ?? []).some((n) => p.text.includes(n))) never++;
    }
    for (const p of proposals) {
      all.proposed++; bump(byType, p.type, 'proposed'); bump(byLang, msg.lang, 'proposed');
      if (matched.has(p)) { all.correct++; bump(byType, p.type, 'correct'); bump(byLang, msg.lang, 'correct'); }
      else misses.push({ text: msg.text, proposed: `[${p.type}] ${p.text} (${p.rule})` });
    }
    for (const e of msg.expect) { all.expected++; bump(byType, e.type, 'expected'); bump(byLang, msg.lang, 'expected'); }
    for (const e of open) misses.push({ text: msg.text, expected: `[${e.type}] …${e.contains}…` });
  }
  const map = (m: Record<string, ReturnType<typeof count>>): Record<string, PR> => Object.fromEntries(Object.entries(m).sort().map(([k, v]) => [k, pr(v)]));
  return { messages: ds.messages.length, overall: pr(all), byType: map(byType), byLang: map(byLang), credentialsProposed: credentials, neverTextProposed: never, misses };
}

/** The types a note line accepts, and whether it accepts no proposal ("none"). */
export function accepted(line: NoteLine): { types: string[]; none: boolean } {
  const all = Array.isArray(line.type) ? line.type : [line.type];
  return { types: all.filter((t) => t !== 'none'), none: all.includes('none') };
}

/**
 * Score extraction on free-form daily notes: each line extracted alone with its note's day (as
 * review and consolidate read an untyped bullet). Precision: proposals of a type the line accepts
 * / all proposals; recall: typed lines with such a proposal / all typed lines. Per type, a line
 * counts for its first type.
 */
export function scoreNotes(ds: NotesSet, data = ''): NotesReport {
  const now = new Date(ds.now);
  const count = () => ({ proposed: 0, expected: 0, correct: 0, found: 0 });
  const all = count();
  const byType: Record<string, ReturnType<typeof count>> = {};
  const byLang: Record<string, ReturnType<typeof count>> = {};
  const misses: Miss[] = [];
  const bump = (m: Record<string, ReturnType<typeof count>>, k: string, f: 'proposed' | 'expected' | 'correct' | 'found'): void => { (m[k] ??= count())[f]++; };
  let lines = 0;
  for (const note of ds.days) {
    for (const line of note.lines) {
      lines++;
      const { types, none } = accepted(line);
      const { proposals } = extract([{ role: 'user', content: line.text }], { now, tz: ds.tz, day: note.day });
      let found = false;
      for (const p of proposals) {
        all.proposed++; bump(byType, p.type, 'proposed'); bump(byLang, note.lang, 'proposed');
        if (types.includes(p.type)) { found = true; all.correct++; bump(byType, p.type, 'correct'); bump(byLang, note.lang, 'correct'); }
        else misses.push({ text: line.text, proposed: `[${p.type}] ${p.text} (${p.rule})`, expected: types.length ? types.join('|') : 'none' });
      }
      if (none || !types.length) continue;
      all.expected++; bump(byType, types[0]!, 'expected'); bump(byLang, note.lang, 'expected');
      if (found) { all.found++; bump(byType, types[0]!, 'found'); bump(byLang, note.lang, 'found'); }
      else if (!proposals.length) misses.push({ text: line.text, expected: types.join('|') });
    }
  }
  const npr = (c: ReturnType<typeof count>): NotesPR => ({ ...c, precision: r3(c.proposed ? c.correct / c.proposed : 1), recall: r3(c.expected ? c.found / c.expected : 1) });
  const map = (m: Record<string, ReturnType<typeof count>>): Record<string, NotesPR> => Object.fromEntries(Object.entries(m).sort().map(([k, v]) => [k, npr(v)]));
  return { data, lines, typed: all.expected, overall: npr(all), byType: map(byType), byLang: map(byLang), misses };
}

/** The package's test/fixtures/extract/FILE (annotated.json: the conversation set; freeform-notes.json: the notes set). */
export function defaultData(file = 'annotated.json'): string | undefined {
  const bin = findBin();
  return bin ? join(dirname(dirname(bin)), 'test', 'fixtures', 'extract', file) : undefined;
}

function coldRun(ctx: Ctx, texts: string[], runs: number): NonNullable<ExtractBenchReport['cold']> {
  const bin = findBin();
  if (!bin) throw new UsageError('cannot find bin/memtier.js', 'run the benchmark from a built memtier (npm ci)');
  const dir = mkdtempSync(join(tmpdir(), 'memtier-bench-extract-'));
  try {
    const env: NodeJS.ProcessEnv = { PATH: ctx.env.PATH, HOME: ctx.env.HOME ?? tmpdir(), MEMTIER_ROOT: join(dir, 'mem'), MEMTIER_GIT: 'off', MEMTIER_TZ: 'UTC', MEMTIER_WATCH: 'off' };
    initMemory(makeTestCtx(join(dir, 'mem'), makeClock({ tz: 'UTC' }), env), join(dir, 'mem'));
    const conv: { role: string; content: string }[] = [];
    for (let i = 0; conv.length < 200; i++) {
      conv.push({ role: 'user', content: texts[i % texts.length]! }, { role: 'assistant', content: 'Noted. I will keep that in mind for the next steps of this task.' });
    }
    const file = join(dir, 'conversation.json');
    writeFileSync(file, JSON.stringify(conv.slice(0, 200)));
    const time = (args: string[]): number => {
      const t = performance.now();
      const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
      if (r.status !== 0) throw new MemtierError(`${args.join(' ').slice(0, 80)} failed (exit ${r.status}): ${(r.stderr ?? '').slice(0, 300)}`, { code: 'bench' });
      return performance.now() - t;
    };
    time(['-e', '']);
    time([bin, 'extract', '--messages', file, '--json']);
    const bare: number[] = [];
    const ex: number[] = [];
    for (let i = 0; i < runs; i++) {
      if (i % 2) { bare.push(time(['-e', ''])); ex.push(time([bin, 'extract', '--messages', file, '--json'])); }
      else { ex.push(time([bin, 'extract', '--messages', file, '--json'])); bare.push(time(['-e', ''])); }
    }
    const b = median(bare);
    const e = median(ex);
    return { messages: 200, bareNodeMs: Math.round(b * 10) / 10, extractMs: Math.round(e * 10) / 10, ratio: Math.round((e / b) * 100) / 100, runs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A set's file, read and told apart by its shape (messages: a conversation set; days: a notes set). */
function readSet(data: string): { conversation?: DataSet; notes?: NotesSet } {
  let ds: Partial<DataSet & NotesSet>;
  try { ds = JSON.parse(readFileSync(data, 'utf8')) as Partial<DataSet & NotesSet>; } catch (e) {
    throw new UsageError(`cannot read ${data}: ${(e as Error).message}`, 'give --data an annotated set: {now, tz, messages: [{lang, text, expect: [{type, contains}]}]} or free-form notes {now, tz, days: [{lang, day, lines: [{text, type}]}]}');
  }
  if (Array.isArray(ds.messages)) return { conversation: ds as DataSet };
  if (Array.isArray(ds.days)) return { notes: ds as NotesSet };
  throw new UsageError(`${data} has no "messages" list (a conversation set) nor "days" list (free-form notes)`);
}

export const bench: BenchSpec = {
  name: 'extract',
  summary: 'extraction precision/recall per type and language on annotated conversation messages and free-form daily notes, and its cold cost on 200 messages',
  async run(ctx: Ctx, args: Args, _io: Io): Promise<CommandResult> {
    const given = flagString(args, 'data');
    const files = given ? [resolve(ctx.cwd, given)] : [defaultData('annotated.json'), defaultData('freeform-notes.json')];
    // the default sets are in the source repository (test/fixtures), not in an installed package
    if (files.some((f) => !f || (!given && !existsSync(f)))) throw new UsageError('bench extract needs --data FILE here (its default sets ship with the source repository, not the package)', 'an annotated set such as test/fixtures/extract/annotated.json or test/fixtures/extract/freeform-notes.json of a memtier clone');
    const rep: ExtractBenchReport = {};
    const out: string[] = [];
    const row = (k: string, p: PR | NotesPR): string => `${k.padEnd(10)} ${p.precision.toFixed(3)}  ${p.recall.toFixed(3)}   (${p.correct} right of ${p.proposed} proposed, ${'found' in p ? `${p.found} of ${p.expected} typed lines found` : `${p.expected} expected`})`;
    const missLines = (ms: Miss[]): string[] => ms.length ? ['misses:', ...ms.map((m) => `  ${m.proposed ? `wrong ${m.proposed}${m.expected ? ` (annotated ${m.expected})` : ''}` : `missed [${m.expected}]`}  ← ${m.text}`)] : [];
    let texts: string[] = [];
    for (const file of files as string[]) {
      const set = readSet(file);
      if (set.conversation) {
        const ds = set.conversation;
        Object.assign(rep, { data: file, ...scoreExtraction(ds) });
        texts = ds.messages.map((m) => m.text);
        out.push(
          `extraction on ${rep.messages} annotated messages (${file})`,
          `           precision recall`,
          row('all', rep.overall!),
          ...Object.entries(rep.byType!).map(([k, v]) => row(k, v)),
          ...Object.entries(rep.byLang!).map(([k, v]) => row(k, v)),
          `credentials proposed: ${rep.credentialsProposed}; do-not-remember text proposed: ${rep.neverTextProposed}`,
          ...missLines(rep.misses!),
        );
      } else {
        const n = (rep.notes = scoreNotes(set.notes!, file));
        if (!texts.length) texts = set.notes!.days.flatMap((d) => d.lines.map((l) => l.text));
        if (out.length) out.push('');
        out.push(
          `extraction on free-form daily notes: ${n.lines} lines, ${n.typed} of them typed (${file})`,
          `           precision recall`,
          row('all', n.overall),
          ...Object.entries(n.byType).map(([k, v]) => row(k, v)),
          ...Object.entries(n.byLang).map(([k, v]) => row(k, v)),
          ...missLines(n.misses),
        );
      }
    }
    // --runs 0: the quality only, no cold whole-process measurement
    const runs = flagNumber(args, 'runs') ?? 15;
    if (runs > 0) {
      rep.cold = coldRun(ctx, texts, runs);
      out.push('', `cold whole process, 200 messages: ${rep.cold.extractMs} ms vs bare node ${rep.cold.bareNodeMs} ms (${rep.cold.ratio}×, medians of ${runs})`);
    }
    const bad = (rep.credentialsProposed ?? 0) > 0 || (rep.neverTextProposed ?? 0) > 0;
    return { text: out.join('\n'), json: rep, ...(bad ? { exitCode: 1 as const } : {}) };
  },
};
