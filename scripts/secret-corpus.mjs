#!/usr/bin/env node
// Measure memtier's secret guard against a well-kept scanner on a generated corpus (issue 29):
//   npm run build && node scripts/secret-corpus.mjs [--gitleaks PATH/TO/gitleaks.toml] [--runs N] [--misses]
// The corpus: every credential shape of the guard's table (OpenAI, Anthropic, GitHub, AWS, Slack,
// Google, Stripe, JWT, private keys, passwords in config and in prose, URL credentials, …), each
// written plain and in every disguise that applies (split by a zero-width or a default-ignorable
// character, full-width, split across lines, markdown-, URL- or HTML-escaped, a "-" inside, groups
// of 4, a spaced or lower-case key header, a JWT with spaces around its dots, …), three seeds each,
// and a benign corpus (git SHAs, UUIDs, hashes, ids, ordinary notes). Reported: caught per shape and
// per disguise and false positives on the benign lines for
//   (a) memtier: scanSecrets from dist/lib/store/guards/secrets.js,
//   (b) secretlint with @secretlint/secretlint-rule-preset-recommend (lintSource of @secretlint/core;
//       12.0.0, what npm installs on Node 20: the newer releases need Node 22), devDependencies,
//   (c) with --gitleaks: gitleaks' rule set (config/gitleaks.toml of github:gitleaks/gitleaks) run by
//       a JS port of its matching: RE2 → JS regexes (case-insensitive groups expanded), keywords,
//       entropy, secretGroup, the global and per-rule allowlists and stopwords. An approximation of
//       the Go binary, not the binary. The README's figures used the file at commit b58d3f1 of that
//       repository (a copy of config/gitleaks.toml; not shipped here).
// And the cold start: a fresh `node` process that imports the scanner and scans a 1 KB note
// (median of --runs runs: wall and CPU time of the whole process and of the import + scan in it).
// Every credential is generated here from a seeded generator: nothing real, no literal a scanner flags.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const GUARD = join(repo, 'dist', 'lib', 'store', 'guards', 'secrets.js');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const RUNS = Number(opt('--runs', '7'));
const GITLEAKS = opt('--gitleaks', undefined);
const SHOW_MISSES = argv.includes('--misses');

const { scanSecrets } = await import(pathToFileURL(GUARD).href);
let secretlint;
try {
  const { lintSource } = await import('@secretlint/core');
  const { creator } = await import('@secretlint/secretlint-rule-preset-recommend');
  const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: creator }] };
  secretlint = async (text) => (await lintSource({ source: { filePath: '/memory/note.md', content: text, ext: '.md', contentType: 'text' }, options: { config, noPhysicFilePath: true, maskSecrets: true } })).messages.length > 0;
} catch (e) {
  console.error(`secretlint not installed (${e.code ?? e.message}): npm install -D secretlint @secretlint/secretlint-rule-preset-recommend`);
  process.exit(2);
}

