/**
 * Secret refusal: credentials never reach a memory file. The table is ours (secretlint's
 * recommended preset misses several of these) and each rule is tested against a positive
 * sample and a benign corpus (git SHAs, UUIDs, hashes, ordinary notes).
 *
 * The text is normalized before matching (NFKC folds full-width letters; format characters such
 * as U+200B and the other default-ignorable code points, Hangul fillers and variation selectors
 * included, are removed), a text holding escapes (markdown `\_`, URL `%5F`, HTML `&#95;`,
 * `&lowbar;`) is also read decoded, and a token with a known prefix is also read joined across
 * one space or line break, or across the `-`, spaces or line breaks that cut it into groups, so a
 * credential cannot slip through by being written oddly.
 */
import { MemtierError } from '../../core/errors.js';
import { nativeFirst } from '../../core/regexp.js';

export interface SecretRule {
  id: string;
  description: string;
  re: RegExp;
  /** Which capture group holds the secret value to mask (default: whole match). */
  group?: number;
  /** The value (group) must pass valueIsSecretLike; group - 1 holds the separator. */
  valueLooksSecret?: boolean;
  /** The value must also pass this test (keeps prose and hashes out). */
  check?: (value: string, match: RegExpMatchArray, text: string) => boolean;
  /** A token with a fixed prefix: also matched joined across one space or line break. */
  prefixed?: boolean;
  /** Found by a scan of its own instead of `re` (which then serves redaction only): a rule without a literal to anchor on. */
  find?: (text: string) => RegExpMatchArray[];
  /** A literal the rule cannot match without: its regex is not run over a text that lacks it. */
  needs?: string;
}

const isKeyChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 47 || c === 43;

/** [A-Za-z0-9/+] by character code (ASCII only). */
const KEY_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) if (isKeyChar(c)) KEY_CHAR[c] = 1;
const keyAt = (text: string, i: number): boolean => { const c = text.charCodeAt(i); return c < 128 && KEY_CHAR[c] === 1; };

/**
 * Runs of exactly 40 key characters ([A-Za-z0-9/+]) not glued to a longer token: a regular
 * expression with this lookbehind tried every position of the text (~50 ms per MB). The scan
 * looks 39 characters ahead of where a run could start: when that one is not a key character no
 * run of 40 starts before it, so ordinary prose (words of a few letters) is skipped ~40 at a time;
 * when it is, the run around it is measured. Every maximal run of 40 or more is seen.
 */
function keyRuns40(text: string): RegExpMatchArray[] {
  const out: RegExpMatchArray[] = [];
  const n = text.length;
  // i is 0 or follows a character that is not a key character
  let i = 0;
  while (i + 40 <= n) {
    const p = i + 39;
    if (!keyAt(text, p)) { i = p + 1; continue; }
    let start = p;
    while (start > i && keyAt(text, start - 1)) start--;
    let end = p + 1;
    while (end < n && keyAt(text, end)) end++;
    i = end + 1;
    if (end - start !== 40) continue;
    const before = start > 0 ? text.charCodeAt(start - 1) : 0;
    const after = end < n ? text.charCodeAt(end) : 0;
    // not glued to a longer token: "=", "_", "-" on either side, "." or ":" before
    if (before === 61 || before === 95 || before === 45 || before === 46 || before === 58 || after === 61 || after === 95 || after === 45) continue;
    const m = [text.slice(start, end)] as unknown as RegExpMatchArray;
    m.index = start;
    out.push(m);
  }
  return out;
}

/** Machine-made: a digit and a letter, or lower and upper case past the first letter. */
const machineLike = (v: string): boolean => (/\d/.test(v) && /[A-Za-z]/.test(v)) || (/[a-z]/.test(v) && /[A-Z]/.test(v.slice(1)));

