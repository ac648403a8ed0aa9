/**
 * Hostile input, secrets and text (issue 18): one row per input, each run through the real
 * binary on a memory built from the skeleton, asserting its documented outcome — refused with a
 * message naming the rule and the memory's bytes unchanged, or accepted in its documented
 * normalized form — with no crash, no stack trace and no secret anywhere (output or file).
 *
 * Secret samples are built by concatenation from generated characters, so this repository never
 * holds a literal a scanner flags (same scheme as test/store/secrets.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_RULES } from '../../lib/store/guards/secrets.js';
import { expectNoCrash, expectNoLeak, expectRefused, makeMemory, runCli, snapshotMemory, withoutHousekeeping } from './kit.js';
import { B64, b64url, fake, HEX, UPPER } from '../fake-credentials.js';


/** One credential of each kind of the store's table: the text written and the value never shown. */
interface Kind { rule: string; text: string; secret: string }
const K = (rule: string, prefix: string, secret: string, suffix = ''): Kind => ({ rule, text: prefix + secret + suffix, secret });
const KINDS: Kind[] = [
  K('anthropic-key', '', 'sk' + '-ant-' + 'api03-' + b64url(80, 101)),
  K('openai-key', '', 'sk' + '-proj-' + b64url(60, 102) + '9'),
  K('github-token', '', 'gh' + 'p_' + fake(36, undefined, 103)),
  K('github-pat', '', 'github' + '_pat_' + fake(22, undefined, 104) + '_' + fake(59, undefined, 105)),
  K('clawhub-token', '', 'cl' + 'h_' + fake(32, undefined, 106)),
  K('aws-access-key-id', '', 'AK' + 'IA' + fake(16, UPPER, 107)),
  K('aws-secret-key', 'aws_secret_' + 'access_key = ', fake(40, B64, 108)),
  K('aws-secret-key-bare', 'backup user key ', 'wJalr' + 'XUtnFEMI/K7MDENG/bPxRfiCY' + fake(8, undefined, 109) + '42'),
  K('slack-token', '', 'xo' + 'xb-' + fake(12, '0123456789', 110) + '-' + fake(24, undefined, 111)),
  K('slack-webhook', '', 'https://hooks.' + 'slack.com/services/' + 'T' + fake(8, UPPER, 112) + '/B' + fake(8, UPPER, 113) + '/' + fake(24, undefined, 114)),
  K('google-api-key', '', 'AI' + 'za' + b64url(35, 115)),
  K('gcp-private-key-id', '"private' + '_key_id": "', fake(40, HEX, 116), '"'),
  K('stripe-key', '', 'sk' + '_live_' + fake(24, undefined, 117)),
  K('twilio-key', '', 'S' + 'K' + fake(32, HEX, 118)),
  K('sendgrid-key', '', 'S' + 'G.' + b64url(22, 119) + '.' + b64url(43, 120)),
  K('discord-token', '', 'M' + fake(23, undefined, 121) + '.' + b64url(6, 122) + '.' + b64url(27, 123)),
  K('discord-webhook', '', 'https://' + 'discord.com/api/webhooks/' + fake(18, '0123456789', 124) + '/' + b64url(68, 125)),
  K('telegram-token', '', fake(10, '123456789', 126) + ':' + 'AA' + b64url(33, 127)),
  K('azure-key', 'AccountName=acme;Account' + 'Key=', fake(86, B64, 128) + '==', ';EndpointSuffix=core.windows.net'),
  K('jwt', '', 'ey' + 'JhbGciOiJIUzI1NiJ9' + '.' + 'ey' + 'JzdWIiOiIxMjM0NTY3ODkwIn0' + '.' + b64url(43, 129)),
  K('npm-token', '', 'np' + 'm_' + fake(36, undefined, 130)),
  K('gitlab-token', '', 'gl' + 'pat-' + b64url(20, 131)),
  K('huggingface-token', '', 'h' + 'f_' + fake(34, undefined, 132)),
  K('private-key', '', '-----' + 'BEGIN RSA ' + 'PRIVATE' + ' KEY-----' + fake(24, B64, 133)),
  K('url-credentials', 'postgres://admin:', 'Pw' + fake(10, undefined, 134), '@db.example.com:5432/app'),
  K('authorization-header', 'Authorization: ' + 'Bearer ', fake(40, undefined, 135)),
  K('password-assignment', 'DB_PASSWORD' + '=', fake(14, undefined, 136)),
  K('password-prose', 'the staging ' + 'password is ', 'Tr0ub4' + fake(8, undefined, 137)),
];

