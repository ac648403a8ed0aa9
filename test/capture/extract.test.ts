/**
 * Extraction in English and Chinese against the annotated set (test/fixtures/extract/annotated.json):
 * every expected entry found with its type, nothing proposed from the negatives, credentials and
 * do-not-remember passages reported by position only; relative dates made absolute; tags only
 * from the vocabulary; `memtier extract` from the CLI with --json, --explain and --apply
 * (selective capture: a near-duplicate refreshes the old entry instead of adding one).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { absoluteDates } from '../../lib/capture/dates.js';
import { seededRandom } from '../../lib/core/random.js';
import { cjkLetter, extract, importance, repeatKey, sentences, spaceOrPunct, tagsIn, unicodeWords } from '../../lib/capture/extract.js';
import { caseless, matches, NOISE, PRIVATE_MARKERS, QUESTION, SPECULATION, TYPE_RULES } from '../../lib/capture/rules.js';
import { scoreExtraction } from '../../lib/bench/extract.js';
import { REPO, runCli, tmpTree } from '../helpers.js';

const data = JSON.parse(readFileSync(join(REPO, 'test/fixtures/extract/annotated.json'), 'utf8'));
const NOW = new Date(data.now);
const one = (text: string, vocabulary?: Set<string>) => extract([{ role: 'user', content: text }], { now: NOW, tz: 'UTC', ...(vocabulary ? { vocabulary } : {}) });

describe('extraction rules', () => {
  it('finds every annotated entry with its type, and proposes nothing from the negatives', () => {
    const s = scoreExtraction(data);
    expect(s.messages).toBeGreaterThanOrEqual(80);
    expect(s.misses).toEqual([]);
    expect(s.overall.precision).toBe(1);
    expect(s.overall.recall).toBe(1);
    expect(s.credentialsProposed).toBe(0);
    expect(s.neverTextProposed).toBe(0);
    // both languages and every type are in the set
    expect(Object.keys(s.byLang).sort()).toEqual(['en', 'mixed', 'zh']);
    expect(Object.keys(s.byType).sort()).toEqual(['DECISION', 'EVENT', 'LESSON', 'PEOPLE', 'PREF', 'PROJ', 'TECH']);
  });

  it('holds the privacy rules on the held-out set too (written after tuning): nothing private proposed, precision ≥ 0.9', () => {
    const held = JSON.parse(readFileSync(join(REPO, 'test/fixtures/extract/heldout.json'), 'utf8'));
    const s = scoreExtraction(held);
    expect(s.credentialsProposed).toBe(0);
    expect(s.neverTextProposed).toBe(0);
    expect(s.overall.precision).toBeGreaterThanOrEqual(0.9);
    expect(s.overall.recall).toBeGreaterThanOrEqual(0.8);
  });

  it('reports privacy skips by position only: a credential, and a marked sentence with the one after it', () => {
    const text = 'We decided to use Kafka. Don\'t remember this. My salary is 95k. The api key is sk-live-abcdefghijklmnopqrstuvwx1234. Ana owns billing.';
    const r = one(text);
    expect(r.proposals.map((p) => p.type)).toEqual(['DECISION', 'PEOPLE']);
    const privacy = r.skipped.filter((s) => s.reason === 'private' || s.reason === 'secret');
    expect(privacy.map((s) => [s.reason, s.sentence])).toEqual([['private', 1], ['private', 2], ['secret', 3]]);
    const json = JSON.stringify(r);
    for (const hidden of ['95k', 'salary', 'sk-live', 'remember this']) expect(json).not.toContain(hidden);
    expect(privacy.find((s) => s.reason === 'secret')!.rule).toBeTruthy();
    const zh = one('别记：我下个月要辞职。这句也不要。张伟负责数据库迁移。');
    expect(JSON.stringify(zh)).not.toContain('辞职');
    expect(JSON.stringify(zh)).not.toContain('这句');
    expect(zh.proposals.map((p) => p.text)).toEqual(['张伟负责数据库迁移']);
  });

  it('skips questions, speculation, noise and short text, showing their text', () => {
    const r = one('Thanks! What did we decide about the cache? We might switch to Bun. ok. Let me check.');
    expect(r.proposals).toEqual([]);
    expect(r.skipped.map((s) => s.reason)).toEqual(['noise', 'question', 'speculation', 'noise', 'noise']);
    expect(r.skipped[2]!.text).toBe('We might switch to Bun.');
  });

  it('skips a typed sentence of low importance (documented threshold 0.45), keeps one with specifics', () => {
    const r = one('We use it. We use Grafana for dashboards. 我们用它。Remember that it works.');
    expect(r.proposals.map((p) => p.text)).toEqual(['We use Grafana for dashboards', 'Remember that it works']);
    expect(r.skipped.filter((s) => s.reason === 'low-importance').map((s) => s.text)).toEqual(['We use it.', '我们用它。']);
    expect(r.proposals[0]!.importance).toBeGreaterThanOrEqual(0.45);
  });

  it('makes relative dates absolute, bare weekdays only for events and deadlines', () => {
    // 2026-05-15 is a Friday
    expect(absoluteDates('ship it next Friday', NOW, 'UTC').text).toBe('ship it next Friday (2026-05-22)');
    expect(absoluteDates('the slides by Monday', NOW, 'UTC').text).toBe('the slides by Monday (2026-05-18)');
    expect(absoluteDates('tomorrow and in 3 days', NOW, 'UTC').dates).toEqual(['2026-05-16', '2026-05-18']);
    expect(absoluteDates('下周五之前交合同，月底上线', NOW, 'UTC').text).toBe('下周五 (2026-05-22)之前交合同，月底 (2026-05-31)上线');
    expect(absoluteDates('never deploy on Friday afternoons', NOW, 'UTC', { bareWeekdays: false }).text).toBe('never deploy on Friday afternoons');
    expect(absoluteDates('due 2026-06-01', NOW, 'UTC').dates).toEqual(['2026-06-01']);
    expect(absoluteDates('十二天后交付', NOW, 'UTC').text).toBe('十二天后 (2026-05-27)交付');
    const ev = one('The demo moved to Tuesday.').proposals[0]!;
    expect(ev).toMatchObject({ type: 'EVENT', text: 'The demo moved to Tuesday (2026-05-19)', dates: ['2026-05-19'] });
    expect(one('Never again will I run migrations on a Friday.').proposals[0]!.text).not.toContain('(2026');
  });

  it('dates "tomorrow" and 今晚 alone (a precheck that missed both was the gate before)', () => {
    expect(absoluteDates('ship the release tomorrow', NOW, 'UTC')).toEqual({ text: 'ship the release tomorrow (2026-05-16)', dates: ['2026-05-16'] });
    expect(absoluteDates('今晚上线', NOW, 'UTC')).toEqual({ text: '今晚 (2026-05-15)上线', dates: ['2026-05-15'] });
  });

  it('runs only the date rules whose words a sentence holds, and finds what every rule finds', () => {
    const words = ['day after ', 'Tomorrow', 'tomorrow', 'today', 'TONIGHT', 'yesterday', 'next ', 'last ', 'week', 'the end of ', 'this ', 'month', 'in ', '3 ', '12 ', 'days', 'weeks',
      'Friday', 'monday', 'on ', 'by ', 'until ', '大', '后天', '後', '明天', '明日', '今天', '今晚', '昨天', '下', '上', '本', '这', '个', '周', '星期', '礼拜', '五', '日', '天', '之', '月底', '十二', '两', ' ', ', ', '(2026-05-20)', 'WEEK', 'MONTH', 'İn ', '\u212a', 'DAY', 'SUNDAY'];
    const rnd = seededRandom(41);
    let dated = 0;
    for (let k = 0; k < 5000; k++) {
      let s = '';
      for (let j = 1 + Math.floor(rnd() * 8); j > 0; j--) s += words[Math.floor(rnd() * words.length)];
      const bareWeekdays = rnd() < 0.5;
      const want = absoluteDates(s, NOW, 'UTC', { bareWeekdays, allRules: true });
      if (want.dates.length) dated++;
      expect(absoluteDates(s, NOW, 'UTC', { bareWeekdays }), JSON.stringify(s)).toEqual(want);
    }
    expect(dated).toBeGreaterThan(1500);
  });

  it('answers for the characters Chinese text is made of as \\p{L}\\p{N} would, without compiling it', () => {
    const letterOrDigit = /^[\p{L}\p{N}]$/u;
    let answered = 0;
    for (let cp = 0x80; cp <= 0xffff; cp++) {
      const fast = cjkLetter(cp);
      if (fast === undefined) continue;
      answered++;
      expect(fast, cp.toString(16)).toBe(letterOrDigit.test(String.fromCharCode(cp)));
    }
    expect(answered).toBeGreaterThan(27_000);
  });

  it('answers for ASCII, the CJK ideographs and its blocks as [\\s\\p{P}] would, without compiling it', () => {
    const spaceOrPunctRe = /^[\s\p{P}]$/u;
    let answered = 0;
    for (let cp = 0; cp <= 0xffff; cp++) {
      const fast = spaceOrPunct(cp);
      if (fast === undefined) continue;
      answered++;
      expect(fast, cp.toString(16)).toBe(spaceOrPunctRe.test(String.fromCharCode(cp)));
    }
    expect(answered).toBeGreaterThan(28_000);
  });

  it('splits words and keys repeats as the \\p{L} and \\p{P} patterns do, without compiling them', () => {
    const chars = ['a', 'Z', '7', '_', '/', '-', ' ', '.', '!', '\t', '中', '文', 'é', '٣', '，', '。', '\u3000', '«', '😀', '\ud83d', '\ude00', 'ǅ', '\u0301', '²', '、', '「', '・', '…', '\u00a0', '\ufeff', '\u2028', '؟', '¿', '＄', '＿', 'İ', '𝔸'];
    const rnd = seededRandom(43);
    for (let k = 0; k < 20_000; k++) {
      let s = '';
      for (let j = Math.floor(rnd() * 14); j > 0; j--) s += chars[Math.floor(rnd() * chars.length)];
      expect([...unicodeWords(s)], JSON.stringify(s)).toEqual([...new Set(s.match(/[\p{L}\p{N}][\p{L}\p{N}_/-]*/gu) ?? [])]);
      expect(repeatKey(s), JSON.stringify(s)).toBe(s.toLowerCase().replace(/[\s\p{P}]+/gu, ''));
    }
  });

  it('tags only from the vocabulary, and gives each type its home', () => {
    const r = one('We decided to move billing to Postgres on Kubernetes.', new Set(['postgres', 'billing', 'friction']));
    expect(r.proposals[0]).toMatchObject({ type: 'DECISION', tags: ['postgres', 'billing'], home: 'memory/semantic/decisions.md', rule: 'decision-en' });
    expect(one('We decided to move billing to Postgres.').proposals[0]!.tags).toEqual([]);
  });

  it('matches case-insensitive rules as the i flag would, without it', () => {
    // the patterns are lower case (escapes aside): lower-casing the sentence is what the i flag did
    const lists = [...PRIVATE_MARKERS, ...SPECULATION, ...QUESTION, ...NOISE, ...TYPE_RULES.filter((r) => r.caseless).map((r) => r.re)];
    for (const re of lists) {
      expect(re.flags).not.toContain('i');
      expect(re.source.replace(/\\[A-Za-z]/g, '')).not.toMatch(/[A-Z]/);
    }
    expect(TYPE_RULES.filter((r) => r.caseless).map((r) => r.id)).toEqual(['lesson-en', 'decision-en', 'decision-move-en', 'decision-start-en', 'pref-en', 'style-en', 'deadline-en', 'blocker-en', 'tech-en', 'remember-en', 'date-en', 'event-en']);
    expect(one('KEEP IN MIND the office closes early on holidays.').proposals[0]).toMatchObject({ type: 'PROJ', rule: 'remember-en' });
    expect(one('We DECIDED to use Kafka.').proposals[0]).toMatchObject({ type: 'DECISION', rule: 'decision-en' });
    // a note's telegraphic decision, tried only when its first words hold the verb
    expect(one('DECIDED TO use Kafka for the event bus.').proposals[0]).toMatchObject({ type: 'DECISION', rule: 'decision-start-en' });
    expect(one('Agreed on weekly releases every Tuesday.').proposals[0]).toMatchObject({ type: 'DECISION', rule: 'decision-start-en' });
    expect(one('Undecided on the hosting still, need to compare prices.').proposals).toEqual([]);
    // the Kelvin sign lower-cases to "k", which an i pattern does not match: the same answer as before
    const kelvin = '\u212Aeep in mind the office closes early on holidays.';
    expect(caseless(kelvin)).toBeUndefined();
    expect(matches(/keep in mind/, kelvin, caseless(kelvin))).toBe(false);
    expect(new RegExp('keep in mind', 'i').test(kelvin)).toBe(false);
    expect(one(kelvin).proposals).toEqual([]);
    expect(matches(/keep in mind/, 'Keep in mind, İstanbul', caseless('Keep in mind, İstanbul'))).toBe(true);
  });

  it('writes a word boundary as a lookbehind or lookahead (cheaper to compile) and matches what \\b matched', () => {
    // Each (?<!\w) stands where the next character is a word character and each (?!\w) / (?=\w)
    // where the last one was, so each says what \b said there; V8 compiles \b before a large
    // alternation at about twice the cost. The definition: the same pattern with \b put back.
    const patterns = [...PRIVATE_MARKERS, ...SPECULATION, ...QUESTION, ...NOISE, ...TYPE_RULES.map((r) => r.re)].filter((re) => /\(\?<?[!=]\\w\)/.test(re.source));
    expect(patterns.length).toBeGreaterThanOrEqual(17);
    /** The pattern without its lookarounds (fast-check draws no lookaround), \b dropped too. */
    const plain = (src: string): string => {
      let out = '';
      for (let i = 0; i < src.length; i++) {
        if (src[i] === '\\') { if (src[i + 1] !== 'b') out += src.slice(i, i + 2); i++; continue; }
        if (src.startsWith('(?=', i) || src.startsWith('(?!', i) || src.startsWith('(?<!', i) || src.startsWith('(?<=', i)) {
          let depth = 0;
          for (; i < src.length; i++) { if (src[i] === '\\') { i++; continue; } if (src[i] === '(') depth++; else if (src[i] === ')' && --depth === 0) break; }
          continue;
        }
        out += src[i];
      }
      return out;
    };
    const edges = ['a', 'Z', '_', '0', ' ', ':', '!', '-', '.', "'", '中', ''];
    for (const re of patterns) {
      const withB = new RegExp(re.source.replaceAll('(?<!\\w)', '\\b').replaceAll('(?!\\w)', '\\b').replaceAll('(?=\\w)', '\\b'), re.flags);
      let matched = 0;
      const text = fc.tuple(fc.constantFrom(...edges), fc.stringMatching(new RegExp(plain(re.source), re.flags.replace('g', ''))), fc.constantFrom(...edges), fc.boolean())
        .map(([a, t, b, lower]) => { const x = a + t + b; return lower ? x.toLowerCase() : x; });
      fc.assert(fc.property(text, (t) => { const want = withB.test(t); if (want) matched++; return re.test(t) === want; }), { numRuns: 1000, seed: 53 });
      // and texts where a boundary's side matters: a run of non-word characters after "version ", "remember :"
      const edgy = ['version ! ', 'version !a', 'version x!', 'remember : x', 'remember :x', 'are .', 'is it?', 'due to it', 'due tomorrow', 'by 2026-05-20!', 'Ask Priya about it', 'my wife Ana.', "we'll see.", 'brb!'];
      for (const t of [...data.messages.map((m: { text: string }) => m.text), ...edgy]) expect(re.test(t), `${re.source.slice(0, 40)}: ${t}`).toBe(withB.test(t));
      expect(matched, re.source.slice(0, 40)).toBeGreaterThan(20);
    }
  });

  it('reads words for tags and names the same in ASCII and in mixed text', () => {
    const v = new Set(['ci', 'deploy', 'smoke-test']);
    expect(tagsIn('We decided to deploy the smoke-test suite on CI.', v)).toEqual(['ci', 'deploy', 'smoke-test']);
    expect(tagsIn('we decided 周报改成双周一次.', v)).toEqual([]); // "ci" inside "decided" is not the word
    expect(tagsIn('deploy 之前一定要先跑 smoke-test，CI 也要绿。', v)).toEqual(['ci', 'deploy', 'smoke-test']);
    expect(tagsIn('deploy之前先跑smoke-test', v)).toEqual([]); // glued to Han letters: one word with them
    // a capitalized word after the first counts as a name, in ASCII and beyond
    expect(importance('TECH', 'we use Grafana', 'tech-en')).toBe(0.5);
    expect(importance('TECH', 'we use Émile', 'tech-en')).toBe(0.4);
    expect(importance('TECH', 'we use Zürich', 'tech-en')).toBe(0.5); // a letter beyond ASCII after the capital
    expect(importance('TECH', 'we use X-ray', 'tech-en')).toBe(0.5);
    expect(importance('TECH', 'we use X!', 'tech-en')).toBe(0.4);
  });

  it('skips a repeated sentence whatever its spacing, punctuation and case, in both scripts', () => {
    const r = one('We decided to use Kafka. we decided, to use KAFKA! 我们决定用 Kafka。我们决定用Kafka');
    expect(r.proposals.map((p) => p.sentence)).toEqual([0, 2]);
    expect(r.skipped.filter((s) => s.reason === 'repeated').map((s) => s.sentence)).toEqual([1, 3]);
  });

  it('splits sentences at ends and line breaks, list markers dropped', () => {
    expect(sentences('- first item. second one!\n* third。第四句？v1.2 stays whole')).toEqual(['first item.', 'second one!', 'third。', '第四句？', 'v1.2 stays whole']);
  });

  it('reads the user turns of --messages by default, other roles on request', () => {
    const msgs = [{ role: 'user', content: 'We decided to use Kafka.' }, { role: 'assistant', content: 'I prefer Pulsar, personally.' }];
    expect(extract(msgs, { now: NOW, tz: 'UTC' }).proposals.map((p) => p.type)).toEqual(['DECISION']);
    expect(extract(msgs, { now: NOW, tz: 'UTC', roles: ['user', 'assistant'] }).proposals.map((p) => [p.type, p.message])).toEqual([['DECISION', 0], ['PREF', 1]]);
  });
});

