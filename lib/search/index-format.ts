/**
 * The index cache's on-disk format (what is written and how it is read back): `.memtier/index/` (derived, versioned, rebuildable; deleting it loses
 * nothing; gitignored with the rest of .memtier). Read lazily, never stale. Binary, so a cold
 * query parses almost nothing (no JSON for postings, no object per file or posting). It holds no
 * copy of the text: an entry's text, heading and tags are read back from its memory file.
 *
 *   .memtier/index/manifest.json   { v, tok, build, shards, N, totalLen, slots, nfiles,
 *                                    paths: "p0\np1\n…", dirs: [[dir, mtimeMs, [subdirs], first, count]] }
 *   .memtier/index/<build>/files.bin  Float64 mtimeMs[nfiles], Float64 size[nfiles],
 *                                    Int32 entries[nfiles], Int32 len[nfiles], Int32 info[nfiles],
 *                                    Int32 entryLen[slots]
 *                                    (info: the file's layout class, kinds[info & 31], and its
 *                                    day as YYYYMMDD in info >>> 5 — no path regex per query)
 *   .memtier/index/<build>/t-<n>.bin  term shard n (the terms whose termHash % shards is n):
 *                                    u32 terms, u32 tableAt, then each term's postings as unsigned
 *                                    LEB128 varints, per posting the slot's distance from the
 *                                    previous posting's (the first: the slot itself) and
 *                                    tf << 1 | tag; then the table: per term u32 byte offset of its
 *                                    postings (from byte 8), u32 postings, u16 bytes, the term in UTF-8
 *
 * Files are listed folder by folder (a folder's files are contiguous: first, count). A slot is an
 * entry's number over all files (file's first slot + entry index).
 *
 * Freshness, per query (the "never stale" rule): every folder is stat'ed; a folder whose mtime is
 * unchanged has the same entries as at build time (adds, removes and renames change it), so its
 * files are taken from the manifest and only changed folders are listed again. Then every file
 * is stat'ed, one statSync each (an in-place append changes only the file; measured cheaper than
 * parallel fs.stat through libuv, whose callbacks cost the main thread more than they overlap;
 * from PARALLEL_STAT_MIN files a worker thread takes half, statmany.ts): a
 * file whose size or mtime differs, or that is new, is re-read and indexed in memory for this
 * query (its cached postings masked); a file gone is masked. A folder modified within RACY_MS of
 * the build's scan is stored with mtime −1 (always listed), so a file created in the same
 * timestamp tick as the scan is not missed. Only the shards of the query's terms are read; the
 * entries of the few files that reach the final ranking are parsed again from the files
 * themselves (index-view.ts): each was stat-checked unchanged since the build, and is checked
 * again on the descriptor it is read from (a file changed in between: ChangedFileError, and the
 * query runs again on a fresh view), so its entries are exactly those the build indexed (bump
 * CACHE_VERSION whenever the on-disk layout or units.ts's idea of an entry changes, and
 * TOKENIZER_VERSION when the tokenizer does). Past REBUILD_AT changed files (or REBUILD_BYTES) the whole cache
 * is rebuilt. Concurrent builders each write their own build folder and swap the manifest
 * atomically; a reader that meets a vanished build falls back to reading the files
 * (StaleBuildError → search.ts withIndex). The writer is index-build.ts (streamed: postings are
 * spilled to disk by term bucket as files are indexed, and each bucket's shards written at the end).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FileInfo } from '../format/layout.js';
import { stateDirProblem } from '../store/state-dir.js';
import { tokenizerConfigKey, TOKENIZER_VERSION } from './tokenize.js';

export const INDEX_DIR = '.memtier/index';
export const NOENT = { throwIfNoEntry: false } as const;
/** 8: no units.json (entries read back from the memory files), varint postings, no unitsAt; 9: a dated note under memory/ (Daily/2026-11-20.md) carries its day; 10: a table with no rows under a heading is no unit; 11: "2026-11-20 Friday.md" is dated too; 12: `- 2026-11-24 [DECISION] …` (a day without a time, before a type) is a typed entry, Logseq's journals/2026_11_24.md is dated, a page's `tags::`/`alias::` properties are its frontmatter, and a note with no title is titled by its name; 13: a Notion page's property lines under its title give its tags and day; 15: MEMORY.md's "Last reviewed:" line is no unit. */
export const CACHE_VERSION = 15;
/** Rebuild the cache when more files than this changed since it was built. */
export const REBUILD_AT = 24;
export const REBUILD_BYTES = 2 * 1024 * 1024;
/** Postings per shard the writer aims at. */
export const SHARD_POSTINGS = 4000;
/** A folder modified this close to the build's scan is always listed again (same-tick creations). */
export const RACY_MS = 1000;

export type DirRow = [dir: string, mtimeMs: number, subdirs: string[], first: number, count: number];
export interface Manifest { v: number; tok: string; build: string; shards: number; N: number; totalLen: number; slots: number; nfiles: number; paths: string; dirs: DirRow[]; kinds: [FileInfo['kind'], FileInfo['tier']][] }
/** files.bin, as typed-array views over one read. */
export interface FileTable { mtimeMs: Float64Array; size: Float64Array; n: Int32Array; len: Int32Array; info: Int32Array; entryLen: Int32Array }

