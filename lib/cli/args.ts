/**
 * Parse argv against a command's flag table (node:util parseArgs underneath)
 * and render --help from the same table.
 */
import { parseArgs } from 'node:util';
import { UsageError } from '../core/errors.js';
import { quoteInput } from '../store/guards/secrets.js';
import type { Args, CommandSpec, FlagSpec, FlagValue } from './spec.js';

export const GLOBAL_FLAGS: FlagSpec[] = [
  { name: 'root', type: 'string', value: 'DIR', description: 'memory root (default: $MEMTIER_ROOT, $OPENCLAW_WORKSPACE, nearest folder with MEMORY.md, ~/.openclaw/workspace)' },
  { name: 'now', type: 'string', value: 'TIME', description: 'pretend the time is TIME (ISO-8601 date or date-time, a real date from 1970 to 9999; default $MEMTIER_NOW or the clock)' },
  { name: 'json', type: 'boolean', description: 'print the result as JSON on stdout' },
  { name: 'quiet', type: 'boolean', short: 'q', description: 'print only failures and essentials' },
  { name: 'help', type: 'boolean', short: 'h', description: 'show help' },
];

/** Global flags that take a value: `memtier --root DIR search …` names the command after DIR. */
const VALUE_FLAGS = new Set(GLOBAL_FLAGS.filter((f) => f.type !== 'boolean').map((f) => `--${f.name}`));

/**
 * Index of the command name in argv: the first word that is neither a flag nor a global flag's
 * value (-1 when none). main() runs the command found here, and `memtier watch` serves a request
 * only when the command found here is one it serves; bin/memtier.js applies the same rule.
 */
export function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) return i;
    if (VALUE_FLAGS.has(a)) i++; // skip its value (`--root=DIR` needs no skip)
  }
  return -1;
}

/** A negative number (`-1`, `-0.5`, `-.5`): the value of the flag before it, never a flag of its own. */
const NEGATIVE_NUMBER = /^-(?:\d|\.\d)/;

/**
 * `--k -1` as `--k=-1`: parseArgs takes a value starting with "-" only in that form (it calls the
 * other "ambiguous"), and no flag of memtier's is a digit, so a negative number after a flag that
 * takes a value is that value (then refused or taken by the flag's own rule, with a clear message).
 */
function joinNegativeValues(argv: string[], all: FlagSpec[]): string[] {
  const valued = new Map<string, string>();
  for (const f of all) {
    if (f.type === 'boolean') continue;
    valued.set(`--${f.name}`, f.name);
    if (f.short) valued.set(`-${f.short}`, f.name);
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') { out.push(...argv.slice(i)); break; }
    const name = valued.get(a);
    const next = argv[i + 1];
    if (name !== undefined && next !== undefined && NEGATIVE_NUMBER.test(next)) { out.push(`--${name}=${next}`); i++; continue; }
    out.push(a);
  }
  return out;
}

/** What a number flag takes, for its refusal: "a positive whole number", "a number, 0 or more". */
function numberRule(f: FlagSpec): string {
  const min = f.min ?? 0;
  if (f.integer) return min === 1 ? 'a positive whole number' : min === 0 ? 'a whole number, 0 or more' : `a whole number, ${min} or more`;
  return min === 0 ? 'a number, 0 or more' : `a number, ${min} or more`;
}

