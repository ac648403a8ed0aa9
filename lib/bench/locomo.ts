/**
 * `memtier bench locomo --data FILE [--conversations 0-4] [--k 5,10] [--json]`
 *
 * Retrieval quality on a LoCoMo-shaped file. Per conversation, in a fresh temporary memory:
 * 1. ingest through memtier's write path (`addEntries`, lib/wal/episodic.ts): each session's
 *    turns become entries of the episodic day of the session's `date_time`; one entry per turn:
 *    `Speaker: text [image: caption]`, with the dialog id as the entry id (`D3:7` → `^d3-7`).
 *    Only `conversation` is read: never `qa`, `observation`, `session_summary`, `event_summary`.
 * 2. with the clock at noon of the day after the last session, ask every question of categories
 *    1–4 through `search` with default settings;
 * 3. report turn-level recall@k, all-evidence@k, session-level recall@5 (evidence days among the
 *    top 5 distinct days) and mean tokens returned at k (≈ characters / 4), per category and
 *    overall, with n.
 */
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Args, CommandResult, Io } from '../cli/spec.js';
import { flagString } from '../cli/spec.js';
import { addDays, localDate, makeClock } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { makeTestCtx } from '../core/context.js';
import { MemtierError, UsageError } from '../core/errors.js';
import type { BenchSpec } from '../commands/bench.js';
import { loadIndex, searchDetailed } from '../search/search.js';
import { addEntries } from '../wal/episodic.js';
import { readAlternates } from './qa-data.js';

export const CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

interface Turn { speaker: string; dia_id: string; text: string; blip_caption?: string }
interface Sample { sample_id?: string; conversation: Record<string, unknown>; qa?: { question: string; evidence?: unknown; category: number }[] }

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → a Date (UTC) at that local time. */
export function parseSessionDate(s: string): Date | undefined {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(s);
  if (!m) return undefined;
  let h = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') h += 12;
  const mon = MONTHS.findIndex((x) => x.startsWith(m[5]!.toLowerCase().slice(0, 3)));
  if (mon < 0) return undefined;
  return new Date(Date.UTC(Number(m[6]), mon, Number(m[4]), h, Number(m[2])));
}

/** `D3:7` → `d3-7` (a valid entry id). */
export function diaToId(dia: string): string {
  return dia.toLowerCase().replace(':', '-');
}

/** Split, repair and resolve evidence ids against the conversation's dialog ids. */
export function normalizeEvidence(raw: unknown, known: Set<string>): string[] {
  const items = Array.isArray(raw) ? raw.map(String) : raw == null ? [] : [String(raw)];
  const out = new Set<string>();
  for (const item of items) {
    for (let tok of item.split(/[;,\s]+/)) {
      tok = tok.trim();
      if (!tok) continue;
      tok = tok.replace(/^D:(\d+):/i, 'D$1:'); // D:11:26 → D11:26
      const m = /^D(\d+):(\d+)$/i.exec(tok);
      if (!m) continue;
      const id = `D${Number(m[1])}:${Number(m[2])}`; // D30:05 → D30:5
      if (known.has(id)) out.add(id);
    }
  }
  return [...out];
}

export interface Session { n: number; date: Date; turns: Turn[] }

/** The sessions of a sample, from the `session_N` keys (orphan date keys ignored). */
export function sessionsOf(sample: Sample): Session[] {
  const conv = sample.conversation;
  const out: Session[] = [];
  for (const key of Object.keys(conv)) {
    const m = /^session_(\d+)$/.exec(key);
    if (!m) continue;
    const turns = conv[key] as Turn[];
    const dt = conv[`${key}_date_time`];
    const date = typeof dt === 'string' ? parseSessionDate(dt) : undefined;
    if (!date || !Array.isArray(turns)) continue;
    out.push({ n: Number(m[1]), date, turns });
  }
  return out.sort((a, b) => a.n - b.n);
}

export function turnText(t: Turn): string {
  const cap = t.blip_caption ? ` [image: ${t.blip_caption}]` : '';
  return `${t.speaker}: ${t.text}${cap}`.replace(/\s+/g, ' ').trim();
}

/** Ingest a conversation into the memory at ctx.root through memtier's write path. */
export async function ingestConversation(ctx: Ctx, sample: Sample): Promise<{ sessions: Session[]; entries: number }> {
  const sessions = sessionsOf(sample);
  let n = 0;
  for (const s of sessions) {
    const entries = s.turns.map((t) => ({ text: turnText(t), id: diaToId(t.dia_id), at: s.date }));
    addEntries(ctx, entries);
    n += entries.length;
  }
  return { sessions, entries: n };
}

