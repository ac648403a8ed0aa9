/**
 * Secret refusal: credentials never reach a memory file. The table is ours (secretlint's
 * recommended preset misses several of these) and each rule is tested against a positive
 * sample and a benign corpus (git SHAs, UUIDs, hashes, ordinary notes).
 */
import { MemtierError } from '../../core/errors.js';

export interface SecretRule {
  id: string;
  description: string;
  re: RegExp;
  /** Which capture group holds the secret value to mask (default: whole match). */
  group?: number;
  /** The value (group) must pass valueIsSecretLike; group - 1 holds the separator. */
  valueLooksSecret?: boolean;
}

export const SECRET_RULES: SecretRule[] = [
  { id: 'anthropic-key', description: 'Anthropic API key', re: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  // The value must hold a digit: keeps kebab-case words such as "sk-learn-model-selection-notes" out.
  { id: 'openai-key', description: 'OpenAI API key', re: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}/ },
  { id: 'github-token', description: 'GitHub token', re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/ },
  { id: 'github-pat', description: 'GitHub fine-grained token', re: /\bgithub_pat_[A-Za-z0-9_]{30,}/ },
  { id: 'clawhub-token', description: 'ClawHub token', re: /\bclh_(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{16,}/ },
  { id: 'aws-access-key-id', description: 'AWS access key id', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  {
    id: 'aws-secret-key',
    description: 'AWS secret access key',
    re: /(?<![A-Za-z0-9])(?:aws_?)?secret_?access_?key\b["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/i,
    group: 1,
  },
  { id: 'slack-token', description: 'Slack token', re: /\bxox[abposre]-[A-Za-z0-9-]{10,}/ },
  { id: 'slack-webhook', description: 'Slack webhook URL', re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/]{20,}/ },
  { id: 'google-api-key', description: 'Google API key', re: /\bAIza[0-9A-Za-z_-]{35}/ },
  { id: 'stripe-key', description: 'Stripe live key', re: /\b(?:sk|rk)_live_[0-9A-Za-z]{16,}/ },
  { id: 'jwt', description: 'JSON Web Token', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { id: 'npm-token', description: 'npm token', re: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { id: 'gitlab-token', description: 'GitLab token', re: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { id: 'huggingface-token', description: 'Hugging Face token', re: /\bhf_[A-Za-z0-9]{30,}/ },
  { id: 'private-key', description: 'private key block', re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { id: 'url-credentials', description: 'credentials in a URL', re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:([^\s@/]{3,})@[^\s]+/i, group: 1 },
  {
    id: 'password-assignment',
    description: 'password, secret, token or API key assignment',
    // Also DB_PASSWORD=…, GITHUB_TOKEN=… (an "_" may precede the name); "max_tokens=…" does not match.
    re: /(?<![A-Za-z0-9])(?:password|passwd|pwd|secret|secret_?key|client_?secret|api_?secret|token|access_?token|auth_?token|refresh_?token|api_?key|apikey|private_?key)["']?\s*([:=])\s*["']?([^\s"',;]{4,})/i,
    group: 2,
    valueLooksSecret: true,
  },
];

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
  if (sep === '=') return value.length >= 4;
  return value.length >= 6 && /[^A-Za-z]/.test(value) && !/^[A-Za-z]+[.!?]$/.test(value);
}

export interface SecretFinding {
  rule: string;
  description: string;
  /** 1-based line of the match in the scanned text. */
  line: number;
  /** The value with all but its first 4 characters masked. Never the secret itself. */
  masked: string;
}

/** Mask a secret: keep at most 4 leading characters, then `****` and the length. */
export function mask(value: string): string {
  const keep = value.length > 12 ? 4 : Math.min(2, value.length);
  return `${value.slice(0, keep)}****(${value.length} chars)`;
}

/**
 * A cheap first pass: a case-insensitive superset of every rule's literal part. Ordinary text
 * matches none of it and skips the rule regexes (each costs a compile on first use in a cold
 * process). Keep it in step with SECRET_RULES: the per-rule tests fail if a rule is not covered.
 */
const PREFILTER = /sk-|[sr]k_live_|gh[pousr]_|github_pat_|clh_|akia|asia|xox|hooks\.slack|aiza|eyj|npm_|glpat-|hf_|private key|:\/\/[^\s@]*@|pass|pwd|secret|token|api_?key|apikey|private_?key/i;

let compiled: RegExp[] | undefined;

export function scanSecrets(text: string): SecretFinding[] {
  const out: SecretFinding[] = [];
  if (!PREFILTER.test(text)) return out;
  compiled ??= SECRET_RULES.map((r) => new RegExp(r.re.source, r.re.flags.includes('g') ? r.re.flags : r.re.flags + 'g'));
  for (let i = 0; i < SECRET_RULES.length; i++) {
    const rule = SECRET_RULES[i]!;
    const re = compiled[i]!;
    for (const m of text.matchAll(re)) {
      const value = m[rule.group ?? 0] ?? m[0];
      if (rule.group && PLACEHOLDER.test(value)) continue;
      if (rule.valueLooksSecret && !valueIsSecretLike(value, m[rule.group! - 1] ?? '=')) continue;
      const line = text.slice(0, m.index).split('\n').length;
      out.push({ rule: rule.id, description: rule.description, line, masked: mask(value) });
    }
  }
  return out.sort((a, b) => a.line - b.line);
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
