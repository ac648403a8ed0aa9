import { CANONICAL_HOME, isEntryType, type EntryType } from '../../format/entry.js';
import type { Check, CheckEnv, Finding } from '../types.js';
import { arrayOf, isNum, isStr, summaryOf } from '../summary.js';
import { factKey } from '../markdown.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';

/** Where facts live (logs repeat facts on purpose: an episodic decision is extracted to decisions.md). */
export const FACT_KINDS = new Set<MemFile['kind']>(['memory-index', 'semantic', 'procedural', 'knowledge', 'graph', 'note']);

export interface FactOcc { f: MemFile; e: { line: number; type?: EntryType }; key: string }

/** A file's facts worth comparing as [line, key, type or ""]. */
type FileFact = [number, string, EntryType | ''];
const isFact = (x: unknown): x is FileFact => Array.isArray(x) && x.length === 3 && isNum(x[0]) && isStr(x[1]) && (x[2] === '' || (isStr(x[2]) && isEntryType(x[2])));

/** The fact entries of one file worth comparing: at least 4 words and 20 characters once normalized. */
function fileFacts(snap: Snapshot, f: MemFile): FileFact[] {
  const out: FileFact[] = [];
  if (f.text === undefined) return out;
  for (const e of snap.entries(f)) {
    if (e.superseded) continue;
    const key = factKey(e);
    if (key.length >= 20 && key.split(' ').length >= 4) out.push([e.line, key, e.type ?? '']);
  }
  return out;
}

/** fileFacts of `f`, kept per file. */
const keptFacts = (snap: Snapshot, f: MemFile, env: CheckEnv): FileFact[] => summaryOf(env, 'canonical-home', f, () => fileFacts(snap, f), (x) => arrayOf(x, isFact));

/** Fact entries worth comparing, in the files of `kinds` (each file's kept between full runs through `env`). */
export function factOccurrences(snap: Snapshot, kinds: Set<MemFile['kind']>, env?: CheckEnv): FactOcc[] {
  const out: FactOcc[] = [];
  for (const f of snap.files) {
    if (!kinds.has(f.kind)) continue;
    const facts = env ? keptFacts(snap, f, env) : fileFacts(snap, f);
    for (const [line, key, type] of facts) out.push({ f, e: type ? { line, type } : { line }, key });
  }
  return out;
}

/** Seed 004's canonical owner rule: the same fact written in two files. */
export const check: Check = {
  id: 'canonical-home',
  description: 'each fact has one home: the same fact text does not appear in two files',
  severity: 'warn',
  fixable: false,
  source: 'seed 004 canonical owner',
  doc: {
    trigger: 'the same entry text (ignoring case, punctuation, time, type, tags and ^id) in two of MEMORY.md, semantic, procedural, knowledge, graph notes and loose notes',
    failing: 'memory/semantic/preferences.md and MEMORY.md both say `- Reports are written in British English`',
    fixed: 'memory/semantic/preferences.md keeps the fact; MEMORY.md links to it: `- [Preferences](memory/semantic/preferences.md) — British English`',
    why: 'two copies drift apart: one gets corrected, the other keeps the old value, and recall returns both',
  },
  run(snap, env) {
    const groups = new Map<string, FactOcc[]>();
    for (const o of factOccurrences(snap, FACT_KINDS, env)) {
      const g = groups.get(o.key);
      if (g) g.push(o); else groups.set(o.key, [o]);
    }
    const out: Finding[] = [];
    for (const g of groups.values()) {
      if (new Set(g.map((o) => o.f.rel)).size < 2) continue;
      const type = g.find((o) => o.e.type)?.e.type;
      const home = type ? CANONICAL_HOME[type] : undefined;
      const keep = g.find((o) => home && o.f.rel.startsWith(home)) ?? g.find((o) => o.f.kind !== 'memory-index') ?? g[0]!;
      for (const o of g) {
        if (o === keep || o.f.rel === keep.f.rel) continue;
        out.push({
          check: 'canonical-home',
          severity: 'warn',
          file: o.f.rel,
          line: o.e.line,
          message: `same fact as ${keep.f.rel}:${keep.e.line}${home ? ` (its home is ${home})` : ''}`,
          fix: `keep it in ${keep.f.rel} and replace this copy with a link, or remove it`,
        });
      }
    }
    return out;
  },
  summarize: (snap, env) => (f) => { if (FACT_KINDS.has(f.kind)) keptFacts(snap, f, env); },
};