/** Each kind's refusal names its rule; the private key's value is the key body after the header. */
const secretOf = (k: Kind): string => (k.rule === 'private-key' ? k.secret.slice(31) : k.secret);

let root: string;
beforeAll(() => {
  root = makeMemory();
});

describe('every secret kind of the store table is refused by add, file bytes unchanged, never echoed', () => {
  it('the table covers every rule', () => {
    expect(new Set(KINDS.map((k) => k.rule))).toEqual(new Set(SECRET_RULES.map((r) => r.id)));
  });

  it.each(KINDS.map((k) => [k.rule, k] as const))('%s', (_rule, k) => {
    const before = snapshotMemory(root);
    const r = runCli(root, ['add', '--type', 'TECH', `deploy note: ${k.text} end`]);
    expectRefused(root, before, r, { message: new RegExp(`refused: looks like a .*\\[${k.rule}\\]`), secret: secretOf(k) });
  });
});

describe('a token written oddly is still refused', () => {
  const tok = 'gh' + 'p_' + fake(36, undefined, 140);
  const fullWidth = [...tok].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join('');
  const rows: [string, string, string[]][] = [
    ['split by a newline', `ci token ${tok.slice(0, 16)}\n${tok.slice(16)} rotated`, [tok, tok.slice(4, 16), tok.slice(16)]],
    ['split by a space', `ci token ${tok.slice(0, 16)} ${tok.slice(16)} rotated`, [tok, tok.slice(4, 16), tok.slice(16)]],
    ['split by U+200B', `ci token ${tok.slice(0, 16)}\u200b${tok.slice(16)} rotated`, [tok, tok.slice(4, 16), tok.slice(16)]],
    ['written full-width', `ci token ${fullWidth} rotated`, [tok, fullWidth]],
  ];
  it.each(rows)('%s', (_name, text, secrets) => {
    const before = snapshotMemory(root);
    const r = runCli(root, ['add', text]);
    expectRefused(root, before, r, { message: /refused: looks like a GitHub token.*\[github-token\]/, secret: secrets });
  });

  it('inside a code span, refused too', () => {
    const before = snapshotMemory(root);
    const r = runCli(root, ['add', 'run `export GH=' + tok + '` first']);
    expectRefused(root, before, r, { message: /\[github-token\]/, secret: tok });
  });
});

