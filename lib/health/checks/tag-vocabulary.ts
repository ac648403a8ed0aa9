import { extractTags } from '../../format/entry.js';
import { LEGACY_PATHS, PATHS } from '../../format/layout.js';
import type { Check, CheckEnv, Finding } from '../types.js';
import { arrayOf, isNum, isStr, summaryOf } from '../summary.js';
import { headLines, TAGS_LINE, parseTagList } from '../markdown.js';
import { parseVocabulary } from '../vocabulary.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';
import { hasInvisible, showInvisible } from '../../store/guards/text.js';

const WARM = new Set<MemFile['kind']>(['semantic', 'procedural', 'knowledge']);
const SKIP = new Set<MemFile['kind']>(['tags', 'format', 'palace', 'review', 'dreams', 'archive']);

/** Text an inline tag can hide in without being a tag: link targets and code spans. */
const stripNonTags = (s: string): string => s.replace(/\]\([^)]*\)/g, ']').replace(/`[^`]*`/g, ' ');

/** A file's tags as [tag, line, on its tags line (1) or in an entry (0)]. */
type TagUse = [string, number, number];
const isUse = (x: unknown): x is TagUse => Array.isArray(x) && x.length === 3 && isStr(x[0]) && isNum(x[1]) && isNum(x[2]);

function fileTags(snap: Snapshot, f: MemFile): TagUse[] {
  const out: TagUse[] = [];
  if (f.text === undefined) return out;
  if (WARM.has(f.kind)) {
    const m = TAGS_LINE.exec(headLines(f.text, 2)[1] ?? '');
    if (m) for (const t of parseTagList(m[1]!)) out.push([t, 2, 1]);
  }
  for (const e of snap.entries(f)) for (const t of extractTags(stripNonTags(e.text))) out.push([t, e.line, 0]);
  return out;
}

/** fileTags of `f`, kept per file. */
const keptTags = (snap: Snapshot, f: MemFile, env: CheckEnv): TagUse[] => summaryOf(env, 'tag-vocabulary', f, () => fileTags(snap, f), (x) => arrayOf(x, isUse));

/** Every tag the memory uses: WARM notes' tags lines and inline #tags of entries (not in TAGS.md itself, generated views or the archive). */
export function usedTags(snap: Snapshot, env?: CheckEnv): { tag: string; file: MemFile; line: number; where: string }[] {
  const out: { tag: string; file: MemFile; line: number; where: string }[] = [];
  for (const f of snap.files) {
    if (SKIP.has(f.kind)) continue;
    const uses = env ? keptTags(snap, f, env) : fileTags(snap, f);
    for (const [tag, line, onTagsLine] of uses) out.push({ tag, file: f, line, where: onTagsLine ? 'on the tags line' : 'in an entry' });
  }
  return out;
}

/** The vocabulary's file: TAGS.md, or memory/TAGS.md in a memory made before it moved (layout.tagsFile). */
const vocabularyFile = (snap: Snapshot): MemFile | undefined => snap.byRel.get(PATHS.tags) ?? snap.byRel.get(LEGACY_PATHS.tags);

/** Seed 004 invariant 2: only tags from the frozen vocabulary TAGS.md. */
export const check: Check = {
  id: 'tag-vocabulary',
  description: 'every tag (tags lines and inline #tags) is in the frozen vocabulary TAGS.md',
  severity: 'warn',
  fixable: false,
  source: 'seed 004 #2',
  doc: {
    trigger: 'a tag that TAGS.md does not list (`#friction` is always allowed), on a WARM note\'s tags line or in an entry: upkeep (a WARN), since `add` and `wal` already refuse unknown tags and a person\'s own hashtags are theirs to keep or add to the vocabulary',
    failing: 'TAGS.md lists `infrastructure: docker, ssh`; an entry says `- 09:10 [TECH] moved the NAS #storage ^k2j3mx0a`',
    fixed: '`- 09:10 [TECH] moved the NAS #docker ^k2j3mx0a`, or add `storage` to TAGS.md on purpose',
    why: 'a frozen vocabulary keeps grep-by-tag complete: a synonym nobody searches for hides the fact it labels',
  },
  run(snap, env) {
    const tagsFile = vocabularyFile(snap);
    if (!tagsFile || tagsFile.text === undefined) return { findings: [], skipped: `no ${PATHS.tags} (no frozen vocabulary to check against)` };
    const named = tagsFile.rel;
    const vocab = parseVocabulary(tagsFile.text);
    const out: Finding[] = [];
    const report = (f: MemFile, line: number, tag: string, where: string): void => {
      out.push({
        check: 'tag-vocabulary',
        severity: 'warn',
        file: f.rel,
        line,
        // a look-alike's invisible character shown as its escape ("infra\u200bstructure")
        message: `tag "${showInvisible(tag)}" ${where} is not in ${named}${hasInvisible(tag) ? ' (it holds an invisible character, shown escaped)' : ''}`,
        fix: hasInvisible(tag) ? `remove the invisible character, or use a tag from ${named}` : `use a tag from ${named}, or add "${tag}" there if it is a new topic`,
      });
    };
    for (const u of usedTags(snap, env)) if (!vocab.has(u.tag)) report(u.file, u.line, u.tag, u.where);
    return { findings: out, figures: { vocabulary: vocab.size } };
  },
  // run() looks at the tags only when TAGS.md (or an unmoved memory/TAGS.md) can be read
  summarize: (snap, env) => (vocabularyFile(snap)?.text === undefined ? undefined : (f) => { if (!SKIP.has(f.kind)) keptTags(snap, f, env); }),
};
