/**
 * The memory read model: the whole memory read once (one walk, one stat and one strict read per
 * file), parsed into entries, then handed to whatever needs all of it — every health check,
 * `memtier stats`, the lifecycle steps. Its readers never touch the disk for memory content
 * themselves, so a cold `memtier health` reads each file exactly once.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { classify, PATHS, ROOT_FILES, type FileInfo } from '../format/layout.js';
import { parseEntries, type LocatedEntry } from '../format/entry.js';
import { TEMP_MARK } from '../store/fsync.js';
import { MAX_FILE_BYTES } from '../store/guards/text.js';
import { readOnce, readPassing, type KnownStats } from './reader.js';

export interface MemFile extends FileInfo {
  size: number;
  mtimeMs: number;
  /** Decoded text (LF line ends, no BOM); undefined when the file could not be read. */
  text?: string;
  /** Why the file could not be read (invalid UTF-8, NUL byte, oversized, …). */
  error?: { message: string; line?: number; code?: string };
}

export interface PlainFile {
  rel: string;
  size: number;
  mtimeMs: number;
}

export interface SpecialPath {
  rel: string;
  /** What is there: `symlink` (with its target), `fifo`, `folder` (where a file belongs), `file` (where a folder belongs), `other`. */
  kind: 'symlink' | 'fifo' | 'folder' | 'file' | 'other';
  /** Where a link points (as written in the link). */
  target?: string;
  /** What belongs there. */
  expected: 'file' | 'folder';
}

export interface Snapshot {
  root: string;
  /** Every memory markdown file, sorted by path. */
  files: MemFile[];
  byRel: Map<string, MemFile>;
  /** Orphan temp files of atomic writes (`.NAME.memtier-tmp-*`) anywhere memtier writes. */
  tempFiles: PlainFile[];
  /** Files under `memory/.rotating/` (a rotation renamed the buffer aside and did not finish). */
  rotating: PlainFile[];
  /** Lock files: `.memtier/lock`, `.memtier/lock.stale-*`, `.git/index.lock`. */
  locks: PlainFile[];
  /** Bytes under memory/.trash and .memtier (not memory, but on the same disk). */
  trashBytes: number;
  stateBytes: number;
  /** Other non-markdown files inside the memory folders (attachments, scripts): path and size. */
  otherFiles: PlainFile[];
  /** Other tools' leftovers (editor swap and backup files, temp files of atomic writers), with what each is (strayKind). */
  strays: (PlainFile & { what: string })[];
  /**
   * Paths where memtier expects a regular file or a real folder but finds something else: a
   * symbolic link (never followed), a FIFO or device, a folder in a file's place (or the reverse).
   * memtier's readers skip them and its writers refuse them; the `file-types` check reports them.
   */
  special: SpecialPath[];
  /** Lines of a file's text (split on LF; a final newline gives a final ""). */
  lines(f: MemFile): string[];
  /** Bullet entries of a file, parsed once. */
  entries(f: MemFile): LocatedEntry[];
  /**
   * Let go of the file's text and of its parsed lines and entries (a lazy snapshot; a no-op on
   * another): the next use reads it again. A pass over every file that needs each one's text once
   * calls it after each, so the memory's texts are not all held at once.
   */
  release(f: MemFile): void;
  /**
   * Does the file end in a line break (its last byte LF or CR, so its text, when readable, ends
   * with "\n")? A lazy snapshot reads that one byte instead of the file, unless the file was read.
   */
  endsInLineBreak(f: MemFile): boolean;
}

/**
 * What another tool left behind, by name, or undefined for anything else: an editor's swap
 * (`.NAME.swp`), backup (`NAME~`) or autosave (`#NAME#`) file, a temp file (`NAME.tmp`,
 * `.NAME.tmp`), or an atomic writer's temp file `NAME.<digits>` — only when NAME itself is
 * in the same folder (`siblings`), so `notes.2026` alone is a file like any other. A `.md`
 * name is never one (`memory/2026-05-01.md` is a day file).
 */
