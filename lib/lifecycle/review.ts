/**
 * Weekly review (seed 004 mechanism 8).
 *
 * Reads the week's episodic entries (and dated buffer entries), then, in one short mutation:
 *   1. copies decisions to memory/semantic/decisions.md and lessons plus recurring #friction
 *      (2+ friction entries sharing a tag or a text) to memory/procedural/lessons-learned.md,
 *      each fact once in its home (deduplicated by ^id and by normalized text; the episodic line
 *      stays as the timeline, the id is kept so a citation resolves in both);
 *   2. archives episodic days past their TTL (lib/lifecycle/archive.ts);
 *   3. adds the week's open items (closure `Open:` lines) to MEMORY.md's "Open questions" (at
 *      most 5 open there, within MEMORY.md's line budget) and refreshes its `Last reviewed:` line;
 *   4. rotates a stale working buffer (last write more than a day ago) into the episodic log;
 *   5. writes memory/reviews/YYYY-Www.md with all of the above, health, stale notes and
 *      sublimation suggestions (3+ lessons/preferences sharing a tag, or a topic word: 5+
 *      letters, or a Chinese word of 2+ characters; → a proposed knowledge/ playbook; never
 *      merged automatically).
 * When none of 1–4 has anything to do, it says "No meaningful changes" and writes nothing.
 */
import { lineCount } from '../format/lines.js';
import { addDays, daysBetween, isoWeek } from '../core/clock.js';
import type { Ctx } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { CANONICAL_HOME, formatEntryLine, parseEntries, type Entry } from '../format/entry.js';
import { toSimplified } from '../format/han.js';
import { classify, OPEN_SECTION_RE, PATHS } from '../format/layout.js';
import { extract } from '../capture/extract.js';
import { planArchive } from './archive.js';
import { applyPlanned, cite, entriesOf, readingDays, normalizeText, plural, read, sectionLines, sourcesLive, today, type Op, type SourcedEntry } from './common.js';
import { memoryBudget } from './memory-index.js';
import { chineseKeywords } from './topics.js';
import { CHECKBOX, freeFormEntries, sentenceLine, titleOf } from './pipeline.js';

export const MAX_OPEN_QUESTIONS = 5;
const DECISIONS = CANONICAL_HOME.DECISION;
const LESSONS = CANONICAL_HOME.LESSON;

export interface ReviewOptions {
  week?: string;
  dryRun?: boolean;
  /** File what extraction finds in the week's free-form text into the homes (else only listed). */
  applyExtracted?: boolean;
  /** Test hook: runs between planning and writing (a person editing a file meanwhile). */
  beforeApply?: (attempt: number) => void;
  health?: { fail: number; warn: number; stale: string[] };
}

export interface ReviewResult {
  ok: true;
  dryRun: boolean;
  changed: boolean;
  week: string;
  from: string;
  to: string;
  decisions: string[];
  lessons: string[];
  friction: string[];
  openQuestions: { added: string[]; parked: string[] };
  archived: number;
  bufferRotated: boolean;
  /** Suggested merges: `kind` says whether entries share a tag (`tag` is the tag) or a topic word (`tag` is the word). */
  sublimation: { tag: string; kind: 'tag' | 'word'; count: number; sources: string[]; target: string }[];
  health?: { fail: number; warn: number; stale: string[] };
  report?: string;
  /**
   * What extraction found in the week's untyped text (free-form paragraphs, untyped bullets): each
   * with its source line, type, home, and whether it was filed (only with applyExtracted).
   */
  extracted: { source: string; type: string; text: string; home: string; filed: boolean }[];
  /** Dated events in the week's notes still ahead (today or later): listed in the report, never filed. */
  upcoming: { date: string; text: string; source: string }[];
  /** Every file the review changes (or, dry, would change): what its message announces. */
  changes: string[];
  retries: number;
  message: string;
}