/** A bare 40-character AWS secret key: upper, lower and digits, and a "/" or "+" or AWS context nearby. */
function awsBareSecret(v: string, m: RegExpMatchArray, text: string): boolean {
  if (!/[A-Z]/.test(v) || !/[a-z]/.test(v) || !/\d/.test(v)) return false;
  if ((v.match(/[A-Z]/g)?.length ?? 0) < 3 || (v.match(/[a-z]/g)?.length ?? 0) < 3 || (v.match(/\d/g)?.length ?? 0) < 2) return false;
  if (/^\/|\/$|\/\//.test(v)) return false; // a path, not a key
  if (/[/+]/.test(v)) return true;
  const before = text.slice(Math.max(0, (m.index ?? 0) - 100), m.index ?? 0);
  return /aws|amazon|secret|access.?key|iam/i.test(before);
}

/** A private key's BEGIN line: any case, spaces or tabs inside its dashes. */
const PRIVATE_KEY_HEADER = /-{3,}[ \t]*BEGIN[ \t]+(?:[A-Z0-9]+[ \t]+)*PRIVATE[ \t]+KEY(?:[ \t]+BLOCK)?[ \t]*-{3,}/i;

export const SECRET_RULES: SecretRule[] = [
  { id: 'anthropic-key', description: 'Anthropic API key', re: /\bsk-ant-[A-Za-z0-9_-]{20,}/, prefixed: true },
  // The value must hold a digit: keeps kebab-case words such as "sk-learn-model-selection-notes" out.
  { id: 'openai-key', description: 'OpenAI API key', re: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}/, prefixed: true },
  { id: 'github-token', description: 'GitHub token', re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/, prefixed: true },
  { id: 'github-pat', description: 'GitHub fine-grained token', re: /\bgithub_pat_[A-Za-z0-9_]{30,}/, prefixed: true },
  { id: 'clawhub-token', description: 'ClawHub token', re: /\bclh_(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{16,}/, prefixed: true },
  { id: 'aws-access-key-id', description: 'AWS access key id', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, prefixed: true },
  {
    id: 'aws-secret-key',
    description: 'AWS secret access key',
    re: /(?<![A-Za-z0-9])(?:aws_?)?secret_?access_?key\b["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/i,
    group: 1,
  },
  {
    id: 'aws-secret-key-bare',
    description: 'AWS secret access key (bare)',
    // exactly 40 base64 characters, not part of a longer token, a path or a URL
    re: /(?<![A-Za-z0-9/+=_.:-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-])/,
    find: keyRuns40,
    check: awsBareSecret,
  },
  { id: 'slack-token', description: 'Slack token', re: /\bxox[abposre]-[A-Za-z0-9-]{10,}/, prefixed: true },
  { id: 'slack-webhook', description: 'Slack webhook URL', re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/]{20,}/ },
  { id: 'google-api-key', description: 'Google API key', re: /\bAIza[0-9A-Za-z_-]{35}/, prefixed: true },
  { id: 'gcp-private-key-id', description: 'GCP service account private_key_id', re: /private_key_id["']?\s*[:=]\s*["']?([a-f0-9]{40})\b/i, group: 1, needs: 'private_key_id' },
  { id: 'stripe-key', description: 'Stripe live key', re: /\b(?:sk|rk)_live_[0-9A-Za-z]{16,}/, prefixed: true },
  { id: 'twilio-key', description: 'Twilio API key', re: /\bSK[0-9a-f]{32}\b/, prefixed: true, needs: 'SK' },
  { id: 'sendgrid-key', description: 'SendGrid API key', re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/, prefixed: true, needs: 'SG.' },
  { id: 'discord-token', description: 'Discord bot token', re: /\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b/, check: (v) => machineLike(v.split('.')[0]!) },
  { id: 'discord-webhook', description: 'Discord webhook URL', re: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{30,}/, needs: '/api/webhooks/' },
  { id: 'telegram-token', description: 'Telegram bot token', re: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/, needs: ':AA' },
  { id: 'azure-key', description: 'Azure storage or service bus key', re: /\b(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{30,}={0,2})/i, group: 1 },
  // also split by spaces around its dots ("eyJ… . eyJ… . sig")
  { id: 'jwt', description: 'JSON Web Token', re: /\beyJ[A-Za-z0-9_-]{8,}[ \t]{0,3}\.[ \t]{0,3}eyJ[A-Za-z0-9_-]{8,}[ \t]{0,3}\.[ \t]{0,3}[A-Za-z0-9_-]{8,}/, prefixed: true, needs: 'eyJ' },
  { id: 'npm-token', description: 'npm token', re: /\bnpm_[A-Za-z0-9]{36}\b/, prefixed: true },
  { id: 'gitlab-token', description: 'GitLab token', re: /\bglpat-[A-Za-z0-9_-]{20,}/, prefixed: true },
  { id: 'huggingface-token', description: 'Hugging Face token', re: /\bhf_[A-Za-z0-9]{30,}/, prefixed: true },
  // any case, spaces inside the dashes ("----- BEGIN RSA PRIVATE KEY -----", "-----begin private key-----")
  { id: 'private-key', description: 'private key block', re: PRIVATE_KEY_HEADER, needs: '---' },
  { id: 'url-credentials', description: 'credentials in a URL', re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:([^\s@/]{3,})@[^\s]+/i, group: 1 },
  {
    id: 'authorization-header',
    description: 'Bearer or Basic authorization header',
    // "Authorization: Bearer <token>", "Bearer <token>", "Basic <base64>"; "a Bearer token" is prose
    re: /\b(?:Bearer|Basic)\s+([A-Za-z0-9._~+/-]{8,}={0,2})(?![A-Za-z0-9._~+/=-])/i,
    group: 1,
    check: (v, m) => (/^basic/i.test(m[0]) ? machineLike(v) || /=$/.test(v) : v.length >= 16 && machineLike(v)),
  },
  {
    id: 'password-assignment',
    description: 'password, secret, token or API key assignment',
    // Also DB_PASSWORD=…, GITHUB_TOKEN=… (an "_" may precede the name); "max_tokens=…" does not match.
    re: /(?<![A-Za-z0-9])(?:password|passwd|passcode|passphrase|pwd|pw|secret|secret_?key|client_?secret|api_?secret|token|access_?token|auth_?token|refresh_?token|api_?key|apikey|private_?key)["']?\s*([:=])\s*["']?([^\s"',;]{4,})/i,
    group: 2,
    valueLooksSecret: true,
  },
  {
    id: 'password-prose',
    description: 'password written in a sentence',
    // "the password is hunter2", "passphrase was Tr0ub4dor", "the password for prod is Hunter2!!x",
    // "my pass is …", "the passcode is 8841-2290-77", "密码是hunter2", "口令：abc123"
    re: /(?:(?<![A-Za-z0-9])(password|passphrase|passwd|passcode|pwd|pw|pass)(?:(?:\s+(?:for|of|on|to|at)(?:\s+[^\s:=]+){1,3}?)?\s+(?:is|was|will be)\s+|\s+(?:for|of|on|to|at)(?:\s+[^\s:=]+){1,3}?\s*[:=]\s*)|(?:密码|口令|密碼)\s*(?:是|为|為|:|：|=)\s*)["'“‘「]?([^\s"'”’」，。,;；]{4,})/i,
    group: 2,
    check: prosePassword,
  },
];

/**
 * A value written after "password is" in a sentence: printable, not a placeholder nor a date,
 * with a digit, a symbol or a machine-made mix of letters. After the plain word "pass" (a mountain
 * pass, a test pass, a boarding pass) a number, a measure or a ticket number is not a password.
 */
function prosePassword(v: string, m: RegExpMatchArray): boolean {
  if (!/[\x21-\x7e]{4,}/.test(v) || PLACEHOLDER.test(v)) return false;
  if (/^\d{4}-\d\d-\d\d(?:$|T)|^\d\d?[./]\d\d?[./]\d{2,4}$/.test(v)) return false; // a date
  if (m[1]?.toLowerCase() === 'pass' && /^[#(]?[\d.,:/-]+[a-z%)]{0,3}[.!?]?$/i.test(v)) return false;
  return /\d/.test(v) || /[!@#$%^&*+=?~]/.test(v) || machineLike(v);
}

/** Placeholder values people write in docs: not secrets. */
const PLACEHOLDER = /^(?:\*+|x+|\.{3,}|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{[^}]*\}\}|%[A-Z_]+%|changeme|change_me|redacted|\[redacted\]|example|sample|dummy|placeholder|your[-_a-z]*|null|none|nil|true|false|undefined|env|required|optional|string|password|passwd|pass|secret|token|hidden|masked|tbd|todo)$/i;

/**
 * After "key:" (prose, YAML) a value must look machine-made to count: a digit or a symbol in
 * it, not a plain word ("password: rotated", "token: refreshed"). After "key=" (config) any
 * non-placeholder value of 4+ characters counts.
 */
function valueIsSecretLike(value: string, sep: string): boolean {
  if (PLACEHOLDER.test(value)) return false;
  if (/^\d{1,9}$/.test(value)) return false; // "max_token=4096", "token: 5"
  // a link says where something is, not what it is: "API token: [see vault](https://vault/x)",
  // palace's "- #token: [memory/semantic/auth.md](../semantic/auth.md)" (a tag named token)
  if (/^\[[^\]]*\]\(|^\[\[/.test(value)) return false;
  if (sep === '=') return value.length >= 4;
  return value.length >= 6 && /[^A-Za-z]/.test(value) && !/^[A-Za-z]+[.!?]$/.test(value);
}

export interface SecretFinding {
  rule: string;
  description: string;
  /** 1-based line of the match in the scanned text. */
  line: number;
  /** The value masked: its length, and for a token with a fixed prefix (ghp_, sk-, AKIA…) that prefix's first 4 characters. Never any of the secret itself. */
  masked: string;
}

/**
 * Mask a secret: `****` and the length. A token with a fixed prefix (`prefix`: its rule is
 * `prefixed`) keeps its first 4 characters, which name its kind (ghp_, sk-a, AKIA), not a part of
 * the secret; a password or a key without one keeps none (its first characters would be its own).
 */
export function mask(value: string, prefix = false): string {
  const keep = prefix && value.length > 12 ? 4 : 0;
  return `${value.slice(0, keep)}****(${value.length} chars)`;
}

/**
 * A cheap first pass: a case-insensitive superset of every rule's literal part. Ordinary text
 * matches none of it and skips the rule regexes (each costs a compile on first use in a cold
 * process). Keep it in step with SECRET_RULES: the per-rule tests fail if a rule is not covered.
 * The bare AWS key has no literal: its own one-pass scan runs whatever the prefilter says.
 * This regular expression is the definition; `secretRulesIn` reads its literals in one pass (a
 * regex with this many alternatives tries each at every position: ~20 ms per MB).
 */
export const PREFILTER = /sk-|[sr]k_live_|gh[pousr]_|github_pat_|clh_|akia|asia|xox|hooks\.slack|aiza|eyj|npm_|glpat-|hf_|---|:\/\/[^\s@]*@|pass|pw|secret|token|api_?key|apikey|private_?key|bearer|basic|accountkey|sharedaccesskey|sk[0-9a-f]{32}|sg\.|discord|:aa|[mno][a-z0-9_-]{23,25}\.|密码|口令|密碼/i;

/**
 * PREFILTER's literals, each a list of allowed (lower-case) characters per position, the position of
 * its rarest character (the scan looks at the text only where that character is; given as the
 * character, or as its position: `---` stops at its middle dash, whose neighbours are dashes too)
 * and the rules it lets run: a rule's regular expression cannot match a text without one of its
 * literals, so it is not run (nor compiled, in a cold process) over such a text.
 * `://…@`, `sk` + 32 hex digits and `[mno]…\.` are tested by hand (prefilterAt; HAND_RULES).
 */
const PASSWORD = ['password-assignment', 'password-prose'];
const LITERAL_TABLE: [literal: string, anchor: string | number, rules: string[]][] = [
  ['sk-', '-', ['anthropic-key', 'openai-key']], ['[sr]k_live_', '_', ['stripe-key']], ['gh[pousr]_', '_', ['github-token']],
  ['github_pat_', '_', ['github-pat']], ['clh_', '_', ['clawhub-token']], ['akia', 'k', ['aws-access-key-id']], ['asia', 's', ['aws-access-key-id']],
  ['xox', 'x', ['slack-token']], ['hooks.slack', '.', ['slack-webhook']], ['aiza', 'z', ['google-api-key']], ['eyj', 'j', ['jwt']],
  ['npm_', '_', ['npm-token']], ['glpat-', '-', ['gitlab-token']], ['hf_', '_', ['huggingface-token']], ['---', 1, ['private-key']],
  ['pass', 'p', PASSWORD], ['pw', 'w', PASSWORD], ['secret', 'c', ['aws-secret-key', 'password-assignment']],
  ['token', 'k', ['password-assignment']], ['api_key', '_', ['password-assignment']], ['apikey', 'k', ['password-assignment']],
  ['private_key', '_', ['password-assignment', 'gcp-private-key-id']], ['privatekey', 'v', ['password-assignment']],
  ['bearer', 'b', ['authorization-header']], ['basic', 'b', ['authorization-header']], ['accountkey', 'k', ['azure-key']],
  ['sharedaccesskey', 'k', ['azure-key']], ['sg.', '.', ['sendgrid-key']], ['discord', 'c', ['discord-webhook']], [':aa', ':', ['telegram-token']],
  ['密码', '密', ['password-prose']], ['口令', '口', ['password-prose']], ['密碼', '密', ['password-prose']],
];
/** The rules of the hand tests: `://…@`, `sk` + 32 hex digits, `[mno]…\.`. */
const HAND_RULES: Record<number, string> = { 58: 'url-credentials', 107: 'twilio-key', 46: 'discord-token' };

/** A literal's positions: "[sr]k_" → ["sr", "k", "_"] (a bracket holds the characters allowed there; every character here is one UTF-16 unit). */
function positions(lit: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < lit.length; i++) {
    const close = lit[i] === '[' ? lit.indexOf(']', i) : -1;
    if (close > i + 1) { out.push(lit.slice(i + 1, close)); i = close; } else out.push(lit[i]!);
  }
  return out;
}

const LITERALS: [sets: number[][], anchor: number, rules: string[]][] = LITERAL_TABLE.map(([lit, at, rules]) => {
  const sets = positions(lit);
  return [sets.map((x) => Array.from(x, (ch) => ch.charCodeAt(0))), typeof at === 'number' ? at : sets.indexOf(at), rules];
});

/** ASCII lower case (what /i folds to without the u flag: nothing beyond ASCII folds onto ASCII). */
const low = (c: number): number => (c >= 65 && c <= 90 ? c + 32 : c);
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);
const isWordish = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c === 95 || c === 45;
/** What /\s/ matches. */
const isSpace = (c: number): boolean => (c >= 9 && c <= 13) || c === 32 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;

/** The anchor characters: ASCII ones (lower case) and the two CJK ones, each with its literals. */
const ANCHORS: number[] = [...new Set([...LITERALS.map(([sets, at]) => sets[at]![0]!), 58, 107, 46])];
const CJK_A = 0x5bc6;
const CJK_B = 0x53e3;
const LITS_OF: [number[][], number, string[]][][] = ANCHORS.map((c) => LITERALS.filter(([sets, at]) => sets[at]![0] === c));
/** ASCII character (either case) → its anchor's number + 1 (0: not an anchor). */
const ANCHOR_OF = new Uint8Array(128);
ANCHORS.forEach((c, k) => { if (c < 128) { ANCHOR_OF[c] = k + 1; if (c >= 97 && c <= 122) ANCHOR_OF[c - 32] = k + 1; } });
/**
 * Per anchor, the (lower-cased ASCII) characters that may stand right before and right after it
 * in some literal or hand test (a literal that starts or ends at its anchor allows any): a quick
 * test that rejects most stops before the literals are compared. Index: anchor * 129 + code, 128 for
 * non-ASCII or the text's edge.
 */
const PREV = new Uint8Array(ANCHORS.length * 129);
const NEXT = new Uint8Array(ANCHORS.length * 129);
ANCHORS.forEach((c, k) => {
  const allow = (t: Uint8Array, codes: number[] | 'any'): void => {
    if (codes === 'any') t.fill(1, k * 129, k * 129 + 129);
    else for (const x of codes) t[k * 129 + (x < 128 ? x : 128)] = 1;
  };
  for (const [sets, at] of LITS_OF[k]!) {
    allow(PREV, at === 0 ? 'any' : sets[at - 1]!);
    allow(NEXT, at === sets.length - 1 ? 'any' : sets[at + 1]!);
  }
  const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, j) => from + j);
  if (c === 58) { allow(PREV, 'any'); allow(NEXT, [47]); } // `://…@`
  if (c === 107) { allow(PREV, [115]); allow(NEXT, [...range(48, 57), ...range(97, 102)]); } // `sk` + hex
  if (c === 46) { allow(PREV, [...range(48, 57), ...range(97, 122), 95, 45]); allow(NEXT, 'any'); } // `[mno]…\.`
});

/**
 * PREFILTER's literals at `i` (anchor number `k`, character `c` lower-cased): each literal and hand
 * test that matches there adds its rules to `found`.
 */
function prefilterAt(text: string, i: number, k: number, c: number, found: Set<string>): void {
  const lits = LITS_OF[k]!;
  for (let l = 0; l < lits.length; l++) {
    const lit = lits[l]!;
    const sets = lit[0];
    const start = i - lit[1];
    if (start < 0 || start + sets.length > text.length) continue;
    let j = 0;
    while (j < sets.length && sets[j]!.includes(low(text.charCodeAt(start + j)))) j++;
    if (j === sets.length) for (const r of lit[2]) found.add(r);
  }
  if (c === 58 && text.charCodeAt(i + 1) === 47 && text.charCodeAt(i + 2) === 47) {
    // `:\/\/[^\s@]*@`
    for (let j = i + 3; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === 64) { found.add(HAND_RULES[c]!); break; }
      if (isSpace(d)) break;
    }
  }
  if (c === 107 && i > 0 && low(text.charCodeAt(i - 1)) === 115 && i + 32 < text.length) {
    // `sk[0-9a-f]{32}`
    let j = 1;
    while (j <= 32 && isHex(low(text.charCodeAt(i + j)))) j++;
    if (j > 32) found.add(HAND_RULES[c]!);
  }
  if (c === 46) {
    // `[mno][a-z0-9_-]{23,25}\.`: a run of word characters before the dot with m, n or o 24 to 26 back
    let r = 0;
    while (r < 26 && i - r - 1 >= 0 && isWordish(low(text.charCodeAt(i - r - 1)))) r++;
    for (let n = 23; n <= 25 && n + 1 <= r; n++) {
      const m = low(text.charCodeAt(i - n - 1));
      if (m === 109 || m === 110 || m === 111) { found.add(HAND_RULES[c]!); break; }
    }
  }
}

const code = (text: string, i: number): number => {
  if (i < 0 || i >= text.length) return 128;
  const c = low(text.charCodeAt(i));
  return c < 128 ? c : 128;
};

const scratch = new Set<string>();
const NONE: ReadonlySet<string> = new Set<string>();

/**
 * The rules whose literal is in the text (case-insensitively): the only ones of SECRET_RULES
 * that can match it, besides the bare AWS key (a scan of its own, run on every text). Empty
 * exactly when PREFILTER does not match. One pass that stops only at the literals' anchor
 * characters, and compares literals only where the characters around the anchor allow one.
 */
export function secretRulesIn(text: string): ReadonlySet<string> {
  scratch.clear();
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    let k: number;
    if (c < 128) {
      k = ANCHOR_OF[c]! - 1;
      if (k < 0) continue;
    } else if (c === CJK_A || c === CJK_B) {
      k = ANCHORS.indexOf(c);
    } else continue;
    if (PREV[k * 129 + code(text, i - 1)] === 1 && NEXT[k * 129 + code(text, i + 1)] === 1) prefilterAt(text, i, k, low(c), scratch);
  }
  return scratch.size ? new Set(scratch) : NONE;
}

