/**
 * Credentials in disguise (issue 29, finding 7): each row a credential written so that the
 * secret guard and `health` passed it before — split by a default-ignorable code point that is not
 * a format character, escaped (markdown, URL, HTML), cut into groups by "-" or spaces, said in a
 * sentence, a private key header spaced or in lower case, a JWT with spaces around its dots. Each
 * is refused by the scanner, by `add` through the real binary and reported by `health`, never
 * echoed; and the benign look-alikes of the new rules pass.
 *
 * Samples are built by concatenation from generated characters (test/fake-credentials.ts), so
 * this repository never holds a literal a scanner flags.
 */
import { describe, expect, it } from 'vitest';
import { decodeEscapes, normalizeForScan, redactSecrets, scanSecrets } from '../../lib/store/guards/secrets.js';
import { expectNoCrash, expectRefused, makeMemory, runCli, snapshotMemory } from './kit.js';
import { b64url, fake } from '../fake-credentials.js';

const tok = 'gh' + 'p_' + fake(36, undefined, 290);
const body = tok.slice(4);
const at = (s: string, n: number, c: string): string => s.slice(0, n) + c + s.slice(n);
/** The token with `c` put in at two places of its body. */
const splitBy = (c: string): string => at(at(tok, 24, c), 12, c);
const groups = (s: string, n: number, sep: string): string => s.match(new RegExp(`.{1,${n}}`, 'g'))!.join(sep);
const akia = 'AK' + 'IA' + fake(16, 'ABCDEFGHJKLMNPQRSTUVWXYZ234567', 291);
const pw = 'Hunter' + '2!!' + fake(4, undefined, 292);
const pem = (header: string): string => 'deploy key ' + header + '\n' + fake(64, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 293) + '\n';
const jwtParts = ['ey' + 'JhbGciOiJIUzI1NiJ9', 'ey' + 'JzdWIiOiIxMjM0NTY3ODkwIn0', b64url(43, 294)];

interface Row { name: string; text: string; rule: string; secrets: string[] }
const R = (name: string, text: string, rule: string, secrets: string[]): Row => ({ name, text, rule, secrets });

const IGNORABLES: [string, string][] = [
  ['U+034F combining grapheme joiner', '\u034f'],
  ['U+115F Hangul choseong filler', '\u115f'],
  ['U+1160 Hangul jungseong filler', '\u1160'],
  ['U+17B4 Khmer vowel inherent aq', '\u17b4'],
  ['U+17B5 Khmer vowel inherent aa', '\u17b5'],
  ['U+180B Mongolian free variation selector', '\u180b'],
  ['U+2065 (unassigned, default-ignorable)', '\u2065'],
  ['U+3164 Hangul filler', '\u3164'],
  ['U+FE00 variation selector 1', '\ufe00'],
  ['U+FE0F variation selector 16', '\ufe0f'],
  ['U+FFA0 half-width Hangul filler', '\uffa0'],
  ['U+E0100 variation selector 17', '\u{e0100}'],
  ['U+E0041 tag latin capital A', '\u{e0041}'],
];

