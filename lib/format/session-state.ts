/**
 * SESSION-STATE.md: the WAL's materialized state (seed 002's HOT RAM). Sections are `## ` headings;
 * the known ones map to fields, everything else (a preamble, unknown sections, hand-written prose)
 * is kept byte-for-byte in its place when memtier rewrites the file.
 */

export interface SessionState {
  currentTask: string;
  /** `- key: value` bullets, in order. */
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

const bullets = (body: string[]): string[] =>
  body.filter((l) => /^[-*] /.test(l)).map((l) => l.slice(2).trim()).filter((l) => l.length > 0);

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
      for (const b of bullets(s.body)) {
        const m = /^([^:=]+?)\s*[:=]\s*(.*)$/.exec(b);
        state.keyContext.push(m ? [m[1]!.trim(), m[2]!.trim()] : [b, '']);
      }
    } else {
      state[s.field] = bullets(s.body);
    }
  }
  return { state, preamble, sections };
}

function renderField(f: Field, st: SessionState): string[] {
  switch (f) {
    case 'currentTask': return st.currentTask ? [st.currentTask] : [];
    case 'keyContext': return st.keyContext.map(([k, v]) => `- ${k}: ${v}`);
    default: return st[f].map((x) => `- ${x}`);
  }
}

/**
 * Serialize, keeping the preamble, unknown sections and their order; known sections are
 * re-rendered from `state` (missing ones appended in the canonical order).
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
    const comments = s.body.filter((l) => l.trim().startsWith('<!--'));
    emit(s.title, [...comments, ...renderField(s.field, state)]);
  }
  for (const f of Object.keys(SECTION_TITLES) as Field[]) {
    if (!seen.has(f)) emit(SECTION_TITLES[f], renderField(f, state));
  }
  return out.join('\n').replace(/\n*$/, '\n');
}

function trimTrailingBlank(body: string[]): string[] {
  const b = [...body];
  while (b.length && b[b.length - 1]!.trim() === '') b.pop();
  return b;
}
