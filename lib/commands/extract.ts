/**
 * `memtier extract`: typed memories proposed from conversation text by keyword rules (seed 002's
 * auto mode, English and Chinese, no model call); `--apply` writes them through selective capture.
 */
import type { Args, CommandResult, CommandSpec, Io } from '../cli/spec.js';
import { flagBool, flagList, flagString } from '../cli/spec.js';
import { readInputFile, readMessages, readStdin } from '../cli/stdin.js';
import type { Ctx } from '../core/context.js';
import { MemtierError, UsageError } from '../core/errors.js';
import type { Captured } from '../capture/capture.js';
import { extract, type Message, type Skip } from '../capture/extract.js';
import { tagsFile } from '../format/layout.js';
import { parseVocabulary } from '../health/vocabulary.js';
import { readMemoryFile } from '../store/store.js';

const where = (p: { message: number; sentence: number }, many: boolean): string => (many ? `message ${p.message + 1}, sentence ${p.sentence + 1}` : `sentence ${p.sentence + 1}`);

function skipLine(s: Skip, many: boolean): string {
  const at = where(s, many);
  if (s.reason === 'private') return `  left out (${at}): asked not to be kept`;
  if (s.reason === 'secret') return `  left out (${at}): a credential (${s.rule})`;
  return `  skipped (${at}, ${s.reason}): ${s.text}`;
}

/** Each entry a captured one contradicts is superseded by it (kept, struck through, linked). */
async function supersedeContradicted(ctx: Ctx, results: Captured[]): Promise<string[]> {
  const superseded: string[] = [];
  for (const p of results) {
    if (!p.contradicts || !p.added) continue;
    const { supersedeEntry } = await import('../lifecycle/entries.js');
    const ref = p.contradicts.id ? `^${p.contradicts.id}` : `${p.contradicts.path}:${p.contradicts.line}`;
    try {
      superseded.push(supersedeEntry(ctx, ref, { by: `^${p.added.id}` }).message);
    } catch (e) {
      ctx.log.warn(`the new entry ^${p.added.id} is written, but ${ref} could not be marked superseded: ${(e as Error).message}`);
    }
  }
  return superseded;
}

async function validateFile(ctx: Ctx, file: string, vocabulary: Set<string> | undefined, apply: boolean, quiet: boolean): Promise<CommandResult> {
  let raw: unknown;
  try { raw = JSON.parse(readInputFile(ctx.cwd, file, '--validate')); } catch (e) {
    if (e instanceof MemtierError) throw e;
    throw new MemtierError(`cannot read --validate ${file}: ${(e as Error).message}`, { code: 'usage', file, hint: 'a JSON list of {type, text, tags?, source?} items (templates/extract.md)', cause: e });
  }
  const { validateItems } = await import('../capture/validate.js');
  const v = validateItems(raw, { now: ctx.clock.now(), tz: ctx.clock.tz, vocabulary, vocabularyFile: tagsFile(ctx.root) });
  if (v.errors.length) {
    throw new MemtierError(`${v.errors.length} of the items in ${file} ${v.errors.length === 1 ? 'is' : 'are'} refused; nothing written: ${v.errors.map((e) => `item ${e.item}: ${e.message} [${e.rule}]`).join('; ')}`, { code: 'invalid', file, rule: v.errors[0]!.rule, hint: 'fix or drop the refused items and run again (templates/extract.md says what is kept)' });
  }
  const results: Captured[] = apply ? await (await import('../capture/capture.js')).capture(ctx, v.proposals) : v.proposals;
  const superseded = await supersedeContradicted(ctx, results);
  const lines = results.map((p) => `item ${p.message + 1}: [${p.type}] ${p.text}${p.tags.length ? ` ${p.tags.map((t) => `#${t}`).join(' ')}` : ''} ${p.added ? `added ^${p.added.id} to ${p.added.path}:${p.added.line}` : p.duplicateOf ? `already in memory (${p.duplicateOf}): refreshed` : 'valid'}`);
  if (!apply) lines.push(`${results.length} valid item${results.length === 1 ? '' : 's'} (nothing written: --apply writes them)`);
  const added = results.filter((p) => p.added).length;
  lines.push(...superseded);
  return { text: quiet ? '' : lines.join('\n'), json: { ok: true, applied: apply, proposals: results, ...(superseded.length ? { superseded } : {}) }, ...(added ? { commitSummary: `extract --validate: ${added} entr${added === 1 ? 'y' : 'ies'} captured` } : {}) };
}

