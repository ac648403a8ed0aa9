/**
 * The keyword rules of extraction (seed 002's "auto" mode), English and Chinese, as tables: what
 * is never kept (privacy), what is skipped (questions, speculation, chatter) and which type a
 * sentence gets. Each rule has an id, reported as the rule that fired. Order matters: the first
 * type rule that matches decides the type.
 *
 * Case-insensitive patterns are written in lower case without the `i` flag and matched against
 * the sentence lower-cased once (caseless()): V8 compiles an `i` pattern with a case class for
 * every letter, at about twice the cost, and a cold process (every `memtier extract`) compiles
 * each pattern it uses. The lists below (privacy markers, speculation, questions, noise) are all
 * matched that way (lower-casing leaves their Chinese patterns as they are); a type rule is when
 * its `caseless` is set.
 */
import { nativeFirst } from '../core/regexp.js';
import type { EntryType } from '../format/entry.js';

export interface TypeRule {
  id: string;
  type: EntryType;
  re: RegExp;
  /** The script the rule needs in the text (its id's suffix): "en" rules need Latin letters, "zh" rules Han characters. */
  script?: 'en' | 'zh';
  /** Case-insensitive: `re` (lower case, no `i` flag) is matched against caseless(text). */
  caseless?: boolean;
  /** What the text must hold for `re` to match at all (a digit, a character): tested first, so a cold process compiles `re` only for a sentence that could match. */
  needs?: RegExp | string | ((text: string) => boolean);
}

/**
 * The only characters whose lower case holds an ASCII letter (U+0130 "İ" → "i̇", U+212A the Kelvin
 * sign → "k"); an `i` pattern does not match them as that letter, so lower-casing would change
 * what matches.
 */
const LOWER_TO_ASCII = /[\u0130\u212a]/;

/** The text as the lower-case patterns read it; undefined when lower-casing would change a match (then `matches` uses the `i` flag). */
export function caseless(text: string): string | undefined {
  return LOWER_TO_ASCII.test(text) ? undefined : text.toLowerCase();
}

const withI = new WeakMap<RegExp, RegExp>();

/** `re`, a lower-case pattern, with the `i` flag (for a text caseless() cannot fold), made once. */
export function withCase(re: RegExp): RegExp {
  let i = withI.get(re);
  if (!i) withI.set(re, (i = new RegExp(re.source, `${re.flags}i`)));
  return i;
}

/** `re`, a lower-case pattern, matched case-insensitively: against `lower` (caseless(text)), or with the `i` flag when that is undefined. */
export function matches(re: RegExp, text: string, lower: string | undefined): boolean {
  return lower !== undefined ? nativeFirst(re).test(lower) : nativeFirst(withCase(re)).test(text);
}

/** Whether any of the lower-case patterns matches the text (case-insensitively). */
export const anyMatches = (res: RegExp[], text: string, lower = caseless(text)): boolean => res.some((re) => matches(re, text, lower));

/** "Don't keep this": the sentence holding it and the one after it are never proposed. */
export const PRIVATE_MARKERS: RegExp[] = [
  /(?<!\w)(?:don'?t|do not|please don'?t|no need to) (?:remember|save|store|keep|record|log|write (?:this|that|it) down|note (?:this|that))(?!\w)/,
  /(?<!\w)off the record(?!\w)/,
  /(?<!\w)forget (?:this|that|i said|what i said)(?!\w)/,
  /(?<!\w)between (?:you and me|us)(?!\w)/,
  /(?<!\w)this is private(?!\w)/,
  /别记|不用记|不要记|不要保存|别保存|别存|不要存|别写下来|不用写下来|保密|私下说|别告诉别人/,
];