// ---------------------------------------------------------------- generator
function rng(seed) {
  let a = seed >>> 0;
  return () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64 = ALNUM + '+/';
const B64URL = ALNUM + '_-';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'; // base32, as AWS key ids
const HEX = '0123456789abcdef';
const DIGITS = '0123456789';
const str = (r, n, alphabet = ALNUM) => { let s = ''; for (let i = 0; i < n; i++) s += alphabet[Math.floor(r() * alphabet.length)]; return s; };
/** A value with a digit, a lower- and an upper-case letter (what a generated key holds). */
const mixed = (r, n, alphabet = ALNUM) => { for (;;) { const s = str(r, n, alphabet); if ((/\d/.test(s) || !/\d/.test(alphabet)) && /[a-z]/.test(s) && /[A-Z]/.test(s)) return s; } };
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** A PEM body as a real key's: base64 of DER, which starts with a SEQUENCE ("MII…"). */
const pemBody = (r) => ('MIIEpAIBAAKCAQEA' + str(r, 240, B64)).match(/.{1,64}/g).join('\n');
/** A value with a digit and a letter. */
const upperMixed = (r, n) => { for (;;) { const s = str(r, n, UPPER_DIGITS); if (/\d/.test(s) && /[A-Z]/.test(s)) return s; } };
const b64 = (text) => Buffer.from(text).toString('base64');

/**
 * Each kind: a label and a maker returning { lead, secret, tail, prefix } — the text is
 * lead + secret + tail; disguises rewrite `secret`, whose first `prefix` characters are its kind's
 * fixed prefix (0: none). `extra`: disguises of this kind only.
 */
const KINDS = [
  { label: 'OpenAI key (sk-proj-)', make: (r) => ({ lead: '', secret: 'sk' + '-proj-' + mixed(r, 74, B64URL) + 'T3Blbk' + 'FJ' + mixed(r, 74, B64URL), prefix: 8 }) },
  { label: 'OpenAI key (legacy sk-)', make: (r) => ({ lead: '', secret: 'sk' + '-' + mixed(r, 20) + 'T3Blbk' + 'FJ' + mixed(r, 20), prefix: 3 }) },
  { label: 'Anthropic key', make: (r) => ({ lead: '', secret: 'sk' + '-ant-' + 'api03-' + mixed(r, 93, B64URL) + 'AA', prefix: 13 }) },
  { label: 'GitHub token (ghp_)', make: (r) => ({ lead: '', secret: 'gh' + 'p_' + mixed(r, 36), prefix: 4 }) },
  { label: 'GitHub fine-grained PAT', make: (r) => ({ lead: '', secret: 'github' + '_pat_' + mixed(r, 22) + '_' + mixed(r, 59), prefix: 11 }) },
  { label: 'AWS access key id', make: (r) => ({ lead: '', secret: 'AK' + 'IA' + upperMixed(r, 16), prefix: 4 }) },
  { label: 'AWS secret key (assigned)', make: (r) => ({ lead: 'aws_secret_' + 'access_key = ', secret: mixed(r, 38, B64) + '/' + str(r, 1, ALNUM), prefix: 0 }) },
  { label: 'Slack bot token', make: (r) => ({ lead: '', secret: 'xo' + 'xb-' + str(r, 12, DIGITS) + '-' + str(r, 13, DIGITS) + '-' + mixed(r, 24), prefix: 5 }) },
  { label: 'Slack webhook URL', make: (r) => ({ lead: '', secret: 'https://hooks.' + 'slack.com/services/' + 'T' + str(r, 8, UPPER_DIGITS) + '/B' + str(r, 8, UPPER_DIGITS) + '/' + mixed(r, 24), prefix: 0 }) },
  { label: 'Google API key', make: (r) => ({ lead: '', secret: 'AI' + 'za' + 'Sy' + mixed(r, 33, B64URL), prefix: 4 }) },
  { label: 'Stripe live key', make: (r) => ({ lead: '', secret: 'sk' + '_live_' + mixed(r, 24), prefix: 8 }) },
  { label: 'npm token', make: (r) => ({ lead: '', secret: 'np' + 'm_' + mixed(r, 36), prefix: 4 }) },
  { label: 'GitLab token', make: (r) => ({ lead: '', secret: 'gl' + 'pat-' + mixed(r, 20), prefix: 6 }) },
  { label: 'Hugging Face token', make: (r) => ({ lead: '', secret: 'h' + 'f_' + mixed(r, 34, LETTERS), prefix: 3 }) },
  { label: 'SendGrid key', make: (r) => ({ lead: 'sendgrid: ', secret: 'S' + 'G.' + mixed(r, 22, B64URL) + '.' + mixed(r, 43, B64URL), prefix: 3 }) },
  { label: 'Twilio key', make: (r) => ({ lead: 'twilio api key: ', secret: 'S' + 'K' + str(r, 32, HEX), prefix: 2 }) },
  { label: 'Discord webhook URL', make: (r) => ({ lead: 'discord webhook: ', secret: 'https://' + 'discord.com/api/webhooks/' + str(r, 18, DIGITS) + '/' + mixed(r, 68, B64URL), prefix: 0 }) },
  { label: 'Telegram bot token', make: (r) => ({ lead: 'telegram bot token: ', secret: str(r, 10, '123456789') + ':' + 'AA' + mixed(r, 33, B64URL), prefix: 0 }) },
  { label: 'Azure storage key', make: (r) => ({ lead: 'DefaultEndpointsProtocol=https;AccountName=acme;' + 'Account' + 'Key=', secret: mixed(r, 86, B64) + '==', tail: ';EndpointSuffix=core.windows.net', prefix: 0 }) },
  {
    label: 'JWT',
    make: (r) => ({ lead: 'auth: ', secret: 'ey' + 'JhbGciOiJIUzI1NiJ9' + '.' + b64(`{"sub":"${str(r, 10, DIGITS)}","name":"${str(r, 8)}"}`).replace(/=+$/, '') + '.' + mixed(r, 43, B64URL), prefix: 3 }),
    extra: { 'JWT with spaces around its dots': (s) => s.split('.').join(' . ') },
  },
  {
    label: 'private key (PEM block)',
    make: (r) => ({ lead: 'deploy key:\n', secret: '-----' + 'BEGIN RSA ' + 'PRIVATE' + ' KEY-----\n' + pemBody(r) + '\n-----END RSA PRIVATE KEY-----', prefix: 0 }),
    only: ['plain'],
    extra: {
      'spaced key header': (s) => s.replace('-----' + 'BEGIN RSA ' + 'PRIVATE' + ' KEY-----', '----- ' + 'BEGIN RSA ' + 'PRIVATE' + ' KEY -----'),
      'lower-case key header': (s) => s.replace('-----' + 'BEGIN RSA ' + 'PRIVATE' + ' KEY-----', '-----' + 'begin ' + 'private' + ' key-----'),
      'OpenSSH key': (s) => s.replace('BEGIN RSA ', 'BEGIN OPENSSH ').replace('END RSA ', 'END OPENSSH ').replace('MIIEpAIBAAKCAQEA', 'b3BlbnNzaC1rZXktdjEAAAAA'),
    },
  },
  { label: 'URL credentials', make: (r) => ({ lead: 'postgres://admin:', secret: 'Pw' + mixed(r, 12), tail: '@db.example.com:5432/app', prefix: 0 }) },
  { label: 'Bearer header', make: (r) => ({ lead: 'curl -H "Authorization: ' + 'Bearer ', secret: mixed(r, 40), tail: '"', prefix: 0 }) },
  { label: 'password in config (DB_PASSWORD=)', make: (r) => ({ lead: 'DB_PASSWORD' + '=', secret: mixed(r, 14), prefix: 0 }) },
  { label: 'password in YAML (password:)', make: (r) => ({ lead: 'password' + ': ', secret: 'Tr0ub4' + mixed(r, 8), prefix: 0 }) },
  {
    label: 'password in prose',
    make: (r) => ({ lead: 'the staging ' + 'password is ', secret: 'Hunter' + '2!!' + mixed(r, 5), prefix: 0 }),
    only: ['plain', 'zero-width space inside', 'default-ignorable inside', 'full-width'],
    prose: {
      '"the password for prod is …"': (s) => 'the password for prod is ' + s,
      '"pw: …"': (s) => 'deploy box pw: ' + s,
      '"my pass is …"': (s) => 'my pass is ' + s,
      '"the passcode is 8841-2290-77"': (_s, r) => 'the door passcode is ' + str(r, 4, DIGITS) + '-' + str(r, 4, DIGITS) + '-' + str(r, 2, DIGITS),
      '"密码是…"': (s) => '数据库' + '密码' + '是' + s,
    },
  },
];

const IGNORABLES = ['\u034f', '\u115f', '\u1160', '\u17b4', '\u3164', '\uffa0', '\ufe00', '\ufe0f'];
const at = (s, i, c) => s.slice(0, i) + c + s.slice(i);
const PUNCT = /[_\-./+=:]/;
const firstPunct = (s, from) => { const m = PUNCT.exec(s.slice(from)); return m ? from + m.index : -1; };
const pct = (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
/** Disguises: (secret, prefix length, kind number) → the secret written so, or undefined (does not apply). */
const DISGUISES = {
  plain: (s) => s,
  'zero-width space inside': (s) => at(at(s, Math.floor((s.length * 2) / 3), '\u200b'), Math.floor(s.length / 3), '\u200b'),
  'default-ignorable inside': (s, _p, k) => { const c = IGNORABLES[k % IGNORABLES.length]; return at(at(s, Math.floor((s.length * 2) / 3), c), Math.floor(s.length / 3), c); },
  'full-width': (s) => [...s].map((c) => (c > ' ' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join(''),
  'split across two lines': (s) => at(s, Math.floor(s.length / 2), '\n'),
  'markdown-escaped (\\_)': (s, p) => { const i = firstPunct(s, Math.max(0, p - 1)); return i < 0 ? undefined : at(s, i, '\\'); },
  'URL-encoded (%5F)': (s, p) => { const i = firstPunct(s, Math.max(0, p - 1)); return i < 0 ? undefined : s.slice(0, i) + pct(s[i]) + s.slice(i + 1); },
  'HTML entity (&#95;)': (s, p) => { const i = firstPunct(s, Math.max(0, p - 1)); return i < 0 ? undefined : s.slice(0, i) + `&#${s.charCodeAt(i)};` + s.slice(i + 1); },
  '"-" inside': (s, p) => (p > 0 ? at(s, p + Math.floor((s.length - p) / 2), '-') : undefined),
  'groups of 4 (spaces)': (s, p) => (p > 0 ? s.slice(0, p) + ' ' + s.slice(p).match(/.{1,4}/g).join(' ') : undefined),
};

const NOTE = (text) => `- 14:30 [TECH] deploy note: ${text} end ^r7k2mf9x1a\n`;
const SEEDS = [11, 22, 33];
/** { kind, disguise, text } */
const SAMPLES = [];
KINDS.forEach((kind, k) => {
  for (const seed of SEEDS) {
    const r = rng(seed * 1000 + k);
    const { lead, secret, tail = '', prefix } = kind.make(r);
    for (const [name, fn] of Object.entries(DISGUISES)) {
      if (kind.only && !kind.only.includes(name)) continue;
      const s = fn(secret, prefix, k);
      if (s !== undefined) SAMPLES.push({ kind: kind.label, disguise: name, text: NOTE(lead + s + tail) });
    }
    for (const [name, fn] of Object.entries(kind.extra ?? {})) SAMPLES.push({ kind: kind.label, disguise: name, text: NOTE(lead + fn(secret) + tail) });
    for (const [name, fn] of Object.entries(kind.prose ?? {})) SAMPLES.push({ kind: kind.label, disguise: name, text: NOTE(fn(secret, r)) });
  }
});

// ---------------------------------------------------------------- benign corpus
const br = rng(4242);
const uuid = () => [8, 4, 4, 4, 12].map((n) => str(br, n, HEX)).join('-');
const BENIGN = [
  `commit ${str(br, 40, HEX)} fixed the rotation bug`, `short sha ${str(br, 7, HEX)}, tag v1.4.2, build 20260515.3`,
  `request id ${uuid()} and ${uuid()}`, `sha256 ${str(br, 64, HEX)}`, `sha512 ${str(br, 128, HEX)}`, `md5 ${str(br, 32, HEX)} of the tarball`,
  `base64 id ${b64('this is just a note about the deploy')} and ULID 01ARZ3NDEKTSV4RRFFQ69G5FAV`,
  `etag "${str(br, 32, HEX)}" and docker image sha256:${str(br, 64, HEX)}`, `integrity sha512-${b64(str(br, 48, ALNUM))}`,
  'We discussed the password policy: minimum 12 characters, rotated yearly.', 'password: rotated monthly', 'token: refreshed hourly by the sidecar',
  'The token bucket allows 50 requests per second (max_tokens=4096, num_tokens: 12).', 'Secret santa budget is 20 EUR; the secret ingredient is cumin.',
  'api_key: stored in the team vault under "payments"', 'password=changeme in the example config, token=${API_TOKEN} in CI, secret=<your-secret>',
  'docs: https://example.com/docs?page=2&lang=en, git@github.com:org/repo.git, ssh://git@example.com/repo',
  'mailto:someone@example.com and https://user@example.com/path (a user, no password)',
  'notes about sk-learn-model-selection-guide-notes and risk-assessment-for-the-new-platform',
  'the AKIA prefix marks AWS access key ids; ghp_ marks GitHub tokens', '-----BEGIN PUBLIC KEY----- and -----BEGIN CERTIFICATE----- are not secrets',
  'JWTs start with eyJ; see https://jwt.io', 'Use a Bearer token in the Authorization header; Basic authentication is off.',
  'the password is rotated monthly; the password is stored in the vault', 'path lib/store/guards/secrets/normalize/the/text and memory/semantic/people/notes',
  'the AccountName=acme is public; ServiceBus namespace acme-prod', `the base64 blob ${b64('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')}`,
  'the pass is closed', 'the mountain pass is 2400m high; the second pass was 12.5 s faster', 'pw: see vault', 'passcode is on the wiki',
  'the passcode was changed on 2026-05-14', 'the password for the guest wifi is on the fridge', 'call the pass office at 555-0134 before 2026-05-20',
  'my password expires on 2026-06-01; reset it at +1 415 555 0134', 'meeting moved to 2026-05-18 14:30, dial-in 0800 123 4567, PIN in the invite',
  '--- begin private key rotation notes ---', 'escaped \\_\\_init\\_\\_, a%20b, R&amp;D, &copy; 2026, 50% off, &lt;div&gt;',
  'ghp_ docs, npm_config-cache-dir-for-the-build, hf_transfer-enabled-by-default-in-the-new-version',
  'kebab-case-words-like-this-one and snake_case_names_like_that_one and CamelCaseIdentifiersLikeThisOne',
  'the deploy uses postgres 16 on port 5432 with max_connections=200 and shared_buffers=4GB',
  'Korean: 한국어 텍스트와 한글 자모 ᄀᅠᅡ, emoji ❤️ 👍🏽 and a keycap 1️⃣', '中文笔记：部署在周五，数据库密码策略已经更新，不要记录密码', 'Ελληνικά και русский текст',
  `aws region us-east-1, account 123456789012, arn:aws:iam::123456789012:role/deploy`, 'secretlint and gitleaks are secret scanners; trufflehog too',
  `npm package lock "resolved": "https://registry.npmjs.org/zod/-/zod-4.1.0.tgz", "integrity": "sha512-${b64(str(br, 48, ALNUM))}"`,
  'the OAuth flow returns an access_token and a refresh_token; both expire', 'Authorization: Bearer <token>, Authorization: Basic <base64>',
  '| table | with | cells |\n|-------|------|-------|\n| a | b | c |', '```bash\nexport PATH="$HOME/bin:$PATH"\nnpm run build\n```',
  `version ${str(br, 1, DIGITS)}.${str(br, 2, DIGITS)}.${str(br, 1, DIGITS)}, build ${str(br, 12, HEX)}, run ${str(br, 10, DIGITS)}`,
  'the key is to rotate often; keys are in the vault', 'session token lifetime: 15 minutes, refresh token lifetime: 30 days',
].map((t) => NOTE(t));

// ---------------------------------------------------------------- gitleaks (JS port)
/** The gitleaks config's rules and global allowlist, read by a parser for its generated TOML. */
function parseGitleaks(text) {
  const global = { regexes: [], stopwords: [] };
  const rules = [];
  let target = null;
  const lines = text.split('\n');
  const value = (raw) => {
    raw = raw.trim();
    if (raw.startsWith("'''")) return raw.slice(3, raw.lastIndexOf("'''"));
    if (raw.startsWith('"')) return JSON.parse(raw);
    return Number(raw);
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*#/.test(line) || !line.trim()) continue;
    if (line === '[allowlist]') { target = global; continue; }
    if (line === '[[rules]]') { target = { allowlists: [] }; rules.push(target); continue; }
    if (line === '[[rules.allowlists]]') { target = { regexes: [], stopwords: [] }; rules.at(-1).allowlists.push(target); continue; }
    const m = /^(\w+)\s*=\s*(.*)$/.exec(line);
    if (!m || !target) continue;
    if (m[2].trim() === '[') {
      const items = [];
      while (lines[++i].trim() !== ']') { const t = lines[i].trim().replace(/,$/, ''); if (t) items.push(value(t)); }
      target[m[1]] = items;
    } else if (m[2].trim().startsWith('[')) target[m[1]] = m[2].trim().slice(1, -1).split(',').map((x) => x.trim()).filter(Boolean).map(value);
    else target[m[1]] = value(m[2]);
  }
  return { global, rules };
}

const POSIX = { alnum: 'A-Za-z0-9', alpha: 'A-Za-z', digit: '0-9', lower: 'a-z', upper: 'A-Z', space: '\\s', xdigit: '0-9A-Fa-f', word: '\\w', punct: '!-\\/:-@\\[-`{-~' };
const swapCase = (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());
/**
 * An RE2 pattern as a JS RegExp source: (?i) and (?i:…) / (?-i:…) regions spelled with both cases
 * ([aA], ranges doubled), (?s:…) as [\s\S], (?P<n>…) as (?<n>…), \z and \A as $ and ^, POSIX classes
 * expanded. Throws on what it cannot read.
 */
function re2ToJs(src) {
  let out = '';
  const stack = [];
  let ci = false;
  let dotall = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      const n = src[i + 1];
      if (n === 'z') out += '$';
      else if (n === 'A') out += '^';
      else if ((n === 'x' || n === 'p' || n === 'P') && src[i + 2] === '{') { const e = src.indexOf('}', i); out += src.slice(i, e + 1); i = e; continue; }
      else if (ci && /[a-zA-Z]/.test(n) && !/[dDwWsSbBntrfvx0-9pPuk]/.test(n)) out += `[${n}${swapCase(n)}]`;
      else out += c + n;
      i++;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      let cls = '[';
      if (src[j] === '^') { cls += '^'; j++; }
      if (src[j] === ']') { cls += '\\]'; j++; }
      let extra = '';
      for (; j < src.length && src[j] !== ']'; j++) {
        if (src.startsWith('[:', j)) { const e = src.indexOf(':]', j); cls += POSIX[src.slice(j + 2, e)] ?? (() => { throw new Error('posix class'); })(); j = e + 1; continue; }
        if (src[j] === '\\') { cls += src[j] + src[j + 1]; j++; continue; }
        if (src[j] === '[') { cls += '\\['; continue; }
        if (ci && /[a-zA-Z]/.test(src[j])) {
          if (src[j + 1] === '-' && /[a-zA-Z]/.test(src[j + 2] ?? '')) { extra += swapCase(src[j]) + '-' + swapCase(src[j + 2]); cls += src.slice(j, j + 3); j += 2; continue; }
          extra += swapCase(src[j]);
        }
        cls += src[j];
      }
      out += cls + extra + ']';
      i = j;
      continue;
    }
    if (c === '(') {
      const flags = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(src.slice(i));
      if (src.startsWith('(?P<', i) || src.startsWith('(?<', i)) { const e = src.indexOf('>', i); stack.push([ci, dotall]); out += '(?<' + src.slice(src.indexOf('<', i) + 1, e + 1); i = e; continue; }
      if (flags && flags[1] !== undefined && (flags[1] || flags[2])) {
        const on = flags[1];
        const offf = flags[2] ?? '';
        if (/[^is]/.test(on + offf)) throw new Error('flag ' + on + offf);
        if (flags[3] === ')') { // (?i) for the rest of the group
          if (on.includes('i')) ci = true; if (offf.includes('i')) ci = false;
          if (on.includes('s')) dotall = true; if (offf.includes('s')) dotall = false;
          i += flags[0].length - 1;
          continue;
        }
        stack.push([ci, dotall]);
        if (on.includes('i')) ci = true; if (offf.includes('i')) ci = false;
        if (on.includes('s')) dotall = true; if (offf.includes('s')) dotall = false;
        out += '(?:';
        i += flags[0].length - 1;
        continue;
      }
      stack.push([ci, dotall]);
      out += c;
      continue;
    }
    if (c === ')') { [ci, dotall] = stack.pop() ?? [ci, dotall]; out += c; continue; }
    if (c === '.' && dotall) { out += '[\\s\\S]'; continue; }
    if (ci && /[a-zA-Z]/.test(c)) { out += `[${c}${swapCase(c)}]`; continue; }
    out += c;
  }
  return out;
}

function shannon(s) {
  const f = new Map();
  for (const c of s) f.set(c, (f.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of f.values()) { const p = n / s.length; h -= p * Math.log2(p); }
  return h;
}

function gitleaksScanner(path) {
  const { global, rules } = parseGitleaks(readFileSync(path, 'utf8'));
  const compile = (src) => new RegExp(re2ToJs(src), 'g');
  const gRegexes = (global.regexes ?? []).map((s) => new RegExp(re2ToJs(s)));
  const gStop = (global.stopwords ?? []).map((s) => s.toLowerCase());
  let skipped = 0;
  const ready = [];
  for (const r of rules) {
    if (!r.regex || r.path) { skipped++; continue; } // path rules look at file names (a note.md is none of theirs)
    try {
      ready.push({
        id: r.id, re: compile(r.regex), entropy: r.entropy, keywords: (r.keywords ?? []).map((k) => k.toLowerCase()), group: r.secretGroup ?? 0,
        allow: r.allowlists.map((a) => ({ target: a.regexTarget ?? 'secret', regexes: (a.regexes ?? []).map((s) => new RegExp(re2ToJs(s))), stopwords: (a.stopwords ?? []).map((s) => s.toLowerCase()), paths: a.paths ?? [], and: a.condition === 'AND' })),
      });
    } catch { skipped++; }
  }
  const scan = (text) => {
    const lower = text.toLowerCase();
    for (const r of ready) {
      if (r.keywords.length && !r.keywords.some((k) => lower.includes(k))) continue;
      for (const m of text.matchAll(r.re)) {
        const secret = (r.group ? m[r.group] : m.slice(1).find((g) => g)) ?? m[0];
        if (r.entropy && shannon(secret) < r.entropy) continue;
        if (r.id.startsWith('generic') && !/\d/.test(secret)) continue;
        if (gRegexes.some((x) => x.test(secret)) || gStop.some((w) => secret.toLowerCase().includes(w))) continue;
        const lineStart = text.lastIndexOf('\n', m.index) + 1;
        const lineEnd = text.indexOf('\n', m.index + m[0].length);
        const line = text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
        const allowed = r.allow.some((a) => {
          const t = a.target === 'match' ? m[0] : a.target === 'line' ? line : secret;
          const hits = [a.regexes.length ? a.regexes.some((x) => x.test(t)) : undefined, a.stopwords.length ? a.stopwords.some((w) => secret.toLowerCase().includes(w)) : undefined, a.paths.length ? false : undefined].filter((x) => x !== undefined);
          return a.and ? hits.length > 0 && hits.every(Boolean) : hits.some(Boolean);
        });
        if (!allowed) return true;
      }
    }
    return false;
  };
  return { scan, rules: ready.length, skipped };
}

// ---------------------------------------------------------------- run
const gl = GITLEAKS ? gitleaksScanner(GITLEAKS) : undefined;
const scanners = [
  ['memtier', async (t) => scanSecrets(t).length > 0],
  ['secretlint', secretlint],
  ...(gl ? [['gitleaks rules (JS port)', async (t) => gl.scan(t)]] : []),
];

const results = [];
for (const s of SAMPLES) {
  const row = { ...s };
  for (const [name, fn] of scanners) row[name] = await fn(s.text);
  results.push(row);
}
const benign = [];
for (const text of BENIGN) {
  const row = { text };
  for (const [name, fn] of scanners) row[name] = await fn(text);
  benign.push(row);
}

const names = scanners.map(([n]) => n);
const table = (title, key) => {
  const groups = new Map();
  for (const r of results) { const g = groups.get(r[key]) ?? []; g.push(r); groups.set(r[key], g); }
  const lines = [`| ${title} | samples | ${names.map((n) => `${n} caught`).join(' | ')} |`, `|---|---:|${names.map(() => '---:').join('|')}|`];
  for (const [g, rows] of groups) lines.push(`| ${g.replace(/\|/g, '\\|')} | ${rows.length} | ${names.map((n) => `${rows.filter((r) => r[n]).length}`).join(' | ')} |`);
  lines.push(`| **total** | **${results.length}** | ${names.map((n) => `**${results.filter((r) => r[n]).length}** (${((100 * results.filter((r) => r[n]).length) / results.length).toFixed(1)} %)`).join(' | ')} |`);
  return lines.join('\n');
};

console.log(`## Secret corpus: ${results.length} credential samples (${KINDS.length} shapes × their disguises × ${SEEDS.length} seeds), ${BENIGN.length} benign lines\n`);
console.log(`memtier: scanSecrets (dist/lib/store/guards/secrets.js); secretlint ${JSON.parse(readFileSync(join(repo, 'node_modules/secretlint/package.json'), 'utf8')).version} + preset-recommend ${JSON.parse(readFileSync(join(repo, 'node_modules/@secretlint/secretlint-rule-preset-recommend/package.json'), 'utf8')).version}${gl ? `; gitleaks: ${gl.rules} rules of ${GITLEAKS.split('/').pop()} ported to JS (${gl.skipped} path-only or unreadable rules left out)` : ''}\n`);
console.log('### By shape\n');
console.log(table('shape', 'kind'));
console.log('\n### By disguise\n');
console.log(table('disguise', 'disguise'));
console.log('\n### False positives on the benign corpus\n');
console.log(`| scanner | benign lines flagged |\n|---|---:|\n${names.map((n) => `| ${n} | ${benign.filter((b) => b[n]).length} / ${benign.length} |`).join('\n')}`);
for (const n of names) {
  const fp = benign.filter((b) => b[n]);
  if (fp.length) console.log(`\n${n} flags: ${fp.map((b) => JSON.stringify(b.text.slice(27, 27 + 70))).join('; ')}`);
}
for (const n of names.slice(1)) {
  const only = results.filter((r) => r[n] && !r.memtier);
  console.log(`\nCaught by ${n} and not by memtier: ${only.length ? [...new Set(only.map((r) => `${r.kind} / ${r.disguise}`))].join('; ') : 'none'}`);
}
const missed = results.filter((r) => !r.memtier);
console.log(`\nmemtier misses: ${missed.length ? [...new Set(missed.map((r) => `${r.kind} / ${r.disguise}`))].join('; ') : 'none'}`);
if (SHOW_MISSES) for (const n of names.slice(1)) console.log(`\n${n} misses: ${[...new Set(results.filter((r) => !r[n]).map((r) => `${r.kind} / ${r.disguise}`))].join('; ')}`);

// ---------------------------------------------------------------- cold start
const note = [
  '# Deploy notes', '', '- 09:12 [DECISION] move the nightly backup to 02:00 UTC, after the batch import #ops ^k2j3mx0a',
  '- 10:02 [TECH] staging db password is in the team vault under "staging-db"; rotate monthly ^k2j3mx0b',
  '- 11:40 [EVENT] deploy of v1.4.2 (commit 3f786850e387550fdab836ed7e6dc881de23001b) went out to 3 regions ^k2j3mx0c',
  '- 13:05 [LESSON] the token bucket allowed 50 req/s; raise max_tokens to 4096 before the sale ^k2j3mx0d',
  '- 14:30 [TECH] request id 123e4567-e89b-12d3-a456-426614174000 failed with a 502 from the load balancer; retried fine ^k2j3mx0e',
  '- 15:10 [PERSON] Dana owns the billing service; ask her before touching the invoice schema ^k2j3mx0f',
  '- 16:45 [DECISION] keep postgres 16 for the ledger, revisit after the audit in June #db ^k2j3mx0g',
].join('\n');
const body = note + '\n' + 'More context: the rollout plan has three phases and a rollback step for each; see the runbook. '.repeat(Math.ceil((1024 - note.length) / 96));
const note1k = body.slice(0, 1024);
// Each child reports the wall time of its import + scan, the CPU time (all threads: compile, GC)
// of its import + scan and of its whole life: on a busy machine CPU time varies less than wall time.
const report = 'const c2=process.cpuUsage();const ms=(c)=>(c.user+c.system)/1000;console.log(JSON.stringify({inside:t2-t0,cpuInside:ms(c2)-ms(c0),cpuTotal:ms(c2),found}))';
const COLD = {
  'node (no import)': `const t0=performance.now();const c0=process.cpuUsage();const t2=performance.now();const found=0;${report}`,
  memtier: `const t0=performance.now();const c0=process.cpuUsage();const {scanSecrets}=await import(${JSON.stringify(pathToFileURL(GUARD).href)});const found=scanSecrets(${JSON.stringify(note1k)}).length;const t2=performance.now();${report}`,
  secretlint: `const t0=performance.now();const c0=process.cpuUsage();const {lintSource}=await import('@secretlint/core');const {creator}=await import('@secretlint/secretlint-rule-preset-recommend');const r=await lintSource({source:{filePath:'/memory/note.md',content:${JSON.stringify(note1k)},ext:'.md',contentType:'text'},options:{config:{rules:[{id:'@secretlint/secretlint-rule-preset-recommend',rule:creator}]},noPhysicFilePath:true,maskSecrets:true}});const found=r.messages.length;const t2=performance.now();${report}`,
};
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const cold = {};
for (let run = 0; run < RUNS; run++) {
  for (const [name, code] of Object.entries(COLD)) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: repo, encoding: 'utf8' });
    const wall = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${name}: ${r.stderr}`);
    (cold[name] ??= []).push({ wall, ...JSON.parse(r.stdout) });
  }
}
console.log(`\n### Cold start: a fresh node process imports the scanner and scans a 1 KB note (median of ${RUNS} runs, node ${process.version})\n`);
console.log('| scanner | whole process, wall | whole process, CPU | import + scan, wall | import + scan, CPU | findings |\n|---|---:|---:|---:|---:|---:|');
const col = (runs, k) => `${median(runs.map((x) => x[k])).toFixed(1)} ms`;
for (const [name, runs] of Object.entries(cold)) console.log(`| ${name} | ${col(runs, 'wall')} | ${col(runs, 'cpuTotal')} | ${col(runs, 'inside')} | ${col(runs, 'cpuInside')} | ${runs[0].found} |`);
console.log(`\n(load average while measuring: ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}; CPU time counts every thread of the process)`);
