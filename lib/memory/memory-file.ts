/**
 * The one rule for what a reader of single files may print: `memtier get`, MCP's memory_get (it
 * runs get) and memtier:/// resources, OpenClaw's memory_get (it runs get). A memory file is what
 * listMemoryFiles lists (format/layout.ts isMemoryPath): the root files memtier knows, and .md
 * files under memory/ and knowledge/ outside dot folders. Everything else under the root — .git/,
 * .env, .ssh/, .memtier/, the trash, AGENTS.md, code — is refused before a byte of it is read.
 */
import { isAbsolute, normalize, relative, sep } from 'node:path';
import { MemtierError } from '../core/errors.js';
import { isMemoryPath, MEMORY_PATHS_TEXT } from '../format/layout.js';
import { resolveInside } from '../store/guards/paths.js';

/**
 * `given` (a root-relative path, `./`-prefixed or absolute inside the root) as the root-relative
 * path of a memory file, forward slashes: throws `path` (path-containment: it leaves the root, goes
 * through a link, holds a control character) or `not-memory` (under the root, but not memory).
 * Nothing is read; whether the file exists is the reader's business.
 */
export function memoryFileRel(root: string, given: string): string {
  let rel = given;
  if (isAbsolute(rel)) {
    const r = relative(root, rel);
    if (r && !r.startsWith('..') && !isAbsolute(r)) rel = r.split(sep).join('/');
  }
  rel = rel.replace(/^\.\/+/, '');
  resolveInside(root, rel);
  const norm = normalize(rel).split(sep).join('/').replace(/\/+$/, '');
  if (!isMemoryPath(norm)) {
    const shown = rel.length > 200 ? `${rel.slice(0, 200)}…` : rel;
    throw new MemtierError(`not a memory file: only ${MEMORY_PATHS_TEXT} can be read`, {
      code: 'not-memory',
      rule: 'memory-files-only',
      file: shown,
      hint: 'give a memory path as search, recall and boot print it (e.g. memory/episodic/2026-05-14.md); nothing else under the root (.git, .env, .memtier, the trash) is memory',
    });
  }
  return norm;
}