interface Acc { n: number; r: Record<number, number>; all: Record<number, number>; sess5: number; tokens: Record<number, number> }
const newAcc = (ks: number[]): Acc => ({ n: 0, r: Object.fromEntries(ks.map((k) => [k, 0])), all: Object.fromEntries(ks.map((k) => [k, 0])), sess5: 0, tokens: Object.fromEntries(ks.map((k) => [k, 0])) });

export interface LocomoOptions {
  conversations?: number[];
  ks?: number[];
  tmp?: string;
  onProgress?: (msg: string) => void;
  /** Alternates per question (--alternates): keyed `SAMPLE#N` (sample_id, else `conv-I`; N the question's 0-based place in its `qa`), or by the question's text. */
  alternates?: Map<string, string>;
}

export interface QuestionResult { conversation: number; category: number; question: string; evidence: string[]; retrieved: string[]; recall: Record<number, number> }

export interface LocomoReport {
  ks: number[];
  conversations: number[];
  overall: Record<string, number>;
  categories: Record<string, Record<string, number>>;
  perConversation: Record<string, Record<string, number>>;
  skipped: number;
  questions?: QuestionResult[];
}

function summarize(a: Acc, ks: number[]): Record<string, number> {
  const o: Record<string, number> = { n: a.n };
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  for (const k of ks) o[`R@${k}`] = a.n ? r3(a.r[k]! / a.n) : 0;
  for (const k of ks) o[`all@${k}`] = a.n ? r3(a.all[k]! / a.n) : 0;
  o['sessionR@5'] = a.n ? r3(a.sess5 / a.n) : 0;
  for (const k of ks) o[`tokens@${k}`] = a.n ? Math.round(a.tokens[k]! / a.n) : 0;
  return o;
}

