/**
 * The secret guard: one positive sample per rule (built by concatenation from generated fake
 * values, so this repository never holds a literal a scanner flags), the error's rule id and
 * masked value, the secret never echoed, and a benign corpus with zero findings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PREFILTER, scanSecrets, SECRET_RULES, mask, secretRulesIn } from '../../lib/store/guards/secrets.js';
import { seededRandom } from '../../lib/core/random.js';
import { rmTree, tmpTree } from '../helpers.js';
import { store, thrown } from './util.js';
import { B64, b64url, fake, HEX, UPPER } from '../fake-credentials.js';

const begin = (kind: string) => '-----' + 'BEGIN ' + kind + 'PRIVATE' + ' KEY-----';

interface Sample { rule: string; sample: string; secret: string }
/** A sample is PREFIX + SECRET + SUFFIX; SECRET is what must never be echoed. */
const S = (rule: string, prefix: string, secret: string, suffix = ''): Sample => ({ rule, sample: prefix + secret + suffix, secret });

const SAMPLES: Sample[] = [
  S('openai-key', '', 'sk' + '-' + fake(20, undefined, 1) + 'T3Blbk' + 'FJ' + fake(20, undefined, 2)),
  S('openai-key', '', 'sk' + '-proj-' + b64url(60, 3) + '9'),
  S('anthropic-key', '', 'sk' + '-ant-' + 'api03-' + b64url(80, 4)),
  S('github-token', '', 'gh' + 'p_' + fake(36, undefined, 5)),
  S('github-token', '', 'gh' + 'o_' + fake(36, undefined, 6)),
  S('github-token', '', 'gh' + 'u_' + fake(36, undefined, 7)),
  S('github-token', '', 'gh' + 's_' + fake(36, undefined, 8)),
  S('github-token', '', 'gh' + 'r_' + fake(36, undefined, 9)),
  S('github-pat', '', 'github' + '_pat_' + fake(22, undefined, 10) + '_' + fake(59, undefined, 11)),
  S('clawhub-token', '', 'cl' + 'h_' + fake(32, undefined, 12)),
  S('aws-access-key-id', '', 'AK' + 'IA' + fake(16, UPPER, 13)),
  S('aws-access-key-id', '', 'AS' + 'IA' + fake(16, UPPER, 14)),
  S('aws-secret-key', 'aws_secret_' + 'access_key = ', fake(40, B64, 15)),
  S('aws-secret-key', '"Secret' + 'AccessKey": "', fake(40, B64, 16), '"'),
  S('slack-token', '', 'xo' + 'xb-' + fake(12, '0123456789', 17) + '-' + fake(13, '0123456789', 18) + '-' + fake(24, undefined, 19)),
  S('slack-token', '', 'xo' + 'xp-' + fake(12, '0123456789', 20) + '-' + fake(24, undefined, 21)),
  S('slack-webhook', '', 'https://hooks.' + 'slack.com/services/' + 'T' + fake(8, UPPER, 22) + '/B' + fake(8, UPPER, 23) + '/' + fake(24, undefined, 24)),
  S('google-api-key', '', 'AI' + 'za' + b64url(35, 25)),
  S('stripe-key', '', 'sk' + '_live_' + fake(24, undefined, 26)),
  S('stripe-key', '', 'rk' + '_live_' + fake(24, undefined, 27)),
  S('jwt', '', 'ey' + 'JhbGciOiJIUzI1NiJ9' + '.' + 'ey' + 'JzdWIiOiIxMjM0NTY3ODkwIn0' + '.' + b64url(43, 28)),
  S('npm-token', '', 'np' + 'm_' + fake(36, undefined, 29)),
  S('gitlab-token', '', 'gl' + 'pat-' + b64url(20, 30)),
  S('huggingface-token', '', 'h' + 'f_' + fake(34, undefined, 31)),
  S('private-key', '', begin('RSA ')),
  S('private-key', '', begin('EC ')),
  S('private-key', '', begin('OPENSSH ')),
  S('private-key', '', begin('DSA ')),
  S('private-key', '', begin('ENCRYPTED ')),
  S('private-key', '', begin('')),
  S('url-credentials', 'postgres://admin:', 'Pw' + fake(10, undefined, 32), '@db.example.com:5432/app'),
  S('url-credentials', 'https://deploy:', fake(16, undefined, 33), '@git.example.com/org/repo.git'),
  S('password-assignment', 'password' + '=', fake(12, undefined, 34)),
  S('password-assignment', 'passwd' + ': ', 'Tr0ub4' + fake(6, undefined, 35)),
  S('password-assignment', 'secret' + '=', fake(20, undefined, 36)),
  S('password-assignment', 'token' + '=', fake(24, undefined, 37)),
  S('password-assignment', 'api_key' + '=', fake(32, undefined, 38)),
  S('password-assignment', 'DB_PASSWORD' + '="', fake(14, undefined, 39), '"'),
  S('authorization-header', 'Authorization: ' + 'Bearer ', fake(40, undefined, 40)),
  S('authorization-header', 'curl -H "Authorization: ' + 'Basic ', 'dXNlcjpw' + 'YXNzd29yZDEyMw==', '"'),
  S('password-prose', 'the staging ' + 'password is ', 'Tr0ub4' + fake(6, undefined, 41)),
  S('password-prose', '数据库' + '密码' + '是', 'hunter' + '2' + fake(4, undefined, 42)),
  S('azure-key', 'DefaultEndpointsProtocol=https;AccountName=acme;' + 'Account' + 'Key=', fake(86, B64, 43) + '==', ';EndpointSuffix=core.windows.net'),
  S('twilio-key', '', 'S' + 'K' + fake(32, HEX, 44)),
  S('sendgrid-key', '', 'S' + 'G.' + b64url(22, 45) + '.' + b64url(43, 46)),
  S('discord-token', '', 'M' + fake(23, undefined, 47) + '.' + b64url(6, 48) + '.' + b64url(27, 49)),
  S('discord-webhook', '', 'https://' + 'discord.com/api/webhooks/' + fake(18, '0123456789', 50) + '/' + b64url(68, 51)),
  S('telegram-token', '', fake(10, '123456789', 52) + ':' + 'AA' + b64url(33, 53)),
  S('gcp-private-key-id', '"private' + '_key_id": "', fake(40, HEX, 54), '"'),
  S('aws-secret-key-bare', '', 'wJalr' + 'XUtnFEMI/K7MDENG/bPxRfiCY' + fake(10, undefined, 55)),
];
const CASES = SAMPLES.map((x) => [x.rule, x] as const);

