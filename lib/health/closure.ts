/**
 * The closure block that ends an episodic day (seed 004):
 *
 *   Updated: YYYY-MM-DD
 *   Decisions: what was changed
 *   Signal: what was learned about the system
 *   Open: remaining items (or "none")
 *
 * Read leniently (`- **Updated:** …` counts too); written plainly.
 */
export const CLOSURE_KEYS = ['Updated', 'Decisions', 'Signal', 'Open'] as const;

const KEY = /^\s*(?:[-*]\s+)?(?:\*\*)?(updated|decisions|signal|open)(?:\*\*)?\s*:/i;

/** Which closure keys the given lines contain (canonical spelling). */
export function closureKeys(lines: string[]): Set<string> {
  const out = new Set<string>();
  for (const l of lines) {
    const m = KEY.exec(l);
    if (m) out.add(CLOSURE_KEYS.find((k) => k.toLowerCase() === m[1]!.toLowerCase())!);
  }
  return out;
}

/**
 * The lines to append so a day has its closure block: only the missing keys, values marked
 * as not yet written so a person (or `memtier close-day`) fills them in.
 */
export function closureSkeleton(date: string, missing: readonly string[], current: string): string {
  const value: Record<string, string> = {
    Updated: date,
    Decisions: '(not written yet)',
    Signal: '(not written yet)',
    Open: '(not written yet)',
  };
  // store.append adds the missing final newline itself; one more makes the blank separator line
  const sep = current.length === 0 || current.endsWith('\n\n') ? '' : '\n';
  return sep + missing.map((k) => `${k}: ${value[k]}`).join('\n') + '\n';
}
