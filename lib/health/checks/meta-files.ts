import { lstatSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { MemtierError } from '../../core/errors.js';
import { classify, LEGACY_PATHS, listMemoryFiles, PATHS } from '../../format/layout.js';
import { openStore, type Tx } from '../../store/store.js';
import type { Check, Finding } from '../types.js';

/** memtier's reference files, where memories made before they moved hold them, and where they go. */
const META = [
  { from: LEGACY_PATHS.tags, to: PATHS.tags, what: 'the tag vocabulary' },
  { from: LEGACY_PATHS.format, to: PATHS.format, what: 'the file-format contract' },
] as const;

/** What to do with one reference file found under memory/: move it, trash it (the root holds the same bytes), or leave it (the root holds other content). */
interface Planned { from: string; to: string; what: string; state: 'move' | 'same' | 'differs' }

const fileAt = (root: string, rel: string): { file: boolean } | undefined => {
  try { return { file: lstatSync(join(root, rel)).isFile() }; } catch { return undefined; }
};

/** The reference files under memory/ (regular files only: a link or a folder is the file-types check's), read from the disk. */
function plan(root: string): Planned[] {
  const out: Planned[] = [];
  for (const m of META) {
    if (!fileAt(root, m.from)?.file) continue;
    const there = fileAt(root, m.to);
    let state: Planned['state'] = 'move';
    if (there) {
      let same = false;
      try { same = there.file && readFileSync(join(root, m.from)).equals(readFileSync(join(root, m.to))); } catch { /* unreadable: not the same */ }
      state = same ? 'same' : 'differs';
    }
    out.push({ ...m, state });
  }
  return out;
}

const CODE_SPAN = /(`+)[\s\S]*?\1/y;
const INLINE_LINK = /\]\([ \t]*(<?)([^)\s>]+)/y;
const DEFINITION = /^([ ]{0,3}\[[^\]]+\]:[ \t]*)(<?)(\S+?)(>?)(?=\s|$)/;

/**
 * A link target as it would be after the moves (root-relative unless it starts with `./` or `../`,
 * which are relative to the file's folder, as memtier reads links), or undefined when it does not
 * point at a moved file.
 */
function movedTarget(url: string, dir: string, moved: ReadonlyMap<string, string>): string | undefined {
  const hash = url.indexOf('#');
  const path = hash >= 0 ? url.slice(0, hash) : url;
  const frag = hash >= 0 ? url.slice(hash) : '';
  if (path === '' || /^[a-z][a-z0-9+.-]*:/i.test(path)) return undefined;
  const relative = path.startsWith('./') || path.startsWith('../');
  const lead = relative ? '' : /^\/*/.exec(path)![0];
  const resolved = posix.normalize(relative ? posix.join(dir, path) : path.slice(lead.length));
  const to = moved.get(resolved);
  if (to === undefined) return undefined;
  if (!relative) return lead + to + frag;
  const r = posix.relative(dir, to);
  return (r.startsWith('../') ? r : `./${r}`) + frag;
}

/**
 * `text` (the file `rel`) with the links to moved reference files rewritten: inline links
 * `](memory/TAGS.md)` and `](../TAGS.md)`-style relative ones, link definitions, and the
 * `Format: memory/FORMAT.md` of memtier's HTML comments (MEMORY.md's, the facts graph's). Nothing
 * else changes; code spans and fenced code are left as they are. Returns the text and how many
 * targets changed.
 */
export function rewriteMetaLinks(text: string, rel: string, moved: ReadonlyMap<string, string>): { text: string; changed: number } {
  const dir = posix.dirname(rel);
  let changed = 0;
  let fence: string | undefined;
  const lines = text.split('\n').map((line) => {
    const f = /^[ ]{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1]![0]!.repeat(f[1]!.length);
      else if (f[1]![0] === fence[0] && f[1]!.length >= fence.length) fence = undefined;
      return line;
    }
    if (fence !== undefined) return line;
    let out = line;
    const def = DEFINITION.exec(out);
    if (def) {
      const to = movedTarget(def[3]!, dir, moved);
      if (to !== undefined) { changed++; out = def[1]! + def[2]! + to + def[4]! + out.slice(def[0].length); }
    }
    if (!out.includes('](')) return out;
    let res = '';
    let i = 0;
    while (i < out.length) {
      CODE_SPAN.lastIndex = i;
      const code = out[i] === '`' ? CODE_SPAN.exec(out) : null;
      if (code) { res += code[0]; i += code[0].length; continue; }
      INLINE_LINK.lastIndex = i;
      const link = out[i] === ']' ? INLINE_LINK.exec(out) : null;
      if (link) {
        const to = movedTarget(link[2]!, dir, moved);
        if (to !== undefined) { changed++; res += link[0].slice(0, link[0].length - link[2]!.length) + to; }
        else res += link[0];
        i += link[0].length;
        continue;
      }
      res += out[i];
      i++;
    }
    return res;
  });
  let next = lines.join('\n');
  const format = moved.get(LEGACY_PATHS.format);
  if (format !== undefined && next.includes('<!--')) {
    next = next.replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/(Format:[ \t]*)memory\/FORMAT\.md\b/g, (_m, p: string) => { changed++; return p + format; }));
  }
  return { text: next, changed };
}