const BENIGN = `# Notes

- 14:30 [DECISION] use postgres for the ledger #db ^r7k2mf9x1a
- commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the rotation bug
- short sha 3f78685, tag v1.4.2, build 20260515.3
- request id 123e4567-e89b-12d3-a456-426614174000 and 550e8400-e29b-41d4-a716-446655440000
- sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
- sha512 cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e
- base64 id dGhpcyBpcyBqdXN0IGEgbm90ZQ== and ULID 01ARZ3NDEKTSV4RRFFQ69G5FAV
- We discussed the password policy: minimum 12 characters, rotated yearly.
- password: rotated monthly
- token: refreshed hourly by the sidecar
- The token bucket allows 50 requests per second (max_tokens=4096, num_tokens: 12).
- Secret santa budget is 20 EUR; the secret ingredient is cumin.
- api_key: stored in the team vault under "payments"
- password=changeme in the example config, token=\${API_TOKEN} in CI, secret=<your-secret>
- docs: https://example.com/docs?page=2&lang=en, git@github.com:org/repo.git, ssh://git@example.com/repo
- mailto:someone@example.com and https://user@example.com/path (a user, no password)
- notes about sk-learn-model-selection-guide-notes and risk-assessment-for-the-new-platform
- the AKIA prefix marks AWS access key ids; ghp_ marks GitHub tokens
- -----BEGIN PUBLIC KEY----- and -----BEGIN CERTIFICATE----- are not secrets
- JWTs start with eyJ; see https://jwt.io
- Use a Bearer token in the Authorization header; Basic authentication is off.
- the password is rotated monthly; the password is stored in the vault; 密码是一个敏感信息，不要记录
- see git 3f786850e387550fdab836ed7e6dc881de23001b and entry ^3ljn1rc4u6k2, ^r7k2mf9x1a
- path lib/store/guards/secrets/normalize/the/text and memory/semantic/people/notes/go/here
- the AccountName=acme is public; ServiceBus namespace acme-prod
- ghp_ marks GitHub tokens
  and sk-learn notes continue
- the base64 blob QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk=
- [link](memory/semantic/people.md) — hook, \`code\`, **bold**, > quote
- the pass is closed; the mountain pass is 2400m high; the boarding pass is 2026-05-14
- pw: see vault; passcode is on the wiki; the passcode was changed on 2026-05-14
- the password for the guest wifi is on the fridge; call the pass office at 555-0134
- --- begin private key rotation notes --- and a markdown rule below
-----
- escaped \\_\\_init\\_\\_, a%20b, R&amp;D, &copy; 2026, 50% off
- ghp_ docs, npm_config-cache-dir-for-the-build, hf_transfer-enabled-by-default-in-the-new-version
| table | with | cells |
|-------|------|-------|
| a | b | c |
`;

