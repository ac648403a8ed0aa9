import { assertKnownTags } from '../health/vocabulary.js';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readStdin } from '../cli/stdin.js';
import type { Args, CommandResult, CommandSpec, Io } from '../cli/spec.js';
import { flagBool } from '../cli/spec.js';
import type { Ctx } from '../core/context.js';
import { localDate, localStamp } from '../core/clock.js';
import { MemtierError, UsageError } from '../core/errors.js';
import { dayFile, PATHS } from '../format/layout.js';
import { nearDuplicates } from '../capture/similar.js';
import { parseSessionState } from '../format/session-state.js';
import { assertSessionId } from '../store/guards/paths.js';
import { quoteInput } from '../store/guards/secrets.js';
import { openStore, readMemoryFile } from '../store/store.js';
import { walWrite, WAL_KINDS, type WalKind } from '../wal/wal.js';
import { lazyImport } from '../core/lazy.js';

export const SNAPSHOT_DIR = PATHS.snapshots;


function snapshots(ctx: Ctx): { name: string; mtime: number }[] {
  try {
    return readdirSync(join(ctx.root, SNAPSHOT_DIR))
      .filter((n) => n.endsWith('.md'))
      .map((n) => ({ name: n.slice(0, -3), mtime: statSync(join(ctx.root, SNAPSHOT_DIR, n)).mtimeMs }))
      .sort((a, b) => a.mtime - b.mtime || a.name.localeCompare(b.name));
  } catch {
    return [];
  }
}

function snapshotName(ctx: Ctx, given: string | undefined): string {
  const name = given ?? localStamp(ctx.clock.now(), ctx.clock.tz).replace(/:/g, '');
  try { return assertSessionId(name); } catch {
    throw new UsageError(`invalid snapshot name "${name.slice(0, 70)}"`, 'a name is 1-64 letters, digits, "_" or "-"');
  }
}

/**
 * Save SESSION-STATE.md as memory/.snapshots/NAME.md (NAME: given, else a stamp). With
 * `ifChanged`, nothing is written when the newest snapshot already holds the same text (a host
 * hook that snapshots after every turn then adds a file only when the state moved); `unchanged`
 * names that snapshot.
 */
export function saveSnapshot(ctx: Ctx, given: string | undefined, opts: { ifChanged?: boolean } = {}): { name: string; rel: string; unchanged?: string } {
  const name = snapshotName(ctx, given);
  const rel = `${SNAPSHOT_DIR}/${name}.md`;
  let unchanged: string | undefined;
  openStore(ctx).mutate((tx) => {
    const cur = tx.read(PATHS.sessionState);
    if (cur === undefined) throw new MemtierError('there is no SESSION-STATE.md to snapshot', { code: 'missing', file: PATHS.sessionState, hint: 'write something first, e.g. memtier wal task "…"' });
    if (opts.ifChanged) {
      const newest = snapshots(ctx).pop();
      if (newest && tx.read(`${SNAPSHOT_DIR}/${newest.name}.md`) === cur) { unchanged = newest.name; return; }
    }
    if (tx.exists(rel)) throw new MemtierError(`a snapshot named "${name}" exists`, { code: 'exists', file: rel, hint: 'choose another name' });
    tx.write(rel, cur, { expected: null });
  });
  return unchanged ? { name: unchanged, rel: `${SNAPSHOT_DIR}/${unchanged}.md`, unchanged } : { name, rel };
}

const CONTEXT_HINT = 'e.g. memtier wal context deadline 2026-06-01, memtier wal context "deadline: 2026-06-01" or memtier wal context "the demo moved to Friday"; a preference: memtier wal context pref "short answers"';

/**
 * The arguments of `wal context`: KEY VALUE… (a trailing ":" or "=" on KEY, or one of its own,
 * is dropped), or one argument: "KEY: VALUE" / "KEY = VALUE", "pref VALUE…", or a fact in a few
 * words without a key ("the demo moved to Friday"). An empty KEY (the MCP tool without a key)
 * is the one-argument form. A lone word is refused: a KEY without its VALUE.
 */