/** Monday..Sunday of an ISO week `YYYY-Www`. */
export function weekRange(week: string): { from: string; to: string } {
  const m = /^(\d{4})-W(\d{2})$/.exec(week);
  if (!m) throw new UsageError(`--week "${week}" is not an ISO week`, 'write it as YYYY-Www, e.g. 2026-W20');
  const jan4 = `${m[1]}-01-04`;
  const dow = (new Date(`${jan4}T00:00:00Z`).getUTCDay() + 6) % 7;
  const from = addDays(addDays(jan4, -dow), (Number(m[2]) - 1) * 7);
  if (isoWeek(from) !== week) throw new UsageError(`--week "${week}" does not exist`, 'weeks run from W01 to W52 or W53');
  return { from, to: addDays(from, 6) };
}

function homeHeader(title: string, tag: string, day: string): string {
  return `---\ntags: [${tag}]\nlast_verified: ${day}\n---\n# ${title}\n\n`;
}

/** Lines to add to a home file: entries not already there by id or by normalized text. */
function newForHome(homeText: string | undefined, entries: SourcedEntry[]): { lines: string[]; taken: SourcedEntry[] } {
  const have = parseEntries(homeText ?? '');
  const ids = new Set(have.map((e) => e.id).filter(Boolean));
  const texts = new Set(have.map((e) => normalizeText(e.text)));
  const lines: string[] = [];
  const taken: SourcedEntry[] = [];
  for (const e of entries) {
    const n = normalizeText(e.text);
    if ((e.id && ids.has(e.id)) || texts.has(n) || n === '') continue;
    if (e.id) ids.add(e.id);
    texts.add(n);
    const out: Entry = { text: e.text, tags: e.tags };
    if (e.day) out.date = e.day;
    // a sentence of a note that gave no time keeps its day alone (`- 2026-11-24 [DECISION] …`)
    if (e.time) out.time = e.time;
    if (e.type) out.type = e.type;
    if (e.id) out.id = e.id;
    lines.push(formatEntryLine(out));
    taken.push(e);
  }
  return { lines, taken };
}

function appendLines(text: string | undefined, header: string, lines: string[]): string {
  const base = text ?? header;
  return base + (base.endsWith('\n') || base === '' ? '' : '\n') + lines.join('\n') + '\n';
}

function recurringFriction(entries: SourcedEntry[]): SourcedEntry[] {
  const fr = entries.filter((e) => e.tags.includes('friction') && e.type !== 'LESSON');
  const out = new Set<SourcedEntry>();
  const byKey = new Map<string, SourcedEntry[]>();
  for (const e of fr) {
    const keys = [...e.tags.filter((t) => t !== 'friction').map((t) => `#${t}`), `=${normalizeText(e.text)}`];
    for (const k of keys) byKey.set(k, [...(byKey.get(k) ?? []), e]);
  }
  for (const list of byKey.values()) if (list.length >= 2) for (const e of list) out.add(e);
  return fr.filter((e) => out.has(e));
}

/** Open items from closure blocks (`Open: …`) of the week's days, minus "none". */
function openItems(days: { text: string }[]): string[] {
  const out: string[] = [];
  for (const d of days) {
    for (const line of d.text.split('\n')) {
      const m = /^Open:\s*(.+)$/i.exec(line.trim());
      if (!m) continue;
      for (const part of m[1]!.split(/;\s*/)) {
        const t = part.trim().replace(/\.$/, '');
        if (t && !/^(none|nothing|-|n\/a)$/i.test(t) && !out.includes(t)) out.push(t);
      }
    }
  }
  return out;
}

/**
 * An entry nobody meant to keep: a test or placeholder word ("test", "asdf", "foo"), or fewer than
 * two words and ten characters once tags and ids are gone.
 */
