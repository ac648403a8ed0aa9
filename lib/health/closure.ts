/**
 * The closure block that ends an episodic day (seed 004):
 *
 *   Updated: YYYY-MM-DD
 *   Decisions: what was changed
 *   Signal: what was learned about the system
 *   Open: remaining items (or "none")
 *
 * Read leniently (`- **Updated:** …` counts too). Written by lib/lifecycle/closure.ts
 * (`memtier close-day`, and `memtier health --fix` through it).
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

/** Is this line a closure line (also when written as a bullet, which is then not an entry)? */
export function isClosureLine(line: string): boolean {
  return KEY.test(line);
}
