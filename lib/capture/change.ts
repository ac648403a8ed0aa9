/**
 * A sentence that says a fact changed ("钢琴课又改了，改到周日下午", "备份保留天数从 7 天调整为 30 天",
 * "the piano lesson moved to Sunday afternoon", "backup retention bumped to 30 days"): what changed
 * (its subject, the words before the change), what it is now (`to`, the words after) and what kind
 * of value that is (a time, a number, or something else). Extraction proposes such a sentence
 * (rules.ts change-*), and selective capture supersedes the entry it changes (capture.ts): the live
 * entry that names the same subject and holds a value of the same kind ("钢琴课每周六上午 10 点").
 *
 * Read on text folded to simplified characters (format/han.ts), so traditional text is read alike.
 */
import { toSimplified } from '../format/han.js';

export type ChangeKind = 'time' | 'number' | 'other';

export interface Change {
  /** What changed: the words before the change ("钢琴课", "piano lesson"). */
  subject: string;
  /** What it is now ("周日下午", "30 天", "Sunday afternoon"). */
  to: string;
  kind: ChangeKind;
}

/** The verbs of a change to a new value, Chinese: 改到, 改成, 调整为, 换成, 推迟到, 提前到, 涨到 … */
export const CHANGE_ZH = /(?:改到|改成|改为|改在|改期到|调整为|调整到|调整成|调为|调到|调成|换成|换到|换为|推迟到|推后到|延后到|延期到|延到|提前到|挪到|提高到|降低到|降到|减到|减少到|增加到|加到|升到|涨到|变成|变为)/;
const VERBS_EN = 'moved|changed|switched|bumped|raised|lowered|increased|decreased|reduced|extended|pushed|postponed|delayed|rescheduled|brought|updated|upped|cut|shifted';
const VERBS_ING_EN = 'moving|changing|switching|bumping|raising|lowering|increasing|decreasing|reducing|extending|pushing|postponing|delaying|rescheduling|bringing|updating|cutting|shifting';
const PARTICLE_EN = '(?: (?:back|up|out|over|forward|down))?';
/** "the piano lesson (was) moved (back) (from Saturday) to Sunday": the subject, then what it is now. */
const CHANGED_EN = new RegExp(`^(.+?)\\s+(?:(?:has |have |had )?been |was |were |is |are |got |just |now |finally )*(?:${VERBS_EN})${PARTICLE_EN}(?: from [^,;]{1,40}?)? to (?!(?:be|do|make|have|go|get|use|keep|see|try|work)(?!\\w))(.+)$`, 'i');
/** "we moved the standup (from 9) to 10am", "we're moving standups to 10": the thing moved, then what it is now. */
const MOVED_EN = new RegExp(`^(?:we|i|they|you|he|she)(?:'ve| have| had|'re| are)?\\s+(?:just |finally |also )?(?:${VERBS_EN}|${VERBS_EN.replace(/(?:ed|d)(?=\||$)/g, 'ing')})${PARTICLE_EN}\\s+(.+?)(?: from [^,;]{1,40}?)? to (.+)$`, 'i');

const TIME = /(?:周|星期|礼拜)[一二三四五六日天]|[上下]午|晚上|早上|中午|凌晨|傍晚|明天|后天|今晚|明晚|下周|本周|这周|下个?月|月[底初]|周末|\d{1,2}\s?[点:：]|[一二三四五六七八九十两]{1,3}点|\d{1,2}\s?[号日](?![楼线房床码位门口桌球])|\d{4}-\d{2}-\d{2}|(?<!\w)(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|morning|afternoon|evening|night|noon|tomorrow|tonight|weekend|next (?:week|month)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}|\d{1,2}(?::\d{2})? ?[ap]m|\d{1,2}:\d{2}|the \d{1,2}(?:st|nd|rd|th))(?!\w)/u;
/** A time's digits, not a value of their own: 10 点, 10:30, 7pm, a date. */
const TIME_DIGITS = /\d{4}-\d{2}-\d{2}|\d{1,2}\s?[点:：]\d{0,2}|\d{1,2}\s?[号日]|\d{1,2}(?::\d{2})? ?[ap]m/giu;
/** Words that say a change happened without saying to what ("又改了", "changed again"), and function words, trimmed off a subject. */
const SUBJECT_TAIL_ZH = /(?:[，,：:\s]|又|再|也|都|已经|已|被|临时|正式|终于|还是|(?:改|变|换|调整?|推迟|提前|延期|更新)了?)+$/u;
/** 从 and what it was ("从 7 天", "从周六"): the old value, not the subject. */
const SUBJECT_FROM_ZH = /从[^从]*$/u;
const DETERMINER_EN = /^(?:(?:so|ok|okay|fyi|btw|update|heads up)[,:]?\s+)*(?:the|our|my|their|his|her|your)\s+/i;
const PRONOUN_EN = /^(?:we|i|they|you|he|she|it|this|that|everything|someone|everyone)$/i;

/** The kind of value `to` is: a time (a day, a part of a day, an hour), a number, or something else. */
export function valueKind(to: string): ChangeKind {
  if (TIME.test(to.toLowerCase())) return 'time';
  return /\d/.test(to) ? 'number' : 'other';
}

/** Does `text` hold a value of this kind (a number outside a time, for `number`)? */
export function holdsKind(text: string, kind: ChangeKind): boolean {
  if (kind === 'time') return TIME.test(text.toLowerCase());
  if (kind === 'number') return /\d/.test(text.replace(TIME_DIGITS, ' '));
  return true;
}

/**
 * The change a sentence says, or undefined: a change verb with a subject before it and a value
 * after it. Read folded to simplified (the subject is given so); `to` keeps the sentence's own
 * characters (the fold keeps every character in its place).
 */
export function changeOf(original: string): Change | undefined {
  const text = toSimplified(original);
  const zh = CHANGE_ZH.exec(text);
  if (zh) {
    const subject = text.slice(0, zh.index).replace(SUBJECT_FROM_ZH, '').replace(SUBJECT_TAIL_ZH, '').replace(/^[\s，,：:]+/u, '').trim();
    const to = original.slice(zh.index + zh[0].length).split(/[，,。；;！!？?]/u)[0]!.trim();
    if (subject && to) return { subject, to, kind: valueKind(toSimplified(to)) };
  }
  if (!/ to /i.test(text)) return undefined;
  const m = MOVED_EN.exec(text) ?? CHANGED_EN.exec(text);
  if (!m) return undefined;
  const subject = m[1]!.replace(DETERMINER_EN, '').replace(/[\s,:;]+$/, '').trim();
  const to = m[2]!.split(/[,;.!?](?:\s|$)/)[0]!.trim();
  if (subject && to && !PRONOUN_EN.test(subject)) return { subject, to, kind: valueKind(to) };
  return undefined;
}
