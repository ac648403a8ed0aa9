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
import { CHANGE_ZH, changeOf } from './change.js';

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
  return head.includes('decided ') || head.includes('agreed ') || head.includes('settled on') || head.includes('opted ') || head.includes('went with') || head.includes('chose ') || head.includes('switched ');
}

/** The roles and relations a [PEOPLE] sentence names ("Rafael is our new SRE lead", "Tom's manager is Aisha"). */
const ROLES = new Set([
  'lead', 'manager', 'owner', 'engineer', 'developer', 'designer', 'architect', 'analyst', 'expert',
  'contact', 'director', 'head', 'admin', 'pm', 'cto', 'ceo', 'cfo', 'coo', 'vp', 'boss',
  'colleague', 'teammate', 'mentor', 'recruiter', 'founder', 'cofounder', 'co-founder', 'intern',
  'assistant', 'consultant', 'contractor', 'wife', 'husband', 'partner', 'girlfriend', 'boyfriend',
  'fiance', 'fiancee', 'sister', 'brother', 'mother', 'father', 'mum', 'mom', 'dad', 'son',
  'daughter', 'friend', 'cousin', 'aunt', 'uncle', 'niece', 'nephew', 'grandma', 'grandpa',
  'grandmother', 'grandfather', 'granny', 'godmother', 'godfather', 'teacher', 'tutor', 'coach',
  'doctor', 'dentist', 'gp', 'nurse', 'therapist', 'nanny', 'babysitter', 'childminder', 'neighbor',
  'neighbour', 'landlord', 'landlady', 'accountant', 'lawyer', 'vet', 'client', 'customer', 'vendor',
  'supplier', 'rep', 'representative',
]);
const DETERMINERS = new Set(['our', 'the', 'my', 'a', 'an', 'his', 'her', 'their']);
const POSSESSIVES = new Set(['our', 'his', 'her', 'their']);
const possessive = (w: string): boolean => POSSESSIVES.has(w) || w.endsWith("'s") || w.endsWith('\u2019s');

/**
 * Does the sentence give someone a role or a relation where people-role-en reads one: a role among
 * the four words after "is" and a determiner ("is our new SRE lead", "is Emma's class teacher"),
 * or right before "is"/"was" a word or two after a possessive ("Tom's new manager is")? Words are
 * runs of letters, digits, "-" and apostrophes, lower-cased ("3pm" is no PM).
 */