describe('secret rules', () => {
  it('has a positive sample for every rule', () => {
    const covered = new Set(SAMPLES.map((x) => x.rule));
    for (const rule of SECRET_RULES) expect(covered.has(rule.id), rule.id).toBe(true);
  });

  it.each(CASES)('%s: %#', (rule, { sample, secret }) => {
    const text = `- 14:30 [TECH] note about the deploy ${sample} end ^r7k2mf9x1a\n`;
    const found = scanSecrets(`line one\n${text}`);
    expect(found.map((f) => f.rule)).toEqual([rule]);
    expect(found[0]!.line).toBe(2);
    expect(secret.length).toBeGreaterThan(5);
    expect(found[0]!.masked).not.toContain(secret);
  });

  it('masks: the length, and only a prefixed token keeps its first 4 characters (its kind)', () => {
    expect(mask('ghp_abcdefghijklmnopqrstuvwxyz', true)).toBe('ghp_****(30 chars)');
    expect(mask('hunter2-Staging-42')).toBe('****(18 chars)');
    expect(mask('hunter2')).toBe('****(7 chars)');
    // a password written in a sentence: nothing of it in the finding
    const [f] = scanSecrets('the staging password is Pa55w0rd!2026 for now');
    expect(f!.masked).toBe('****(13 chars)');
    expect(scanSecrets('token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 in CI')[0]!.masked).toBe('ghp_****(40 chars)');
  });

  it('a benign corpus gives zero findings', () => {
    expect(scanSecrets(BENIGN)).toEqual([]);
  });
});

