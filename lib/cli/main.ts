/**
 * The CLI core: parse, resolve root and clock, run one command, print, return an exit code.
 * Only this module (and bin/) deal with process-level concerns; nothing calls process.exit().
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { makeClock } from '../core/clock.js';
import type { Ctx, Logger, ProgressSink } from '../core/context.js';
import { isMemtierError, MemtierError, UsageError } from '../core/errors.js';
import { isModuleNotFound, lazyImport } from '../core/lazy.js';
import { assertMemoryRoot, resolveRoot } from '../core/root.js';
import { crashPoint } from '../store/crash.js';
import { clearReads } from '../memory/reader.js';
import { version } from '../core/version.js';
import { findCommand, registry, suggest } from '../commands/index.js';
import { quoteInput, redactSecrets } from '../store/guards/secrets.js';
import { printable, printableJson } from '../store/guards/text.js';
import { commandIndex, parseCommandArgs, renderCommandHelp, renderMainHelp } from './args.js';
import { writeJson } from './json-out.js';
import type { MainParams } from './spec.js';

export type { MainParams } from './spec.js';
export { version };

function formatError(e: MemtierError): string {
  const where = e.file ? `${e.file}${e.line ? `:${e.line}` : ''}: ` : '';
  const rule = e.rule ? ` [${e.rule}]` : '';
  return printable(`memtier: ${where}${e.message}${rule}${e.hint ? `\n  fix: ${e.hint}` : ''}\n`);
}

/**
 * The error as shown: a message or hint that quotes input holding a credential (an option's
 * value, a line of a file) shows its mask instead, whatever code built the message.
 */
function redacted(e: MemtierError): MemtierError {
  const message = redactSecrets(e.message);
  const hint = e.hint === undefined ? undefined : redactSecrets(e.hint);
  const file = e.file === undefined ? undefined : redactSecrets(e.file);
  if (message === e.message && hint === e.hint && file === e.file) return e;
  return new MemtierError(message, { code: e.code, ...(file !== undefined ? { file } : {}), ...(e.line !== undefined ? { line: e.line } : {}), ...(e.rule !== undefined ? { rule: e.rule } : {}), ...(hint !== undefined ? { hint } : {}) });
}

/** Is `root` a git memory memtier commits to? (lib/git loads only then.) */
function gitMemory(ctx: Ctx): boolean {
  const v = (ctx.env.MEMTIER_GIT ?? '').toLowerCase();
  return !(v === 'off' || v === '0' || v === 'false' || v === 'no') && existsSync(join(ctx.root, '.git'));
}

/**
 * Before a command on a git memory: commit what earlier memtier commands, killed between their
 * writes and their commit, left recorded in .memtier/commit-pending/ (one readdir when none did).
 */
async function recoverCommits(ctx: Ctx): Promise<void> {
  if (!gitMemory(ctx)) return;
  // a sync killed after it recorded its merge: finished first (its files were being written)
  if (existsSync(join(ctx.root, '.memtier', 'sync-intent.json'))) {
    const s = await lazyImport('git/sync.js', () => import('../git/sync.js'));
    try {
      const r = s.recoverSync(ctx);
      if (r.recovered) ctx.log.info(r.message);
      else ctx.log.warn(r.message);
    } catch (e) {
      ctx.log.warn(`could not finish an interrupted sync: ${(e as Error).message} (run "memtier health")`);
    }
  }
  if (!existsSync(join(ctx.root, '.memtier', 'commit-pending'))) return;
  const git = await lazyImport('git/index.js', () => import('../git/index.js'));
  try {
    for (const r of git.recoverPendingCommits(ctx)) {
      if (r.committed) ctx.log.info(`committed the changes of an interrupted command (${r.files.length} file(s), ${r.commit?.slice(0, 10)})`);
      for (const x of r.refused ?? []) ctx.log.warn(`did not commit ${x.path}, recorded by an interrupted command: it ${x.why}; it stays uncommitted (look at it, then commit it by hand or fix it)`);
    }
  } catch (e) {
    ctx.log.warn(`could not commit an interrupted command's changes: ${(e as Error).message}`);
  }
}

/**
 * When the memory is a git repository, commit what this command changed (the store records every
 * path before it writes it). Off with MEMTIER_GIT=off. lib/git loads only when the root has a .git folder.
 */
async function commitIfRepo(ctx: Ctx, what: string, text: string | undefined): Promise<void> {
  if (!gitMemory(ctx)) return;
  const { takeTouched, settleTouched } = await lazyImport('store/store.js', () => import('../store/store.js'));
  const paths = takeTouched(ctx.root);
  if (paths.length === 0) { settleTouched(ctx.root); return; }
  crashPoint(ctx.env, 'commit.before');
  const git = await lazyImport('git/index.js', () => import('../git/index.js'));
  // (commitMessage cuts it to its length, never inside a character)
  const summary = (text ?? '').split('\n').find((l) => l.trim())?.trim() ?? `${paths.length} file(s)`;
  const message = git.commitMessage(what, summary);
  try {
    git.autoCommit(ctx, paths, message);
    settleTouched(ctx.root);
  } catch (e) {
    ctx.log.warn(`the change is saved but was not committed to git: ${(e as Error).message} (the next memtier command tries again)`);
  }
}

