/**
 * SESSION-STATE.md: the WAL's materialized state (seed 002's HOT RAM). Sections are `## ` headings;
 * the known ones map to fields, everything else (a preamble, unknown sections, hand-written prose)
 * is kept byte-for-byte in its place when memtier rewrites the file.
 */

export interface SessionState {
  currentTask: string;
  /** `- key: value` bullets, in order; a bullet without a colon is a keyless fact `[text, '']`. */
  keyContext: [string, string][];
  recentDecisions: string[];
  pending: string[];
  blockers: string[];
  done: string[];
}

export const SECTION_TITLES = {
  currentTask: 'Current Task',
  keyContext: 'Key Context',
  recentDecisions: 'Recent Decisions',
  pending: 'Pending',
  blockers: 'Blockers',
  done: 'Done',
} as const;
type Field = keyof typeof SECTION_TITLES;

/** How many items the rolling lists keep (older ones are still in the buffer/episodic log). */
export const KEEP = { recentDecisions: 10, done: 10 } as const;

interface Section { title: string; field?: Field; body: string[] }

export interface ParsedSessionState {
  state: SessionState;
  /** Lines before the first `## ` heading. */
  preamble: string[];
  sections: Section[];
  /** The state as parsed (sections whose value is unchanged are written back byte for byte). */
  original?: SessionState;
}

const norm = (s: string) => s.toLowerCase().replace(/[^a-z]/g, '');
const FIELD_BY_TITLE = new Map<string, Field>(
  (Object.entries(SECTION_TITLES) as [Field, string][]).map(([f, t]) => [norm(t), f]),
);
// seed 002 variants
FIELD_BY_TITLE.set('currenttasks', 'currentTask');
FIELD_BY_TITLE.set('context', 'keyContext');
FIELD_BY_TITLE.set('decisions', 'recentDecisions');
FIELD_BY_TITLE.set('todo', 'pending');
FIELD_BY_TITLE.set('blocked', 'blockers');

export function emptyState(): SessionState {
  return { currentTask: '', keyContext: [], recentDecisions: [], pending: [], blockers: [], done: [] };
}

const ITEM = /^[-*] /;
/** A continuation of the bullet above it: an indented, non-blank line. */
const CONT = /^[ \t]+\S/;

interface Item { text: string; raw: string[] }

/** The bullets of a section body, each with its indented continuation lines (sub-bullets, wrapped text). */
function items(body: string[]): { lead: string[]; items: Item[]; rest: string[] } {
  const lead: string[] = [];
  const out: Item[] = [];
  const rest: string[] = [];
  let cur: Item | undefined;
  for (const l of body) {
    if (ITEM.test(l)) {
      const text = l.slice(2).trim();
      cur = { text, raw: [l] };
      if (text) out.push(cur);
    } else if (cur && CONT.test(l)) {
      cur.raw.push(l);
    } else {
      cur = undefined;
      (out.length ? rest : lead).push(l);
    }
  }
  return { lead, items: out, rest };
}

const bullets = (body: string[]): string[] => items(body).items.map((i) => i.text);

const contextPair = (b: string): [string, string] => {
  const m = /^([^:=]+?)\s*[:=]\s*(.*)$/.exec(b);
  return m ? [m[1]!.trim(), m[2]!.trim()] : [b, ''];
};

export function parseSessionState(text: string): ParsedSessionState {
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const preamble: string[] = [];
  const sections: Section[] = [];
  let cur: Section | undefined;
  for (const line of lines) {
    const h = /^## +(.+?)\s*$/.exec(line);
    if (h) {
      cur = { title: h[1]!, body: [] };
      const f = FIELD_BY_TITLE.get(norm(h[1]!));
      if (f && !sections.some((s) => s.field === f)) cur.field = f;
      sections.push(cur);
    } else if (cur) cur.body.push(line);
    else preamble.push(line);
  }
  const state = emptyState();
  for (const s of sections) {
    if (!s.field) continue;
    if (s.field === 'currentTask') {
      state.currentTask = s.body.filter((l) => l.trim() && !l.trim().startsWith('<!--')).map((l) => l.replace(/^[-*] /, '').trim()).join(' ').trim();
    } else if (s.field === 'keyContext') {
      for (const b of bullets(s.body)) state.keyContext.push(contextPair(b));
    } else {
      state[s.field] = bullets(s.body);
    }
  }
  return { state, preamble, sections, original: cloneState(state) };
}

