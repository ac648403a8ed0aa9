/**
 * Colloquial completion in Chinese, read as what it means: a finished action said the short way
 * (升完 "finished upgrading", 迁完, 装好, 部署完了, 搞定) is found by the words it is written down
 * with (升级完成, 迁移完成, 安装完成) and the other way round. A kind of stemming for a verb's
 * resultative form, run on each CJK run by the tokenizer, on the index and the query alike:
 *
 * - a one-character verb followed by 完 or 好 is the short form of a two-character verb
 *   (SHORT_VERBS: 升完 → 升级 + 完成, 装好 → 安装 + 完成), unless it ends a word (提升完 is 提升);
 * - 完 after any other character ends an action (部署完了, 写完 → + 完成), where it does not begin
 *   a word of its own (完全 "entirely", 完美, 完整, 完善, 完成 itself …); so does 好 after one
 *   of the full verbs (安装好);
 * - 搞定, 完毕, 完工, 弄好, 搞好: + 完成.
 *
 * The segmenter cuts these inconsistently (升完 → 升/完, 部署完了 → 部署/完了, 迁完 → 迁完), so the
 * rules read the run's characters. A segment made only of a completion's characters (升, 完了, 迁完)
 * is replaced by its words, as a stemmer replaces a word by its stem: the short form's pieces are
 * no rarer words of their own (升 and 完了 in one line would outrank the line that says 升级完成);
 * any other segment is kept, with 完成 added when a completion ends inside it (看完 → 看完 + 完成).
 */

/** A verb's one-character short form, as said before 完 or 好, and the word it is written as. */
export const SHORT_VERBS: Record<string, string> = { 升: '升级', 迁: '迁移', 装: '安装', 配: '配置', 测: '测试', 修: '修复', 改: '修改', 搬: '搬家', 考: '考试' };

export const DONE = '完成';

/** Characters that make a two-character word with the short verb after them (提升, 上升, 安装, 检测 …): then it is no short form. */
const BEFORE: Record<string, string> = { 升: '提上晋飙回拉攀爬', 迁: '变拆搬', 装: '安包组假改服武', 配: '分搭匹调', 测: '检监预探猜', 修: '维装检翻', 改: '修更篡整批', 搬: '', 考: '思参报' };
const FULL_VERBS = new Set(Object.values(SHORT_VERBS));
/** 完 that begins a word of its own (完全, 完美, 完整 …), not a finished action. */
const WORD_AFTER_WAN = '全美整善蛋成毕工好';
/** 好 that begins a word of its own (好几 "several", 好像 "seems", 好看 …). */
const WORD_AFTER_HAO = '几多像看用吃处久些听玩的友比';
const SAID_DONE = /搞定|完毕|完工|弄好|搞好/;

/** Role of a character of a run: the short form of a verb, or the 完/好 that finishes an action. */
export const VERB = 1;
export const FINISH = 2;

/** Each character's role in the completions a run (folded: simplified, lower case) says (all 0 for a word for done alone, 搞定); undefined when it says none. */
export function completionRoles(run: string): Uint8Array | undefined {
  if (!run.includes('完') && !run.includes('好') && !run.includes('定')) return undefined;
  let roles = SAID_DONE.test(run) ? new Uint8Array(run.length) : undefined;
  for (let i = 1; i < run.length; i++) {
    const c = run[i]!;
    if (c !== '完' && c !== '好') continue;
    const next = run[i + 1] ?? '';
    if (next && (c === '完' ? WORD_AFTER_WAN : WORD_AFTER_HAO).includes(next)) continue;
    const verb = run[i - 1]!;
    const short = SHORT_VERBS[verb] !== undefined && (i < 2 || !(BEFORE[verb] ?? '').includes(run[i - 2]!));
    if (!short && c === '好' && !(i >= 2 && FULL_VERBS.has(run.slice(i - 2, i)))) continue;
    roles ??= new Uint8Array(run.length);
    if (short) roles[i - 1] = VERB;
    roles[i] = FINISH;
  }
  return roles;
}

/**
 * One segment's terms, the segment being run[start, start + w.length): its completion words in its
 * place when it is made only of a completion's characters (and a trailing 了), else the segment,
 * with 完成 after it when a completion ends inside it or it is a word for done (搞定).
 */
export function segmentTerms(w: string, start: number, roles: Uint8Array, emit: (t: string) => void): void {
  const core = w.length > 1 && w.endsWith('了') ? w.length - 1 : w.length;
  let all = true;
  let finish = false;
  for (let k = 0; k < core; k++) {
    const r = roles[start + k]!;
    if (r === 0) all = false;
    else if (r === FINISH) finish = true;
  }
  if (all) {
    for (let k = 0; k < core; k++) if (roles[start + k] === VERB) emit(SHORT_VERBS[w[k]!]!);
  } else emit(w);
  if (finish || (!all && SAID_DONE.test(w))) emit(DONE);
}

/** The terms a run adds for the completions it says, beside its own tokens (character bigrams, where no segmenter reads it). */
export function completionTerms(run: string, emit: (t: string) => void): void {
  const roles = completionRoles(run);
  if (!roles) return;
  for (let i = 0; i < run.length; i++) if (roles[i] === VERB) emit(SHORT_VERBS[run[i]!]!);
  emit(DONE);
}