/** Run the benchmark over `data` (parsed LoCoMo JSON). */
export async function runLocomo(data: Sample[], opts: LocomoOptions = {}): Promise<LocomoReport> {
  const ks = [...new Set(opts.ks ?? [5, 10])].sort((a, b) => a - b);
  const kmax = Math.max(...ks, 5);
  const convs = opts.conversations ?? data.map((_, i) => i);
  const overall = newAcc(ks);
  const byCat = new Map<number, Acc>();
  const byConv: Record<string, Record<string, number>> = {};
  const questions: QuestionResult[] = [];
  let skipped = 0;
  for (const ci of convs) {
    const sample = data[ci];
    if (!sample) throw new UsageError(`conversation ${ci} is not in the file (it holds ${data.length})`, `use --conversations 0-${data.length - 1}`);
    const root = mkdtempSync(join(opts.tmp ?? tmpdir(), 'memtier-locomo-'));
    try {
      writeFileSync(join(root, 'MEMORY.md'), '# Memory\n');
      const ingestCtx = makeTestCtx(root, makeClock({ now: '2000-01-01T00:00:00Z', tz: 'UTC' }));
      const { sessions } = await ingestConversation(ingestCtx, { conversation: sample.conversation });
      const last = sessions.reduce((m, s) => (s.date > m ? s.date : m), sessions[0]!.date);
      const ctx = makeTestCtx(root, makeClock({ now: `${addDays(localDate(last, 'UTC'), 1)}T12:00:00Z`, tz: 'UTC' }));
      const known = new Map<string, string>();
      for (const s of sessions) for (const t of s.turns) known.set(t.dia_id, localDate(s.date, 'UTC'));
      const knownIds = new Set(known.keys());
      const index = await loadIndex(ctx);
      const convAcc = newAcc(ks);
      for (const [qi, qa] of (sample.qa ?? []).entries()) {
        if (!(qa.category in CATEGORIES)) continue;
        const ev = normalizeEvidence(qa.evidence, knownIds);
        if (ev.length === 0) { skipped++; continue; }
        const alternates = opts.alternates?.get(`${sample.sample_id ?? `conv-${ci}`}#${qi}`) ?? opts.alternates?.get(qa.question);
        const resp = await searchDetailed(ctx, qa.question, { k: kmax, index, ...(alternates ? { alternates } : {}) });
        const ids = resp.results.map((r) => (r.id ? r.id.toUpperCase().replace(/^D(\d+)-(\d+)$/, 'D$1:$2') : ''));
        const acc = byCat.get(qa.category) ?? newAcc(ks);
        byCat.set(qa.category, acc);
        const rec: Record<number, number> = {};
        for (const a of [overall, acc, convAcc]) a.n++;
        for (const k of ks) {
          const top = new Set(ids.slice(0, k));
          const hit = ev.filter((e) => top.has(e)).length;
          rec[k] = hit / ev.length;
          const tokens = resp.results.slice(0, k).reduce((s, r) => s + Math.ceil(r.text.length / 4), 0);
          for (const a of [overall, acc, convAcc]) {
            a.r[k]! += hit / ev.length;
            a.all[k]! += hit === ev.length ? 1 : 0;
            a.tokens[k]! += tokens;
          }
        }
        // session level: evidence days among the top 5 distinct days
        const days: string[] = [];
        for (const r of resp.results) { if (r.date && !days.includes(r.date)) days.push(r.date); if (days.length === 5) break; }
        const evDays = [...new Set(ev.map((e) => known.get(e)!))];
        const sHit = evDays.filter((d) => days.includes(d)).length / evDays.length;
        for (const a of [overall, acc, convAcc]) a.sess5 += sHit;
        questions.push({ conversation: ci, category: qa.category, question: qa.question, evidence: ev, retrieved: ids, recall: rec });
      }
      byConv[String(ci)] = summarize(convAcc, ks);
      opts.onProgress?.(`conversation ${ci}: ${JSON.stringify(byConv[String(ci)])}`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  const categories: Record<string, Record<string, number>> = {};
  for (const c of [1, 2, 3, 4]) { const a = byCat.get(c); if (a) categories[`${c} ${CATEGORIES[c]}`] = summarize(a, ks); }
  return { ks, conversations: convs, overall: summarize(overall, ks), categories, perConversation: byConv, skipped, questions };
}

export function parseRange(s: string | undefined, n: number): number[] {
  if (!s) return Array.from({ length: n }, (_, i) => i);
  const out = new Set<number>();
  for (const part of s.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(part);
    if (!m) throw new UsageError(`--conversations: "${part}" is not a number or a range`, 'use e.g. 0-4 or 0,2,3');
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    for (let i = Math.min(a, b); i <= Math.max(a, b); i++) out.add(i);
  }
  return [...out].sort((a, b) => a - b);
}

function fmtTable(rep: LocomoReport): string {
  const cols = ['n', ...rep.ks.map((k) => `R@${k}`), ...rep.ks.map((k) => `all@${k}`), 'sessionR@5', ...rep.ks.map((k) => `tokens@${k}`)];
  const rows: [string, Record<string, number>][] = [...Object.entries(rep.categories), ['overall', rep.overall]];
  const head = ['category'.padEnd(16), ...cols.map((c) => c.padStart(10))].join('');
  return [head, ...rows.map(([name, r]) => [name.padEnd(16), ...cols.map((c) => String(r[c] ?? '').padStart(10))].join(''))].join('\n');
}

export const bench: BenchSpec = {
  name: 'locomo',
  summary: 'retrieval quality on a LoCoMo-shaped file (recall@k per category)',
  async run(ctx: Ctx, args: Args, _io: Io): Promise<CommandResult> {
    const file = flagString(args, 'data');
    if (!file) throw new UsageError('bench locomo needs --data FILE', 'e.g. memtier bench locomo --data ../shared/bench/locomo-dev.json');
    const abs = resolve(ctx.cwd, file);
    let data: Sample[];
    try { data = JSON.parse(readFileSync(abs, 'utf8')) as Sample[]; } catch (e) {
      throw new MemtierError(`cannot read ${file}: ${(e as Error).message}`, { code: 'bench-data', file: abs, hint: 'give a LoCoMo-shaped JSON file (a list of samples with "conversation" and "qa")', cause: e });
    }
    if (!Array.isArray(data)) throw new MemtierError('is not a list of LoCoMo samples', { code: 'bench-data', file: abs, hint: 'the file must be a JSON list of {conversation, qa, …}' });
    const kRaw = args.flags.k;
    const ks = (Array.isArray(kRaw) ? kRaw : String(kRaw ?? '5,10').split(',')).map((x) => Number(x)).filter((x) => Number.isInteger(x) && x > 0);
    if (ks.length === 0) throw new UsageError('--k needs positive integers', 'e.g. --k 5,10');
    const altFile = flagString(args, 'alternates');
    const rep = await runLocomo(data, { conversations: parseRange(flagString(args, 'conversations'), data.length), ks, onProgress: (m) => ctx.log.info(m), ...(altFile ? { alternates: readAlternates(resolve(ctx.cwd, altFile)) } : {}) });
    const { questions: _q, ...summary } = rep;
    return { json: summary, text: `LoCoMo retrieval, conversations ${rep.conversations.join(',')} (${rep.overall.n} questions, ${rep.skipped} without resolvable evidence skipped)\n${fmtTable(rep)}` };
  },
};
