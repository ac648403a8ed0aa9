/**
 * The memory's files as a long-running process sees them: one inotify watch per folder (Node's
 * fs.watch), so a search served by `memtier watch` knows what changed without stat'ing every file.
 *
 * Never stale, by construction:
 * - A folder is watched before it is listed, so a change after the listing always raises an event.
 * - An event only marks its path dirty; the paths are stat'ed (folders listed again) when a query
 *   needs the tree (`refresh`), never trusted from the event itself.
 * - `sync()` is the cookie handshake of watchman and git's fsmonitor: before each query the server
 *   creates a file in .memtier/watch/ and waits for its event. All watches share one inotify queue,
 *   which keeps the order in which the kernel saw the changes, so when the cookie's event arrives,
 *   the event of every edit made before the query was sent has arrived too.
 * - What can break the chain makes the tree distrust itself and stat everything again (`rescan`):
 *   a burst of events as large as half the kernel's queue (fs.inotify.max_queued_events; the kernel
 *   drops events past it, and Node does not report the overflow), a watcher error, a watch that
 *   could not be added (fs.inotify.max_user_watches), a cookie that did not come back in time.
 * - Only on Linux is the chain verified (inotify's single ordered queue); elsewhere the tree
 *   rescans before every query (still correct, only slower).
 *
 * The set of files is the one the index cache covers (freshness.ts scanFiles): the root files, and the
 * .md files under memory/ and knowledge/ outside skipped and dot folders; symlinks are not followed
 * below the top folders.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { PATHS, ROOT_FILES as ROOT_FILE_LIST } from '../format/layout.js';

export const COOKIE_DIR = '.memtier/watch';
const SKIP_DIRS = new Set(['.trash', '.memtier', '.git', 'node_modules', 'scripts', '.dreams', '.obsidian']);
// the root files the index cache covers (freshness.ts scanFiles), TAGS.md and FORMAT.md among them
const ROOT_FILES = new Set<string>(ROOT_FILE_LIST);
const TOP_DIRS = new Set<string>([PATHS.memoryDir, PATHS.knowledge]);
const NOENT = { throwIfNoEntry: false } as const;

export interface FileStat { mtimeMs: number; size: number }

export interface TreeStatus {
  files: number;
  folders: number;
  /** Events received since start. */
  events: number;
  /** Full rescans since start (the first one included), and why the last one happened. */
  rescans: number;
  lastRescan?: string;
  /** False when events are not trusted on this platform (every query rescans). */
  trusted: boolean;
}

/** The kernel's inotify queue length (events past it are dropped). */
function maxQueuedEvents(): number {
  try {
    const n = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    return Number.isFinite(n) && n > 0 ? n : 16384;
  } catch {
    return 16384;
  }
}

export class WatchedTree {
  /** Every memory file present, by root-relative path, with the stats last seen. */
  readonly files = new Map<string, FileStat>();
  /** Bumped for a file each time it is seen changed (readers cache parsed files by path + generation). */
  readonly generation = new Map<string, number>();
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly dirty = new Set<string>();
  private rescanWhy: string | undefined = 'start';
  private readonly cookies = new Map<string, () => void>();
  private cookieN = 0;
  private burst = 0;
  private readonly burstLimit: number;
  private readonly trusted = process.platform === 'linux';
  private readonly st: TreeStatus;
  private readonly prefix: string;
  /** Paths whose membership in `files` changed since the caller last asked (takeChanged). */
  private readonly changed = new Set<string>();
  private closed = false;

  constructor(readonly root: string, opts: { burstLimit?: number } = {}) {
    this.prefix = root.endsWith('/') ? root : root + '/';
    this.burstLimit = opts.burstLimit ?? Math.floor(maxQueuedEvents() / 2);
    this.st = { files: 0, folders: 0, events: 0, rescans: 0, trusted: this.trusted };
  }

  /** Watch the cookie folder and every memory folder, then list them all. Throws when a watch cannot be added. */
  start(): void {
    mkdirSync(join(this.root, COOKIE_DIR), { recursive: true, mode: 0o700 });
    this.watchDir(COOKIE_DIR, true);
    this.rescan();
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    for (const done of this.cookies.values()) done();
    this.cookies.clear();
  }

  status(): TreeStatus {
    return { ...this.st, files: this.files.size, folders: this.watchers.size - 1 };
  }

