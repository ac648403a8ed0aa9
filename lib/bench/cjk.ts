/**
 * `memtier bench cjk (--data DIR | --memory DIR --queries FILE) [--json]`
 *
 * Search quality on a bilingual memory with questions (`../shared/bench/cjk-dev`: Chinese, English
 * and mixed). The memory is copied to a temporary folder (the data is never written), every
 * question goes through `search` with default settings, in process, with the clock the data's
 * README states (cjk-dev: 2026-07-21 09:00 in Asia/Shanghai) unless `--now`/MEMTIER_NOW and
 * MEMTIER_TZ say otherwise. A question hits at k when one of the first k results points at (its
 * line range) or holds the line with the answer. Reported: hit@1, hit@5 and MRR, overall and per
 * language, each miss at 1 with the question, the answer's line and what came first; and beside
 * them, in the same run, plain BM25 over character bigrams (CJK) and words (everything else) on
 * the memory's lines, the baseline any keyword search without a Chinese tokenizer reaches.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Args, CommandResult, Io } from '../cli/spec.js';
import { flagString } from '../cli/spec.js';
import { makeClock } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { makeTestCtx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import type { BenchSpec } from '../commands/bench.js';
import { loadIndex, searchDetailed } from '../search/search.js';
import { assertMemoryFolder, dataClock, locateAnswers, mdFiles, rankOf, readAlternates, readQueries, scoreByLang, type Answer, type Query, type Score } from './qa-data.js';

export interface Miss {
  id: string;
  q: string;
  lang: string;
  /** 1-based rank of the answer in the first 5, or 0. */
  rank: number;
  expect: { file: string; line: number; text: string };
  first?: { file: string; line: number; text: string };
}

export interface CjkBenchReport {
  memory: string;
  queries: number;
  clock: { now: string; tz: string };
  memtier: Score & { byLang: Record<string, Score>; misses: Miss[] };
  /** With the alternates file's words for each question (--alternates); its misses. */
  alternates?: Score & { byLang: Record<string, Score>; misses: Miss[]; given: number };
  bigram: Score & { byLang: Record<string, Score> };
}

/** Tokens of plain keyword search without a Chinese tokenizer: CJK character bigrams (a lone character alone), other letters and digits as lower-case words. */
export function bigramTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[\p{L}\p{N}]+/gu)) {
    const run = m[0];
    if (!/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(run)) { out.push(run); continue; }
    const chars = [...run];
    if (chars.length === 1) out.push(run);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  }
  return out;
}

interface Line { file: string; line: number; text: string; tf: Map<string, number>; len: number }

/** Plain BM25 (k1 1.2, b 0.75) over the memory's non-empty lines: the first `k` lines for `query`. */
export class BigramBm25 {
  private readonly lines: Line[] = [];
  private readonly df = new Map<string, number>();
  private avg = 0;
  constructor(root: string) {
    for (const file of mdFiles(root)) {
      readFileSync(join(root, file), 'utf8').split('\n').forEach((text, i) => {
        const toks = bigramTokens(text);
        if (!toks.length) return;
        const tf = new Map<string, number>();
        for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
        for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
        this.lines.push({ file, line: i + 1, text, tf, len: toks.length });
      });
    }
    this.avg = this.lines.reduce((s, l) => s + l.len, 0) / Math.max(1, this.lines.length);
  }
  search(query: string, k: number): Line[] {
    const terms = [...new Set(bigramTokens(query))];
    const n = this.lines.length;
    const scored: { l: Line; s: number }[] = [];
    for (const l of this.lines) {
      let s = 0;
      for (const t of terms) {
        const f = l.tf.get(t);
        if (!f) continue;
        const df = this.df.get(t)!;
        s += Math.log(1 + (n - df + 0.5) / (df + 0.5)) * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * (l.len / this.avg)));
      }
      if (s > 0) scored.push({ l, s });
    }
    return scored.sort((a, b) => b.s - a.s).slice(0, k).map((x) => x.l);
  }
}