export function parseCommandArgs(spec: Pick<CommandSpec, 'name' | 'flags' | 'neverFails'>, argv: string[]): Args & { global: Record<string, FlagValue>; ignored?: string[] } {
  const all = [...GLOBAL_FLAGS, ...spec.flags];
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const f of all) {
    const o: { type: 'string' | 'boolean'; short?: string; multiple?: boolean } = { type: f.type === 'boolean' ? 'boolean' : 'string' };
    if (f.short) o.short = f.short;
    if (f.multiple && f.type === 'string') o.multiple = true;
    options[f.name] = o;
  }
  let parsed;
  try {
    // a host's hook (neverFails) takes flags a newer memtier's templates may pass: an unknown one
    // is ignored and named, never a reason for the hook to do nothing
    parsed = parseArgs({ args: joinNegativeValues(argv, all), options, allowPositionals: true, strict: !spec.neverFails });
  } catch (e) {
    const raw = (e as Error).message;
    // a flag without its value ("--k" last, or "--type -x"): said plainly, node's own wording
    // (three lines, quoting the argument) is not passed on
    const valueless = /^Option '(-[^' ]+)(?: <value>)?' argument (missing|is ambiguous)/.exec(raw);
    if (valueless) {
      const f = all.find((x) => `--${x.name}` === valueless[1] || `-${x.short}` === valueless[1]);
      const flag = f ? `--${f.name}` : quoteInput(valueless[1]!);
      throw new UsageError(
        `${spec.name}: ${flag} needs a value${valueless[2] === 'missing' ? '' : ' (the argument after it starts with "-")'}`,
        `give it after the flag: ${flag} ${f?.value ?? 'VALUE'}; a value that starts with "-" is written ${flag}=-VALUE (see "memtier ${spec.name} --help")`,
      );
    }
    // parseArgs quotes the offending argument: never echo a credential, nor 10 MB of it
    const msg = raw.replace(/\. To specify a positional.*$/s, '').replace(/'([\s\S]*)'/, (_m, v: string) => `'${quoteInput(v)}'`);
    throw new UsageError(`${spec.name}: ${msg}`, `see "memtier ${spec.name} --help"`);
  }
  const flags: Record<string, FlagValue> = {};
  const global: Record<string, FlagValue> = {};
  for (const f of all) {
    const raw = (parsed.values as Record<string, string | boolean | string[] | undefined>)[f.name];
    let v: FlagValue = raw; // a `multiple` string flag: the list of its values, in order
    if (raw === undefined) v = f.default as FlagValue;
    else if (f.type === 'number') {
      const n = Number(raw);
      if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(n)) {
        throw new UsageError(`${spec.name}: --${f.name} expects a number, got "${quoteInput(String(raw))}"`, `for example --${f.name} ${f.default ?? 10}`);
      }
      if (n < (f.min ?? 0) || (f.integer && !Number.isInteger(n))) {
        throw new UsageError(`${spec.name}: --${f.name} takes ${numberRule(f)}, got ${quoteInput(String(raw).trim())}`, `for example --${f.name} ${f.default ?? Math.max(1, f.min ?? 0)}`);
      }
      v = n;
    } else if (f.type === 'list') {
      v = String(raw).split(',').map((s) => s.trim()).filter(Boolean);
    }
    if (f.choices && typeof v === 'string' && !f.choices.includes(v)) {
      throw new UsageError(`${spec.name}: --${f.name} must be one of ${f.choices.join(', ')}, got "${quoteInput(v)}"`);
    }
    if (GLOBAL_FLAGS.includes(f)) global[f.name] = v;
    else flags[f.name] = v;
  }
  const known = new Set(all.flatMap((f) => [f.name, ...(f.short ? [f.short] : [])]));
  const ignored = Object.keys(parsed.values).filter((k) => !known.has(k)).map((k) => (k.length === 1 ? `-${k}` : `--${k}`));
  return { flags, positionals: parsed.positionals, json: global.json === true, quiet: global.quiet === true, global, ...(ignored.length ? { ignored } : {}) };
}

function flagLine(f: FlagSpec): [string, string] {
  const left = `${f.short ? `-${f.short}, ` : '    '}--${f.name}${f.type === 'boolean' ? '' : ` ${f.value ?? (f.type === 'number' ? 'N' : f.type === 'list' ? 'A,B' : 'VALUE')}`}`;
  let right = f.description;
  if (f.choices) right += ` (${f.choices.join('|')})`;
  if (f.default !== undefined && f.default !== false) right += ` [default: ${String(f.default)}]`;
  return [left, right];
}

function table(rows: [string, string][], indent = '  '): string {
  const w = Math.min(30, Math.max(...rows.map(([l]) => l.length)));
  return rows.map(([l, r]) => (l.length > w ? `${indent}${l}\n${indent}${' '.repeat(w + 2)}${r}` : `${indent}${l.padEnd(w)}  ${r}`)).join('\n');
}

export function renderCommandHelp(spec: CommandSpec): string {
  const parts: string[] = [];
  parts.push(`memtier ${spec.name} — ${spec.summary}`);
  parts.push('Usage:\n' + spec.usage.map((u) => `  memtier ${u}`).join('\n'));
  if (spec.description) parts.push(spec.description.trim());
  if (spec.subcommands) parts.push('Subcommands:\n' + table(Object.entries(spec.subcommands)));
  if (spec.flags.length) parts.push('Options:\n' + table(spec.flags.map(flagLine)));
  parts.push('Global options:\n' + table(GLOBAL_FLAGS.map(flagLine)));
  if (spec.examples?.length) parts.push('Examples:\n' + spec.examples.map((e) => `  ${e}`).join('\n'));
  parts.push('Exit codes: 0 ok, 1 findings, 2 usage error or failure.');
  return parts.join('\n\n') + '\n';
}

export function renderMainHelp(version: string, commands: { name: string; summary: string; group: string }[]): string {
  const groups = new Map<string, [string, string][]>();
  for (const c of commands) {
    if (!groups.has(c.group)) groups.set(c.group, []);
    groups.get(c.group)!.push([c.name, c.summary]);
  }
  const parts = [
    `memtier ${version} — long-term memory for AI agents, in plain markdown files`,
    'Usage:\n  memtier <command> [options]\n  memtier <command> --help',
  ];
  for (const [g, rows] of groups) parts.push(`${g}:\n${table(rows)}`);
  parts.push('Global options:\n' + table(GLOBAL_FLAGS.map(flagLine)));
  parts.push('Environment: MEMTIER_ROOT, MEMTIER_NOW, MEMTIER_TZ, OPENCLAW_WORKSPACE, OPENCLAW_SESSION_ID.');
  parts.push('Exit codes: 0 ok, 1 findings (health, verify, review), 2 usage error or failure.');
  return parts.join('\n\n') + '\n';
}