describe('other write paths refuse credentials too', () => {
  const tok = 'np' + 'm_' + fake(36, undefined, 150);
  it('cache set VALUE', () => {
    const before = snapshotMemory(root);
    const r = runCli(root, ['cache', 'set', 'registry', tok]);
    expectRefused(root, before, r, { message: /\[npm-token\]/, secret: tok });
  });

  it('cache set KEY VALUE where only KEY=VALUE reads as an assignment', () => {
    const before = snapshotMemory(root);
    const pw = fake(14, undefined, 151);
    const r = runCli(root, ['cache', 'set', 'db_password', pw]);
    expectRefused(root, before, r, { message: /\[password-assignment\]/, secret: pw });
  });

  it('wal context KEY VALUE', () => {
    const before = snapshotMemory(root);
    const r = runCli(root, ['wal', 'context', 'registry', tok]);
    expectRefused(root, before, r, { message: /\[npm-token\]/, secret: tok });
  });

  it('wal context "KEY=VALUE" (a usage error) does not quote the value', () => {
    const before = snapshotMemory(root);
    const pw = fake(14, undefined, 152);
    const r = runCli(root, ['wal', 'context', `password=${pw}`]);
    expectRefused(root, before, r, { message: /not shown|\[password-assignment\]/, secret: pw });
  });

  it('a flag value holding a private key is not echoed in "Unknown option"', () => {
    const before = snapshotMemory(root);
    const body = fake(64, B64, 153);
    const r = runCli(root, ['add', '-----' + 'BEGIN OPENSSH ' + 'PRIVATE' + ' KEY-----\n' + body + '\n-----END OPENSSH PRIVATE KEY-----']);
    expectRefused(root, before, r, { message: /Unknown option .*private key block, not shown/, secret: body.slice(0, 20) });
  });

  it('a long unknown option is cut, not echoed whole', () => {
    const before = snapshotMemory(root);
    const r = runCli(root, ['search', '--' + 'x'.repeat(5000)]);
    expectRefused(root, before, r, { message: /Unknown option '--x{38}…\(5002 chars\)'/ });
    expect(r.stderr.length).toBeLessThan(400);
  });

  it('recall --messages with invalid JSON says where, never what', () => {
    const pw = fake(14, undefined, 154);
    writeFileSync(join(root, '..', 'turn-bad.json'), `password=${pw} and more`);
    const before = snapshotMemory(root);
    const r = runCli(root, ['recall', '--messages', join(root, '..', 'turn-bad.json')]);
    expectRefused(root, before, r, { message: /is not valid JSON \(at character 0\)/, secret: ['password=', pw] });
  });
});

describe('recall keeps no query text on disk', () => {
  it('a credential in the query is in neither the recall cache nor the history nor the index', () => {
    const tok = 'gh' + 'p_' + fake(36, undefined, 160);
    const mem = makeMemory({ 'memory/semantic/deploy.md': '# Deploy\n\n- the deploy pipeline uses GitHub Actions #ci\n' });
    const r = runCli(mem, ['recall', '--query', `deploy pipeline github ${tok}`]);
    expectNoCrash(r);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/deploy pipeline/);
    expect(readFileSync(join(mem, '.memtier/recall-cache.json'), 'utf8')).not.toMatch(/deploy pipeline github/);
    // the same query again is served from the cache, with the asking query filled in
    const again = runCli(mem, ['recall', '--query', `deploy pipeline github ${tok}`, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ cached: true, query: `deploy pipeline github ${tok}` });
    expectNoLeak(mem, { ...r, stdout: '' }, tok);
  });
});