function roleNamed(text: string): boolean {
  const w = text.toLowerCase().split(/[^a-z0-9'\u2019-]+/);
  for (let i = 0; i < w.length; i++) {
    if (w[i] === 'is' && i + 1 < w.length && (DETERMINERS.has(w[i + 1]!) || possessive(w[i + 1]!))) {
      for (let j = i + 2; j < i + 6 && j < w.length; j++) if (ROLES.has(w[j]!)) return true;
    }
    if ((w[i] === 'is' || w[i] === 'was') && i >= 2 && ROLES.has(w[i - 1]!) && (possessive(w[i - 2]!) || (i >= 3 && possessive(w[i - 3]!)))) return true;
  }
  return false;
}

/**
 * Does the sentence name a day (…day, tomorrow, tonight) or hold an hour or a day of the month
 * ("at 4", "7pm", "18:00", "the 20th")? event-en cannot match without one; a version or a port
 * ("Postgres 16", "port 6380") is neither, and a cold process compiles the pattern only then.
 */
function namesDayOrHour(text: string): boolean {
  const t = text.toLowerCase();
  if (t.includes('tomorrow') || t.includes('tonight') || (t.includes('day') && DAYS.some((d) => t.includes(d)))) return true;
  return /\d/.test(t) && HOURISH.test(t);
}
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const HOURISH = /at \d|\d ?[ap]m|\d:\d\d|\d(?:st|nd|rd|th)/;

/** Does the sentence hold a time of day, a weekday or a day of the month (点, 号, 周五, 星期五)? event-zh cannot match without one. */
function namesZhDayOrHour(text: string): boolean {
  return text.includes('点') || text.includes('号') || text.includes('號') || text.includes('时') || ZH_WEEKDAY.test(text);
}
const ZH_WEEKDAY = /(?:周|星期|礼拜)[一二三四五六日天]/;

/**
 * Could decision-move-en match: a verb of leaving something with one of going somewhere ("dropping
 * X, moving to Y"), a move "from" something, or "we're" with one of its verbs? (A cold process
 * compiles the pattern only then: "the demo moved to Tuesday" does not.)
 */
function movesSomething(text: string): boolean {
  const t = text.toLowerCase();
  const has = (ws: string[]): boolean => ws.some((w) => t.includes(w));
  return (has(LEAVE_VERBS) && has(GO_WORDS)) || (has(MOVE_VERBS) && t.includes(' from ')) || ((t.includes("we're ") || t.includes('we are ')) && has(WE_VERBS));
}
const LEAVE_VERBS = ['dropp', 'drop ', 'ditch', 'retir', 'leav', 'cancel', 'stop using', 'stopped using', 'stopping using'];
const GO_WORDS = ['mov', 'switch', 'migrat', 'go with', 'going with', 'go for', 'going for', 'favour of', 'favor of', 'for good'];
const WE_VERBS = ['sticking', 'dropping', 'ditching', 'rid of', 'switching', 'moving'];
const MOVE_VERBS = ['moving', 'moved', 'switch', 'migrat'];

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
/** A label naming a lesson with words after its noun ("Lesson for me", "Lessons from the outage", "Takeaway of the week"). */
const LESSON_LABEL_LONG = /^(?:lessons?|takeaways?|learnings?) (?:for|from|of|to|learned|learnt|today)(?!\w)/;
const isLessonLabel = (t: string): boolean => { const l = labelOf(t); return LESSON_LABELS.has(l) || (l.length > 8 && LESSON_LABEL_LONG.test(l)); };

/** The type rules, first match wins. */
const RULES: TypeRule[] = [
  // a note's own label, the writer's typing of the line ("Lesson: always check disk space before a
  // deploy", "TIL: …", "Rule: no deploys on Fridays", "经验：…"): first, over what the words say
  // (the pattern only says "a label, then text": which label is labelOf's test)
  { id: 'label-lesson', type: 'LESSON', re: /[:：]\s*\S/, needs: isLessonLabel },
  { id: 'label-pref', type: 'PREF', re: /[:：]\s*\S/, needs: (t) => PREF_LABELS.has(labelOf(t)) },
  // lessons: what was learned or is to be done differently, in a learned/insight shape ("turns
  // out", "never again", "next time …", 教训, 下次…记得): the word "postmortem" is not one (a
  // postmortem is a meeting or a document: "Postmortem review on Friday", "write the postmortem")
  { id: 'lesson-en', type: 'LESSON', re: /(?<!\w)(?:lesson(?:s)? learn(?:ed|t)|learn(?:ed|t) (?:the hard way|that)|turns out|root cause|never again|the fix was|should have|the mistake was|the problem was|caused by|we learn(?:ed|t)|in hindsight)(?!\w)|(?:^|[,;:(] ?)next time(?!\w)/ },
  { id: 'lesson-zh', type: 'LESSON', re: /教训|学到了?|原来是|原来.{1,24}(?:导致|造成|引起)|根因|根本原因|再也不|踩(?:了)?坑|问题出在|下次.{0,10}?(?:一定|要|别|记得|得先|先)|事后看/ },
  // decisions
  { id: 'decision-en', type: 'DECISION', re: /(?<!\w)(?:(?:we|i|the team|they) (?:have |had |finally )?(?:decided|agreed|chose|picked(?! up(?!\w))|settled on|went with|opted for)|let'?s (?:go with|use|switch|stick with|move to|keep(?! (?:\w+in[g']|it up|at it|up|on|each other)(?!\w)))|we(?:'ll| will| are going to|'re going to) (?:use|go with|switch to|move to|adopt|drop|stick with)|we(?:'re| are) (?:going with|switching to|moving to|sticking with)|final answer|switch(?:ed|ing)? (?:\w+ )?to|replac(?:e|ed|ing) \S+(?: \S+)? with|(?<!keep )going with)(?!\w)|(?<!\w)(?:decision|decided|verdict)\s*[:：]/ },
  // a change of what is used, phrased as the move: "we're dropping PagerDuty …, moving to Grafana
  // OnCall", "we're moving the calendar from Google to Fastmail", "sticking to it" (tried only on a
  // sentence holding one of the verbs: the large pattern above stays as cheap to compile)
  { id: 'decision-move-en', type: 'DECISION', re: /(?<!\w)(?:(?:drop|dropp(?:ed|ing)|ditch(?:ed|ing)?|retir(?:e|ed|ing)|leav(?:e|ing)|cancel(?:l?ed|l?ing)?|stop(?:ped|ping)? using) (?!off(?!\w))[^.;]{1,60}?(?:(?:mov|switch|migrat)(?:e|ed|es|ing)? (?:over |back )?to|go(?:ing)? (?:with|for)|in favou?r of|for good)|(?:moving|moved|switching|switched|migrating|migrated) (?:\w+ ){0,4}from \S+(?: \S+)? to(?! (?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow|next(?!\w)|the \d|\d))|we(?:'re| are) (?:sticking (?:with|to)|dropping|ditching|getting rid of|switching (?:\w+ ){0,3}to|moving (?:over |back )?to))(?!\w)/, needs: movesSomething },
  // a note's telegraphic decision, its sentence opening with the verb ("Decided to go with Astro…",
  // "Agreed on a two-week cadence"): its own small pattern, so the large one above stays as cheap
  // to compile as it was (+4M instructions in a cold extract when folded into it)
  { id: 'decision-start-en', type: 'DECISION', re: /^[\s\-*>]{0,3}(?:(?:finally|so|then|today|together|in the end) )?(?:decided (?:to|on|against|that)|agreed (?:on|that)|settled on|opted (?:for|to)|went with|chose|switched (?:(?!off|on)\w+ ){0,3}(?:over )?to)(?!\w)/, needs: opensWithVerb },
  { id: 'decision-zh', type: 'DECISION', re: /决定|(?:最后|最终|就|那就|已经|都|这么|还是)定(?:了|下来)|定了(?=[:：]|用|选|去|买|下来)|就用|改用|选了|选定|确定(?:用|了|下来)|最终(?:用|选|定)|拍板|换成|换到|改成(?![\s\d]|(?:下|本|这)?个?(?:周|星期|礼拜)|明天|后天|上午|下午|晚上|早上)|还是(?:用|选)|不换|(?:不再|停止|停)用|弃用|不用\s?[A-Z][A-Za-z]|敲定|采用|统一用/ },
  // preferences and standing instructions to the agent
  { id: 'pref-en', type: 'PREF', re: /(?<!\w)(?:i|we) (?:really |much |strongly |always |usually )?(?:prefer|like|love|hate|dislike|can'?t stand|enjoy|don'?t like|do not like|want you to)(?!\w)|(?<!\w)my fav(?:ou)?rite(?!\w)|(?<!\w)i'?d rather(?!\w)|(?<!\w)please (?:always|never|don'?t|do not|keep|use|reply|answer|write)(?!\w)|(?<!\w)call me(?!\w)|(?<!\w)from now on(?!\w)|(?<!\w)going forward(?!\w)|(?<!\w)(?:always|never) (?:reply|answer|respond|write|use|call|send|format|put|add|ask)(?!\w)|(?<!\w)don'?t (?:ever )?use(?!\w)/ },
  { id: 'pref-zh', type: 'PREF', re: /我(?:很|比较|更|最|一直|通常|也)?(?:喜欢|偏好|偏爱|讨厌|不喜欢|爱用|习惯|受不了)|^以后|以后(?:都|请|一律|统一)|今后|不许|不要用|别用|不要再|我(?:再也)?不(?:想|打算|准备)再|叫我|请(?:总是|一直|不要|别|用)|回复(?:请)?用|我的习惯/ },
  // a rule of style for the agent's answers ("回答尽量简短，先给结论再解释", "answer briefly,
  // conclusion first", "no emojis"): how to answer is a preference, said without "I prefer"
  { id: 'style-en', type: 'PREF', re: /(?<!\w)(?:(?:answer|reply|respond|write)(?: me)? (?:briefly|concisely|tersely|in (?:short|brief|english|chinese|mandarin|japanese|bullet points|bullets|one line|plain (?:english|language|text)))|(?:keep|make) (?:your |the |all )?(?:answers?|repl(?:y|ies)|responses?|messages?) (?:short|brief|concise|terse|to the point)|(?:conclusion|bottom line|tl;?dr|summary) first(?= *(?:[,.;!]|$|then |and then |please))|(?:give|put|lead with|start with) (?:me )?the (?:conclusion|answer|bottom line) first|(?:no|without|skip the) emojis?|be (?:brief|concise|terse)(?: (?:in|with) (?:your )?(?:answers?|replies))?)(?!\w)/, needs: /answer|repl|respond|write|keep|make|first|emoji|brief|concise|terse/i },
  { id: 'style-zh', type: 'PREF', re: /(?:回答|回复|答复|说话|解释|输出|写)(?:时|的时候)?[，,]?(?:请|要|都|尽量|尽可能|最好|务必)*(?:简短|简洁|精简|简明|简单点|短一?点|短一些|直接点?|详细点?|口语化)|先(?:给|说|讲|写|放)(?:出)?结论|结论(?:先行|放(?:在)?前面|写在前面)|(?:别|不要|不用|少用|避免)(?:用|加|带|发)?(?:表情|emoji)|(?:用|以)(?:中文|英文|英语|简体中文|简体|繁体中文|繁体|日语|日文)(?:回答|回复|交流|答复|写)|(?:不要|别)(?:太)?(?:啰嗦|长篇大论|废话)|少(?:说)?废话/, needs: /回答|回复|答复|说话|解释|输出|写|结论|表情|emoji|中文|英文|英语|简体|繁体|日语|日文|啰嗦|长篇大论|废话/ },
  // deadlines and dated events
  { id: 'deadline-en', type: 'EVENT', re: /(?<!\w)(?:deadline|due(?! to(?!\w)| diligence(?!\w))|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|next week|the end of|end of|eod|eow|\d{4}-\d{2}-\d{2})|before (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week|the end of|\d{4}-\d{2}-\d{2})|(?:meeting|demo|launch|release|call|interview|review|flight|appointment|standup|offsite|workshop) (?:is |was )?(?:on|at|moved to|rescheduled to|set for)|scheduled (?:for|on)|moved to (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week|tomorrow|\d{4}-\d{2}-\d{2}))(?!\w)/ },
  { id: 'deadline-zh', type: 'EVENT', re: /截止|之前(?:要|必须|得)?(?:交|完成|上线|发|提交|搞定|给)|前(?:交|完成|上线|提交|搞定)|(?:下|本|这)(?:个)?(?:周|星期)[一二三四五六日天].{0,12}(?:之前|前|开会|上线|发布|见面|到期|截止|演示)|(?:明天|后天|月底|周[一二三四五六日天]).{0,10}(?:之前|前|开会|上线|发布|见面|到期|截止|演示|面试)|(?:会议|演示|上线|发布|面试|航班|评审会?|例会|周会|开会)(?:定在|改到|改在|安排在|挪到|在|是)/ },
  // people: a named person and a fact about them: what they own, run or handle ("Ana owns the
  // budget"; a thing that "runs on" a host is no person), whom to ask, one of mine by name
  { id: 'people-en', type: 'PEOPLE', re: /(?<!\w)[A-Z][a-z]+(?: [A-Z][a-z]+)? (?:owns|handles|is responsible for|leads|manages|runs(?! (?:on|in|at|every|daily|nightly|weekly|hourly)(?!\w))|reports to|is in charge of|takes care of|joined)(?!\w)|(?<!\w)[Aa]sk [A-Z][a-z]+ (?:about|for)(?!\w)|(?<!\w)[Mm]y (?:wife|husband|partner|boss|manager|colleague|sister|brother|mother|father|mom|dad|son|daughter|friend|cofounder|co-founder) (?:is )?[A-Z][a-z]+(?!\w)/ },
  // a named person's role or relation ("Rafael is our new SRE lead", "Mrs Patel is Emma's class
  // teacher", "Tom's new manager is Aisha"), not a pronoun's or a thing's ("She is a reindeer and
  // needs antlers" is a costume, "Barcelona is a must-visit city"): the pattern says only "a name is
  // our/the/Emma's …" or "Tom's … is a name"; that a word there is a role or a relation is
  // roleNamed's test, run first (the role list inside the pattern cost a cold process ~9 ms to compile)
  { id: 'people-role-en', type: 'PEOPLE', re: /(?<!\w)(?!(?:He|She|It|They|We|You|I|This|That|There|Here|Who|What|Which|Everyone|Someone|Nobody|Today)(?!\w))[A-Z][a-z]+(?: [A-Z][a-z]+)? is (?:our|the|my|a|an|his|her|their|[A-Z][a-z]+['’]s)(?: [\w-]+){1,4}|(?<!\w)(?:[A-Z][a-z]+['’]s|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir)(?: [\w-]+){1,2} (?:is|was) (?!(?:He|She|It|They|This|That)(?!\w))[A-Z][a-z]+(?!\w)/, needs: roleNamed },
  { id: 'people-zh', type: 'PEOPLE', re: /(?:[\u4e00-\u9fff]{1,4}|[A-Z][a-z]+)\s?(?:负责|主管|对接)|我的?(?:老婆|老公|妻子|丈夫|太太|先生|女朋友|男朋友|妈妈|爸爸|儿子|女儿|老板|领导|同事|朋友|合伙人)\s?(?:[\u4e00-\u9fff]{2,3}|[A-Z][a-z]+)|是(?:我们的?|团队的?|公司的?)?[\u4e00-\u9fffA-Za-z]{0,8}(?:负责人|经理|老板|同事|主管|联系人|总监|架构师|老婆|老公|女朋友|男朋友|妈妈|爸爸|朋友)|联系人是|找(?:[\u4e00-\u9fff]{1,3}|[A-Z][a-z]+)(?:问|要|确认)|(?:[\u4e00-\u9fff]{2,3}|[A-Z][a-z]+)的(?:新|现任|前)?(?:领导|经理|老板|主管|上司|导师|老师|班主任|负责人|联系人|医生|律师)(?:是|叫)(?:[\u4e00-\u9fff]{2,3}|[A-Z][a-z]+)/ },
  // what a named person (or one of mine) prefers, likes or cannot have; tried only on a sentence
  // holding one of the verbs (a cold process compiles the pattern only then)
  { id: 'people-likes-en', type: 'PEOPLE', re: /(?<!\w)(?!(?:I|We|You|He|She|They|It|This|That|There|Everyone|Everybody|Nobody|Someone|People|Users|Customers|Clients|Developers|Kids|Folks|Most|Many|Some|All|The|Our|My)(?!\w))[A-Z][a-z]+(?: [A-Z][a-z]+)? (?:really |also |always |usually |still )?(?:prefers|likes|loves|hates|dislikes|enjoys|can't stand|doesn't like|does not like|is allergic to)(?!\w)|(?<!\w)[Mm]y (?:wife|husband|partner|boss|manager|colleague|sister|brother|mother|father|mom|dad|son|daughter|friend|cofounder|co-founder) (?:really |also |always |usually |still )?(?:prefers|likes|loves|hates|dislikes|enjoys|can't stand|doesn't like|does not like|is allergic to)(?!\w)/, needs: /prefers|likes|loves|hates|enjoys|can't stand|t like|allergic/ },
  { id: 'people-likes-zh', type: 'PEOPLE', re: /(?:小[\u4e00-\u9fff]|老(?!是)[\u4e00-\u9fff]|[A-Z][a-z]+|(?<![\u4e00-\u9fff])[王李张刘陈杨黄赵吴徐孙马朱胡郭何林罗郑梁谢宋唐韩冯邓曹彭肖袁潘蒋蔡杜叶苏魏吕丁沈姚卢姜崔钟谭汪廖贾韦邹孟秦邱尹薛侯陶贺郝龚邵覃戴汤][\u4e00-\u9fff]{1,2}|(?:老婆|老公|妻子|丈夫|太太|妈妈|爸爸|儿子|女儿|老板|领导|同事|朋友|女朋友|男朋友|合伙人))\s?(?:很|比较|更|最|一直|通常|也|不)?(?:喜欢|偏好|偏爱|讨厌|爱吃|爱用|不吃|习惯用|受不了|对.{1,8}过敏)/, needs: /喜欢|偏好|偏爱|讨厌|爱吃|爱用|不吃|习惯用|受不了|过敏/ },
  // blockers and project state
  { id: 'blocker-en', type: 'PROJ', re: /(?<!\w)(?:blocked (?:by|on)|waiting (?:for|on)|stuck on|can'?t \w+(?: \w+)? until|blocker|on hold|depends on|pending (?:approval|review))(?!\w)|(?<!\w)\d{1,3} ?% (?:done|complete|finished|through)(?!\w)/ },
  { id: 'blocker-zh', type: 'PROJ', re: /卡在|卡住|阻塞|被.{1,10}挡住|等.{1,10}(?:回复|确认|审批|批准|上线)|暂停了?|依赖于|(?:完成|做)了?(?:大约|差不多|将近)?(?:\d{1,3}\s?%|[一二三四五六七八九]成)/ },
  // tools, versions, hosts, ports
  { id: 'tech-en', type: 'TECH', re: /(?<!\w)(?:v?\d+\.\d+(?:\.\d+)?|port \d{2,5}|(?:runs|running|deployed|hosted|installed|upgraded|migrated|moved(?! to (?:(?:next|this|every) )?(?:mon|tues|wednes|thurs|fri|satur|sun)day)) (?:on|to|in|at)|we use|we're using|we are using|uses \w+ for|the (?:server|host|database|db|cluster|bucket|repo|endpoint|api) (?:is|lives|runs))(?!\w)|(?<!\w)version \S+\b/ },
  { id: 'tech-zh', type: 'TECH', re: /端口|版本|升级到|迁移到|部署(?:在|到)|服务器|集群|数据库(?:是|用|在)|配置(?:在|成|为)|我们用|用的是|跑在|(?:都|一律|全部?)用\s?[A-Za-z]/ },
  // a fact changed to a new value ("钢琴课又改了，改到周日下午", "备份保留天数改成 30 天", "backup
  // retention bumped to 30 days"): a change of a time is an event, of anything else a decision;
  // capture supersedes the entry it changes (change.ts, capture.ts), which also gives it that entry's type
  { id: 'change-event-zh', type: 'EVENT', re: CHANGE_ZH, needs: (t) => changeOf(t)?.kind === 'time' },
  { id: 'change-zh', type: 'DECISION', re: CHANGE_ZH, needs: (t) => changeOf(t) !== undefined },
  { id: 'change-event-en', type: 'EVENT', re: / to /, needs: (t) => t.includes(' to ') && changeOf(t)?.kind === 'time' },
  { id: 'change-en', type: 'DECISION', re: / to /, needs: (t) => t.includes(' to ') && changeOf(t) !== undefined },
  // an explicit "remember": kept whatever it is
  { id: 'remember-en', type: 'PROJ', re: /(?<!\w)(?:remember (?:that|this)|note (?:that|this)|keep in mind|for the record|fyi)(?!\w)|(?<!\w)remember :(?=\w)/ },
  { id: 'remember-zh', type: 'PROJ', re: /(?:^|[，,]|请|要|帮我)记住(?![了的过])|记一下|帮我记|备注一下|注意(?:一下)?[:：]/ },
  // a day of the calendar ("Dec 12", "the 3rd of March", "on 12/20", "due Jan 15", "Friday at 6pm",
  // 12月5日, 十二月五号): a dated event, when no rule above typed the sentence
  { id: 'date-en', type: 'EVENT', re: /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(?:uary|ruary|ch|il|e|y|ust|tember|ober|ember)?\.? \d{1,2}(?:st|nd|rd|th)?\b|\b\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)(?:uary|ruary|ch|il|e|y|ust|tember|ober|ember)?\b|\b(?:on|by|until|before|due) \d{1,2}\/\d{1,2}\b|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight) at \d/, needs: /\d/ },
  // a dated event beyond a deadline's words: a move to a day ("lessons moved to Saturdays"), a
  // start on a day ("the trial starts Monday"), "by next Wednesday", a meeting or an occasion on a
  // day or at an hour ("1:1 with Aisha at 4", "review on Friday"), a day and a clock time in one
  // sentence ("dinner on Sunday at Luigi's, 7pm"), a day of the month ("from the 20th"), when no
  // rule above typed the sentence; tried only on a sentence naming a day or an hour
  { id: 'event-en', type: 'EVENT', re: /(?<!\w)(?:(?:by|before|until|till) (?:next|this) (?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:moved|rescheduled|pushed|postponed|changed) to (?:(?:next|this|every) )?(?:mon|tues|wednes|thurs|fri|satur|sun)days?|(?:starts?|starting|begins?|beginning|kicks? off|ends?|finishes|opens?|closes?) (?:on |this |next )?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow|tonight)|(?:meeting|call|1:1|one-on-one|sync|catch-?up|interview|appointment|dinner|lunch|breakfast|party|show|concert|recital|rehearsal|play|match|game|class|lessons?|session|check-?up|dentist|doctor|vet|visit|viewing|trip|trial|evening|review|demo|standup|offsite|workshop|drinks)(?: with [^.,;:]{1,30}?)? (?:on (?:(?:this|next) )?(?:mon|tues|wednes|thurs|fri|satur|sun)day|at \d{1,2}(?:[:.]\d{2})?(?: ?[ap]m)?(?! ?%))|(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|tomorrow|tonight)[^.;]{0,40}?(?<![\w:])\d{1,2}(?:(?:[:.]\d{2})? ?[ap]m|:\d{2})|\d{1,2}(?::\d{2})? ?[ap]m (?:on |this |next )?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow)|(?:on|from|until|till|by|before|after) the \d{1,2}(?:st|nd|rd|th))(?!\w)/, needs: namesDayOrHour },
  { id: 'date-zh', type: 'EVENT', re: /(?:\d{1,2}|[一二三四五六七八九十]{1,3})月(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号號]/, needs: '月' },
  // a time of day with its hour (下午4点, 晚上7点, 上午十点; not a habit's bound, 早上9点前), a
  // weekday with what happens on it (周五下午…开复盘会, 下周一开始试用), a day of the month (20号,
  // not 3号楼 or 5号线), when no rule above typed the sentence
  { id: 'event-zh', type: 'EVENT', re: /(?:上午|下午|晚上|早上|中午|傍晚|凌晨|今晚|明早|明晚)\s?(?:\d{1,2}|[一二三四五六七八九十两]{1,3})\s?(?:点|时|[:：]\d{2})(?!\s?(?:[以之]?前|[以之]?后))|(?:(?:下|本|这)个?)?(?:周|星期|礼拜)[一二三四五六日天].{0,16}?(?:开.{0,6}会|会议|见面|面试|演出|考试|看(?:牙|医生|病)|体检|复查|聚餐|吃饭|过生日|开始|出发|到期|一对一|碰头)|(?<![\d月号])\d{1,2}[号號](?![楼线房床码位门口桌球])/, needs: namesZhDayOrHour },
];

/** The rules written case-insensitive (lower case, matched against caseless(text)). */
const CASELESS = new Set(['lesson-en', 'decision-en', 'decision-move-en', 'decision-start-en', 'pref-en', 'style-en', 'deadline-en', 'event-en', 'blocker-en', 'tech-en', 'remember-en', 'date-en']);

export const TYPE_RULES: TypeRule[] = RULES.map((r) => ({ ...r, script: r.id.endsWith('-zh') ? 'zh' : r.id.endsWith('-en') ? 'en' : undefined, ...(CASELESS.has(r.id) ? { caseless: true } : {}) }));
