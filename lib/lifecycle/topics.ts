/**
 * Topics that emerge from the memory (seed 003), written to memory/palace/topics.md:
 *
 * - a topic emerges when 3 or more entries share a keyword (a content word of 4+ letters, or a
 *   Chinese word of 2+ characters, stop words left out; in a memory of 40 entries or more, a word in
 *   more than a quarter of them is too common to be a topic);
 * - topics whose entries overlap by more than 70 % (shared entries over all their entries) merge ("postgres / database");
 * - within a topic of 5 or more entries, a subtopic emerges when 5 of them share another keyword;
 * - a topic with no entry in 30 days is idle (listed apart, its weight halving every 30 days); one
 *   idle for 90 days is dropped. Topics that no longer reach the threshold stay while they are
 *   not yet dropped: .memtier/topics.json keeps each topic's first and last day (`--rebuild`
 *   forgets it and starts from the entries alone).
 *
 * Every line links to its entry (path#^id or path#Lline). The same memory on the same day gives
 * the same bytes; an unchanged file is not written.
 */
import { posix } from 'node:path';
import type { Ctx } from '../core/context.js';
import { daysBetween } from '../core/clock.js';
import { isClosureLine } from '../format/closure.js';
import { PATHS } from '../format/layout.js';
import { TOPICS_FILE } from '../format/topics.js';

export { TOPICS_FILE };
import { CJK_STOP, EN_STOP } from '../search/stopwords.js';
import { tokenize } from '../search/tokenize.js';
import { applyPlanned, cite, plural, read, today as todayOf, type Op } from './common.js';
import { collectEntries, contentWords, linkDest, withoutCitation, type MemEntry } from './pipeline.js';

export const TOPICS_STATE = '.memtier/topics.json';
export const MIN_ENTRIES = 3;
export const SUBTOPIC_MIN = 5;
export const MERGE_OVERLAP = 0.7;
export const IDLE_DAYS = 30;
export const DROP_DAYS = 90;
const COMMON_SHARE = 0.25;
const COMMON_MIN_ENTRIES = 40;
const MAX_LINES_PER_TOPIC = 12;

export interface Topic {
  name: string;
  keywords: string[];
  entries: MemEntry[];
  first: string;
  last: string;
  idleDays: number;
  weight: number;
  subtopics: { keyword: string; entries: MemEntry[] }[];
}

interface TopicState { keywords: string[]; first: string; last: string }

export interface TopicsResult {
  ok: true;
  dryRun: boolean;
  changed: boolean;
  file: string;
  active: { name: string; entries: number; last: string; subtopics: string[] }[];
  idle: { name: string; entries: number; last: string; idleDays: number; weight: number }[];
  message: string;
}

/**
 * Words that are common in notes without naming what they are about (verbs of change, time,
 * quantity): fine search terms, never a topic.
 */
const TOPIC_STOP = new Set([
  ...'不要 一次 改成 已经 可以 需要 因为 所以 但是 还是 现在 之后 之前 时候 问题 今天 明天 昨天 下周 上周 本周 没有 一下 开始 继续 确定 决定 觉得 知道 发现 出现 进行 使用 然后 如果 还有 一起 一直 目前 最后 其中 这次 上次 下次 第一 两个 几个 一些 左右 以上 以下 改为 换成 需求 事情 直接 建议 支持 处理 时间 分钟 小时 秒钟 左边 右边 部分 方面 情况 方式 结果 原因'.split(' '),
  ...'also still just really maybe today tomorrow yesterday week weeks month months year years next last first second time times thing things need needs want wants make made done doing going said says decided decide agreed updated update change changed changes open signal decisions none because after before again'.split(' '),
]);

/** An entry's keywords: content words (4+ letters) and Chinese words (2+ characters). */
export function keywordsOf(text: string): Set<string> {
  const plain = withoutCitation(text);
  const out = new Set(contentWords(plain, EN_STOP).filter((w) => !/[\u3400-\u9fff]/.test(w) && !TOPIC_STOP.has(w)));
  for (const t of chineseKeywords(plain)) out.add(t);
  return out;
}

/** The Chinese words (2+ characters) of a text that can name a topic: the search tokenizer's words (folded to simplified), stop words and TOPIC_STOP out. */
export function chineseKeywords(text: string): string[] {
  if (!/[\u3400-\u9fff]/.test(text)) return [];
  return tokenize(text.replace(/[A-Za-z0-9_]+/g, ' ')).filter((t) => /^[\u3400-\u9fff]{2,}$/.test(t) && !CJK_STOP.has(t) && !TOPIC_STOP.has(t));
}

/** A day's closure block (Updated / Decisions / Signal / Open) summarizes its entries: not an entry of a topic. */
const isClosure = (e: MemEntry): boolean => isClosureLine(e.text.split('\n')[0] ?? '') || /^Updated:\s*\d{4}-\d{2}-\d{2}/.test(e.text.trim());

