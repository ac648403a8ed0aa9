import { parseEntryLine } from '../../format/entry.js';
import { openStore } from '../../store/store.js';
import type { Check, CheckEnv, Finding } from '../types.js';
import type { MemFile, Snapshot } from '../../memory/snapshot.js';
import { arrayOf, isStr, summaryOf } from '../summary.js';
import { CLOSURE_KEYS, closureAppend, closureStatus, isClosureLine } from '../../format/closure.js';

/** Seed 004 invariant 6: every past episodic day ends with its closure block. */
export const check: Check = {
  id: 'closure-block',
  description: 'every past episodic day with typed entries ends with a closure block (Updated / Decisions / Signal / Open); --fix appends one built from the entries when the day holds nothing else (free-form days need none)',
  severity: 'warn',
  fixable: true,
  source: 'seed 004 #6',
  doc: {
    trigger: 'a file memory/episodic/YYYY-MM-DD.md dated before today that has typed entries (`- HH:MM [TYPE] …`) and lacks one of the four closure lines after its last entry; a free-form day (headings, paragraphs, untyped bullets) never needs one',
    failing: '# 2026-05-14\n- 09:10 [DECISION] use SQLite for the cache ^k2j3mx0a',
    fixed: '# 2026-05-14\n- 09:10 [DECISION] use SQLite for the cache ^k2j3mx0a\n\n## Closure\nUpdated: 2026-05-14\nDecisions: use SQLite for the cache (^k2j3mx0a)\nSignal: none\nOpen: none',
    why: 'the closure block is the day\'s summary an agent reads instead of the whole log, and the weekly review extracts decisions and signals from it; a missing block means the day was never closed',
  },
  run(snap, env) {
    const out: Finding[] = [];
    for (const f of pastDays(snap, env.today)) {
      const kept = keptGap(snap, f, env);
      if (kept === null) continue;
      const [missing, mixed] = kept;
      out.push({
        check: 'closure-block',
        severity: 'warn',
        file: f.rel,
        message: `${missing.length === CLOSURE_KEYS.length ? 'past day without a closure block' : `closure block lacks ${missing.join(', ')}`}${mixed ? ' (the day also holds free-form text, which --fix cannot summarize)' : ''}`,
        fix: mixed
          ? `write the closure block by hand from the whole day, or run "memtier close-day --file ${f.rel}" (built from the typed entries only) and check it against the text`
          : `run "memtier close-day --file ${f.rel}" (or "memtier health --fix"), then review the values`,
        fixable: !mixed,
      });
    }
    return out;
  },
  summarize: (snap, env) => (f) => { if (isPastDay(f, env.today)) keptGap(snap, f, env); },
  fix(findings, snap, env) {
    const done: string[] = [];
    const targets = findings.map((x) => snap.byRel.get(x.file ?? '')).filter((f): f is MemFile => f !== undefined && f.text !== undefined);
    if (targets.length === 0) return done;
    openStore(env.ctx).mutate((tx) => {
      for (const f of targets) {
        const cur = tx.read(f.rel);
        if (cur === undefined || cur !== f.text) { done.push(`skipped ${f.rel}: changed since it was read`); continue; }
        // the same block `memtier close-day` writes, built from the day's entries
        const plan = closureAppend(f.date!, cur);
        if (plan.append === undefined) continue;
        tx.append(f.rel, plan.append);
        done.push(`appended a closure block to ${f.rel} (from its entries: review the values)`);
      }
    });
    return done;
  },
};

/** Is f a dated episodic day before today? */
const isPastDay = (f: MemFile, today: string): boolean => f.kind === 'episodic' && f.date !== undefined && f.date < today;

/** Dated episodic days before today (the unreadable ones have no gap). */
function pastDays(snap: Snapshot, today: string): MemFile[] {
  return snap.files.filter((f) => isPastDay(f, today));
}

/** closureGap of `f`, kept per file. */
const keptGap = (snap: Snapshot, f: MemFile, env: CheckEnv): Gap => summaryOf(env, 'closure-block', f, () => closureGap(snap, f), revive);

/** A day's missing closure keys and whether it holds free-form text; null when it needs no block or has one (or cannot be read). */
type Gap = [missing: string[], mixed: boolean] | null;

function closureGap(snap: Snapshot, f: MemFile): Gap {
  if (f.text === undefined) return null;
  const text = f.text;
  // the day's entries (dayEntries, from the snapshot's parse)
  const entries = snap.entries(f).filter((e) => !isClosureLine(e.raw));
  // a day a person wrote (no typed entry) is not a log memtier can summarize: it needs no block
  if (!entries.some((e) => e.type)) return null;
  const lines = text.split('\n');
  const missing = closureStatus(text, { lines, entries }).missing;
  if (missing.length === 0) return null;
  return [[...missing], freeFormLines(text, lines) > 0];
}

const revive = (x: unknown): Gap | undefined => {
  if (x === null) return null;
  if (!Array.isArray(x) || x.length !== 2 || typeof x[1] !== 'boolean') return undefined;
  const missing = arrayOf(x[0], isStr);
  return missing ? [missing, x[1]] : undefined;
};

/**
 * Lines of a day that are neither typed entries, headings, closure lines, comments nor blank: text
 * a person wrote, about which a derived closure line ("Decisions: none") would be a claim nobody checked.
 */
export function freeFormLines(text: string, lines = text.split('\n')): number {
  let n = 0;
  let inComment = false;
  for (const raw of lines) {
    const l = raw.trim();
    if (inComment) { if (l.includes('-->')) inComment = false; continue; }
    if (l.startsWith('<!--')) { if (!l.includes('-->')) inComment = true; continue; }
    if (l === '' || l.startsWith('#') || isClosureLine(l)) continue;
    // a typed entry is memtier's log; an untyped bullet ("- [ ] send the quote") is a person's text
    if (/^[-*] \S/.test(raw) && parseEntryLine(raw)?.type) continue;
    n++;
  }
  return n;
}
