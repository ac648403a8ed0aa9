import { afterEach, describe, expect, it } from 'vitest';
import { cjkMode, fold, LATIN_TOKEN, normalizeWord, setCjkMode, tokenize, queryTokens } from '../../lib/search/tokenize.js';

afterEach(() => setCjkMode(undefined));

describe('tokenize: English', () => {
  it('folds case, drops stop words, stems with Porter', () => {
    expect(tokenize('The Servers are RUNNING and she studies')).toEqual(['server', 'run', 'studi']);
  });
  it('drops possessives and contractions that are stop words', () => {
    expect(tokenize("Caroline's dog didn't bark")).toEqual(['carolin', 'dog', 'bark']);
  });
  it('keeps numbers, versions and ISO dates whole', () => {
    expect(tokenize('Upgrade to 3.5 on 2026-05-15, port 8443, v2 node20')).toEqual(['upgrad', '3.5', '2026-05-15', 'port', '8443', 'v2', 'node20']);
  });
  it('applies Unicode normalization and case folding to non-ASCII words without stemming them', () => {
    expect(tokenize('ÉCOLE Straße ＤＯＣＫＥＲ')).toEqual(['école', 'strass', 'docker']); // strasse, Porter-stemmed
    expect(tokenize('STRASSE')).toEqual(tokenize('straße'));
    expect(tokenize('ΟΔΟΣ')).toEqual(tokenize('οδος')); // final sigma folds like σ
  });
  it('queryTokens are distinct', () => {
    // Porter2: "deploy" and "deployment" share a stem (Porter v1 made them "deploi" and "deploy")
    expect(queryTokens('deploy deploys deploying deployment deployed')).toEqual(['deploy']);
  });
});

describe('tokenize: the ASCII scanner', () => {
  // the regular-expression path, as tokenize ran it for every text before the index build's scanner
  const byRegex = (text: string): string[] => {
    const out: string[] = [];
    for (const m of fold(text).matchAll(LATIN_TOKEN)) {
      const raw = m[0];
      const t = /^\d/.test(raw) ? raw.replace(/[.,:]$/, '') : normalizeWord(raw);
      if (t) out.push(t);
    }
    return out;
  };
  it('finds the same tokens as LATIN_TOKEN on ASCII text', () => {
    const cases = ["it's 2026-05-15T10:00, 3.5.1x v2_beta O'Neil's don't 12,000,000ab 1:2:3 a--b _x x_ 2026-5-15 20260-05-15 rock'n'roll 'quoted' end'", 'Deploy the SERVERS at 09:30; 2023-01-01- 1.', ''];
    // and random strings over the characters the scanner decides on
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const alphabet = "ab Z09-.,:'_x2 \n#!";
    for (let k = 0; k < 2000; k++) cases.push(Array.from({ length: 1 + Math.floor(rnd() * 30) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join(''));
    for (const c of cases) expect(tokenize(c), JSON.stringify(c)).toEqual(byRegex(c));
  });
});

describe('tokenize: Chinese and Japanese', () => {
  it('segments Chinese into words with ICU and drops function words', () => {
    setCjkMode('icu');
    expect(tokenize('我们昨天讨论了部署失败的问题')).toEqual(['昨天', '讨论', '部署', '失败', '问题']);
  });
  it('segments Japanese (kana present) and drops particles', () => {
    setCjkMode('icu');
    const t = tokenize('東京で会議をしました');
    // kanji are folded like traditional Chinese characters (lib/format/han.ts), on both sides of a match
    expect(t).toContain('东京');
    expect(t).toContain('会议');
    expect(t).toEqual(tokenize('東京で会議をしました'.replace('東', '东')));
    expect(t).not.toContain('で');
    expect(t).not.toContain('を');
  });
  it('splits mixed script into runs: "Docker 部署失败" and "Docker部署失败" give the same tokens', () => {
    setCjkMode('icu');
    expect(tokenize('Docker 部署失败')).toEqual(['docker', '部署', '失败']);
    expect(tokenize('Docker部署失败')).toEqual(['docker', '部署', '失败']);
  });
  it('falls back to character bigrams without ICU word breaks', () => {
    setCjkMode('bigram');
    expect(tokenize('Docker 部署失败')).toEqual(['docker', '部署', '署失', '失败']);
    expect(tokenize('会')).toEqual([]); // a lone stop character
    expect(tokenize('猫')).toEqual(['猫']);
  });
  it('detects the runtime mode (this Node has full ICU) and honours MEMTIER_CJK', () => {
    expect(['icu', 'bigram']).toContain(cjkMode({}));
    expect(cjkMode({ MEMTIER_CJK: 'bigram' })).toBe('bigram');
  });
});

describe('a stemming defect users hit at once (Porter v1)', () => {
  it('search and recall find "deploy the web app" when asked about "deployment"', async () => {
    const { runCli, tmpTree } = await import('../helpers.js');
    const { join } = await import('node:path');
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    expect((await runCli(['wal', 'decide', '--root', root, 'deploy the web app with Argo CD'])).code).toBe(0);
    const s = JSON.parse((await runCli(['search', '--root', root, 'deployment', '--json'])).stdout);
    expect(s.results[0].text).toContain('Argo CD');
    const r = JSON.parse((await runCli(['recall', '--root', root, '--query', 'what did we decide about deployment', '--json'])).stdout);
    expect(r.text).toContain('Argo CD');
  });
});

describe('traditional and simplified Chinese', () => {
  it('fold to one form, so 機票 and 机票, 母親節 and 母亲节 are the same tokens', () => {
    setCjkMode('icu');
    expect(tokenize('訂了母親節的機票')).toEqual(tokenize('订了母亲节的机票'));
    setCjkMode('bigram');
    expect(tokenize('訂了母親節的機票')).toEqual(tokenize('订了母亲节的机票'));
    setCjkMode('icu');
  });
});