export function strayKind(name: string, siblings: ReadonlySet<string>): string | undefined {
  if (/\.md$/i.test(name)) return undefined;
  if (/^\..+\.sw[a-p]$/.test(name) || /.\.swp$/.test(name)) return 'an editor swap file';
  if (/^[^~].*~$/.test(name)) return 'an editor backup file';
  if (/^#.+#$/.test(name)) return 'an editor autosave file';
  if (/.\.tmp$/i.test(name)) return 'a temp file of another tool';
  const m = /^(.+)\.\d+$/.exec(name);
  if (m && siblings.has(m[1]!)) return `a temp file of an atomic write next to ${m[1]}`;
  return undefined;
}

const SKIP = new Set(['.trash', '.memtier', '.git', 'node_modules', 'scripts', '.dreams', '.obsidian', '.rotating']);

function stat(abs: string): { ino: number; size: number; mtimeMs: number; file: boolean; dir: boolean } | undefined {
  try {
    const st = lstatSync(abs);
    return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, file: st.isFile(), dir: st.isDirectory() };
  } catch {
    return undefined;
  }
}

function kindOf(abs: string): { kind: SpecialPath['kind'] | 'ok-file' | 'ok-folder'; target?: string } | undefined {
  let st;
  try { st = lstatSync(abs); } catch { return undefined; }
  if (st.isFile()) return { kind: 'ok-file' };
  if (st.isDirectory()) return { kind: 'ok-folder' };
  if (st.isSymbolicLink()) {
    let target = '';
    try { target = readlinkSync(abs); } catch { /* unreadable link */ }
    return { kind: 'symlink', target };
  }
  return { kind: st.isFIFO() ? 'fifo' : 'other' };
}

/** Record `rel` when it is not what belongs there; true when it is (and may be read or walked). */
function expect(root: string, rel: string, expected: SpecialPath['expected'], out: SpecialPath[]): boolean {
  const k = kindOf(join(root, rel));
  if (!k) return false;
  if (k.kind === `ok-${expected}`) return true;
  const kind = k.kind === 'ok-file' ? 'file' : k.kind === 'ok-folder' ? 'folder' : k.kind;
  out.push(k.target !== undefined ? { rel, kind, target: k.target, expected } : { rel, kind, expected });
  return false;
}

function dirBytes(abs: string, onFile?: (rel: string, size: number, mtimeMs: number) => void, rel = ''): number {
  let total = 0;
  let ents;
  try { ents = readdirSync(abs, { withFileTypes: true }); } catch { return 0; }
  for (const d of ents) {
    const a = join(abs, d.name);
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) total += dirBytes(a, onFile, r);
    else if (d.isFile()) {
      const st = stat(a);
      if (st) { total += st.size; onFile?.(r, st.size, st.mtimeMs); }
    }
  }
  return total;
}

/**
 * `size`: the file's size from the walk; `fresh`: the walk's stats when taken right before this
 * read (else the text is kept for the command's later reads only when an earlier read kept it:
 * readPassing); `folders`: the folders this snapshot's reads found real (resolveInside).
 */
function readOne(root: string, rel: string, size: number, fresh: KnownStats | undefined, folders: Set<string>): Pick<MemFile, 'text' | 'error'> {
  if (size > MAX_FILE_BYTES) {
    // never pull a huge file into memory just to refuse it
    return { error: { message: `file is ${size} bytes, over the ${MAX_FILE_BYTES}-byte limit`, code: 'oversized' } };
  }
  try {
    const text = fresh ? readOnce(root, rel, fresh, folders) : readPassing(root, rel, folders);
    return text === undefined ? { error: { message: 'vanished while being read' } } : { text };
  } catch (e) {
    const err = e as { message: string; line?: number; code?: string };
    const out: MemFile['error'] = { message: err.message };
    if (err.line !== undefined) out.line = err.line;
    if (err.code !== undefined) out.code = err.code;
    return { error: out };
  }
}