export async function runCjkBench(ctx: Ctx, o: { memory: string; queries: string; data?: string; alternates?: Map<string, string> }): Promise<CjkBenchReport> {
  const hint = 'give --data a folder with memory/ and queries.json (e.g. ../shared/bench/cjk-dev), or --memory DIR --queries FILE';
  const queries: Query[] = readQueries(o.queries, hint);
  assertMemoryFolder(o.memory, hint);
  const stated = o.data ? dataClock(o.data) : {};
  const now = ctx.clock.fixed ? ctx.clock.now().toISOString() : stated.now;
  const tz = ctx.env.MEMTIER_TZ ?? stated.tz ?? ctx.clock.tz;
  const dir = mkdtempSync(join(tmpdir(), 'memtier-bench-cjk-'));
  try {
    const root = join(dir, 'memory');
    cpSync(o.memory, root, { recursive: true });
    const answers = locateAnswers(root, queries);
    const clock = makeClock({ now, tz });
    const sctx = makeTestCtx(root, clock, { MEMTIER_GIT: 'off' });
    const index = await loadIndex(sctx);
    const fileLines = new Map<string, string[]>();
    const lineText = (file: string, line: number): string => {
      let ls = fileLines.get(file);
      if (!ls) { ls = readFileSync(join(root, file), 'utf8').split('\n'); fileLines.set(file, ls); }
      return (ls[line - 1] ?? '').trim();
    };
    const ask = async (alts?: Map<string, string>): Promise<{ ranks: number[]; misses: Miss[] }> => {
      const ranks: number[] = [];
      const misses: Miss[] = [];
      for (const q of queries) {
        const alternates = alts?.get(q.id);
        const resp = await searchDetailed(sctx, q.q, { k: 5, index, ...(alternates ? { alternates } : {}) });
        const a: Answer = answers.get(q.id)!;
        const byRange = rankOf(resp.results.map((r) => ({ path: r.path, startLine: r.line, endLine: r.endLine })), a);
        const byText = resp.results.findIndex((r) => r.text.includes(q.expect)) + 1;
        const rank = byRange && byText ? Math.min(byRange, byText) : byRange || byText;
        ranks.push(rank);
        if (rank !== 1) {
          const f = resp.results[0];
          misses.push({
            id: q.id, q: q.q, lang: q.lang ?? 'all', rank,
            expect: { file: a.file, line: a.line, text: lineText(a.file, a.line) },
            ...(f ? { first: { file: f.path, line: f.line, text: f.text.replace(/\s+/g, ' ').trim() } } : {}),
          });
        }
      }
      return { ranks, misses };
    };
    const { ranks, misses } = await ask();
    const withAlts = o.alternates ? await ask(o.alternates) : undefined;
    const bm = new BigramBm25(root);
    const bRanks = queries.map((q) => {
      const a = answers.get(q.id)!;
      return bm.search(q.q, 5).findIndex((l) => l.file === a.file && l.line === a.line) + 1;
    });
    return {
      memory: o.memory,
      queries: queries.length,
      clock: { now: clock.now().toISOString(), tz },
      memtier: { ...scoreByLang(queries, ranks), misses },
      ...(withAlts ? { alternates: { ...scoreByLang(queries, withAlts.ranks), misses: withAlts.misses, given: queries.filter((q) => o.alternates!.has(q.id)).length } } : {}),
      bigram: scoreByLang(queries, bRanks),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function renderCjk(rep: CjkBenchReport): string {
  const langs = Object.keys(rep.memtier.byLang);
  const row = (name: string, s: CjkBenchReport['bigram']): string => [
    name.padEnd(16),
    `${s.hit1.toFixed(3)}  ${s.hit5.toFixed(3)}  ${s.mrr.toFixed(3)}`,
    ...langs.map((l) => `${s.byLang[l]!.hit1.toFixed(3)}/${s.byLang[l]!.hit5.toFixed(3)}`.padStart(14)),
  ].join('  ');
  const lines = [
    `${rep.queries} questions on ${rep.memory} (clock ${rep.clock.now}, ${rep.clock.tz})`,
    ['search'.padEnd(16), 'hit@1  hit@5  MRR  ', ...langs.map((l) => `${l} (n=${rep.memtier.byLang[l]!.n}) @1/@5`.padStart(14))].join('  '),
    row('memtier', rep.memtier),
    ...(rep.alternates ? [row('+ alternates', rep.alternates)] : []),
    row('bigram BM25', rep.bigram),
  ];
  if (rep.alternates) lines.push(`(+ alternates: the same search with --alternates' words for ${rep.alternates.given} of the ${rep.queries} questions; its misses below)`);
  const missed = rep.alternates?.misses ?? rep.memtier.misses;
  if (missed.length) {
    lines.push('', `not first${rep.alternates ? ' with alternates' : ''} (${missed.length}):`);
    for (const m of missed) {
      lines.push(`  ${m.id} [${m.lang}] ${m.rank ? `rank ${m.rank}` : 'not in 5'}: ${m.q}`);
      lines.push(`    answer ${m.expect.file}:${m.expect.line}  ${cut(m.expect.text, 100)}`);
      lines.push(m.first ? `    first  ${m.first.file}:${m.first.line}  ${cut(m.first.text, 100)}` : '    first  (nothing found)');
    }
  }
  return lines.join('\n');
}

export const bench: BenchSpec = {
  name: 'cjk',
  summary: 'search quality on a bilingual memory with questions: hit@1/hit@5/MRR per language, beside plain bigram BM25',
  async run(ctx: Ctx, args: Args, _io: Io): Promise<CommandResult> {
    const data = flagString(args, 'data');
    const memoryFlag = flagString(args, 'memory');
    const queriesFlag = flagString(args, 'queries');
    if (!data && (!memoryFlag || !queriesFlag)) {
      throw new UsageError('bench cjk needs --data DIR, or --memory DIR and --queries FILE', 'e.g. memtier bench cjk --data ../shared/bench/cjk-dev');
    }
    const dataDir = data ? resolve(ctx.cwd, data) : undefined;
    const altFile = flagString(args, 'alternates');
    const rep = await runCjkBench(ctx, {
      ...(altFile ? { alternates: readAlternates(resolve(ctx.cwd, altFile)) } : {}),
      memory: memoryFlag ? resolve(ctx.cwd, memoryFlag) : join(dataDir!, 'memory'),
      queries: queriesFlag ? resolve(ctx.cwd, queriesFlag) : join(dataDir!, 'queries.json'),
      ...(dataDir ? { data: dataDir } : {}),
    });
    return { text: renderCjk(rep), json: rep };
  },
};