export function contextArgs(rest: string[]): { key: string | undefined; parts: string[] } {
  const args = rest[0] !== undefined && rest[0].trim() === '' ? [rest.slice(1).join(' ')] : rest;
  if (args.length === 1 && args[0] !== '-') {
    const one = args[0]!.trim();
    const kv = /^([^:=\s][^:=]{0,60}?)\s*[:=]\s*(\S.*)$/s.exec(one);
    if (kv) return { key: kv[1]!.trim(), parts: [kv[2]!.trim()] };
    const pref = /^(pref|preference)\s+(\S.*)$/is.exec(one);
    if (pref) return { key: pref[1]!, parts: [pref[2]!] };
    if (/\s/.test(one)) return { key: undefined, parts: [one] };
    throw new UsageError(`wal context needs a KEY and a VALUE${one ? ` ("${quoteInput(one, 60)}" alone is a KEY)` : ''}`, CONTEXT_HINT);
  }
  let [key, ...parts] = args;
  key = key?.replace(/\s*[:=]\s*$/, '').trim();
  if (parts[0] !== undefined && /^[:=]$/.test(parts[0].trim())) parts = parts.slice(1);
  if (!key || parts.length === 0) throw new UsageError('wal context needs a KEY and a VALUE', CONTEXT_HINT);
  return { key, parts };
}