/** Speculation: not a fact yet. */
export const SPECULATION: RegExp[] = [
  /(?<!\w)(?:might|maybe|perhaps|possibly|probably|not sure|i guess|i wonder|could be|may or may not|we'll see|thinking about|considering)(?!\w)/,
  /可能|也许|或许|大概|说不定|不确定|不一定|考虑一下|再看看|还没想好/,
];

/** A question is not a fact. */
export const QUESTION: RegExp[] = [
  /[?？]\s*$/,
  /[吗呢吧]\s*[。.!！]?\s*$/,
  /^(?:what|when|where|who|whom|why|how|which|is|are|do|does|did|can|could|should|would|will|shall)(?!\w)[^.!]*$/,
];

/** Greetings, thanks, acknowledgements and transient chatter (the whole sentence). */
export const NOISE: RegExp[] = [
  /^(?:hi|hello|hey|yo|thanks?(?: you)?(?: so much| a lot)?|thx|ty|ok(?:ay)?|k|cool|great|nice|awesome|perfect|got it|sounds good|sure|yes|yeah|yep|no|nope|lol|haha|good (?:morning|night|evening|afternoon)|bye|see you|cheers|np|no problem|you're welcome|right|exactly|agreed)[\s!.,~]*$/,
  /^(?:你好|您好|嗨|谢谢(?:你|您)?|多谢|感谢|好的?|嗯+|哦|收到|明白了?|了解|知道了|哈+|早上?好?|晚安|拜拜|没问题|对的?|是的|行|可以)[\s！!。.,，~]*$/,
  /(?<!\w)(?:brb|be right back|let me (?:check|look|see|think)|one sec(?:ond)?|hold on|give me a (?:sec|minute)|going (?:to|for) lunch|i'?ll be back|talk (?:to you )?later|ttyl)(?!\w)/,
  /稍等|等一下|我看看|我查一下|马上回来|先这样|回头聊/,
];

/** Does the sentence's first few words hold one of decision-start-en's verbs? (A cold process then compiles that pattern only for such a sentence.) */
function opensWithVerb(text: string): boolean {
  const head = text.slice(0, 32).toLowerCase();
  return head.includes('decided ') || head.includes('agreed ') || head.includes('settled on') || head.includes('opted ');
}

/**
 * The label a sentence opens with ("Lesson: …" → "lesson", "经验：…" → "经验"), lower-cased, or '':
 * the words before a colon in its first 24 characters. The label rules run (and a cold process
 * compiles them) only for a sentence whose label is one of theirs.
 */
function labelOf(text: string): string {
  let at = text.indexOf(':');
  const wide = text.indexOf('：');
  if (at < 0 || (wide >= 0 && wide < at)) at = wide;
  if (at < 0 || at >= 24) return '';
  // past a list mark or quote ("- ", "> ") and spaces (no pattern: a cold process compiles none for this)
  let from = 0;
  while (from < at) { const c = text.charCodeAt(from); if (c === 32 || c === 9 || c === 45 || c === 42 || c === 62) from++; else break; }
  return text.slice(from, at).trim().toLowerCase();
}
const LESSON_LABELS = new Set(['lesson', 'lessons', 'lesson learned', 'lessons learned', 'lesson learnt', 'lessons learnt', 'til', 'learned', 'learnt', 'takeaway', 'takeaways', 'gotcha', 'postmortem', 'post-mortem', '经验', '经验教训', '教训', '心得', '收获', '体会']);
const PREF_LABELS = new Set(['preference', 'pref', 'rule', 'house rule', 'convention', 'style', '偏好', '规则', '约定', '习惯']);

/** The type rules, first match wins. */
const RULES: TypeRule[] = [
  // a note's own label, the writer's typing of the line ("Lesson: always check disk space before a
  // deploy", "TIL: …", "Rule: no deploys on Fridays", "经验：…"): first, over what the words say
  // (the pattern only says "a label, then text": which label is labelOf's test)
  { id: 'label-lesson', type: 'LESSON', re: /[:：]\s*\S/, needs: (t) => LESSON_LABELS.has(labelOf(t)) },
  { id: 'label-pref', type: 'PREF', re: /[:：]\s*\S/, needs: (t) => PREF_LABELS.has(labelOf(t)) },
  // lessons and post-mortems
  { id: 'lesson-en', type: 'LESSON', re: /(?<!\w)(?:lesson(?:s)? learned|learned (?:the hard way|that)|turns out|root cause|never again|the fix was|should have|the mistake was|the problem was|post-?mortem|caused by|we learned)(?!\w)/ },
  { id: 'lesson-zh', type: 'LESSON', re: /教训|学到了?|原来是|根因|根本原因|再也不|踩(?:了)?坑|问题出在|下次(?:一定|要|别|记得)|事后看/ },
  // decisions
  { id: 'decision-en', type: 'DECISION', re: /(?<!\w)(?:(?:we|i|the team|they) (?:have |had |finally )?(?:decided|agreed|chose|picked|settled on|went with|opted for)|let'?s (?:go with|use|switch|stick with|move to|keep)|we(?:'ll| will| are going to|'re going to) (?:use|go with|switch to|move to|adopt|drop|stick with)|we(?:'re| are) (?:going with|switching to|moving to|sticking with)|final answer|switch(?:ed|ing)? (?:\w+ )?to|replac(?:e|ed|ing) \S+(?: \S+)? with|going with)(?!\w)|(?<!\w)(?:decision|decided|verdict)\s*[:：]/ },
  // a note's telegraphic decision, its sentence opening with the verb ("Decided to go with Astro…",
  // "Agreed on a two-week cadence"): its own small pattern, so the large one above stays as cheap
  // to compile as it was (+4M instructions in a cold extract when folded into it)
  { id: 'decision-start-en', type: 'DECISION', re: /^[\s\-*>]{0,3}(?:(?:finally|so|then|today|together) )?(?:decided (?:to|on|against|that)|agreed (?:on|that)|settled on|opted (?:for|to))(?!\w)/, needs: opensWithVerb },
  { id: 'decision-zh', type: 'DECISION', re: /决定|定了|就用|改用|选了|选定|确定(?:用|了|下来)|最终(?:用|选|定)|拍板|换成|敲定|采用|统一用/ },
  // preferences and standing instructions to the agent
  { id: 'pref-en', type: 'PREF', re: /(?<!\w)(?:i|we) (?:really |much |strongly |always |usually )?(?:prefer|like|love|hate|dislike|can'?t stand|enjoy|don'?t like|do not like|want you to)(?!\w)|(?<!\w)my fav(?:ou)?rite(?!\w)|(?<!\w)i'?d rather(?!\w)|(?<!\w)please (?:always|never|don'?t|do not|keep|use|reply|answer|write)(?!\w)|(?<!\w)call me(?!\w)|(?<!\w)from now on(?!\w)|(?<!\w)going forward(?!\w)|(?<!\w)(?:always|never) (?:reply|answer|respond|write|use|call|send|format|put|add|ask)(?!\w)|(?<!\w)don'?t (?:ever )?use(?!\w)/ },
  { id: 'pref-zh', type: 'PREF', re: /我(?:很|比较|更|最|一直|通常|也)?(?:喜欢|偏好|偏爱|讨厌|不喜欢|爱用|习惯|受不了)|以后(?:都|请|要|就|一律|统一)?|今后|不要用|别用|不要再|叫我|请(?:总是|一直|不要|别|用)|回复(?:请)?用|我的习惯/ },
  // deadlines and dated events
  { id: 'deadline-en', type: 'EVENT', re: /(?<!\w)(?:deadline|due(?! to(?!\w)| diligence(?!\w))|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|next week|the end of|end of|eod|eow|\d{4}-\d{2}-\d{2})|before (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week|the end of|\d{4}-\d{2}-\d{2})|(?:meeting|demo|launch|release|call|interview|review|flight|appointment|standup|offsite|workshop) (?:is |was )?(?:on|at|moved to|rescheduled to|set for)|scheduled (?:for|on)|moved to (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week|tomorrow|\d{4}-\d{2}-\d{2}))(?!\w)/ },
  { id: 'deadline-zh', type: 'EVENT', re: /截止|之前(?:要|必须|得)?(?:交|完成|上线|发|提交|搞定|给)|前(?:交|完成|上线|提交|搞定)|(?:下|本|这)(?:个)?(?:周|星期)[一二三四五六日天].{0,12}(?:之前|前|开会|上线|发布|见面|到期|截止|演示)|(?:明天|后天|月底|周[一二三四五六日天]).{0,10}(?:之前|前|开会|上线|发布|见面|到期|截止|演示|面试)|(?:会议|演示|上线|发布|面试|航班|评审会?|例会|周会|开会)(?:定在|改到|改在|安排在|挪到|在|是)/ },
  // people and roles
  { id: 'people-en', type: 'PEOPLE', re: /(?<!\w)[A-Z][a-z]+(?: [A-Z][a-z]+)? (?:is (?:our|the|my|a) [a-z]+(?: [a-z]+)?(?: (?:lead|manager|owner|engineer|designer|contact|director|head|admin|pm|cto|ceo|boss|colleague|wife|husband|partner|sister|brother|mother|father|son|daughter|friend))?|owns|handles|is responsible for|leads|manages|runs|reports to|is in charge of|takes care of|joined)(?!\w)|(?<!\w)[Aa]sk [A-Z][a-z]+ (?:about|for)(?!\w)|(?<!\w)[Mm]y (?:wife|husband|partner|boss|manager|colleague|sister|brother|mother|father|mom|dad|son|daughter|friend|cofounder|co-founder) (?:is )?[A-Z][a-z]+(?!\w)/ },
  { id: 'people-zh', type: 'PEOPLE', re: /(?:[\u4e00-\u9fff]{1,4}|[A-Z][a-z]+)\s?(?:负责|主管|对接)|我的?(?:老婆|老公|妻子|丈夫|太太|先生|女朋友|男朋友|妈妈|爸爸|儿子|女儿|老板|领导|同事|朋友|合伙人)\s?(?:[\u4e00-\u9fff]{2,3}|[A-Z][a-z]+)|是(?:我们的?|团队的?|公司的?)?[\u4e00-\u9fffA-Za-z]{0,8}(?:负责人|经理|老板|同事|主管|联系人|总监|架构师|老婆|老公|女朋友|男朋友|妈妈|爸爸|朋友)|联系人是|找(?:[\u4e00-\u9fff]{1,3}|[A-Z][a-z]+)(?:问|要|确认)/ },
  // what a named person (or one of mine) prefers, likes or cannot have; tried only on a sentence
  // holding one of the verbs (a cold process compiles the pattern only then)
  { id: 'people-likes-en', type: 'PEOPLE', re: /(?<!\w)(?!(?:I|We|You|He|She|They|It|This|That|There|Everyone|Everybody|Nobody|Someone|People|Users|Customers|Clients|Developers|Kids|Folks|Most|Many|Some|All|The|Our|My)(?!\w))[A-Z][a-z]+(?: [A-Z][a-z]+)? (?:really |also |always |usually |still )?(?:prefers|likes|loves|hates|dislikes|enjoys|can't stand|doesn't like|does not like|is allergic to)(?!\w)|(?<!\w)[Mm]y (?:wife|husband|partner|boss|manager|colleague|sister|brother|mother|father|mom|dad|son|daughter|friend|cofounder|co-founder) (?:really |also |always |usually |still )?(?:prefers|likes|loves|hates|dislikes|enjoys|can't stand|doesn't like|does not like|is allergic to)(?!\w)/, needs: /prefers|likes|loves|hates|enjoys|can't stand|t like|allergic/ },
  { id: 'people-likes-zh', type: 'PEOPLE', re: /(?:小[\u4e00-\u9fff]|老(?!是)[\u4e00-\u9fff]|[A-Z][a-z]+|(?:老婆|老公|妻子|丈夫|太太|妈妈|爸爸|儿子|女儿|老板|领导|同事|朋友|女朋友|男朋友|合伙人))\s?(?:很|比较|更|最|一直|通常|也|不)?(?:喜欢|偏好|偏爱|讨厌|爱吃|爱用|不吃|习惯用|受不了|对.{1,8}过敏)/, needs: /喜欢|偏好|偏爱|讨厌|爱吃|爱用|不吃|习惯用|受不了|过敏/ },
  // blockers and project state
  { id: 'blocker-en', type: 'PROJ', re: /(?<!\w)(?:blocked (?:by|on)|waiting (?:for|on)|stuck on|can'?t \w+(?: \w+)? until|blocker|on hold|depends on|pending (?:approval|review))(?!\w)/ },
  { id: 'blocker-zh', type: 'PROJ', re: /卡在|卡住|阻塞|被.{1,10}挡住|等.{1,10}(?:回复|确认|审批|批准|上线)|暂停了?|依赖于/ },
  // tools, versions, hosts, ports
  { id: 'tech-en', type: 'TECH', re: /(?<!\w)(?:v?\d+\.\d+(?:\.\d+)?|port \d{2,5}|(?:runs|running|deployed|hosted|installed|upgraded|migrated|moved) (?:on|to|in|at)|we use|we're using|we are using|uses \w+ for|the (?:server|host|database|db|cluster|bucket|repo|endpoint|api) (?:is|lives|runs))(?!\w)|(?<!\w)version \S+\b/ },
  { id: 'tech-zh', type: 'TECH', re: /端口|版本|升级到|迁移到|部署(?:在|到)|服务器|集群|数据库(?:是|用|在)|配置(?:在|成|为)|我们用|用的是|跑在/ },
  // an explicit "remember": kept whatever it is
  { id: 'remember-en', type: 'PROJ', re: /(?<!\w)(?:remember (?:that|this)|note (?:that|this)|keep in mind|for the record|fyi)(?!\w)|(?<!\w)remember :(?=\w)/ },
  { id: 'remember-zh', type: 'PROJ', re: /记住|记一下|帮我记|备注一下|注意(?:一下)?[:：]/ },
  // a day of the calendar ("Dec 12", "the 3rd of March", "on 12/20", "due Jan 15", "Friday at 6pm",
  // 12月5日, 十二月五号): a dated event, when no rule above typed the sentence
  { id: 'date-en', type: 'EVENT', re: /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(?:uary|ruary|ch|il|e|y|ust|tember|ober|ember)?\.? \d{1,2}(?:st|nd|rd|th)?\b|\b\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(?:uary|ruary|ch|il|e|y|ust|tember|ober|ember)?\b|\b(?:on|by|until|before|due) \d{1,2}\/\d{1,2}\b|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight) at \d/, needs: /\d/ },
  { id: 'date-zh', type: 'EVENT', re: /(?:\d{1,2}|[一二三四五六七八九十]{1,3})月(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号號]/, needs: '月' },
];

/** The rules written case-insensitive (lower case, matched against caseless(text)). */
const CASELESS = new Set(['lesson-en', 'decision-en', 'decision-start-en', 'pref-en', 'deadline-en', 'blocker-en', 'tech-en', 'remember-en', 'date-en']);

export const TYPE_RULES: TypeRule[] = RULES.map((r) => ({ ...r, script: r.id.endsWith('-zh') ? 'zh' : r.id.endsWith('-en') ? 'en' : undefined, ...(CASELESS.has(r.id) ? { caseless: true } : {}) }));