/** The topics of a set of entries (no state): emergence, merge, subtopics. */
export function findTopics(entries: MemEntry[], today: string): Topic[] {
  const kws = entries.map((e) => keywordsOf(e.text));
  const df = new Map<string, number[]>();
  kws.forEach((set, i) => { for (const k of set) df.set(k, [...(df.get(k) ?? []), i]); });
  // a word in more than a quarter of the entries names no topic, once there are enough entries to tell
  const tooCommon = entries.length >= COMMON_MIN_ENTRIES ? Math.max(MIN_ENTRIES, Math.floor(entries.length * COMMON_SHARE)) : Infinity;
  let groups = [...df.entries()]
    .filter(([, ids]) => ids.length >= MIN_ENTRIES && ids.length <= tooCommon)
    .map(([k, ids]) => ({ keywords: [k], ids: new Set(ids) }))
    .sort((a, b) => b.ids.size - a.ids.size || a.keywords[0]!.localeCompare(b.keywords[0]!));
  // merge groups that are mostly the same entries (greedy, largest first)
  const merged: typeof groups = [];
  for (const g of groups) {
    const into = merged.find((m) => {
      let both = 0;
      for (const i of g.ids) if (m.ids.has(i)) both++;
      // Jaccard: a small keyword inside a big topic stays apart (it may be a subtopic)
      return both / (g.ids.size + m.ids.size - both) > MERGE_OVERLAP;
    });
    if (into) { into.keywords.push(...g.keywords); for (const i of g.ids) into.ids.add(i); } else merged.push({ keywords: [...g.keywords], ids: new Set(g.ids) });
  }
  groups = merged;
  return groups.map((g) => {
    const ids = [...g.ids].sort((a, b) => ((entries[b]!.day ?? '') < (entries[a]!.day ?? '') ? -1 : (entries[b]!.day ?? '') > (entries[a]!.day ?? '') ? 1 : a - b));
    const es = ids.map((i) => entries[i]!);
    const days = es.map((e) => e.day).filter((d): d is string => !!d).sort();
    const last = days.at(-1) ?? today;
    const first = days[0] ?? today;
    const subtopics: Topic['subtopics'] = [];
    if (ids.length >= SUBTOPIC_MIN) {
      const inner = new Map<string, number[]>();
      for (const i of ids) for (const k of kws[i]!) if (!g.keywords.includes(k)) inner.set(k, [...(inner.get(k) ?? []), i]);
      for (const [k, sub] of [...inner.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))) {
        if (sub.length < SUBTOPIC_MIN || sub.length >= ids.length) continue;
        subtopics.push({ keyword: k, entries: sub.map((i) => entries[i]!) });
        if (subtopics.length === 5) break;
      }
    }
    const idleDays = Math.max(0, daysBetween(last, today));
    const kw = g.keywords.slice(0, 3);
    return { name: kw.join(' / '), keywords: g.keywords, entries: es, first, last, idleDays, weight: decay(idleDays), subtopics };
  });
}

const decay = (idle: number): number => Math.round((idle <= IDLE_DAYS ? 1 : Math.pow(0.5, (idle - IDLE_DAYS) / IDLE_DAYS)) * 1000) / 1000;

function link(e: MemEntry): string {
  return `[${cite(e)}](${linkDest(posix.relative(PATHS.palace, e.path))})`;
}

function entryLine(e: MemEntry): string {
  const text = withoutCitation(e.text).replace(/\s+/g, ' ').trim();
  return `- ${e.day ? `${e.day} · ` : ''}${e.type ? `${e.type} · ` : ''}${text.length > 140 ? `${text.slice(0, 137)}…` : text} — ${link(e)}`;
}

function render(active: Topic[], idle: Topic[]): string {
  const out = [
    '# Topics',
    '',
    '<!-- generated by `memtier topics` from the memory files: do not edit, run `memtier topics` to refresh. A topic is a keyword 3 or more entries share; topics whose entries overlap by more than 70 % merge; a subtopic is a keyword 5 entries of a topic share; a topic with no entry in 30 days is idle, dropped after 90. -->',
    '',
  ];
  if (!active.length && !idle.length) out.push('No topic yet: a topic emerges when 3 entries share a keyword.', '');
  for (const t of active) {
    out.push(`## ${t.name}`, '', `${plural(t.entries.length, 'entry', 'entries')}, ${t.first === t.last ? t.last : `${t.first} to ${t.last}`}`, '');
    out.push(...t.entries.slice(0, MAX_LINES_PER_TOPIC).map(entryLine));
    if (t.entries.length > MAX_LINES_PER_TOPIC) out.push(`- … and ${t.entries.length - MAX_LINES_PER_TOPIC} more (memtier search --topic "${t.keywords[0]}")`);
    out.push('');
    for (const s of t.subtopics) {
      out.push(`### ${t.keywords[0]} › ${s.keyword}`, '', ...s.entries.slice(0, MAX_LINES_PER_TOPIC).map(entryLine), '');
    }
  }
  if (idle.length) {
    out.push('## Idle topics', '', `No entry in ${IDLE_DAYS} days; each weighs half as much every ${IDLE_DAYS} days more, and is dropped after ${DROP_DAYS}.`, '');
    for (const t of idle) out.push(`- **${t.name}**: ${plural(t.entries.length, 'entry', 'entries')}, last ${t.last} (idle ${t.idleDays} days, weight ${t.weight})${t.entries[0] ? ` — ${link(t.entries[0])}` : ''}`);
    out.push('');
  }
  return out.join('\n');
}