export const command: CommandSpec = {
  name: 'extract',
  summary: 'propose typed memories from conversation text (keyword rules, English and Chinese); --apply writes them',
  usage: ['extract [--auto] TEXT [--apply] [--explain]', 'extract --file F [--apply]', 'extract --messages F|- [--roles user,assistant] [--apply]', 'extract --validate F [--apply]'],
  description: `Finds preferences, standing instructions and rules of answer style (PREF), decisions (DECISION), lessons and
corrections (LESSON), deadlines and dated events (EVENT), people, their roles and what a named person prefers (PEOPLE), tools, versions,
hosts and ports (TECH), blockers and "remember that…" (PROJ), and a fact changed to a new value
("改到周日下午", "改成 30 天", "moved to Sunday", "bumped to 30 days"), in English and Chinese, by keyword
rules (lib/capture/rules.ts): "I prefer", "let's go with", "we decided", "from now on", "never
again", "answer briefly", "不要用", "以后", "决定", "下周五之前", "负责", "先给结论", …. Each proposal has its type, its text with
relative dates made absolute ("next Friday (2026-05-22)"), tags from TAGS.md only, its
canonical home and the rule that fired. Relative dates are read against the clock: for a note
written on another day, give --now that day (review and consolidate do so for the notes they read).

Never proposed: credentials; speculation (might, maybe, 可能, 也许); questions; greetings, thanks and
chatter; sentences under 10 characters (a CJK character counts two); typed sentences of low
importance (type, numbers, names, length, "remember": below 0.45); and anything the text asks
not to keep ("don't remember this", "off the record", "别记", "不用记") together with the sentence
after it. What is left out for privacy is reported by position only, never echoed.

--apply writes the proposals through selective capture: one that says what a live entry of the
same type already says (similarity ≥ 0.85) refreshes that entry instead of adding a line; one that
contradicts a live entry (the same thing with another value, "port 8080" → "port 8081", or the
opposite, "deploys on Fridays" → "never deploy on Fridays") is added and the old entry superseded by
it (struck through, linked); so is a change ("钢琴课又改了，改到周日下午"): the live typed entry that
names what changed and holds a value of the same kind (a time, a number) is superseded, and the
new entry takes its type; the rest become typed entries of today's log, in one crash-safe write.
Without --apply nothing is written.
--messages takes [{role, content}] (user turns by default; --roles user,assistant).
--validate F checks what an agent extracted with a model (templates/extract.md: a JSON list of
{type, text, tags?, source?}): known type, one line of at most 400 characters, tags from TAGS.md,
no credential, no do-not-remember text, no question, no speculation. Any refusal (item and rule,
a secret never echoed) exits 2 and writes nothing; --apply writes the items through selective capture.`,
  flags: [
    { name: 'auto', type: 'boolean', description: 'keyword mode (the default, and the only one)' },
    { name: 'file', type: 'string', value: 'F', description: 'read the text from a regular file (at most 16 MiB)' },
    { name: 'messages', type: 'string', value: 'F', description: 'a JSON list of {role, content} ("-": standard input)' },
    { name: 'roles', type: 'list', value: 'R,R', description: 'the roles whose messages are read (with --messages)', default: 'user' },
    { name: 'apply', type: 'boolean', description: 'write the proposals (selective capture)' },
    { name: 'explain', type: 'boolean', description: 'also list every skipped sentence and why' },
    { name: 'validate', type: 'string', value: 'F', description: 'check (and with --apply write) the items an agent extracted (templates/extract.md)' },
  ],
  examples: ['memtier extract "we decided to use Postgres 16; I prefer short answers"', 'memtier extract --messages session.json --apply', 'echo "以后回复都用中文。下周五之前把合同发给法务。" | memtier extract - --json'],
  async run(ctx: Ctx, args: Args, io: Io): Promise<CommandResult> {
    const vocabulary = (() => { const t = readMemoryFile(ctx.root, tagsFile(ctx.root)); return t === undefined ? undefined : parseVocabulary(t); })();
    const validate = flagString(args, 'validate');
    if (validate !== undefined) return validateFile(ctx, validate, vocabulary, flagBool(args, 'apply'), args.quiet);
    const file = flagString(args, 'file');
    const messagesFile = flagString(args, 'messages');
    if ([file !== undefined, messagesFile !== undefined, args.positionals.length > 0].filter(Boolean).length !== 1) {
      throw new UsageError('extract needs one input: TEXT, --file F, --messages F or --validate F', 'e.g. memtier extract "we decided to use Postgres"');
    }
    let messages: Message[];
    let roles = flagList(args, 'roles') ?? ['user'];
    if (messagesFile !== undefined) {
      messages = (await readMessages(io, ctx.cwd, messagesFile)).map((m) => ({ role: String(m?.role ?? ''), content: typeof m?.content === 'string' ? m.content : Array.isArray(m?.content) ? (m.content as { text?: string }[]).map((c) => c?.text ?? '').join('\n') : '' }));
    } else {
      let text: string;
      if (file !== undefined) {
        try { text = readInputFile(ctx.cwd, file, '--file'); } catch (e) {
          if (e instanceof MemtierError) throw e;
          throw new MemtierError(`cannot read --file ${file}: ${(e as Error).message}`, { code: 'usage', file, cause: e });
        }
      } else text = args.positionals.length === 1 && args.positionals[0] === '-' ? await readStdin(io) : args.positionals.join(' ');
      messages = [{ role: 'user', content: text }];
      roles = ['user'];
    }
    const ex = extract(messages, { now: ctx.clock.now(), tz: ctx.clock.tz, vocabulary, roles });
    const apply = flagBool(args, 'apply');
    // selective capture loads the search index: only when something is written
    const results: Captured[] = apply ? await (await import('../capture/capture.js')).capture(ctx, ex.proposals) : ex.proposals;
    const superseded = await supersedeContradicted(ctx, results);
    const many = messages.length > 1;
    const lines: string[] = [];
    for (const p of results) {
      const tags = p.tags.length ? ` ${p.tags.map((t) => `#${t}`).join(' ')}` : '';
      const what = p.added ? `added ^${p.added.id} to ${p.added.path}:${p.added.line}${p.contradicts ? `; contradicts ${p.contradicts.cite} (${p.contradicts.reason}): superseded` : ''}` : p.duplicateOf ? `already in memory (${p.duplicateOf}): refreshed, not added` : `→ ${p.home}`;
      lines.push(`[${p.type}] ${p.text}${tags}  (${p.rule}; ${where(p, many)}) ${what}`);
    }
    if (!results.length) lines.push('nothing to keep in this text');
    const privacy = ex.skipped.filter((s) => s.reason === 'private' || s.reason === 'secret');
    if (flagBool(args, 'explain')) lines.push(...ex.skipped.map((s) => skipLine(s, many)));
    else if (privacy.length) lines.push(`left out for privacy: ${privacy.length} sentence${privacy.length === 1 ? '' : 's'} (never echoed; --explain says where)`);
    if (!apply && results.length) lines.push('(nothing written: --apply writes these)');
    const added = results.filter((p) => p.added).length;
    return {
      text: lines.join('\n'),
      json: { ok: true, applied: apply, proposals: results, skipped: ex.skipped, ...(superseded.length ? { superseded } : {}) },
      ...(added ? { commitSummary: `extract: ${added} entr${added === 1 ? 'y' : 'ies'} captured` } : {}),
    };
  },
};