describe('hand-written files: health reports file, line and rule, never the value', () => {
  const fm = 'Tr0ub4' + fake(10, undefined, 170);
  const fenced = 'xo' + 'xb-' + fake(12, '0123456789', 171) + '-' + fake(24, undefined, 172);
  const split = 'gh' + 'p_' + fake(36, undefined, 173);
  let mem: string;
  beforeAll(() => {
    mem = makeMemory({
      'memory/semantic/infra.md': [
        '---', 'title: Infra', `db_password: "${fm}"`, '---', '', '# Infra', '', '```bash', `export SLACK=${fenced}`, '```', '',
        `the bot token is ${split.slice(0, 20)}`, `${split.slice(20)} (rotate it)`, '',
      ].join('\n'),
    });
  });

  it('a secret in frontmatter, in a code fence, and split across two lines: three findings', () => {
    const before = snapshotMemory(mem);
    const r = runCli(mem, ['health', '--json']);
    expectNoCrash(r);
    expect(r.code).toBe(1);
    const findings = (JSON.parse(r.stdout) as { findings: { check: string; file: string; line: number; message: string }[] }).findings.filter((f) => f.check === 'secrets');
    expect(findings.map((f) => [f.file, f.line, /rule ([a-z-]+)/.exec(f.message)?.[1]])).toEqual([
      ['memory/semantic/infra.md', 3, 'password-assignment'],
      ['memory/semantic/infra.md', 9, 'slack-token'],
      ['memory/semantic/infra.md', 12, 'github-token'],
    ]);
    expectNoLeak(mem, { ...r, stdout: r.stdout }, []);
    for (const s of [fm, fenced, split.slice(4, 20), split.slice(20)]) expect(r.stdout + r.stderr).not.toContain(s);
    expect(withoutHousekeeping(snapshotMemory(mem))).toEqual(withoutHousekeeping(before));
  });

  it('the text report names the rule too', () => {
    const r = runCli(mem, ['health']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL secrets\s+memory\/semantic\/infra\.md:9: looks like a Slack token \(rule slack-token/);
    expect(r.stdout + r.stderr).not.toContain(fenced);
  });
});

describe('control characters, escapes and bidi overrides', () => {
  it('a right-to-left override (U+202E) in entry text is stripped, the rest kept', () => {
    const mem = makeMemory();
    const r = runCli(mem, ['add', 'invoice \u202Egpj.exe\u202C approved']);
    expectNoCrash(r);
    expect(r.code).toBe(0);
    const day = readFileSync(join(mem, 'memory/episodic/2026-05-15.md'), 'utf8');
    expect(day).toMatch(/ invoice gpj\.exe approved \^/);
    expect(day).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });

  it('a bidi isolate (U+2066) in wal text is stripped too', () => {
    const mem = makeMemory();
    const r = runCli(mem, ['wal', 'decide', 'use \u2066admin\u2069 mode']);
    expectNoCrash(r);
    expect(r.code).toBe(0);
    const buf = readFileSync(join(mem, 'memory/working-buffer.md'), 'utf8');
    expect(buf).toMatch(/\[DECISION\] use admin mode \^/);
    expect(buf + readFileSync(join(mem, 'SESSION-STATE.md'), 'utf8')).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });

  it('ANSI escape sequences in entry text are removed whole; Hebrew and emoji are kept', () => {
    const mem = makeMemory();
    const r = runCli(mem, ['add', '--type', 'EVENT', 'build \u001b[31mfailed\u001b[0m on שלום 👩‍💻']);
    expectNoCrash(r);
    expect(r.code).toBe(0);
    const day = readFileSync(join(mem, 'memory/episodic/2026-05-15.md'), 'utf8');
    expect(day).toMatch(/\[EVENT\] build failed on שלום 👩‍💻 \^/);
    expect(day).not.toMatch(/\u001b|\[31m/);
  });

  it('escape sequences and bidi controls a person wrote in a file are shown escaped, never sent raw', () => {
    const mem = makeMemory({ 'memory/semantic/evil.md': '# Evil\n\n- the rollout \u001b[2J\u001b]0;pwned\u0007 plan \u202Etxt.exe\u202C is ready\n' });
    for (const args of [['search', 'rollout'], ['get', 'memory/semantic/evil.md'], ['search', 'rollout', '--json']]) {
      const r = runCli(mem, args);
      expectNoCrash(r);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/rollout/);
      expect(r.stdout + r.stderr, args.join(' ')).not.toMatch(/[\u001b\u0007\u202e\u202c]/);
      expect(r.stdout).toMatch(/\\u001b|\\u202e/);
    }
  });
});

describe('entry text cannot forge structure', () => {
  let mem: string;
  beforeAll(() => { mem = makeMemory(); });
  const day = () => readFileSync(join(mem, 'memory/episodic/2026-05-15.md'), 'utf8');

  it('a forged ^id is escaped: the line carries one id, its own, and the forged id finds nothing', () => {
    const r = runCli(mem, ['add', 'fixed it\n^abcdef123456']);
    expectNoCrash(r);
    expect(r.code).toBe(0);
    const line = day().split('\n').find((l) => l.includes('fixed it'))!;
    expect(line).toMatch(/^- \d\d:\d\d fixed it \\\^abcdef123456 \^[0-9a-z]{12}$/);
    expect(line.match(/(?:^|\s)\^[A-Za-z0-9]/g)).toHaveLength(1);
    const g = runCli(mem, ['get', 'memory/episodic/2026-05-15.md#^abcdef123456']);
    expectNoCrash(g);
    expect(g.code).not.toBe(0);
  });

  it('a forged --- fence and closure block stay inside the one entry line', () => {
    const r = runCli(mem, ['add', 'notes\n---\ntitle: x\n---\n## Closure\nUpdated: 2026-05-15\nDecisions: none\nOpen: none']);
    expectNoCrash(r);
    expect(r.code).toBe(0);
    const lines = day().split('\n');
    expect(lines.filter((l) => /^(?:---|## Closure|Updated:|Decisions:|Open:)/.test(l))).toEqual([]);
    expect(lines.filter((l) => l.includes('notes --- title: x --- ## Closure Updated: 2026-05-15'))).toHaveLength(1);
    const h = runCli(mem, ['health', '--json']);
    expectNoCrash(h);
    expect((JSON.parse(h.stdout) as { findings: { check: string }[] }).findings.filter((f) => /closure|frontmatter|parse/.test(f.check))).toEqual([]);
  });
});

describe('cache keys are plain keys', () => {
  it('cache set __proto__ stores it; cache get toString finds nothing', () => {
    const mem = makeMemory();
    const s = runCli(mem, ['cache', 'set', '__proto__', 'v1']);
    expectNoCrash(s);
    expect(s.code).toBe(0);
    const g = runCli(mem, ['cache', 'get', '__proto__']);
    expect([g.code, g.stdout.trim()]).toEqual([0, 'v1']);
    expect(runCli(mem, ['cache', 'list']).stdout).toMatch(/^__proto__\t/m);
    for (const k of ['toString', 'constructor', 'hasOwnProperty']) {
      const r = runCli(mem, ['cache', 'get', k]);
      expectNoCrash(r);
      expect(r.code, k).toBe(1);
    }
    expect(runCli(mem, ['cache', 'clear', 'constructor']).stdout).toMatch(/nothing \(constructor was not set\)/);
  });
});

describe('garbage clocks and hostile queries', () => {
  it.each([
    ['--now garbage', ['add', 'x', '--now', 'garbage'], {}, /--now is not a valid date\/time/],
    ['MEMTIER_NOW garbage', ['add', 'x'], { MEMTIER_NOW: '2026-13-45Tnope' }, /MEMTIER_NOW is not a valid date\/time/],
    ['MEMTIER_TZ garbage', ['add', 'x'], { MEMTIER_TZ: 'Mars/Olympus_Mons' }, /unknown time zone/],
    ['MEMTIER_TZ with escapes', ['add', 'x'], { MEMTIER_TZ: '\u001b[31mUTC' }, /unknown time zone/],
  ] as const)('%s is refused, nothing written', (_name, args, env, message) => {
    const before = snapshotMemory(root);
    const r = runCli(root, [...args], { env });
    expectRefused(root, before, r, { message });
    expect(r.stderr).not.toMatch(/\u001b/);
  });

  it.each([
    ['regex metacharacters', ['search', '(.*+?[\\^$|{'], [0]],
    ['emoji', ['search', '🦄🔥 deploy'], [0]],
    ['an empty query', ['search', ''], [2]],
    ['--k 1000000', ['search', 'rollout', '--k', '1000000'], [0]],
    ['--k -1', ['search', 'rollout', '--k', '-1'], [2]],
  ] as const)('search with %s: a clear answer, no crash', (_name, args, codes) => {
    const mem = makeMemory({ 'memory/semantic/r.md': '# R\n\n- the rollout (v2.*) plan 🦄 ^rollout01\n' });
    const before = snapshotMemory(mem);
    const r = runCli(mem, [...args]);
    expectNoCrash(r);
    expect(codes as readonly number[], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
    if (r.code === 2) expect(r.stderr).toMatch(/^memtier: .+\n\s+fix: /);
    expect(Object.entries(snapshotMemory(mem)).filter(([p]) => !p.startsWith('.memtier'))).toEqual(Object.entries(before).filter(([p]) => !p.startsWith('.memtier')));
  });
});

afterAll(() => { /* temp memories are removed by test/setup.ts */ });