export function planTopics(ctx: Ctx, opts: { dryRun?: boolean; rebuild?: boolean } = {}): { ops: Op[]; result: TopicsResult } {
  const today = todayOf(ctx);
  const entries = collectEntries(ctx, undefined, { freeForm: true }).entries.filter((e) => !isClosure(e));
  const found = findTopics(entries, today);
  // the state keeps topics that fell below the threshold until they are dropped
  // null-prototype maps: a topic named "constructor" or "__proto__" is an ordinary key
  const state = Object.create(null) as Record<string, TopicState>;
  if (!opts.rebuild) {
    try {
      const j = JSON.parse(read(ctx, TOPICS_STATE) ?? '{}') as unknown;
      if (j && typeof j === 'object' && !Array.isArray(j)) for (const [k, v] of Object.entries(j)) if (v && typeof v === 'object' && Array.isArray((v as TopicState).keywords)) state[k] = v as TopicState;
    } catch { /* damaged: rebuilt */ }
  }
  const next = Object.create(null) as Record<string, TopicState>;
  const topics: Topic[] = [...found];
  for (const t of found) {
    const prev = Object.entries(state).find(([, s]) => s.keywords.some((k) => t.keywords.includes(k)));
    next[t.name] = { keywords: t.keywords, first: prev && prev[1].first < t.first ? prev[1].first : t.first, last: t.last };
    if (prev) t.first = next[t.name]!.first;
  }
  for (const [name, s] of Object.entries(state)) {
    if (Object.values(next).some((n) => n.keywords.some((k) => s.keywords.includes(k)))) continue;
    const idleDays = Math.max(0, daysBetween(s.last, today));
    if (idleDays > DROP_DAYS) continue;
    next[name] = s;
    const es = entries.filter((e) => { const k = keywordsOf(e.text); return s.keywords.some((w) => k.has(w)); });
    topics.push({ name, keywords: s.keywords, entries: es, first: s.first, last: s.last, idleDays, weight: decay(idleDays), subtopics: [] });
  }
  const kept = topics.filter((t) => t.idleDays <= DROP_DAYS);
  const active = kept.filter((t) => t.idleDays <= IDLE_DAYS).sort((a, b) => b.entries.length - a.entries.length || (a.last < b.last ? 1 : a.last > b.last ? -1 : a.name.localeCompare(b.name)));
  const idle = kept.filter((t) => t.idleDays > IDLE_DAYS).sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
  const content = render(active, idle);
  const cur = read(ctx, TOPICS_FILE);
  const stateText = JSON.stringify(Object.fromEntries(Object.entries(next).filter(([n]) => kept.some((t) => t.name === n)).sort(([a], [b]) => a.localeCompare(b))), null, 1) + '\n';
  const ops: Op[] = [];
  if (cur !== content) ops.push({ kind: 'write', rel: TOPICS_FILE, content, expected: cur ?? null });
  const curState = read(ctx, TOPICS_STATE);
  if (curState !== stateText) ops.push({ kind: 'write', rel: TOPICS_STATE, content: stateText, expected: curState ?? null });
  const changed = cur !== content;
  const result: TopicsResult = {
    ok: true, dryRun: !!opts.dryRun, changed, file: TOPICS_FILE,
    active: active.map((t) => ({ name: t.name, entries: t.entries.length, last: t.last, subtopics: t.subtopics.map((s) => s.keyword) })),
    idle: idle.map((t) => ({ name: t.name, entries: t.entries.length, last: t.last, idleDays: t.idleDays, weight: t.weight })),
    message: `${plural(active.length, 'topic')}${idle.length ? `, ${idle.length} idle` : ''}; ${changed ? `${opts.dryRun ? 'would write' : 'wrote'} ${TOPICS_FILE}` : `${TOPICS_FILE} unchanged`}`,
  };
  return { ops, result };
}

export function runTopics(ctx: Ctx, opts: { dryRun?: boolean; rebuild?: boolean } = {}): TopicsResult {
  return applyPlanned(ctx, () => planTopics(ctx, opts), { dryRun: !!opts.dryRun }).result;
}