const ROWS: Row[] = [
  ...IGNORABLES.map(([name, c]) => R(`split by ${name}`, `ci token ${splitBy(c)} rotated`, 'github-token', [tok, body.slice(0, 8), body.slice(8, 20), body.slice(20)])),
  R('markdown-escaped ghp\\_', `ci token ${tok.replace('_', '\\_')} rotated`, 'github-token', [body]),
  R('URL-encoded ghp%5F', `ci token ${tok.replace('_', '%5F')} rotated`, 'github-token', [body]),
  R('URL-encoded twice ghp%255F', `ci token ${tok.replace('_', '%255F')} rotated`, 'github-token', [body]),
  R('HTML entity ghp&#95;', `ci token ${tok.replace('_', '&#95;')} rotated`, 'github-token', [body]),
  R('HTML entity ghp&#x5f;', `ci token ${tok.replace('_', '&#x5f;')} rotated`, 'github-token', [body]),
  R('HTML entity ghp&lowbar;', `ci token ${tok.replace('_', '&lowbar;')} rotated`, 'github-token', [body]),
  R('HTML entity escaped twice ghp&amp;#95;', `ci token ${tok.replace('_', '&amp;#95;')} rotated`, 'github-token', [body]),
  R('an escaped zero-width space inside (&#x200b;)', `ci token ${at(tok, 20, '&#x200b;')} rotated`, 'github-token', [body.slice(0, 16), body.slice(16)]),
  R('a "-" inside the token', `ci token ${at(tok, 20, '-')} rotated`, 'github-token', [body.slice(0, 16), body.slice(16)]),
  R('"-" every 4 characters', `ci token ${'gh' + 'p_' + groups(body, 4, '-')} rotated`, 'github-token', [groups(body, 4, '-').slice(0, 14)]),
  R('groups of 4 separated by spaces', `ci token ${'gh' + 'p_ ' + groups(body, 4, ' ')} rotated`, 'github-token', [groups(body, 4, ' ').slice(0, 14)]),
  R('groups of 6 across a line break', `ci token ${'gh' + 'p_' + groups(body, 6, ' ').replace(/ (?=\S+ \S+ \S+$)/, '\n  ')} rotated`, 'github-token', [groups(body, 6, ' ').slice(0, 20)]),
  R('an AWS key id in groups of 4', `the key id is ${'AK' + 'IA ' + groups(akia.slice(4), 4, ' ')} for backups`, 'aws-access-key-id', [groups(akia.slice(4), 4, ' ').slice(0, 14)]),
  R('"the password for prod is …"', `the password for prod is ${pw}`, 'password-prose', [pw]),
  R('"the password for the prod db was …"', `the password for the prod db was ${pw} until May`, 'password-prose', [pw]),
  R('"password for staging: …"', `password for staging: ${pw}`, 'password-prose', [pw]),
  R('"pw: …"', `deploy box pw: ${pw}`, 'password-assignment', [pw]),
  R('"pw=…"', `pw=${fake(12, undefined, 295)}`, 'password-assignment', [fake(12, undefined, 295)]),
  R('"my pass is …"', `my pass is ${pw}`, 'password-prose', [pw]),
  R('"the passcode is 8841-2290-77"', 'the door passcode is ' + '8841-' + '2290-77', 'password-prose', ['8841-' + '2290-77']),
  R('"passcode: …"', 'alarm passcode: ' + '8841-' + '2290-77', 'password-assignment', ['8841-' + '2290-77']),
  R('a spaced private key header', pem('----- ' + 'BEGIN RSA ' + 'PRIVATE' + ' KEY -----'), 'private-key', [fake(64, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 293).slice(0, 20)]),
  R('a lower-case private key header', pem('-----' + 'begin ' + 'private' + ' key-----'), 'private-key', [fake(64, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 293).slice(0, 20)]),
  R('a JWT split by " . "', `auth header was ${jwtParts.join(' . ')} yesterday`, 'jwt', [jwtParts[2]!]),
];

describe('a credential in disguise is found by the scanner, never echoed', () => {
  it.each(ROWS.map((r) => [r.name, r] as const))('%s', (_name, r) => {
    const found = scanSecrets(`first line\n${r.text}`);
    expect(found.map((f) => f.rule)).toContain(r.rule);
    expect(found.find((f) => f.rule === r.rule)!.line).toBe(2);
    for (const f of found) for (const s of r.secrets) expect(f.masked).not.toContain(s);
    // a message quoting the text shows none of it (a token cut across lines: its first line)
    const red = redactSecrets(r.text).split('\n')[0]!;
    for (const s of r.secrets) expect(red).not.toContain(s.split('\n')[0]);
  });
});

