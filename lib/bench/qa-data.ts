/**
 * Question sets over a memory folder, shared by `bench cjk` and `bench openclaw`: a folder with
 * `memory/` (a memory root) and `queries.json` (`[{id, q, expect, lang}]`, `expect` a substring of
 * the one line that answers the question), and the memory's clock when its README states one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MemtierError, UsageError } from '../core/errors.js';

export interface Query { id: string; q: string; expect: string; lang?: string }
export interface Answer { file: string; line: number }
export interface Hit { path: string; startLine: number; endLine?: number }

export const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/** The markdown files under `dir`, relative, `/`-separated, dot-folders skipped. */
export function mdFiles(dir: string, root = dir): string[] {
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    if (d.name.startsWith('.')) continue;
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...mdFiles(p, root));
    else if (d.name.endsWith('.md')) out.push(relative(root, p).replace(/\\/g, '/'));
  }
  return out.sort();
}

export function readQueries(file: string, hint: string): Query[] {
  let raw: unknown;
  try { raw = JSON.parse(readFileSync(file, 'utf8')); } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`, hint);
  }
  if (!Array.isArray(raw) || raw.some((q) => typeof q?.id !== 'string' || typeof q?.q !== 'string' || typeof q?.expect !== 'string')) {
    throw new UsageError(`${file} is not a list of {id, q, expect, lang}`, hint);
  }
  return raw as Query[];
}

export function assertMemoryFolder(memory: string, hint: string): void {
  if (!statSync(join(memory, 'MEMORY.md'), { throwIfNoEntry: false })) throw new UsageError(`${memory} holds no MEMORY.md`, hint);
}

/** The one line holding each question's answer (file relative to `root`, 1-based line). */
export function locateAnswers(root: string, queries: Query[]): Map<string, Answer> {
  const files = mdFiles(root).map((f) => ({ f, lines: readFileSync(join(root, f), 'utf8').split('\n') }));
  const out = new Map<string, Answer>();
  for (const q of queries) {
    for (const { f, lines } of files) {
      const i = lines.findIndex((l) => l.includes(q.expect));
      if (i >= 0) { out.set(q.id, { file: f, line: i + 1 }); break; }
    }
    if (!out.has(q.id)) throw new MemtierError(`the answer of ${q.id} ("${q.expect.slice(0, 40)}") is on no line of the memory`, { code: 'bench-data' });
  }
  return out;
}

/** 1-based rank of the first result whose line range holds the answer, or 0. */
export function rankOf(results: Hit[], a: Answer): number {
  return results.findIndex((r) => r.path.replace(/^\.\//, '') === a.file && r.startLine <= a.line && a.line <= (r.endLine ?? r.startLine)) + 1;
}

/** The clock a data folder's README states (cjk-dev: "Clock: `2026-07-21T09:00:00+08:00`, zone `Asia/Shanghai`"). */
export function dataClock(dataDir: string): { now?: string; tz?: string } {
  try {
    const readme = readFileSync(join(dataDir, 'README.md'), 'utf8');
    const now = /Clock:\s*`([^`]+)`/.exec(readme)?.[1];
    const tz = /zone\s*`([^`]+)`/.exec(readme)?.[1];
    return { ...(now ? { now } : {}), ...(tz ? { tz } : {}) };
  } catch {
    return {};
  }
}

export interface Score { n: number; hit1: number; hit5: number; mrr: number }

/** hit@1, hit@5 and MRR of the questions `idx` given each question's rank (0 = not found). */
export function score(ranks: number[], idx: number[]): Score {
  return {
    n: idx.length,
    hit1: r3(idx.filter((i) => ranks[i] === 1).length / Math.max(1, idx.length)),
    hit5: r3(idx.filter((i) => ranks[i]! >= 1 && ranks[i]! <= 5).length / Math.max(1, idx.length)),
    mrr: r3(idx.reduce((s, i) => s + (ranks[i]! ? 1 / ranks[i]! : 0), 0) / Math.max(1, idx.length)),
  };
}

/** Overall and per language (`lang`, else "all"). */
export function scoreByLang(queries: Query[], ranks: number[]): Score & { byLang: Record<string, Score> } {
  const all = queries.map((_, i) => i);
  const byLang: Record<string, Score> = {};
  for (const lang of [...new Set(queries.map((q) => q.lang ?? 'all'))].sort()) byLang[lang] = score(ranks, all.filter((i) => (queries[i]!.lang ?? 'all') === lang));
  return { ...score(ranks, all), byLang };
}

/**
 * A file of alternates per question (`--alternates FILE`): a JSON object, each key a question's
 * id (bench cjk: `id` of queries.json; bench locomo: `SAMPLE#N`, N the question's 0-based place in
 * the sample's `qa`, or the question's text) and each value the words a model gave for it
 * (search's `alternates`, `--also`), one string.
 */
export function readAlternates(file: string): Map<string, string> {
  const hint = 'give a JSON object mapping each question\'s key to its alternates, e.g. {"d01": "tracing 链路追踪 OpenTelemetry"}';
  let raw: unknown;
  try { raw = JSON.parse(readFileSync(file, 'utf8')); } catch (e) {
    throw new UsageError(`cannot read the alternates file ${file}: ${(e as Error).message}`, hint);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError(`${file} is not a JSON object of alternates`, hint);
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'string') throw new UsageError(`${file}: the alternates of "${k.slice(0, 60)}" are not a string`, hint);
    out.set(k, v);
  }
  return out;
}