  /**
   * The cookie handshake: resolves once every change made before the call has raised its event
   * (or, after timeoutMs without the cookie's event, marks the tree for a rescan).
   */
  sync(timeoutMs = 2000): Promise<void> {
    if (!this.trusted || this.closed) { this.rescanWhy ??= 'untrusted platform'; return Promise.resolve(); }
    const name = `cookie-${process.pid}-${++this.cookieN}`;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.cookies.delete(name);
        this.rescanWhy ??= 'the cookie event did not arrive';
        resolve();
      }, timeoutMs);
      this.cookies.set(name, () => { clearTimeout(timer); resolve(); });
      try {
        writeFileSync(join(this.root, COOKIE_DIR, name), '');
      } catch {
        clearTimeout(timer);
        this.cookies.delete(name);
        this.rescanWhy ??= 'cannot write a cookie';
        resolve();
      }
    });
  }

  /** Apply the pending events (or rescan everything when the events cannot be trusted). */
  refresh(): void {
    if (!this.trusted) this.rescanWhy ??= 'untrusted platform';
    if (this.rescanWhy !== undefined) { this.rescan(); return; }
    if (this.dirty.size === 0) return;
    const paths = [...this.dirty];
    this.dirty.clear();
    for (const p of paths) this.apply(p);
  }

  /** Paths added, removed or changed since the last call. */
  takeChanged(): string[] {
    const out = [...this.changed];
    this.changed.clear();
    return out;
  }

  /** Forget everything, watch and list every folder again. */
  private rescan(): void {
    this.st.rescans++;
    this.st.lastRescan = this.rescanWhy;
    this.rescanWhy = undefined;
    this.dirty.clear();
    for (const [dir, w] of this.watchers) if (dir !== COOKIE_DIR) { w.close(); this.watchers.delete(dir); }
    const before = new Set(this.files.keys());
    const seen = new Set<string>();
    this.watchDir('', false);
    for (const f of ROOT_FILES) this.statFile(f, true, seen);
    for (const d of TOP_DIRS) this.walk(d, seen);
    for (const p of before) if (!seen.has(p)) this.drop(p);
  }

  private watchDir(dir: string, cookies: boolean): void {
    const w = watch(this.prefix + dir, { persistent: true }, (_type, name) => this.onEvent(dir, cookies, name === null ? null : String(name)));
    w.on('error', () => { this.rescanWhy ??= `watcher error on ${dir || '.'}`; });
    this.watchers.set(dir, w);
  }

  private onEvent(dir: string, cookies: boolean, name: string | null): void {
    this.st.events++;
    // one read of the inotify queue is dispatched without a turn of the event loop in between, so
    // the count until the next turn is the size of the batch (checked at once: a query may run
    // between two callbacks of the batch)
    if (this.burst++ === 0) setImmediate(() => { this.burst = 0; });
    if (this.burst === this.burstLimit) this.rescanWhy ??= `a burst of ${this.burst} events (the kernel may have dropped some)`;
    if (cookies) {
      if (name && name.startsWith('cookie-')) {
        const done = this.cookies.get(name);
        if (done) {
          this.cookies.delete(name);
          try { unlinkSync(join(this.root, COOKIE_DIR, name)); } catch { /* gone already */ }
          done();
        }
      }
      return;
    }
    if (name === null) { this.rescanWhy ??= `an event without a name in ${dir || '.'}`; return; }
    if (dir === '') {
      if (ROOT_FILES.has(name) || TOP_DIRS.has(name)) this.dirty.add(name);
      return;
    }
    this.dirty.add(`${dir}/${name}`);
  }

  /** A dirty path: a root file, a top folder, or an entry of a watched folder. */
  private apply(p: string): void {
    if (ROOT_FILES.has(p)) { this.statFile(p, true); return; }
    const seen = new Set<string>();
    if (TOP_DIRS.has(p)) {
      this.unwatchUnder(p);
      this.walk(p, seen);
      this.dropUnder(p, seen);
      return;
    }
    const slash = p.lastIndexOf('/');
    const parent = p.slice(0, slash);
    const name = p.slice(slash + 1);
    if (!this.watchers.has(parent)) return; // under a folder since removed or skipped
    const st = lstatSync(this.prefix + p, NOENT);
    if (st?.isDirectory()) {
      if (SKIP_DIRS.has(name) || name.startsWith('.')) return;
      // new, replaced or renamed folder: watch it again and list it
      this.unwatchUnder(p);
      this.walk(p, seen);
      this.dropUnder(p, seen);
      return;
    }
    // a file, or gone (then also a folder that was here: drop what was under it)
    if (this.watchers.has(p)) { this.unwatchUnder(p); this.dropUnder(p, seen); }
    if (st?.isFile() && name.endsWith('.md')) this.track(p, st.mtimeMs, st.size);
    else this.drop(p);
  }

  /** Watch `dir`, then list it: folders recursively, .md files stat'ed. */
  private walk(dir: string, seen: Set<string>): void {
    // memory/ and knowledge/ too: a linked folder is never followed (health reports it)
    const st = lstatSync(this.prefix + dir, NOENT);
    if (!st?.isDirectory()) return;
    try {
      this.watchDir(dir, false);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      if (code === 'ENOSPC') throw new Error(`cannot watch ${dir}: the inotify watch limit is reached (raise fs.inotify.max_user_watches)`);
      throw e;
    }
    let ents;
    try { ents = readdirSync(this.prefix + dir, { withFileTypes: true }); } catch { return; }
    for (const d of ents) {
      const rel = `${dir}/${d.name}`;
      if (d.isDirectory()) { if (!SKIP_DIRS.has(d.name) && !d.name.startsWith('.')) this.walk(rel, seen); }
      else if (d.isFile() && d.name.endsWith('.md')) this.statFile(rel, false, seen);
    }
  }

  private statFile(rel: string, follow: boolean, seen?: Set<string>): void {
    const st = follow ? statSync(this.prefix + rel, NOENT) : lstatSync(this.prefix + rel, NOENT);
    if (st?.isFile()) { this.track(rel, st.mtimeMs, st.size); seen?.add(rel); }
    else this.drop(rel);
  }

  private track(rel: string, mtimeMs: number, size: number): void {
    const old = this.files.get(rel);
    if (!old || old.mtimeMs !== mtimeMs || old.size !== size) this.files.set(rel, { mtimeMs, size });
    // an event on a file means its content may have changed even when its stats did not (same tick)
    this.generation.set(rel, (this.generation.get(rel) ?? 0) + 1);
    this.changed.add(rel);
  }

  private drop(rel: string): void {
    if (this.files.delete(rel)) { this.generation.delete(rel); this.changed.add(rel); }
  }

  /** Drop tracked files under `dir`/ not in `seen`. */
  private dropUnder(dir: string, seen: Set<string>): void {
    const pre = dir + '/';
    for (const p of [...this.files.keys()]) if (p.startsWith(pre) && !seen.has(p)) this.drop(p);
  }

  private unwatchUnder(dir: string): void {
    const pre = dir + '/';
    for (const [d, w] of [...this.watchers]) if (d === dir || d.startsWith(pre)) { w.close(); this.watchers.delete(d); }
  }
}