/** Is the last byte of the file LF or CR (false when it cannot be told: the caller reads the file)? */
function lastByteIsBreak(root: string, rel: string, size: number): boolean {
  if (size === 0) return false;
  let fd: number | undefined;
  try {
    fd = openSync(join(root, rel), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    if (!fstatSync(fd).isFile()) return false;
    const b = Buffer.alloc(1);
    return readSync(fd, b, 0, 1, size - 1) === 1 && (b[0] === 10 || b[0] === 13);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Where a lazy snapshot's files are read from: the root, and the folders its reads found real. */
interface Source { root: string; folders: Set<string> }

/**
 * A file of a lazy snapshot: `text` and `error` read together on first use, and again after
 * release(). One object of a fixed shape per file, its accessors on the prototype: a memory of
 * 50,000 files is a 50,000-element array of these (a closure and an accessor pair per file took ~1 KB each).
 */
class LazyFile {
  declare rel: string;
  declare kind: MemFile['kind'];
  declare tier: MemFile['tier'];
  declare date?: string;
  declare size: number;
  declare mtimeMs: number;
  #src: Source;
  #read: Pick<MemFile, 'text' | 'error'> | undefined;

  constructor(info: FileInfo, st: KnownStats, src: Source) {
    Object.assign(this, info);
    this.size = st.size;
    this.mtimeMs = st.mtimeMs;
    this.#src = src;
  }

  #once(): Pick<MemFile, 'text' | 'error'> {
    return (this.#read ??= readOne(this.#src.root, this.rel, this.size, undefined, this.#src.folders));
  }

  get text(): string | undefined { return this.#once().text; }
  get error(): MemFile['error'] { return this.#once().error; }

  /** Does it end in a line break (its last byte, unless it was read)? */
  endsInLineBreak(): boolean {
    return this.#read ? this.#read.text?.endsWith('\n') ?? false : lastByteIsBreak(this.#src.root, this.rel, this.size);
  }

  release(): void { this.#read = undefined; }
}

/**
 * Read the memory at `root` once. Never throws for a bad file: the file carries its error.
 * With `lazy`, the walk and the stats happen now and each file's text on its first use (`text`
 * and `error` are read together, once): `health --quiet` reuses unchanged files' findings and
 * never reads them. `seen` is told each memory file as the walk finds it (health starts its
 * first pass's worker during the walk).
 */
export function loadSnapshot(root: string, opts: { lazy?: boolean; seen?: (f: MemFile) => void } = {}): Snapshot {
  const files: MemFile[] = [];
  const tempFiles: PlainFile[] = [];
  const otherFiles: PlainFile[] = [];
  const strays: Snapshot['strays'] = [];
  const rotating: PlainFile[] = [];
  const locks: PlainFile[] = [];
  const special: SpecialPath[] = [];
  let trashBytes = 0;
  const folders = new Set<string>();
  const src: Source = { root, folders };

  const addMd = (rel: string, st: KnownStats): void => {
    const { size, mtimeMs } = st;
    const f: MemFile = opts.lazy ? new LazyFile(classify(rel), st, src) : { ...classify(rel), size, mtimeMs, ...readOne(root, rel, size, st, folders) };
    files.push(f);
    opts.seen?.(f);
  };
  const walk = (relDir: string): void => {
    let ents;
    try { ents = readdirSync(join(root, relDir), { withFileTypes: true }); } catch { return; }
    const names = new Set(ents.map((d) => d.name));
    for (const d of ents) {
      const rel = `${relDir}/${d.name}`;
      if (d.isDirectory()) {
        if (rel === PATHS.trash) { trashBytes += dirBytes(join(root, rel)); continue; }
        if (rel === `${PATHS.memoryDir}/.rotating`) {
          dirBytes(join(root, rel), (r, size, mtimeMs) => rotating.push({ rel: `${rel}/${r}`, size, mtimeMs }));
          continue;
        }
        if (SKIP.has(d.name) || d.name.startsWith('.')) continue;
        walk(rel);
      } else if (d.isFile()) {
        const st = stat(join(root, rel));
        if (!st) continue;
        if (d.name.includes(TEMP_MARK)) tempFiles.push({ rel, size: st.size, mtimeMs: st.mtimeMs });
        else if (d.name.endsWith('.md')) addMd(rel, st);
        else {
          otherFiles.push({ rel, size: st.size, mtimeMs: st.mtimeMs });
          const what = strayKind(d.name, names);
          if (what) strays.push({ rel, size: st.size, mtimeMs: st.mtimeMs, what });
        }
      } else if (!d.name.startsWith('.') && (d.name.endsWith('.md') || d.isSymbolicLink())) {
        expect(root, rel, d.name.endsWith('.md') ? 'file' : 'folder', special);
      }
    }
  };

  let top: string[] = [];
  try { top = readdirSync(root); } catch { /* missing root: empty snapshot */ }
  const topNames = new Set(top);
  for (const name of top.sort()) {
    // at the root (often a workspace with files of its own) only leftovers of memtier's root files
    const what = (ROOT_FILES as readonly string[]).some((f) => name !== f && name.includes(f)) ? strayKind(name, topNames) : undefined;
    if (what) {
      const st = stat(join(root, name));
      if (st?.file) strays.push({ rel: name, size: st.size, mtimeMs: st.mtimeMs, what });
    } else if ((ROOT_FILES as readonly string[]).includes(name)) {
      const st = stat(join(root, name));
      if (expect(root, name, 'file', special) && st?.file) addMd(name, st);
    } else if (name.includes(TEMP_MARK)) {
      const st = stat(join(root, name));
      if (st?.file) tempFiles.push({ rel: name, size: st.size, mtimeMs: st.mtimeMs });
    }
  }
  for (const top of [PATHS.memoryDir, PATHS.knowledge]) if (expect(root, top, 'folder', special)) walk(top);
  // memory/.trash in a file's or a link's place is the `trash` check's (one finding, with its own advice)
  expect(root, `${PATHS.memoryDir}/.rotating`, 'folder', special);
  const stateOk = expect(root, PATHS.state, 'folder', special);
  if (stateOk) {
    for (const rel of [`${PATHS.state}/lock`, `${PATHS.state}/index`]) expect(root, rel, rel.endsWith('lock') ? 'file' : 'folder', special);
  }
  const stateBytes = !stateOk ? 0 : dirBytes(join(root, PATHS.state), (r, size, mtimeMs) => {
    const rel = `${PATHS.state}/${r}`;
    if (r.includes(TEMP_MARK)) tempFiles.push({ rel, size, mtimeMs });
    else if (r === 'lock' || r.startsWith('lock.stale-')) locks.push({ rel, size, mtimeMs });
  });
  const gitLock = stat(join(root, '.git', 'index.lock'));
  if (gitLock?.file) locks.push({ rel: '.git/index.lock', size: gitLock.size, mtimeMs: gitLock.mtimeMs });

  const byPath = (a: { rel: string }, b: { rel: string }): number => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0);
  return assemble(root, files, {
    tempFiles: tempFiles.sort(byPath),
    rotating: rotating.sort(byPath),
    locks: locks.sort(byPath),
    trashBytes,
    stateBytes,
    otherFiles: otherFiles.sort(byPath),
    strays: strays.sort(byPath),
    special: special.sort(byPath),
  });
}

/**
 * A lazy snapshot of the memory files another snapshot walked (their paths and stats, as
 * `files` lists them), without walking again: each file read on its first use. Only its files
 * (no leftovers, locks or special paths): what a health worker thread needs to summarize some of
 * them (health/first-pass.ts).
 */
export function lazySnapshotOf(root: string, files: readonly PlainFile[]): Snapshot {
  const src: Source = { root, folders: new Set() };
  const list: MemFile[] = files.map((f) => new LazyFile(classify(f.rel), { ino: 0, size: f.size, mtimeMs: f.mtimeMs }, src));
  return assemble(root, list, { tempFiles: [], rotating: [], locks: [], trashBytes: 0, stateBytes: 0, otherFiles: [], strays: [], special: [] });
}

/** The snapshot over `files` (sorted here) and what else the walk found. */
function assemble(root: string, files: MemFile[], rest: Omit<Snapshot, 'root' | 'files' | 'byRel' | 'lines' | 'entries' | 'release' | 'endsInLineBreak'>): Snapshot {
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const byRel = new Map(files.map((f) => [f.rel, f]));
  const lineCache = new WeakMap<MemFile, string[]>();
  const entryCache = new WeakMap<MemFile, LocatedEntry[]>();
  return {
    root,
    files,
    byRel,
    ...rest,
    lines(f) {
      let l = lineCache.get(f);
      if (!l) { l = (f.text ?? '').split('\n'); lineCache.set(f, l); }
      return l;
    },
    release(f) {
      if (!(f instanceof LazyFile)) return;
      f.release();
      lineCache.delete(f);
      entryCache.delete(f);
    },
    endsInLineBreak(f) {
      return f instanceof LazyFile ? f.endsInLineBreak() : f.text?.endsWith('\n') ?? false;
    },
    entries(f) {
      let e = entryCache.get(f);
      if (!e) { e = f.text === undefined ? [] : parseEntries(f.text); entryCache.set(f, e); }
      return e;
    },
  };
}

/** Files of the given kinds, readable ones only. */
export function filesOf(snap: Snapshot, ...kinds: MemFile['kind'][]): MemFile[] {
  return snap.files.filter((f) => kinds.includes(f.kind) && f.text !== undefined);
}
