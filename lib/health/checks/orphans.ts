import type { Check, CheckEnv, Finding } from '../types.js';
import { isNum, summaryOf } from '../summary.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';
import { isClosureLine } from '../../format/closure.js';

/** Logs whose entries should carry a type; memtier-managed ones warn, hand-kept ones inform. */
const MANAGED = new Set<MemFile['kind']>(['buffer', 'episodic']);
const HAND = new Set<MemFile['kind']>(['legacy-daily', 'archive']);

/** Seed 002's orphans: entries with neither a [TYPE] nor a #tag cannot be classified, decayed or routed. */
export const check: Check = {
  id: 'orphans',
  description: 'log entries have a [TYPE] or a #tag (seed 002 "orphans"); counted per file; an untimed line a person wrote in a day is their note, not an orphan',
  severity: 'warn',
  fixable: false,
  source: 'seed 002 orphans',
  doc: {
    trigger: 'a timed bullet (memtier\'s shape) in the buffer or an episodic day with neither a `[TYPE]` nor a `#tag` (OpenClaw daily files and the archive only inform)',
    failing: '- 14:02 talked to Ana about the migration',
    fixed: '- 14:02 [PEOPLE] talked to Ana about the migration #projects ^k2j3mx0a',
    why: 'the type decides an entry\'s canonical home and its half-life; an untyped entry is never promoted, extracted or decayed correctly',
  },
  run(snap, env) {
    const out: Finding[] = [];
    let total = 0;
    for (const f of snap.files) {
      if (!(MANAGED.has(f.kind) || HAND.has(f.kind))) continue;
      const kept = keptOrphans(snap, f, env);
      if (kept === null) continue;
      const [count, first] = kept;
      total += count;
      out.push({
        check: 'orphans',
        severity: MANAGED.has(f.kind) ? 'warn' : 'info',
        file: f.rel,
        line: first,
        message: `${count} ${count === 1 ? 'entry has' : 'entries have'} no [TYPE] and no #tag`,
        fix: f.kind === 'legacy-daily' ? 'run "memtier adopt" to bring the file into the model' : 'run "memtier classify" (types them by the extraction rules), or add a type such as [EVENT] or [DECISION] after the time',
      });
    }
    return { findings: out, figures: { orphans: total } };
  },
  summarize: (snap, env) => (f) => { if (MANAGED.has(f.kind) || HAND.has(f.kind)) keptOrphans(snap, f, env); },
};

/** A log's entries without a type or a tag as [how many, the first one's line] (null: none), kept per file. */
function keptOrphans(snap: Snapshot, f: MemFile, env: CheckEnv): [number, number] | null {
  return summaryOf(env, 'orphans', f, (): [number, number] | null => {
    if (f.text === undefined) return null;
    // a memtier log line has its time; an untimed bullet in a day is a person's own note (OpenClaw's
    // daily notes, adopted): not an entry to type by hand, and the extraction rules read it anyway
    // (review lists what they find)
    const orphans = snap.entries(f).filter((e) => !e.type && e.tags.length === 0 && !e.superseded && !isClosureLine(e.raw) && (f.kind === 'buffer' || e.time !== undefined || f.kind === 'legacy-daily'));
    return orphans.length === 0 ? null : [orphans.length, orphans[0]!.line];
  }, (x): [number, number] | null | undefined => (x === null ? null : Array.isArray(x) && x.length === 2 && isNum(x[0]) && isNum(x[1]) ? [x[0], x[1]] : undefined));
}
