/**
 * `memtier bench extract [--data FILE] [--runs N]`: extraction quality on an annotated set, and
 * its cost as a cold whole process.
 *
 * FILE (default: the package's test/fixtures/extract/annotated.json) holds `{now, tz, messages:
 * [{lang, text, expect: [{type, contains}], never?: [text]}]}`. Each message is extracted alone;
 * a proposal is right when an expected entry of the message has its type and its `contains` is
 * in the proposal's text (each expected entry matched once). Reported: precision and recall per
 * type and overall, per language, and the violations that must stay at zero: a proposal holding a
 * credential (the store's secret table) or a `never` text (what the message asked not to keep).
 * Then `memtier extract --messages F --json` on a 200-message conversation made of the set's
 * messages, as a whole process, against bare `node -e ""` (medians, interleaved).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
interface DataSet { now: string; tz: string; messages: Annotated[] }

export interface PR { proposed: number; expected: number; correct: number; precision: number; recall: number }
export interface ExtractBenchReport {
  data: string;
  messages: number;
  overall: PR;
  byType: Record<string, PR>;
  byLang: Record<string, PR>;
  credentialsProposed: number;
  neverTextProposed: number;
  /** Each wrong or missed item, for reading. */
  misses: { text: string; expected?: string; proposed?: string }[];
  cold?: { messages: number; bareNodeMs: number; extractMs: number; ratio: number; runs: number };
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : 0; };
const pr = (c: { proposed: number; expected: number; correct: number }): PR => ({ ...c, precision: r3(c.proposed ? c.correct / c.proposed : 1), recall: r3(c.expected ? c.correct / c.expected : 1) });

/** Score the extraction of each message against its annotations. */
export function scoreExtraction(ds: DataSet): Omit<ExtractBenchReport, 'data' | 'cold'> {
  const now = new Date(ds.now);
  const count = () => ({ proposed: 0, expected: 0, correct: 0 });
  const all = count();
  const byType: Record<string, ReturnType<typeof count>> = {};
  const byLang: Record<string, ReturnType<typeof count>> = {};
  const misses: ExtractBenchReport['misses'] = [];
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

export function defaultData(): string | undefined {
  const bin = findBin();
  return bin ? join(dirname(dirname(bin)), 'test', 'fixtures', 'extract', 'annotated.json') : undefined;
}

function coldRun(ctx: Ctx, ds: DataSet, runs: number): NonNullable<ExtractBenchReport['cold']> {
  const bin = findBin();
  if (!bin) throw new UsageError('cannot find bin/memtier.js', 'run the benchmark from a built memtier (npm ci)');
  const dir = mkdtempSync(join(tmpdir(), 'memtier-bench-extract-'));
  try {
    const env: NodeJS.ProcessEnv = { PATH: ctx.env.PATH, HOME: ctx.env.HOME ?? tmpdir(), MEMTIER_ROOT: join(dir, 'mem'), MEMTIER_GIT: 'off', MEMTIER_TZ: 'UTC', MEMTIER_WATCH: 'off' };
    initMemory(makeTestCtx(join(dir, 'mem'), makeClock({ tz: 'UTC' }), env), join(dir, 'mem'));
    const conv: { role: string; content: string }[] = [];
    for (let i = 0; conv.length < 200; i++) {
      const m = ds.messages[i % ds.messages.length]!;
      conv.push({ role: 'user', content: m.text }, { role: 'assistant', content: 'Noted. I will keep that in mind for the next steps of this task.' });
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

export const bench: BenchSpec = {
  name: 'extract',
  summary: 'extraction precision/recall per type on an annotated set, and its cold cost on 200 messages',
  async run(ctx: Ctx, args: Args, _io: Io): Promise<CommandResult> {
    const given = flagString(args, 'data');
    const data = given ? resolve(ctx.cwd, given) : defaultData();
    if (!data) throw new UsageError('bench extract needs --data FILE', 'an annotated set such as test/fixtures/extract/annotated.json');
    let ds: DataSet;
    try { ds = JSON.parse(readFileSync(data, 'utf8')) as DataSet; } catch (e) {
      throw new UsageError(`cannot read ${data}: ${(e as Error).message}`, 'give --data an annotated set: {now, tz, messages: [{lang, text, expect: [{type, contains}]}]}');
    }
    if (!Array.isArray(ds.messages)) throw new UsageError(`${data} has no "messages" list`);
    const runs = flagNumber(args, 'runs') ?? 15;
    const rep: ExtractBenchReport = { data, ...scoreExtraction(ds), cold: coldRun(ctx, ds, runs) };
    const row = (k: string, p: PR): string => `${k.padEnd(10)} ${p.precision.toFixed(3)}  ${p.recall.toFixed(3)}   (${p.correct} right of ${p.proposed} proposed, ${p.expected} expected)`;
    const text = [
      `extraction on ${rep.messages} annotated messages (${data})`,
      `           precision recall`,
      row('all', rep.overall),
      ...Object.entries(rep.byType).map(([k, v]) => row(k, v)),
      ...Object.entries(rep.byLang).map(([k, v]) => row(k, v)),
      `credentials proposed: ${rep.credentialsProposed}; do-not-remember text proposed: ${rep.neverTextProposed}`,
      `cold whole process, 200 messages: ${rep.cold!.extractMs} ms vs bare node ${rep.cold!.bareNodeMs} ms (${rep.cold!.ratio}×, medians of ${runs})`,
      ...(rep.misses.length ? ['misses:', ...rep.misses.map((m) => `  ${m.proposed ? `wrong ${m.proposed}` : `missed ${m.expected}`}  ← ${m.text}`)] : []),
    ].join('\n');
    const bad = rep.credentialsProposed > 0 || rep.neverTextProposed > 0;
    return { text, json: rep, ...(bad ? { exitCode: 1 as const } : {}) };
  },
};