describe('normalization: a token written oddly is still found', () => {
  const token = 'gh' + 'p_' + fake(36, undefined, 60);
  const fullWidth = (t: string) => [...t].map((c) => (c >= '!' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');
  it.each([
    ['split by a line break', token.slice(0, 14) + '\n' + token.slice(14), 1],
    ['split by a space', token.slice(0, 14) + ' ' + token.slice(14), 1],
    ['split by a line break and indentation', token.slice(0, 4) + '\n  ' + token.slice(4), 1],
    ['with U+200B inside', token.slice(0, 10) + '\u200b' + token.slice(10, 20) + '\u200b' + token.slice(20), 1],
    ['with a soft hyphen and a word joiner', token.slice(0, 10) + '\u00ad' + token.slice(10) + '\u2060', 1],
    ['written full-width', fullWidth(token), 1],
  ])('%s', (_name, written, line) => {
    const found = scanSecrets(`first line\n- 14:30 [TECH] deploy with ${written} please`);
    expect(found.map((f) => f.rule)).toContain('github-token');
    expect(found[0]!.line).toBe(line + 1);
    for (const f of found) expect(f.masked).not.toContain(token.slice(4));
  });

  it('a bare 40-character AWS key needs the mixed shape or AWS context; git hashes and ids are not keys', () => {
    const hex = fake(40, HEX, 61);
    expect(scanSecrets(`commit ${hex}`)).toEqual([]);
    expect(scanSecrets(`aws secret ${hex}`)).toEqual([]); // hex only: not a secret key's shape
    const mixed = fake(38, 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789', 62) + 'Q7';
    expect(scanSecrets(`value ${mixed}`)).toEqual([]); // no "/" or "+" and no context
    expect(scanSecrets(`aws key for the backup user: ${mixed}`).map((f) => f.rule)).toEqual(['aws-secret-key-bare']);
    expect(scanSecrets(`aws_secret_access_key = ${mixed}`).map((f) => f.rule)).toEqual(['aws-secret-key']);
  });
});

describe('the store refuses secrets before they touch disk', () => {
  let root: string;
  const before = '# Log\n\n- 14:30 [EVENT] first ^aaaa000001\n';
  beforeAll(() => {
    root = tmpTree({ 'memory/log.md': before, 'memory/semantic/infra.md': '# Infra\n' });
  });
  afterAll(() => rmTree(root));

  it.each(CASES)('%s: refused with rule id and masked value, secret absent, file unchanged (%#)', (rule, { sample, secret }) => {
    const e = thrown(() => store(root).mutate((tx) => tx.append('memory/log.md', `- 14:31 [TECH] deploy uses ${sample} ^bbbb000001\n`)));
    expect(e.code).toBe('secret');
    expect(e.rule).toBe(rule);
    expect(e.file).toBe('memory/log.md');
    expect(e.line).toBe(1);
    expect(e.message).toMatch(/\*\*\*\*\(\d+ chars\)/);
    for (const shown of [e.message, JSON.stringify(e), JSON.stringify(e.toJSON()), String(e), e.hint ?? '']) expect(shown).not.toContain(secret);
    expect(readFileSync(join(root, 'memory/log.md'), 'utf8')).toBe(before);
    const e2 = thrown(() => store(root).mutate((tx) => tx.write('memory/semantic/infra.md', `# Infra\n\n${sample}\n`)));
    expect(e2.rule).toBe(rule);
    expect(e2.line).toBe(3);
    expect(readFileSync(join(root, 'memory/semantic/infra.md'), 'utf8')).toBe('# Infra\n');
  });

  it('benign text is written', () => {
    store(root).mutate((tx) => tx.write('memory/semantic/benign.md', BENIGN));
    expect(readFileSync(join(root, 'memory/semantic/benign.md'), 'utf8')).toBe(BENIGN);
  });
});



describe('the fast scans match their definitions', () => {
  // pieces of every PREFILTER literal (whole, in upper case, with one character changed) among
  // the characters around them, so each literal is met at the text's edges and glued to others
  const LITS = ['sk-', 'rk_live_', 'sk_live_', 'ghp_', 'ghr_', 'github_pat_', 'clh_', 'akia', 'asia', 'xox', 'hooks.slack', 'aiza', 'eyj', 'npm_', 'glpat-', 'hf_', 'private key',
    '://a@', '://x y@', 'pass', 'pwd', 'secret', 'token', 'api_key', 'apikey', 'private_key', 'privatekey', 'bearer', 'basic', 'accountkey', 'sharedaccesskey', 'pw', '---', '-----',
    'sk' + '0123456789abcdef'.repeat(2), 'sg.', 'discord', ':aa', 'm' + 'a1_-'.repeat(6) + '.', 'o' + 'x'.repeat(25) + '.', 'n' + 'y'.repeat(22) + '.', '密码', '口令', '密碼'];
  const NOISE = 'sSkK-_rRlLiIvVeEgGhHpPoOuUtTbBcCaAyYjJxXzZnNmMwWdD:/@. 0123456789abcdef\n\t\u00a0\u017f\u212a密码口令碼';

  it('secretRulesIn finds a literal exactly where PREFILTER does', () => {
    const rnd = seededRandom(19);
    const pick = <T>(a: ArrayLike<T>): T => a[Math.floor(rnd() * a.length)]!;
    let positives = 0;
    for (let k = 0; k < 40_000; k++) {
      let s = '';
      const n = 1 + Math.floor(rnd() * 40);
      for (let j = 0; j < n; j++) {
        if (rnd() < 0.06) {
          let l = pick(LITS);
          if (rnd() < 0.5) l = l.toUpperCase();
          if (rnd() < 0.3) { const at = Math.floor(rnd() * l.length); l = l.slice(0, at) + pick(NOISE) + l.slice(at + 1); }
          s += l;
        } else s += pick(NOISE);
      }
      const want = PREFILTER.test(s);
      if (want) positives++;
      expect(secretRulesIn(s).size > 0, JSON.stringify(s)).toBe(want);
    }
    expect(positives).toBeGreaterThan(5000);
    expect(secretRulesIn(BENIGN).size > 0).toBe(PREFILTER.test(BENIGN));
  });

  it('the scan gated by each rule\'s literals finds what every rule run over every text finds', () => {
    // the samples, cut at random places and glued to each other, to literals and to noise (also
    // split by a space or a line break, as the joined-token pass reads them)
    const rnd = seededRandom(21);
    const pick = <T>(a: ArrayLike<T>): T => a[Math.floor(rnd() * a.length)]!;
    const pieces = [...SAMPLES.map((x) => x.sample), ...LITS, 'password is Tr0ub4dor&3', 'token=abc123xyz', 'Bearer ', 'Basic ', 'AccountKey=', ' ', '\n', 'https://u:p4ss@h.example/x',
      'the passcode is 8841-2290-77', 'my pass is Hunter2!', 'pw: ', '----- begin rsa private key -----', '\\_', '%5F', '&#95;', '&lowbar;', '-', ' . ', '\u3164', '\ufe0f'];
    let findings = 0;
    for (let k = 0; k < 6000; k++) {
      let s = '';
      const n = 1 + Math.floor(rnd() * 6);
      for (let j = 0; j < n; j++) {
        let p = pick(pieces);
        if (rnd() < 0.3) p = p.slice(Math.floor(rnd() * p.length));
        if (rnd() < 0.3) p = p.slice(0, Math.ceil(rnd() * p.length));
        if (rnd() < 0.2) p = p.toUpperCase();
        s += p + (rnd() < 0.5 ? pick(NOISE) : '');
      }
      const want = scanSecrets(s, false);
      findings += want.length;
      expect(scanSecrets(s), JSON.stringify(s)).toEqual(want);
    }
    expect(findings).toBeGreaterThan(2000);
  });

  it('names the rules whose literal a text holds, and only those', () => {
    expect([...secretRulesIn('we rotated the token and the password yesterday')].sort()).toEqual(['password-assignment', 'password-prose']);
    expect([...secretRulesIn('the deploy uses postgres 16 on port 5432')]).toEqual([]);
    expect([...secretRulesIn('口令在保险箱里')]).toEqual(['password-prose']);
  });

  it('the bare AWS key scan finds the runs a regular expression finds', () => {
    const rule = SECRET_RULES.find((r) => r.id === 'aws-secret-key-bare')!;
    const re = new RegExp(rule.re.source, 'g');
    const rnd = seededRandom(20);
    let hits = 0;
    for (let k = 0; k < 20_000; k++) {
      // runs of key characters around 40 long between separators, and short words
      let s = '';
      const parts = Math.floor(rnd() * 6);
      for (let j = 0; j < parts; j++) {
        const len = rnd() < 0.6 ? 37 + Math.floor(rnd() * 7) : Math.floor(rnd() * 8);
        for (let c = 0; c < len; c++) s += 'aB9/+Qz'[Math.floor(rnd() * 7)];
        s += rnd() < 0.2 ? '' : '=_-.: \n\u00e9'[Math.floor(rnd() * 9)];
      }
      const want = [...s.matchAll(re)].map((m) => [m.index, m[0]]);
      if (want.length) hits++;
      expect(rule.find!(s).map((m) => [m.index, m[0]]), JSON.stringify(s)).toEqual(want);
    }
    expect(hits).toBeGreaterThan(500);
  });
});