function cloneState(st: SessionState): SessionState {
  return { ...st, keyContext: st.keyContext.map(([k, v]) => [k, v] as [string, string]), recentDecisions: [...st.recentDecisions], pending: [...st.pending], blockers: [...st.blockers], done: [...st.done] };
}

const itemKey = (f: Field, text: string): string => (f === 'keyContext' ? contextPair(text).join('\u0000') : text);

/** One Key Context bullet's text: `key: value`, or the fact alone when it has no value. */
const contextLine = ([k, v]: [string, string]): string => (v === '' ? k : `${k}: ${v}`);

/**
 * The Current Task's line. A task that would read back as something else (a `## ` heading, a
 * bullet whose marker the reader strips, an HTML comment the reader skips) is written as a bullet:
 * the reader strips that one marker and gets the task as given.
 */
const taskLine = (task: string): string => (/^(?:## |[-*] |<!--)/.test(task) ? `- ${task}` : task);

function renderItems(f: Field, st: SessionState): string[] {
  return f === 'keyContext' ? st.keyContext.map(contextLine) : (st[f] as string[]);
}

/**
 * The body of a known section for `state`. Unchanged → the original lines, byte for byte.
 * Changed → comments and prose kept in place; each item that survives keeps its original lines
 * (bullet style, sub-bullets, wrapped text); new items are rendered as `- text`.
 */
function renderSection(s: Section, state: SessionState, original: SessionState | undefined): string[] {
  const f = s.field!;
  if (original && JSON.stringify(original[f]) === JSON.stringify(state[f])) return trimTrailingBlank(s.body);
  if (f === 'currentTask') {
    const keep = s.body.filter((l) => l.trim().startsWith('<!--'));
    return [...keep, ...(state.currentTask ? [taskLine(state.currentTask)] : [])];
  }
  const { lead, items: old, rest } = items(s.body);
  const byKey = new Map<string, Item[]>();
  for (const it of old) {
    const k = itemKey(f, it.text);
    byKey.set(k, [...(byKey.get(k) ?? []), it]);
  }
  const body: string[] = [...trimTrailingBlank(lead)];
  for (const text of renderItems(f, state)) {
    const k = f === 'keyContext' ? state.keyContext.find((kv) => contextLine(kv) === text)!.join('\u0000') : text;
    const reuse = byKey.get(k)?.shift();
    body.push(...(reuse ? reuse.raw : [`- ${text}`]));
  }
  const tail = trimTrailingBlank(rest);
  while (tail.length && tail[0]!.trim() === '') tail.shift();
  if (tail.length) body.push('', ...tail);
  return body;
}

/**
 * Serialize, keeping the preamble, unknown sections and their order byte for byte; known
 * sections whose value did not change are kept as written, changed ones are re-rendered around
 * their hand-written lines (missing sections appended in the canonical order).
 */
export function serializeSessionState(parsed: ParsedSessionState, state: SessionState): string {
  const out: string[] = parsed.preamble.length ? [...parsed.preamble] : ['# Session State', ''];
  const seen = new Set<Field>();
  const emit = (title: string, body: string[]) => {
    if (out.length && out[out.length - 1] !== '') out.push('');
    out.push(`## ${title}`, ...body);
  };
  for (const s of parsed.sections) {
    if (!s.field) {
      emit(s.title, trimTrailingBlank(s.body));
      continue;
    }
    seen.add(s.field);
    emit(s.title, renderSection(s, state, parsed.original));
  }
  for (const f of Object.keys(SECTION_TITLES) as Field[]) {
    if (!seen.has(f)) emit(SECTION_TITLES[f], f === 'currentTask' ? (state.currentTask ? [taskLine(state.currentTask)] : []) : renderItems(f, state).map((t) => `- ${t}`));
  }
  return out.join('\n').replace(/\n*$/, '\n');
}

function trimTrailingBlank(body: string[]): string[] {
  const b = [...body];
  while (b.length && b[b.length - 1]!.trim() === '') b.pop();
  return b;
}