/** Rewrite the links to the moved files in every memory file that names them. Returns one line per file changed (or left). */
function rewriteLinks(tx: Tx, root: string, moved: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const rel of listMemoryFiles(root)) {
    const kind = classify(rel).kind;
    if (kind === 'tags' || kind === 'format') continue;
    // a cheap look at the bytes first: only a file naming TAGS.md or FORMAT.md is read as text
    let raw: Buffer;
    try { raw = readFileSync(join(root, rel)); } catch { continue; }
    if (!raw.includes('TAGS.md') && !raw.includes('FORMAT.md')) continue;
    try {
      const cur = tx.read(rel);
      if (cur === undefined) continue;
      const r = rewriteMetaLinks(cur, rel, moved);
      if (r.changed === 0 || r.text === cur) continue;
      tx.write(rel, r.text, { expected: cur });
      out.push(`rewrote ${r.changed} link${r.changed === 1 ? '' : 's'} in ${rel} to ${[...moved.values()].join(' and ')}`);
    } catch (e) {
      if (!(e instanceof MemtierError)) throw e;
      out.push(`left the links in ${rel} as they are: ${e.message}`);
    }
  }
  return out;
}

/** #31 finding 5: memtier's reference files live at the root, not under memory/ where memory indexers read them as memory. */
export const check: Check = {
  id: 'meta-files',
  description: 'memtier\'s reference files TAGS.md and FORMAT.md are at the root, not under memory/ where memory indexers read them as memory; --fix moves them and rewrites the links to them',
  severity: 'warn',
  fixable: true,
  source: 'issue #31 (finding 5)',
  doc: {
    trigger: 'memory/TAGS.md or memory/FORMAT.md, where memories made before memtier moved them to the root hold them',
    failing: 'memory/TAGS.md, memory/FORMAT.md; MEMORY.md says `- [Tags](memory/TAGS.md) — the frozen tag vocabulary`',
    fixed: 'TAGS.md, FORMAT.md beside MEMORY.md (moved, not changed); MEMORY.md says `- [Tags](TAGS.md) — the frozen tag vocabulary`',
    why: 'tools that index memory/**/*.md as the agent\'s memory (OpenClaw\'s memory-core) return lines of the file-format contract and the tag list as top answers: after `memtier init`, memory-core\'s hit@5 fell from 0.60 to 0.35',
  },
  run(snap) {
    const out: Finding[] = [];
    for (const p of plan(snap.root)) {
      const base = `memtier's reference file (${p.what}) under memory/, where memory indexers (OpenClaw's memory-core) read it as memory`;
      if (p.state === 'differs') {
        out.push({
          check: 'meta-files', severity: 'warn', file: p.from,
          message: `${base}; ${p.to} already exists with other content, so it is not moved (memtier reads ${p.to})`,
          fix: `merge what ${p.from} holds into ${p.to} by hand, then remove ${p.from}`,
          fixable: false,
        });
      } else {
        out.push({
          check: 'meta-files', severity: 'warn', file: p.from,
          message: `${base}: it belongs at the root as ${p.to}${p.state === 'same' ? ` (${p.to} already holds the same text)` : ''}`,
          fix: `run "memtier health --fix": it ${p.state === 'same' ? `moves ${p.from} to the trash` : `moves it to ${p.to}`} and rewrites the links to it (MEMORY.md's, and any in memory files)`,
          fixable: true,
        });
      }
    }
    return { findings: out, figures: { underMemory: out.length } };
  },
  fix(findings, snap, env) {
    if (!findings.some((f) => f.fixable)) return [];
    return openStore(env.ctx).mutate((tx) => {
      const out: string[] = [];
      const moved = new Map<string, string>();
      // planned again under the lock: the disk is the truth, not the snapshot
      for (const p of plan(snap.root)) {
        if (p.state === 'differs') continue;
        if (p.state === 'move') {
          tx.move(p.from, p.to);
          out.push(`moved ${p.from} → ${p.to}`);
        } else {
          const trashed = tx.trash(p.from);
          out.push(`${p.to} already holds the same text: moved ${p.from} to ${trashed}`);
        }
        moved.set(p.from, p.to);
      }
      if (moved.size) out.push(...rewriteLinks(tx, snap.root, moved));
      return out;
    });
  },
};