/** The literal prefixes of the `prefixed` rules: where a token split in two is looked for. */
const JOIN_PREFIX = /(?:sk-|[sr]k_live_|gh[pousr]_|github_pat_|clh_|AKIA|ASIA|xox[abposre]-|AIza|eyJ|npm_|glpat-|hf_|SK(?=[0-9a-f])|SG\.)/g;
/** A token's first run, one break (spaces, or one line break, or both), its second run. */
const SPLIT = /^([^\s]*?)(?:[ \t]{1,3}\n?|\n)[ \t]*([A-Za-z0-9_.-]+)/;

/** Format characters (zero-width, bidi controls, soft hyphen, BOM) that hide inside a token. */
const FORMAT_CHARS = /[\p{Cf}]/gu;
/** The same set, spelled out (no Unicode property lookup): a cheap test before the replacement. */
const HAS_FORMAT_CHAR = /[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|[\ud804\ud80d\ud82f\ud834\udb40]/;
/**
 * The default-ignorable code points that are not format characters, spelled out (some engines'
 * tables leave the Hangul fillers out of \p{Default_Ignorable_Code_Point}): the combining grapheme
 * joiner U+034F, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the Khmer vowels U+17B4-17B5,
 * the Mongolian and the other variation selectors (U+180B-180F, U+FE00-FE0F, U+E0100-E01EF), and
 * the unassigned ones (U+2065, U+FFF0-FFF8, the rest of U+E0000-E0FFF). They show nothing, so
 * they are read as joiners: removed.
 */
const IGNORABLE = /[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2065\u3164\ufe00-\ufe0f\uffa0\ufff0-\ufff8]|[\udb40-\udb43][\udc00-\udfff]/g;

/**
 * The text as matched: NFKC (full-width letters → ASCII) without format characters and the
 * other default-ignorable code points. Line breaks are kept, so a finding's line is the line in
 * the original text. ASCII text is returned as is.
 */
export function normalizeForScan(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(text)) return text;
  let n = text.normalize('NFKC');
  if (HAS_FORMAT_CHAR.test(n)) n = n.replace(FORMAT_CHARS, '');
  IGNORABLE.lastIndex = 0;
  return IGNORABLE.test(n) ? n.replace(IGNORABLE, '') : n;
}