/** The build named by the manifest is gone or damaged: the query falls back to the files (and rebuilds). */
export class StaleBuildError extends Error {}
/** A file changed between the freshness check and the read of its entries: the query runs again on a fresh view. */
export class ChangedFileError extends StaleBuildError {}

/** A manifest with its file table and paths (openManifest). */
export interface OpenManifest { m: Manifest; ft: FileTable; paths: string[] }

/** The tokenizer's version and CJK configuration: an index built with another is rebuilt. */
export function tokenizerKey(): string {
  return `${TOKENIZER_VERSION}:${tokenizerConfigKey()}`;
}

/** FNV-1a 32-bit. */
export function termHash(t: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < t.length; i++) {
    h ^= t.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function readManifest(root: string): Manifest | undefined {
  if (stateDirProblem(root, 'index')) return undefined; // a linked .memtier/ is never read nor written (health reports it)
  try {
    const m = JSON.parse(readFileSync(join(root, INDEX_DIR, 'manifest.json'), 'utf8')) as Manifest;
    if (m.v !== CACHE_VERSION || m.tok !== tokenizerKey() || typeof m.paths !== 'string' || !Array.isArray(m.dirs) || !Array.isArray(m.kinds)) return undefined;
    return m;
  } catch {
    return undefined;
  }
}

/** files.bin of the manifest's build; undefined when the build vanished or is damaged. */
export function readFileTable(root: string, m: Manifest): FileTable | undefined {
  let buf: Buffer;
  try { buf = readFileSync(join(root, INDEX_DIR, m.build, 'files.bin')); } catch { return undefined; }
  const n = m.nfiles;
  if (buf.length !== fileTableBytes(n, m.slots)) return undefined;
  const ab = buf.byteOffset % 8 === 0 ? buf : Buffer.from(buf); // typed views need aligned offsets
  const o = ab.byteOffset;
  const i = o + 16 * n;
  return {
    mtimeMs: new Float64Array(ab.buffer, o, n),
    size: new Float64Array(ab.buffer, o + 8 * n, n),
    n: new Int32Array(ab.buffer, i, n),
    len: new Int32Array(ab.buffer, i + 4 * n, n),
    info: new Int32Array(ab.buffer, i + 8 * n, n),
    entryLen: new Int32Array(ab.buffer, i + 12 * n, m.slots),
  };
}

export function fileTableBytes(nfiles: number, slots: number): number {
  return 16 * nfiles + 4 * (3 * nfiles + slots);
}

export function newBuildName(): string {
  return `b${Date.now().toString(36)}${process.pid.toString(36)}${Math.floor(Math.random() * 0xffffff).toString(36)}`;
}

/** Append `v` (unsigned, < 2^32) to `buf` at `at` as LEB128; returns the next offset. */
export function putVarint(buf: Uint8Array, at: number, v: number): number {
  while (v > 0x7f) { buf[at++] = (v & 0x7f) | 0x80; v >>>= 7; }
  buf[at++] = v;
  return at;
}

/** One term shard, read whole into a Buffer; a term's postings are decoded only when asked. */
export class Shard {
  constructor(private readonly buf: Buffer) {}
  /** The (slot, tf << 1 | tag) pairs of `term`, or undefined. */
  find(term: Buffer): Int32Array | undefined {
    const b = this.buf;
    const count = b.readUInt32LE(0);
    let at = b.readUInt32LE(4);
    for (let j = 0; j < count; j++) {
      const len = b.readUInt16LE(at + 8);
      if (len === term.length && b.compare(term, 0, len, at + 10, at + 10 + len) === 0) return decodePostings(b, 8 + b.readUInt32LE(at), b.readUInt32LE(at + 4));
      at += 10 + len;
    }
    return undefined;
  }
}

/** `n` postings from `at`: varint slot gaps and values → (slot, tf << 1 | tag) pairs. */
function decodePostings(b: Uint8Array, at: number, n: number): Int32Array {
  const out = new Int32Array(n * 2);
  let slot = 0;
  for (let k = 0; k < out.length; k++) {
    let v = 0;
    let shift = 0;
    let c: number;
    do { c = b[at++]!; v |= (c & 0x7f) << shift; shift += 7; } while (c & 0x80);
    v >>>= 0;
    if ((k & 1) === 0) { slot += v; out[k] = slot; } else out[k] = v;
  }
  return out;
}

/** The manifest, its file table and paths, or undefined when missing, of another version, or its build vanished. */
export function openManifest(root: string): OpenManifest | undefined {
  const m = readManifest(root);
  if (!m) return undefined;
  const ft = readFileTable(root, m);
  if (!ft) return undefined;
  const paths = m.nfiles ? m.paths.split('\n') : [];
  return paths.length === m.nfiles ? { m, ft, paths } : undefined;
}