export function isThrowaway(text: string): boolean {
  const t = text.replace(/(?:^|\s)#[\p{L}][\p{L}\p{N}_/-]*/gu, ' ').replace(/\^[A-Za-z0-9-]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (/^(?:test(?:ing)?(?: \d+)?|tests?|foo|bar|baz|asdf|qwerty|xxx+|todo|tbd|hello|hi|lorem ipsum|dummy|placeholder|测试|试试)[.!]?$/i.test(t)) return true;
  // Chinese and Japanese say much in few characters: there, fewer than 4 is a throwaway
  if (/[\u3040-\u30ff\u3400-\u9fff]/u.test(t)) return [...t].length < 4;
  return t.split(' ').length < 2 && [...t].length < 10;
}

/** MEMORY.md with new open questions (≤ 5 open) and a fresh `Last reviewed:` line, within budget. */
function updateMemoryIndex(text: string, items: string[], stamp: string, budget: number, meaningful: () => boolean): { text: string; added: string[]; parked: string[] } {
  let lines = text.replace(/\n+$/, '').split('\n');
  const sec = sectionLines(text, OPEN_SECTION_RE);
  const present = new Set((sec?.lines ?? []).map((l) => normalizeText(l.replace(/^[-*]\s+(\[[ x]\]\s+)?/i, ''))));
  const open = (sec?.lines ?? []).filter((l) => /^[-*] /.test(l) && !/^[-*] \[x\]/i.test(l) && !/^[-*] ~~/.test(l)).length;
  const fresh = items.filter((i) => !present.has(normalizeText(i)));
  const room = Math.max(0, Math.min(MAX_OPEN_QUESTIONS - open, budget - lines.length - (sec ? 0 : 2)));
  const added = fresh.slice(0, room);
  const parked = fresh.slice(added.length);
  if (added.length) {
    if (sec) {
      let at = Math.min(sec.end, lines.length);
      while (at > sec.start + 1 && lines[at - 1]!.trim() === '') at--;
      lines.splice(at, 0, ...added.map((q) => `- ${q}`));
    } else lines.push('', '## Open questions', ...added.map((q) => `- ${q}`));
  }
  if (added.length || meaningful()) {
    const i = lines.findIndex((l) => /^(last reviewed|updated):/i.test(l.trim()));
    const fl = `Last reviewed: ${stamp}`;
    if (i >= 0) lines[i] = fl;
    else if (lines.length < budget) {
      const h = lines.findIndex((l) => /^# /.test(l));
      lines.splice(h + 1, 0, fl);
    }
  }
  return { text: lines.join('\n') + '\n', added, parked };
}

/** Content words shared by 3+ lessons/preferences that carry no common tag also suggest a merge (seed 001: "related"). */
const TOPIC_STOP = new Set(['always', 'never', 'should', 'would', 'could', 'before', 'after', 'every', 'using', 'their', 'there', 'about', 'which', 'other', 'prefer', 'prefers', 'instead']);

const HAN_RUN = /[\u3400-\u9fff]+/g;

/**
 * An entry's topic words: words of 5+ letters (a plural as its singular), and Chinese words of 2+
 * characters as the search tokenizer cuts them (topics.ts chineseKeywords): a Chinese clause is no
 * word, and would never repeat.
 */
function topicWords(text: string): Set<string> {
  const plain = text.toLowerCase().replace(/(?:^|\s)#[\p{L}][\p{L}\p{N}_/-]*/gu, ' ').replace(/\^[a-z0-9-]+/g, ' ');
  const out = new Set<string>();
  for (const m of plain.replace(HAN_RUN, ' ').matchAll(/[\p{L}][\p{L}\p{N}-]*/gu)) {
    const w = m[0].length > 4 ? m[0].replace(/s$/, '') : m[0];
    if ([...w].length >= 5 && !TOPIC_STOP.has(w)) out.add(w);
  }
  for (const w of chineseKeywords(plain)) out.add(w);
  return out;
}

/** The characters a Chinese word may grow by: not a function word's (的, 了, 要 …), which would join it to the clause around it. */
const NO_GROW = new Set([...'的了是在和就都而及与着或也很吗呢吧啊么把被让给从向对于以但还又再个些我你他她它有会要能上下中里后前时不没先别请用']);
const MAX_GROWN = 6;

/**
 * A Chinese topic word grown to the whole word its entries write: the segmenter may cut a word
 * (数据库 → 数据 + 库); when every entry of the group has the same character right after (or
 * before) the word, it belongs to it. Words of other scripts are returned as they are.
 */
function grown(word: string, texts: string[]): string {
  if (!/^[\u3400-\u9fff]+$/.test(word)) return word;
  const folded = texts.map((t) => toSimplified(t));
  const sharedNext = (w: string, side: 1 | -1): string | undefined => {
    let common: Set<string> | undefined;
    for (const t of folded) {
      const here = new Set<string>();
      for (let i = t.indexOf(w); i >= 0; i = t.indexOf(w, i + 1)) {
        const c = side === 1 ? t[i + w.length] : t[i - 1];
        if (c && /[\u3400-\u9fff]/.test(c) && !NO_GROW.has(c)) here.add(c);
      }
      common = common ? new Set([...common].filter((c) => here.has(c))) : here;
      if (!common.size) return undefined;
    }
    return common && common.size === 1 ? [...common][0] : undefined;
  };
  let w = word;
  for (let c = sharedNext(w, 1); c && w.length < MAX_GROWN; c = sharedNext(w, 1)) w += c;
  for (let c = sharedNext(w, -1); c && w.length < MAX_GROWN; c = sharedNext(w, -1)) w = c + w;
  return w;
}

function sublimation(ctx: Ctx, week: SourcedEntry[]): ReviewResult['sublimation'] {
  const pool: SourcedEntry[] = [...week.filter((e) => e.type === 'LESSON' || e.type === 'PREF')];
  for (const rel of [LESSONS, CANONICAL_HOME.PREF]) {
    const t = read(ctx, rel);
    if (t) pool.push(...entriesOf(rel, t).filter((e) => !e.superseded));
  }
  const seen = new Set<string>();
  const byTag = new Map<string, SourcedEntry[]>();
  const byWord = new Map<string, SourcedEntry[]>();
  for (const e of pool) {
    const k = e.id ?? normalizeText(e.text);
    if (seen.has(k)) continue;
    seen.add(k);
    for (const t of e.tags) if (t !== 'friction') byTag.set(t, [...(byTag.get(t) ?? []), e]);
    for (const w of topicWords(e.text)) byWord.set(w, [...(byWord.get(w) ?? []), e]);
  }
  const out: ReviewResult['sublimation'] = [...byTag.entries()]
    .filter(([, l]) => l.length >= 3)
    .sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))
    .map(([tag, l]) => ({ tag, kind: 'tag' as const, count: l.length, sources: l.map(cite), target: `${PATHS.knowledge}/${tag}-playbook.md` }));
  // a topic word adds a suggestion only for a group no tag suggestion already covers
  const covered = out.map((s) => new Set(s.sources));
  const words = [...byWord.entries()].filter(([, l]) => l.length >= 3).sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  for (const [word, l] of words) {
    const src = l.map(cite);
    if (covered.some((c) => src.every((x) => c.has(x)))) continue;
    covered.push(new Set(src));
    const w = grown(word, l.map((e) => e.text));
    out.push({ tag: w, kind: 'word', count: l.length, sources: src, target: `${PATHS.knowledge}/${w}-playbook.md` });
    if (out.length >= 8) break;
  }
  return out;
}

function readDays(ctx: Ctx, from: string, to: string): { rel: string; date: string; text: string }[] {
  return readingDays(ctx)
    .filter((f) => f.date >= from && f.date <= to)
    .map((f) => ({ rel: f.rel, date: f.date, text: read(ctx, f.rel) ?? '' }));
}

export function planReview(ctx: Ctx, opts: ReviewOptions = {}): { ops: Op[]; result: ReviewResult } {
  const t = today(ctx);
  const week = opts.week ?? isoWeek(t);
  const { from, to } = opts.week ? weekRange(opts.week) : { from: addDays(t, -6), to: t };
  const days = readDays(ctx, from, to);
  // throwaways ("[LESSON] test", "asdf") are never filed into a home
  const entries: SourcedEntry[] = days.flatMap((d) => entriesOf(d.rel, d.text, d.date)).filter((e) => !e.superseded && !isThrowaway(e.text));
  const bufText = read(ctx, PATHS.buffer);
  if (bufText) entries.push(...entriesOf(PATHS.buffer, bufText).filter((e) => e.day && e.day >= from && e.day <= to && !e.superseded));
  const ops: Op[] = [];
  const res: ReviewResult = {
    ok: true, dryRun: !!opts.dryRun, changed: false, week, from, to, decisions: [], lessons: [], friction: [],
    openQuestions: { added: [], parked: [] }, archived: 0, bufferRotated: false, sublimation: [], extracted: [], upcoming: [], changes: [], retries: 0, message: '',
    ...(opts.health ? { health: opts.health } : {}),
  };

  // what a person wrote without types (free-form paragraphs, untyped bullets): extraction's proposals,
  // filed only when asked, each as a new line of its home linking back to the source line; the
  // person's file is never rewritten
  const homeTexts = new Map<string, Set<string>>();
  const inHome = (e: SourcedEntry): boolean => {
    const rel = CANONICAL_HOME[e.type!];
    let set = homeTexts.get(rel);
    if (!set) homeTexts.set(rel, (set = new Set(parseEntries(read(ctx, rel) ?? '').map((x) => normalizeText(withoutLine(x.text))))));
    return set.has(normalizeText(withoutLine(e.text)));
  };
  // filed by an earlier review: not found again
  const found = extractedFromFreeForm(ctx, days, entries, res.upcoming).filter((f) => !inHome(f.entry));
  res.upcoming.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const filed = opts.applyExtracted ? found.map((f) => f.entry) : [];
  const decText = read(ctx, DECISIONS);
  const dec = newForHome(decText, [...entries.filter((e) => e.type === 'DECISION'), ...filed.filter((e) => e.type === 'DECISION')]);
  if (dec.lines.length) {
    ops.push({ kind: 'write', rel: DECISIONS, content: appendLines(decText, homeHeader('Decisions', 'review', t), dec.lines), expected: decText ?? null });
    res.decisions = dec.taken.map(cite);
  }
  const lesText = read(ctx, LESSONS);
  const lessonCands = [...entries.filter((e) => e.type === 'LESSON'), ...filed.filter((e) => e.type === 'LESSON')];
  const fr = recurringFriction(entries);
  const les = newForHome(lesText, [...lessonCands, ...fr]);
  if (les.lines.length) {
    ops.push({ kind: 'write', rel: LESSONS, content: appendLines(lesText, homeHeader('Lessons learned', 'postmortem', t), les.lines), expected: lesText ?? null });
    res.lessons = les.taken.filter((e) => e.type === 'LESSON').map(cite);
    res.friction = les.taken.filter((e) => e.type !== 'LESSON').map(cite);
  }

  const otherHomes = new Set<string>();
  const copied: SourcedEntry[] = [...dec.taken, ...les.taken];
  for (const type of ['PREF', 'PEOPLE', 'TECH', 'PROJ'] as const) {
    const rel = CANONICAL_HOME[type];
    const list = filed.filter((e) => e.type === type);
    if (!list.length) continue;
    const cur = read(ctx, rel);
    const add = newForHome(cur, list);
    if (add.lines.length) { ops.push({ kind: 'write', rel, content: appendLines(cur, homeHeader(titleOf(rel), 'review', t), add.lines), expected: cur ?? null }); otherHomes.add(rel); copied.push(...add.taken); }
  }
  // what is filed must still be there when it is written (a forget since the plan: planned again)
  const live = sourcesLive(copied);
  if (live) ops.unshift(live);
  const written = (e: SourcedEntry): boolean => res.decisions.includes(cite(e)) || res.lessons.includes(cite(e)) || otherHomes.has(CANONICAL_HOME[e.type!]);
  res.extracted = found.map((f) => ({ source: f.source, type: f.entry.type!, text: f.entry.text, home: CANONICAL_HOME[f.entry.type!], filed: !!opts.applyExtracted && written(f.entry) }));

  const arch = planArchive(ctx, {});
  ops.push(...arch.ops);
  res.archived = arch.result.moved.length;

  // stale buffer: entries present and the newest is from before yesterday
  let staleBuffer = false;
  if (bufText) {
    const be = entriesOf(PATHS.buffer, bufText);
    const newest = be.map((e) => e.day).filter((d): d is string => !!d).sort().pop();
    staleBuffer = be.length > 0 && newest !== undefined && daysBetween(newest, t) >= 1;
  }
  if (staleBuffer) {
    ops.push({
      kind: 'fn', label: 'rotate stale buffer', files: [PATHS.buffer],
      run: (tx) => { void rotateTxRef.fn!(tx, ctx, { force: true }); },
    });
    res.bufferRotated = true;
  }

  // what extraction found and nobody filed yet is a finding too: the report lists it, where the
  // person and the agent see it (MEMORY.md's "Last reviewed:" line links the report), instead of
  // only a run summary nobody reads (a scheduled review runs without --apply)
  const unfiled = res.extracted.filter((x) => !x.filed).length;
  const reportRel = `${PATHS.reviews}/${week}.md`;
  const memText = read(ctx, PATHS.memoryIndex);
  const somethingElse = () => ops.length > 0 || unfiled > 0 || res.upcoming.length > 0;
  if (memText !== undefined) {
    const budget = memoryBudget(ctx).lines;
    const upd = updateMemoryIndex(memText, openItems(days), `${t} (${week}) → ${reportRel}`, Math.max(budget, lineCount(memText)), somethingElse);
    res.openQuestions = { added: upd.added, parked: upd.parked };
    if (upd.text !== memText) ops.push({ kind: 'write', rel: PATHS.memoryIndex, content: upd.text, expected: memText });
  }
  res.sublimation = sublimation(ctx, entries);

  const foundNote = unfiled ? `; ${plural(unfiled, 'entry', 'entries')} found in free-form notes (memtier review --apply files them)` : '';
  const prev = read(ctx, reportRel);
  // the finds a report of this week already lists are not news: a second review writes nothing
  const listed = res.extracted.every((x) => x.filed || (prev ?? '').includes(foundLine(x))) && res.upcoming.every((x) => (prev ?? '').includes(upcomingLine(x)));
  if (ops.length === 0 && ((unfiled === 0 && res.upcoming.length === 0) || listed)) {
    res.message = `No meaningful changes (${from} … ${to})${unfiled ? `; ${plural(unfiled, 'entry', 'entries')} found in free-form notes, listed in ${reportRel} (memtier review --apply files them)` : ''}`;
    return { ops, result: res };
  }
  res.changed = true;
  const body = renderReport(ctx, res);
  ops.push({ kind: 'write', rel: reportRel, content: prev ? `${prev.replace(/\n+$/, '')}\n\n---\n\n${body}` : body, expected: prev ?? null });
  res.report = reportRel;
  res.changes = [...new Set(ops.flatMap((o) => (o.kind === 'move' ? [o.from, o.to] : o.kind === 'fn' ? o.files : [o.rel])))].sort();
  const v = opts.dryRun ? 'would ' : '';
  res.message = `review ${week}: ${v}file ${plural(res.decisions.length, 'decision')}, ${plural(res.lessons.length + res.friction.length, 'lesson')}` +
    `${res.archived ? `, ${v}archive ${plural(res.archived, 'day')}` : ''}${res.openQuestions.added.length ? `, ${plural(res.openQuestions.added.length, 'open question')}` : ''}` +
    `${res.bufferRotated ? ', rotate the stale buffer' : ''}${memText !== undefined && res.changes.includes(PATHS.memoryIndex) && res.openQuestions.added.length === 0 ? `, ${v}update MEMORY.md's "Last reviewed:" line` : ''} → ${reportRel}` +
    `${res.extracted.some((x) => x.filed) ? `, ${v}file ${plural(res.extracted.filter((x) => x.filed).length, 'entry', 'entries')} found in free-form notes` : ''}${foundNote}` +
    `${res.upcoming.length ? `; ${plural(res.upcoming.length, 'dated event')} coming up, listed` : ''}` +
    `\n${opts.dryRun ? 'would change' : 'changed'}: ${res.changes.join(', ')}`;
  return { ops, result: res };
}

/**
 * Extraction over the week's untyped text: free-form paragraphs of the days and untyped bullets.
 * Each proposal becomes an entry for its home whose text links back to its source line
 * (`(from PATH#Lline)`), so the same note gives the same line on every run (filed once).
 */
function extractedFromFreeForm(ctx: Ctx, days: { rel: string; date: string; text: string }[], entries: SourcedEntry[], upcoming: ReviewResult['upcoming'] = []): { source: string; entry: SourcedEntry }[] {
  const t = today(ctx);
  const now = ctx.clock.now();
  const units: { path: string; line: number; day: string | undefined; text: string }[] = [];
  for (const d of days) {
    const info = classify(d.rel);
    for (const u of freeFormEntries(d.rel, d.text, info)) units.push({ path: u.path, line: u.line, day: u.day ?? d.date, text: u.text });
  }
  // a checklist item ("- [ ] ask Marco for the CMS export") is a task on the person's own list, not a fact to file
  for (const e of entries) if (!e.type && !(e.path === PATHS.buffer) && !CHECKBOX.test(e.text)) units.push({ path: e.path, line: e.line, day: e.day, text: e.text });
  const linesOf = new Map(days.map((d) => [d.rel, d.text.split('\n')]));
  const out: { source: string; entry: SourcedEntry }[] = [];
  for (const u of units) {
    // a note's relative dates are the day it was written, not the day of the review
    for (const p of extract([{ role: 'user', content: u.text }], { now, tz: ctx.clock.tz, ...(u.day ? { day: u.day } : {}) }).proposals) {
      const source = `${u.path}#L${sentenceLine(linesOf.get(u.path), u.line, p.text)}`;
      // a dated event stays in its day; one still ahead ("the school show is on 17 December at 18:00") is listed as coming up
      if (p.type === 'EVENT') {
        const next = p.dates.filter((d) => d >= t).sort()[0];
        if (next && !upcoming.some((x) => x.text === p.text)) upcoming.push({ date: next, text: p.text, source });
        continue;
      }
      if (p.type === 'TEMP') continue;
      out.push({ source, entry: { text: `${p.text} (from ${source})`, tags: p.tags, type: p.type, line: u.line, raw: '', path: u.path, ...(u.day ? { day: u.day } : {}) } });
    }
  }
  return out;
}


/**
 * An entry's text without the line number of its `(from PATH#Lline)` link: filed once per source
 * note and sentence, whatever line it is on now (a line added above it, or an older review that
 * linked a paragraph by its heading's line, does not file it again).
 */
const withoutLine = (text: string): string => text.replace(/(\(from [^()\s#]+)#L\d+(?:-L?\d+)?\)\s*$/, '$1)');

/** Filled lazily by runReview (keeps lib/wal out of planning-only imports). */
const rotateTxRef: { fn?: (tx: import('../store/store.js').Tx, ctx: Ctx, o: { force: boolean }) => unknown } = {};

/** An upcoming event's line in the report (without its bullet). */
function upcomingLine(x: ReviewResult['upcoming'][number]): string {
  return `${x.date}: ${x.text} (from ${x.source})`;
}

/** A find's line in the report (without its bullet). */
function foundLine(x: ReviewResult['extracted'][number]): string {
  return `${x.filed ? 'filed' : 'found (review --apply files it)'}: [${x.type}] ${x.text} → ${x.home} (from ${x.source})`;
}

function renderReport(ctx: Ctx, r: ReviewResult): string {
  const t = today(ctx);
  const list = (xs: string[], none = '- none') => (xs.length ? xs.map((x) => `- ${x}`) : [none]);
  const out = [
    `# Weekly review ${r.week}`,
    '',
    `Reviewed ${t}; entries of ${r.from} … ${r.to}.`,
    '',
    `## Decisions → ${DECISIONS}`, ...list(r.decisions), '',
    `## Lessons and recurring friction → ${LESSONS}`, ...list([...r.lessons, ...r.friction.map((f) => `${f} (recurring #friction)`)]), '',
    '## Archive', r.archived ? `- ${plural(r.archived, 'episodic day')} moved to ${PATHS.archive}/` : '- nothing past its TTL', '',
    '## Open questions (MEMORY.md)', ...list(r.openQuestions.added.map((q) => `added: ${q}`)),
    ...r.openQuestions.parked.map((q) => `- not added (MEMORY.md holds at most ${MAX_OPEN_QUESTIONS} open questions or is at its budget): ${q} — park it in todos.md`), '',
    '## Working buffer', r.bufferRotated ? '- stale buffer rotated into the episodic log' : '- fresh or empty', '',
  ];
  if (r.extracted.length) {
    out.push('## Found in free-form notes (extraction rules)', ...r.extracted.map((x) => `- ${foundLine(x)}`), '');
  }
  if (r.upcoming.length) out.push('## Coming up (dated events in the week\'s notes)', ...r.upcoming.map((x) => `- ${upcomingLine(x)}`), '');
  if (r.health) {
    out.push('## Health', `- ${r.health.fail} failing, ${r.health.warn} warnings (run \`memtier health\` for details)`);
    for (const s of r.health.stale) out.push(`- stale: ${s}`);
    out.push('');
  }
  out.push('## Sublimation suggestions');
  if (r.sublimation.length === 0) out.push('- none');
  for (const s of r.sublimation) out.push(`- Found ${s.count} related entries ${s.kind === 'tag' ? `tagged #${s.tag}` : `about "${s.tag}"`} → merge into ${s.target}? (${s.sources.slice(0, 5).join(', ')}${s.sources.length > 5 ? ', …' : ''})`);
  return out.join('\n') + '\n';
}

/** Run the health checks (read-only) for the report; undefined when they cannot run. */
export async function reviewHealth(ctx: Ctx): Promise<ReviewOptions['health']> {
  try {
    const { runHealth } = await import('../health/run.js');
    const h = await runHealth(ctx);
    return {
      fail: h.counts.fail,
      warn: h.counts.warn,
      stale: h.findings.filter((f) => f.check === 'last-verified' && f.severity !== 'info').map((f) => `${f.file}: ${f.message}`),
    };
  } catch {
    return undefined;
  }
}

export async function runReview(ctx: Ctx, opts: ReviewOptions = {}): Promise<ReviewResult> {
  const { rotateTx } = await import('../wal/rotate.js');
  rotateTxRef.fn = rotateTx;
  const health = opts.health ?? (await reviewHealth(ctx));
  const o: ReviewOptions = { ...opts, ...(health ? { health } : {}) };
  const r = applyPlanned(ctx, () => planReview(ctx, o), { dryRun: !!opts.dryRun, ...(opts.beforeApply ? { beforeApply: opts.beforeApply } : {}) });
  r.result.retries = r.retries;
  return r.result;
}