describe('memtier extract', () => {
  it('proposes without writing, --apply writes through selective capture, a near-duplicate refreshes instead', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    const dry = await runCli(['extract', '--root', root, '--json', 'We decided to use Postgres 16 for billing. I prefer short answers. Don\'t save this: the door code is 4711.']);
    expect(dry.code, dry.stderr).toBe(0);
    const d = JSON.parse(dry.stdout);
    expect(d.applied).toBe(false);
    expect(d.proposals.map((p: { type: string }) => p.type)).toEqual(['DECISION', 'PREF']);
    expect(dry.stdout).not.toContain('4711');
    const day = join(root, 'memory/episodic/2026-05-15.md');
    expect(() => readFileSync(day, 'utf8')).toThrow();

    const applied = await runCli(['extract', '--root', root, '--apply', 'We decided to use Postgres 16 for billing. I prefer short answers.']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/added \^\S+ to memory\/episodic\/2026-05-15\.md/);
    const text = readFileSync(day, 'utf8');
    expect(text).toMatch(/\[DECISION\] We decided to use Postgres 16 for billing/);
    expect(text).toMatch(/\[PREF\] I prefer short answers/);

    const again = await runCli(['extract', '--root', root, '--apply', '--json', 'we decided to use Postgres 16 for billing']);
    const a = JSON.parse(again.stdout);
    expect(a.proposals[0].duplicateOf).toMatch(/^memory\/episodic\/2026-05-15\.md#L\d+$/);
    expect(readFileSync(day, 'utf8')).toBe(text);

    const explain = await runCli(['extract', '--root', root, '--explain', 'Thanks! Don\'t remember this. It is private.']);
    expect(explain.stdout).toContain('skipped (sentence 1, noise): Thanks!');
    expect(explain.stdout).toContain('left out (sentence 2): asked not to be kept');
    expect(explain.stdout).not.toContain('It is private');
  });

  it('--validate checks what an agent extracted: any refusal writes nothing and never echoes a secret; --apply writes', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    const dir = tmpTree();
    const good = join(dir, 'good.json');
    const bad = join(dir, 'bad.json');
    writeFileSync(good, JSON.stringify([{ type: 'DECISION', text: 'Move billing to Postgres 16 by next Friday', tags: ['postgres'] }, { type: 'pref', text: 'Short answers, no tables' }]));
    writeFileSync(bad, JSON.stringify([{ type: 'PREF', text: 'Short answers' }, { type: 'TECH', text: 'the token is ghp_abcdefghijklmnopqrstuvwxyz0123456789' }, { type: 'NOPE', text: 'x' }, { type: 'PREF', text: 'maybe tabs?' }, { type: 'PREF', text: 'tabs', tags: ['not-a-tag'] }]));
    const refused = await runCli(['extract', '--root', root, '--validate', bad, '--apply', '--json']);
    expect(refused.code).toBe(2);
    const err = JSON.parse(refused.stdout).error;
    for (const want of ['item 2', '[secret]', 'item 3', 'item 4', 'item 5', 'not-a-tag']) expect(err.message).toContain(want);
    expect(refused.stdout).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(() => readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8')).toThrow();
    const ok = JSON.parse((await runCli(['extract', '--root', root, '--validate', good, '--apply', '--json'])).stdout);
    expect(ok.proposals.map((p: any) => [p.type, p.text])).toEqual([['DECISION', 'Move billing to Postgres 16 by next Friday (2026-05-22)'], ['PREF', 'Short answers, no tables']]);
    expect(readFileSync(join(root, 'memory/episodic/2026-05-15.md'), 'utf8')).toMatch(/\[DECISION\] Move billing to Postgres 16 by next Friday \(2026-05-22\) #postgres \^/);
  });

  it('reads --messages from standard input and refuses two inputs', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    const two = await runCli(['extract', '--root', root, '--file', 'x.txt', 'text too']);
    expect(two.code).toBe(2);
    const bad = await runCli(['extract', '--root', root, '--messages', join(root, 'MEMORY.md')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not valid JSON/);
  });
});