/** Base64url-like characters (the generator's b64url alphabet has 64 characters: its output repeats). */
const b64u = (n: number, seed: number): string => fake(n, 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789_-', seed);
/** One token of every prefixed rule (but Twilio's: its literal is only seen whole): the literal it starts with, the rest. */
const PREFIXED: [rule: string, prefix: string, rest: string][] = [
  ['anthropic-key', 'sk' + '-', 'ant-' + 'api03-' + b64u(80, 301)],
  ['openai-key', 'sk' + '-', 'proj-' + b64u(60, 302) + '9'],
  ['github-token', 'gh' + 'p_', fake(36, undefined, 303)],
  ['github-pat', 'github' + '_pat_', fake(22, undefined, 304) + '_' + fake(59, undefined, 305)],
  ['clawhub-token', 'cl' + 'h_', fake(32, undefined, 306)],
  ['aws-access-key-id', 'AK' + 'IA', fake(16, 'ABCDEFGHJKLMNPQRSTUVWXYZ234567', 307)],
  ['slack-token', 'xo' + 'xb-', fake(12, '0123456789', 308) + '-' + fake(13, '0123456789', 309) + '-' + fake(24, undefined, 310)],
  ['google-api-key', 'AI' + 'za', b64u(35, 311)],
  ['stripe-key', 'sk' + '_live_', fake(24, undefined, 312)],
  ['sendgrid-key', 'S' + 'G.', b64u(22, 313) + '.' + b64u(43, 314)],
  ['jwt', 'ey' + 'J', 'hbGciOiJIUzI1NiJ9' + '.' + 'ey' + 'JzdWIiOiIxMjM0NTY3ODkwIn0' + '.' + b64u(43, 315)],
  ['npm-token', 'np' + 'm_', fake(36, undefined, 316)],
  ['gitlab-token', 'gl' + 'pat-', b64u(20, 317)],
  ['huggingface-token', 'h' + 'f_', fake(34, undefined, 318)],
];

describe('every prefixed rule finds its token cut into groups', () => {
  it.each(PREFIXED)('%s', (rule, prefix, rest) => {
    for (const written of [prefix + ' ' + groups(rest, 4, ' '), prefix + groups(rest, 5, '  '), prefix + rest.slice(0, 10) + '\n  ' + groups(rest.slice(10), 6, ' ')]) {
      const found = scanSecrets(`deploy with ${written} tonight`);
      expect(found.map((f) => f.rule), written).toContain(rule);
      for (const f of found) expect(f.masked).not.toContain(rest.slice(0, 8));
    }
    if (/-/.test(rest)) return; // "-" is a character of its own tokens
    expect(scanSecrets(`deploy with ${prefix + at(rest, 11, '-')} tonight`).map((f) => f.rule)).toContain(rule);
  });
});

describe('normalization and decoding', () => {
  it('every default-ignorable code point of the table is removed; line breaks stay', () => {
    for (const [, c] of IGNORABLES) expect(normalizeForScan(`a${c}b\nc`)).toBe('ab\nc');
  });

  it('escapes are decoded; ones that would make a control character or a line break are kept', () => {
    expect(decodeEscapes('a\\_b %5F&#95;&#x5F;&lowbar;&LowBar;&hyphen;')).toBe('a_b _____-');
    expect(decodeEscapes('line%0Aone &#10; %41')).toBe('line%0Aone &#10; A');
    expect(decodeEscapes('no escapes here, 50% off & more')).toBeUndefined();
  });
});

describe('benign look-alikes of the new rules give no finding', () => {
  it.each([
    'the pass is closed',
    'the mountain pass is 2400m high; the second pass was 12.5 s faster',
    'the boarding pass is 2026-05-14, the day pass is #42',
    'pw: see vault',
    'pw: in 1Password',
    'passcode is on the wiki',
    'the passcode was changed on 2026-05-14',
    'the password for the guest wifi is on the fridge',
    'the password for staging is stored in Vault',
    'the password of 16 characters is required',
    'call the pass office at 555-0134 before 2026-05-20',
    'my password expires on 2026-06-01; reset it at 555-0134',
    'the test pass: 12/12, pass=3',
    '--- begin private key rotation notes ---',
    '----- markdown rule -----',
    'escaped \\_\\_init\\_\\_ and a%20b and R&amp;D and &copy; 2026',
    'ghp_ marks GitHub tokens, AKIA marks AWS key ids, sk-learn-model-selection-notes',
    'see ghp_ docs for details and npm_config-cache-dir-for-the-build',
    'eyJ marks a JWT . eyJ starts its payload . then a signature',
    // a link names where a secret lives (palace lists notes tagged #token so)
    '- #token: [memory/semantic/note-1029.md](../semantic/note-1029.md), [memory/semantic/auth.md](../semantic/auth.md)',
    'API token: [in the vault](https://vault.example.com/ui/secret/deploy), password: [[Passwords#staging]]',
  ])('%s', (text) => {
    expect(scanSecrets(text)).toEqual([]);
  });
});

describe('through the real binary', () => {
  const root = makeMemory();
  it.each(ROWS.map((r) => [r.name, r] as const))('add refuses %s', (_name, r) => {
    const before = snapshotMemory(root);
    const res = runCli(root, ['add', r.text]);
    expectRefused(root, before, res, { message: new RegExp(`\\[${r.rule}\\]`), secret: r.secrets });
  });

  it('health reports each disguise in a hand-written file, never the value', () => {
    const lines = ROWS.map((r) => `- ${r.text.replace(/\n/g, ' ')}`);
    const mem = makeMemory({ 'memory/semantic/disguised.md': `# Disguised\n\n${lines.join('\n')}\n` });
    const r = runCli(mem, ['health', '--json']);
    expectNoCrash(r);
    expect(r.code).toBe(1);
    const findings = (JSON.parse(r.stdout) as { findings: { check: string; file: string; line: number; message: string }[] }).findings.filter((f) => f.check === 'secrets');
    ROWS.forEach((row, i) => expect(findings.filter((f) => f.line === i + 3).map((f) => /rule ([a-z-]+)/.exec(f.message)?.[1]), row.name).toContain(row.rule));
    for (const s of ROWS.flatMap((x) => x.secrets)) expect(r.stdout + r.stderr).not.toContain(s.split('\n')[0]);
  });
});