/**
 * HTML character references for ASCII characters (HTML5 names, read case-insensitively), the
 * ones a token or an assignment may be spelled with.
 */
const ENTITIES: Record<string, string> = {
  lowbar: '_', underbar: '_', hyphen: '-', dash: '-', minus: '-', period: '.', sol: '/', colon: ':', equals: '=', plus: '+', amp: '&', quot: '"', apos: "'",
  lt: '<', gt: '>', commat: '@', num: '#', excl: '!', dollar: '$', percnt: '%', ast: '*', midast: '*', lpar: '(', rpar: ')', comma: ',', semi: ';', quest: '?',
  lsqb: '[', lbrack: '[', rsqb: ']', rbrack: ']', bsol: '\\', hat: '^', grave: '`', lcub: '{', lbrace: '{', rcub: '}', rbrace: '}', verbar: '|', vert: '|', nbsp: ' ', tilde: '~',
};
/** What a decoded escape may not become: a control character or a line break (lines must stay where they are). */
// eslint-disable-next-line no-control-regex
const CONTROL_CHAR = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/;
/** A hex digit's value, or -1. */
const hexValue = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1);
/** ASCII punctuation: what a markdown backslash escapes. */
const isPunct = (c: number): boolean => (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
/** A code point an escape may stand for: not a control character, a line break or a surrogate. */
const decodable = (cp: number): boolean => cp >= 0x20 && cp <= 0x10ffff && !(cp >= 0x7f && cp <= 0x9f) && cp !== 0x2028 && cp !== 0x2029 && !(cp >= 0xd800 && cp <= 0xdfff);

/** A run of URL percent escapes decoded (as UTF-8; an invalid run: its ASCII escapes only). */
function decodePercent(run: string): string {
  try {
    return decodeURIComponent(run);
  } catch {
    return run.replace(/%([2-7][0-9A-Fa-f])/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
}

/** An HTML character reference's name or number (t[from..semi), between "&" and ";") decoded, or undefined. */
function decodeReference(t: string, from: number, semi: number): string | undefined {
  if (t.charCodeAt(from) === 35) {
    const hex = (t.charCodeAt(from + 1) | 32) === 120;
    let cp = 0;
    let j = from + (hex ? 2 : 1);
    if (j === semi || semi - j > (hex ? 6 : 7)) return undefined;
    for (; j < semi; j++) {
      const c = t.charCodeAt(j);
      const v = hex ? hexValue(c) : c >= 48 && c <= 57 ? c - 48 : -1;
      if (v < 0) return undefined;
      cp = cp * (hex ? 16 : 10) + v;
    }
    return decodable(cp) ? String.fromCodePoint(cp) : undefined;
  }
  const name = t.slice(from, semi);
  return /^[A-Za-z]{2,8}$/.test(name) ? ENTITIES[name.toLowerCase()] : undefined;
}

/**
 * One pass of decoding: a markdown backslash escape (`\` and ASCII punctuation), a run of URL
 * percent escapes, an HTML character reference (`&#95;`, `&#x5f;`, `&lowbar;`). An escape that
 * stands for nothing known, or for a control character or a line break, stays as written.
 */
function decodeOnce(t: string): string {
  // the decoded text is written code unit by code unit (a text dense with escapes would otherwise
  // be built from as many small strings)
  let out: Uint16Array | undefined;
  let w = 0;
  let from = 0;
  const n = t.length;
  for (let i = 0; i < n; i++) {
    const c = t.charCodeAt(i);
    if (c !== 92 && c !== 37 && c !== 38) continue;
    let end = -1;
    let dec: string | undefined;
    if (c === 92) {
      if (isPunct(t.charCodeAt(i + 1))) { end = i + 2; dec = t[i + 1]; }
    } else if (c === 37) {
      let j = i;
      while (j + 2 < n && t.charCodeAt(j) === 37 && hexValue(t.charCodeAt(j + 1)) >= 0 && hexValue(t.charCodeAt(j + 2)) >= 0) j += 3;
      if (j === i + 3) {
        const cp = hexValue(t.charCodeAt(i + 1)) * 16 + hexValue(t.charCodeAt(i + 2));
        if (cp < 0x80 && decodable(cp)) { end = j; dec = String.fromCharCode(cp); }
      } else if (j > i) {
        dec = decodePercent(t.slice(i, j));
        if (!CONTROL_CHAR.test(dec)) end = j;
      }
      if (end < 0) { i = Math.max(i, j - 1); continue; }
    } else {
      let semi = i + 2;
      while (semi < n && semi <= i + 10 && t.charCodeAt(semi) !== 59) semi++;
      if (semi < n && t.charCodeAt(semi) === 59) { end = semi + 1; dec = decodeReference(t, i + 1, semi); }
    }
    if (end < 0 || dec === undefined) continue;
    out ??= new Uint16Array(n);
    for (let k = from; k < i; k++) out[w++] = t.charCodeAt(k);
    for (let k = 0; k < dec.length; k++) out[w++] = dec.charCodeAt(k);
    from = end;
    i = end - 1;
  }
  if (!out) return t;
  for (let k = from; k < n; k++) out[w++] = t.charCodeAt(k);
  let s = '';
  for (let k = 0; k < w; k += 8192) s += String.fromCharCode(...out.subarray(k, Math.min(w, k + 8192)));
  return s;
}

/** The text with its escapes decoded (twice escaped ones too), or undefined when it holds none. */
export function decodeEscapes(text: string): string | undefined {
  // most text holds none of the three
  if (!text.includes('\\') && !text.includes('%') && !text.includes('&')) return undefined;
  let cur = text;
  for (let round = 0; round < 3; round++) {
    const next = decodeOnce(cur);
    if (next === cur) break;
    cur = next;
  }
  return cur === text ? undefined : cur;
}

const prefixedRules = (): { rule: SecretRule; re: RegExp }[] =>
  SECRET_RULES.flatMap((rule) => (rule.prefixed ? [{ rule, re: new RegExp('^(?:' + rule.re.source.replace(/^\\b/, '') + ')', rule.re.flags.replace('g', '')) }] : []));
let joined: { rule: SecretRule; re: RegExp }[] | undefined;

/**
 * The 1-based line of an index of `text`: the line breaks before it are counted once, on the first
 * call, then looked up (a text with a finding at every token no longer counts them again each time).
 */
function lineFinder(text: string): (index: number) => number {
  let breaks: number[] | undefined;
  return (index) => {
    if (!breaks) { breaks = []; for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) breaks.push(i); }
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (breaks[mid]! < index) lo = mid + 1; else hi = mid; }
    return lo + 1;
  };
}

/** The rules found by a scan of their own (run over every text, literal or not). */
const FIND_RULES = SECRET_RULES.filter((r) => r.find);

/** SECRET_RULES' regular expressions with the g flag, each made on first use. */
const compiled: (RegExp | undefined)[] = [];
const globalRe = (i: number): RegExp => {
  const r = SECRET_RULES[i]!.re;
  return (compiled[i] ??= nativeFirst(new RegExp(r.source, r.flags.includes('g') ? r.flags : r.flags + 'g')));
};

/**
 * How a token may be cut into groups, each a piece and a cut: first with "-" as a cut (a token
 * whose characters hold none: ghp_, AKIA…), then with "-" inside the pieces and only spaces and
 * line breaks as cuts (sk-, xoxb-, glpat-: their "-" is their own). A cut of spaces: 1 to 3
 * spaces or tabs (and a line break), or a line break and indentation. A "." is a character of a
 * piece (SG.…, eyJ….…); one that ends the last piece may be the sentence's (cutReadings).
 */
const PIECINGS: [piece: RegExp, cut: RegExp][] = [
  [/[A-Za-z0-9_.]+/y, /-|[ \t]{1,3}(?:\n[ \t]*)?|\n[ \t]*/y],
  [/[A-Za-z0-9_.-]+/y, /[ \t]{1,3}(?:\n[ \t]*)?|\n[ \t]*/y],
];

/** A run of a token cut at random places: 4 or more characters, machine-made. */
const randomRun = (x: string): boolean => x.length >= 4 && machineLike(x);

/**
 * The pieces of a token cut into groups that starts at `from` (right after its prefix): the run
 * there (maybe empty: "ghp_ ABCD …"), then each run after one cut, at most 32, and no further than
 * a reading as groups (cutReadings) can go: past the second run, each must be as long as the
 * first after the prefix, or every run so far machine-made; the run that breaks both is the last.
 */
function tokenPieces(text: string, from: number, [piece, cut]: [RegExp, RegExp]): string[] {
  piece.lastIndex = from;
  const first = piece.exec(text);
  const out = [first ? first[0] : ''];
  let i = first ? piece.lastIndex : from;
  let groups = true;
  let random = true;
  while (out.length < 32 && (groups || random)) {
    cut.lastIndex = i;
    if (!cut.exec(text)) break;
    piece.lastIndex = cut.lastIndex;
    const r = piece.exec(text);
    if (!r) break;
    out.push(r[0]);
    i = piece.lastIndex;
    if (out.length > 2 && r[0].length !== out[1]!.length) groups = false;
    if (random && !randomRun(r[0])) random = false;
  }
  return out;
}

/**
 * The readings of a token cut into groups, pieces 0..k joined, longest first, at most three (a token
 * of fixed length may need the last piece or two left off). A reading's joined value is
 * machine-made, and either one cut parts two runs, the second machine-made ("ghp_abc…-def…"), or
 * the runs between the first and the last are groups of one length (2 to 12) with the last no
 * longer ("ghp_ ABCD EFGH …"), or every run after the first is machine-made. Prose after a prefix
 * ("ghp_ marks GitHub tokens") is none of these.
 */
function cutReadings(p: string[]): number[] {
  const n = p.length - 1;
  const out: number[] = [];
  if (n < 1) return out;
  const len = p[1]!.length;
  let same = 1; // p[2..same] as long as p[1]
  while (same < n && p[same + 1]!.length === len) same++;
  let random = 0; // p[1..random] machine-made runs
  while (random < n && randomRun(p[random + 1]!)) random++;
  for (let k = n, tries = 0; k >= 1 && tries < 3; k--) {
    const last = p[k]!.length - (p[k]!.endsWith('.') ? 1 : 0); // "WXYZ." at a sentence's end
    const shape = k === 1 ? random >= 1 : (len >= 2 && len <= 12 && k - 1 <= same && last <= len) || k <= random;
    if (!shape) continue;
    tries++;
    // machine-made holds for a longer value when it holds for a shorter one: the first miss ends it
    if (!machineLike(p.slice(0, k + 1).join(''))) break;
    out.push(k);
  }
  return out;
}

/** The prefixed rules each literal of JOIN_PREFIX starts: a token cut into groups is matched against these only. */
const JOIN_RULES: [prefix: RegExp, rules: string[]][] = [
  [/^sk-$/, ['anthropic-key', 'openai-key']], [/^[sr]k_live_$/, ['stripe-key']], [/^gh[pousr]_$/, ['github-token']], [/^github_pat_$/, ['github-pat']],
  [/^clh_$/, ['clawhub-token']], [/^A[KS]IA$/, ['aws-access-key-id']], [/^xox[abposre]-$/, ['slack-token']], [/^AIza$/, ['google-api-key']],
  [/^eyJ$/, ['jwt']], [/^npm_$/, ['npm-token']], [/^glpat-$/, ['gitlab-token']], [/^hf_$/, ['huggingface-token']], [/^SK$/, ['twilio-key']], [/^SG\.$/, ['sendgrid-key']],
];
const joinRulesOf = new Map<string, { rule: SecretRule; re: RegExp }[]>();
/** The prefixed rules (joined) a literal of JOIN_PREFIX starts; all of them for a literal the table lacks. */
function rulesOfPrefix(prefix: string, all: { rule: SecretRule; re: RegExp }[]): { rule: SecretRule; re: RegExp }[] {
  let out = joinRulesOf.get(prefix);
  if (!out) {
    const ids = JOIN_RULES.find(([re]) => re.test(prefix))?.[1];
    out = ids ? all.filter(({ rule }) => ids.includes(rule.id)) : all;
    joinRulesOf.set(prefix, out);
  }
  return out;
}

/**
 * The credentials in `input`. Each rule runs only over a text that holds one of its literals
 * (secretRulesIn); `gate: false` runs every rule, the definition the gated scan is tested against.
 * A text holding escapes (`\_`, `%5F`, `&#95;`) is also read decoded: a finding there counts
 * unless the same rule already found one on that line.
 */
export function scanSecrets(input: string, gate = true): SecretFinding[] {
  const text = normalizeForScan(input);
  const out = scanView(text, gate);
  const decoded = decodeEscapes(text);
  if (decoded === undefined) return out;
  for (const f of scanView(normalizeForScan(decoded), gate)) if (!out.some((o) => o.line === f.line && o.rule === f.rule)) out.push(f);
  return out.sort((a, b) => a.line - b.line);
}

/** The credentials in a normalized text. */
function scanView(text: string, gate: boolean): SecretFinding[] {
  const out: SecretFinding[] = [];
  const rules = gate ? secretRulesIn(text) : undefined;
  const any = rules === undefined || rules.size > 0;
  // most text holds no literal: then only the rules with a scan of their own can match
  if (!any && !FIND_RULES.some((r) => r.find!(text).length > 0)) return out;
  const seen = new Set<string>();
  const lineOf = lineFinder(text);
  const push = (rule: SecretRule, line: number, value: string): void => {
    const masked = mask(value, rule.prefixed === true);
    const k = `${line}\0${masked}`;
    if (seen.has(k)) return;
    seen.add(k);
    out.push({ rule: rule.id, description: rule.description, line, masked });
  };
  for (let i = 0; i < SECRET_RULES.length; i++) {
    const rule = SECRET_RULES[i]!;
    if (!rule.find && rules !== undefined && !rules.has(rule.id)) continue;
    if (rule.needs !== undefined && !text.includes(rule.needs)) continue;
    for (const m of rule.find ? rule.find(text) : text.matchAll(globalRe(i))) {
      const value = m[rule.group ?? 0] ?? m[0];
      if (rule.group && PLACEHOLDER.test(value)) continue;
      if (rule.valueLooksSecret && !valueIsSecretLike(value, m[rule.group! - 1] ?? '=')) continue;
      if (rule.check && !rule.check(value, m, text)) continue;
      push(rule, lineOf(m.index ?? 0), value);
    }
  }
  // A prefixed token split by one space or line break: join its two runs when the second looks
  // machine-made ("ghp_ marks GitHub tokens" stays prose), and match the prefixed rules again.
  if (any) for (const p of text.matchAll(JOIN_PREFIX)) {
    const at = p.index ?? 0;
    if (at > 0 && /[A-Za-z0-9_]/.test(text[at - 1]!)) continue;
    joined ??= prefixedRules();
    // only the rules this prefix starts can match a token that starts with it
    const candidates = rulesOfPrefix(p[0], joined);
    const raw = text.slice(at, at + 400);
    let found = false;
    const s = SPLIT.exec(raw);
    if (s && machineLike(s[2]!) && s[2]!.length >= 4) {
      const whole = s[1]! + s[2]!;
      for (const { rule, re } of candidates) {
        const m = re.exec(whole);
        if (!m || m[0].length <= s[1]!.length) continue;
        if (re.test(s[1]!)) continue; // the first run alone is already a finding
        push(rule, lineOf(at), m[0]);
        found = true;
      }
    }
    // the token as written is already a finding
    if (found || candidates.some(({ re }) => re.test(raw))) continue;
    // A token cut into groups by "-", spaces or line breaks ("ghp_abc…-def…", "ghp_ ABCD EFGH …"):
    // the longest run of pieces that reads as one token and makes a match the text as written does not.
    for (const piecing of PIECINGS) {
      const pieces = tokenPieces(raw, p[0].length, piecing);
      for (const k of cutReadings(pieces)) {
        if (found) break;
        const whole = p[0] + pieces.slice(0, k + 1).join('');
        for (const { rule, re } of candidates) {
          const m = re.exec(whole);
          if (!m || m[0].length <= p[0].length + pieces[0]!.length) continue;
          push(rule, lineOf(at), m[0]);
          found = true;
          break;
        }
      }
      if (found) break;
    }
  }
  return out.sort((a, b) => a.line - b.line);
}

/** Replace every credential in `text` by its mask: for messages that quote what they were given. */
export function redactSecrets(text: string): string {
  if (!scanSecrets(text).length) return text;
  // a private key is masked from its BEGIN line to its END line (or the end of the text)
  const block = new RegExp(PRIVATE_KEY_HEADER.source + '[\\s\\S]*?(?:-{3,}[ \\t]*END[^\\n]*?-{3,}|$)', 'gi');
  let out = normalizeForScan(text).replace(block, (m) => mask(m, true));
  for (let i = 0; i < SECRET_RULES.length; i++) {
    const rule = SECRET_RULES[i]!;
    out = out.replace(globalRe(i), (...a: unknown[]) => {
      const m0 = a[0] as string;
      const value = rule.group ? (a[rule.group] as string | undefined) ?? m0 : m0;
      return m0.replace(value, mask(value, rule.prefixed === true));
    });
  }
  // whatever is left (a split token) is cut: never quote a line that still scans as a secret,
  // alone or as the line where a token cut across lines starts
  const left = new Set(scanSecrets(out).map((f) => f.line));
  return out.split('\n').map((l, i) => (left.has(i + 1) || scanSecrets(l).length ? `${l.slice(0, 8)}…(${l.length} chars not shown)` : l)).join('\n');
}

/**
 * A value quoted back in a message: cut to `max` characters, control and bidi characters shown
 * as escapes, and never a credential (then only which kind it looks like).
 */
export function quoteInput(value: string, max = 40): string {
  const found = scanSecrets(value);
  if (found.length) return `(a value that looks like a ${found[0]!.description}, not shown)`;
  // eslint-disable-next-line no-control-regex
  const shown = value.replace(/[\u0000-\u001f\u007f-\u009f\p{Cf}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return shown.length > max ? `${shown.slice(0, max)}…(${value.length} chars)` : shown;
}

/** Throw (without echoing the secret) when `text` holds a credential. */
export function assertNoSecrets(text: string, file: string, lineOffset = 0): void {
  const found = scanSecrets(text);
  if (found.length === 0) return;
  const f = found[0]!;
  throw new MemtierError(`refused: looks like a ${f.description} (${f.masked})${found.length > 1 ? ` and ${found.length - 1} more` : ''}`, {
    code: 'secret',
    rule: f.rule,
    file,
    line: f.line + lineOffset,
    hint: 'never store credentials in memory; keep them in a secret manager and write where to find them instead',
  });
}