export const command: CommandSpec = {
  name: 'wal',
  summary: 'write-ahead log: task, decide, context, pending, done, blocker, get, snapshot, restore',
  usage: [
    'wal task TEXT', 'wal decide TEXT', 'wal context KEY VALUE', 'wal context "KEY: VALUE" | "FACT"', 'wal pending TEXT', 'wal done TEXT', 'wal blocker TEXT',
    'wal get', 'wal snapshot [NAME] [--if-changed]', 'wal restore [NAME]',
  ],
  description: `Write BEFORE you answer. Each write appends a timestamped, typed entry (with a ^id) to
memory/working-buffer.md and updates SESSION-STATE.md in one locked, crash-safe step. Once the buffer
reaches its line limit (80, or $MEMTIER_BUFFER_MAX_LINES) its entries move to today's episodic file.
TEXT "-" reads the text from standard input. The skeleton installs memory/scripts/wal as a shortcut.

Entries: task → [PROJ] task: …, decide → [DECISION] …, context → [TEMP] context: KEY = VALUE
(also "KEY: VALUE" in one argument; one argument without a key, "the demo moved to Friday", is a
keyless fact: [TEMP] context: the demo moved to Friday; KEY "pref" → [PREF] VALUE, a preference,
not session context),
pending/done/blocker → [PROJ] pending:/done:/blocker: …
"done" removes the matching item from Pending (or Blockers). An inline #tag must be in TAGS.md:
another is refused (exit 2, nothing written) with the closest tags and how to add one.
Snapshots of SESSION-STATE.md live in memory/.snapshots/NAME.md; restore without a NAME takes the
newest, and first snapshots the current state as before-restore-STAMP. An item of an entry forgotten
since the snapshot was taken (memtier forget) is left out of the restored state, and the output says
which (section and ^id). snapshot --if-changed writes nothing when the newest snapshot already holds
the same state (what host hooks use after each turn).`,
  subcommands: {
    task: 'set the current task', decide: 'log a decision or correction', context: 'set a key fact (deadline, preference, …)',
    pending: 'add a pending item', done: 'mark an item done', blocker: 'add a blocker',
    get: 'print SESSION-STATE.md', snapshot: 'save SESSION-STATE.md under a name', restore: 'bring a snapshot back',
  },
  flags: [{ name: 'if-changed', type: 'boolean', description: 'snapshot: only when SESSION-STATE.md differs from the newest snapshot' }],
  examples: ['memtier wal decide "use Postgres, not MySQL: we need JSONB"', 'memtier wal context deadline 2026-06-01', 'memtier wal context pref "short answers, no tables"', 'memtier wal done "ask Ana for the quota"', 'echo "long text" | memtier wal decide -'],
  async run(ctx: Ctx, args: Args, io: Io): Promise<CommandResult> {
    const [sub, ...rest] = args.positionals;
    if (!sub) throw new UsageError('wal needs a subcommand', `one of: ${[...WAL_KINDS, 'get', 'snapshot', 'restore'].join(', ')}`);
    if ((WAL_KINDS as readonly string[]).includes(sub)) {
      const kind = sub as WalKind;
      let key: string | undefined;
      let parts = rest;
      if (kind === 'context') ({ key, parts } = contextArgs(rest));
      if (parts.length === 0) throw new UsageError(`wal ${kind} needs a TEXT`, `e.g. memtier wal ${kind} "…" (or "-" to read standard input)`);
      const text = parts.length === 1 && parts[0] === '-' ? await readStdin(io) : parts.join(' ');
      assertKnownTags(ctx, `${key ?? ''} ${text}`);
      const r = walWrite(ctx, { kind, text, ...(key ? { key } : {}) });
      // the same thing logged before, in the buffer or today's log (a literal write: reported, kept)
      const day = dayFile(ctx.root, localDate(ctx.clock.now(), ctx.clock.tz));
      const said = r.entry.replace(/^- \S+ \S+ (?:\[[A-Z]+\] )?/, '').replace(/ \^\S+$/, '');
      // a report only: an unreadable file (a day blocked by a failed rotation) never fails the write
      const readable = (rel: string): string | undefined => { try { return readMemoryFile(ctx.root, rel); } catch { return undefined; } };
      const dup = nearDuplicates(said, [{ path: PATHS.buffer, text: readable(PATHS.buffer) }, { path: day, text: readable(day) }], r.id)[0];
      const lines = [`logged ^${r.id} to ${r.buffer}; ${r.state} updated${r.note ? ` (${r.note})` : ''}${dup ? `; note: ${dup.cite} says the same` : ''}`];
      if (r.rotation) lines.push(`rotation: ${r.rotation.message}`);
      if (r.rotationError) ctx.log.warn(`the entry is saved, but the buffer rotation failed: ${r.rotationError}; run "memtier health"`);
      return { text: args.quiet ? '' : lines.join('\n'), json: { ok: true, ...r, ...(dup ? { nearDuplicateOf: dup.cite } : {}) }, commitSummary: r.entry.replace(/^- \S+ \S+ /, '').replace(/ \^\S+$/, '') };
    }
    if (sub === 'get') {
      const text = readMemoryFile(ctx.root, PATHS.sessionState) ?? '';
      return { text: text || '(SESSION-STATE.md is empty)', json: { ok: true, path: PATHS.sessionState, state: parseSessionState(text).state } };
    }
    if (sub === 'snapshot') {
      const { name, rel, unchanged } = saveSnapshot(ctx, rest[0], { ifChanged: flagBool(args, 'if-changed') });
      if (unchanged) return { text: args.quiet ? '' : `${PATHS.sessionState} is unchanged since ${rel}; nothing saved`, json: { ok: true, snapshot: name, path: rel, unchanged: true } };
      return { text: `saved ${PATHS.sessionState} as ${rel}`, json: { ok: true, snapshot: name, path: rel } };
    }
    if (sub === 'restore') {
      const all = snapshots(ctx);
      const name = rest[0] ?? all.filter((s) => !s.name.startsWith('before-restore-')).pop()?.name ?? all.pop()?.name;
      if (!name) throw new MemtierError('there are no snapshots', { code: 'missing', file: SNAPSHOT_DIR, hint: 'make one with: memtier wal snapshot [NAME]' });
      const rel = `${SNAPSHOT_DIR}/${snapshotName(ctx, name)}.md`;
      const backup = `${SNAPSHOT_DIR}/before-restore-${localStamp(ctx.clock.now(), ctx.clock.tz).replace(/:/g, '')}.md`;
      // what was forgotten since the snapshot was taken stays forgotten (lifecycle/forgotten.ts)
      const { forgottenEntries, stateWithoutForgotten } = await lazyImport('lifecycle/forgotten.js', () => import('../lifecycle/forgotten.js'));
      const forgotten = forgottenEntries(ctx);
      let left: { id?: string; item: string }[] = [];
      openStore(ctx).mutate((tx) => {
        const snap = tx.read(rel);
        if (snap === undefined) throw new MemtierError(`no snapshot named "${name}"`, { code: 'missing', file: rel, hint: `available: ${all.map((s) => s.name).join(', ') || 'none'}` });
        const kept = stateWithoutForgotten(snap, forgotten);
        left = kept.left;
        const cur = tx.read(PATHS.sessionState);
        if (cur !== undefined && cur !== kept.text && !tx.exists(backup)) tx.write(backup, cur, { expected: null });
        tx.write(PATHS.sessionState, kept.text, { expected: cur ?? null });
      });
      // the items are named by section and id, never quoted: a forgotten entry's text is not shown again
      const note = left.length ? `; left out ${left.length} item${left.length === 1 ? '' : 's'} of forgotten entries: ${left.map((l) => `${l.item.split(':')[0]}${l.id ? ` (^${l.id})` : ''}`).join(', ')}` : '';
      return { text: `restored ${PATHS.sessionState} from ${rel}${note}`, json: { ok: true, snapshot: name, path: rel, ...(left.length ? { leftOut: left.map((l) => ({ section: l.item.split(':')[0], ...(l.id ? { id: l.id } : {}) })) } : {}) } };
    }
    throw new UsageError(`unknown wal subcommand "${sub}"`, `one of: ${[...WAL_KINDS, 'get', 'snapshot', 'restore'].join(', ')}`);
  },
};