export async function main(p: MainParams): Promise<number> {
  const { argv, env, cwd, stdout, stderr } = p;
  const wantsJson = argv.includes('--json');
  const fail = (e: unknown): number => {
    const err = redacted(isMemtierError(e)
      ? e
      : new MemtierError((e as Error)?.message ?? String(e), { code: 'internal', cause: e, hint: 'this is a bug in memtier; please report it with the command you ran' }));
    if (wantsJson) stdout.write(printableJson(JSON.stringify({ ok: false, error: err.toJSON() }, null, 2)) + '\n');
    else stderr.write(formatError(err));
    if (!isMemtierError(e) && env.MEMTIER_DEBUG) stderr.write(String((e as Error)?.stack) + '\n');
    return 2;
  };

  const cmdIndex = commandIndex(argv);
  const name = cmdIndex >= 0 ? argv[cmdIndex]! : undefined;
  if (name === undefined || name === 'help') {
    if (argv.includes('--version') || argv.includes('-v')) { stdout.write(version() + '\n'); return 0; }
    const topic = name === 'help' ? argv[cmdIndex + 1] : undefined;
    if (topic && findCommand(topic)) {
      const { command } = await findCommand(topic)!.load();
      stdout.write(renderCommandHelp(command));
      return 0;
    }
    if (name === undefined && !argv.includes('--help') && !argv.includes('-h') && argv.length > 0) {
      return fail(new UsageError(`unknown option ${quoteInput(argv[0]!)}`, 'see "memtier --help"'));
    }
    stdout.write(renderMainHelp(version(), registry));
    return name === undefined && argv.length === 0 ? 2 : 0;
  }
  const entry = findCommand(name);
  if (!entry) {
    const s = suggest(name);
    return fail(new UsageError(`unknown command "${quoteInput(name)}"`, s.length ? `did you mean: ${s.join(', ')}? (see "memtier --help")` : 'see "memtier --help"'));
  }
  let neverFails = false;
  try {
    const { command } = await entry.load();
    neverFails = command.neverFails === true;
    const rest = [...argv.slice(0, cmdIndex), ...argv.slice(cmdIndex + 1)];
    if (rest.includes('--help') || rest.includes('-h')) {
      stdout.write(renderCommandHelp(command));
      return 0;
    }
    const args = parseCommandArgs(command, rest);
    const clock = makeClock({
      now: (args.global.now as string | undefined) ?? env.MEMTIER_NOW,
      tz: env.MEMTIER_TZ,
      source: args.global.now ? '--now' : 'MEMTIER_NOW',
    });
    const res = resolveRoot({ flag: args.global.root as string | undefined, env, cwd });
    if (command.needsRoot !== false) assertMemoryRoot(res);
    const quietLog = args.json || args.quiet;
    // progress only on a terminal (a getter, like interactive: asking loads node:tty)
    const ttyProgress: ProgressSink = { mode: 'tty', write: (m) => { stderr.write(m ? `\r${m}\x1b[K` : '\r\x1b[K'); } };
    const log: Logger = {
      info: (m) => { if (!quietLog) stderr.write(printable(redactSecrets(m)) + '\n'); },
      warn: (m) => { if (!args.json) stderr.write(`warning: ${printable(redactSecrets(m))}\n`); },
      get progress() { return !quietLog && stderr.isTTY === true ? ttyProgress : undefined; },
    };
    // interactive is a getter: asking whether stderr is a terminal loads node:tty and node:net (~5 ms)
    const ctx: Ctx = { root: res.root, clock, log, env, cwd, get interactive() { return !args.json && stderr.isTTY === true; } };
    clearReads(); // the memory is read once per command, not kept between the commands of a server
    if (command.needsRoot !== false) await recoverCommits(ctx);
    // the streams as given, getters kept: spreading would read the stdin getter, and building
    // process.stdin costs 5-15 ms that only a command reading "-" needs
    const io = Object.defineProperties({}, Object.getOwnPropertyDescriptors(p)) as MainParams;
    io.main = main;
    const result = await command.run(ctx, args, io);
    await commitIfRepo(ctx, [name, ...args.positionals.slice(0, 1)].join(' '), result.commitSummary ?? result.text);
    // hand-written files may hold escape sequences or bidi controls: they are shown, never obeyed
    // in pieces: a large result (dream's candidates) is never one string of its whole JSON
    if (args.json) { writeJson(result.json ?? { ok: true }, (s) => stdout.write(s), printableJson); stdout.write('\n'); }
    else if (result.text) stdout.write(printable(result.text.endsWith('\n') ? result.text : result.text + '\n'));
    return result.exitCode ?? 0;
  } catch (e) {
    if (neverFails) {
      // the host's turn goes on: the problem is said on standard error, nothing on standard output
      const err = isMemtierError(e) ? e : new MemtierError((e as Error)?.message ?? String(e), { code: 'internal' });
      stderr.write(`memtier ${name}: ${printable(redactSecrets(err.message))}${err.hint ? ` (${printable(redactSecrets(err.hint))})` : ''}; the host's turn goes on without memtier\n`);
      return 0;
    }
    if (isModuleNotFound(e) && String((e as Error).message).includes(`commands/${name}.js`)) {
      return fail(new MemtierError(`command "${name}" is not available in this build`, { code: 'not-implemented' }));
    }
    return fail(e);
  }
}
