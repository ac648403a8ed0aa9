/**
 * The upkeep role file, `memory/.upkeep`: which clone of a shared memory ("machine") runs the
 * scheduled upkeep (consolidate, dream, review). Plain text, committed with the memory:
 *
 *     # memtier: the machine that runs the scheduled upkeep (consolidate, dream, review) for this memory
 *     machine: laptop
 *     since: 2026-12-05T01:32:00Z
 *
 * `#` lines and blank lines are comments; `key: value` lines otherwise, unknown keys ignored.
 * A dotfile without `.md`: never listed as a note (lib/format/layout.ts lists `.md` files only).
 */
import { PATHS } from './layout.js';

export const UPKEEP_FILE = PATHS.upkeep;

export const UPKEEP_HEADER = '# memtier: the machine that runs the scheduled upkeep (consolidate, dream, review) for this memory';

export interface UpkeepRole {
  /** The machine name as written (lib/git/machine.ts machineName of the clone that took it). */
  machine: string;
  /** When it was taken, ISO 8601 in UTC (`2026-12-05T01:32:00Z`), if given. */
  since?: string;
}

/** The role in `text`, or why it cannot be read (no `machine:` line, two of them). */
export function parseUpkeep(text: string): { role: UpkeepRole } | { problem: string } {
  const fields = new Map<string, string[]>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!m) return { problem: `a line that is neither "key: value" nor a "#" comment: "${line.slice(0, 60)}"` };
    const key = m[1]!.toLowerCase();
    fields.set(key, [...(fields.get(key) ?? []), m[2]!.trim()]);
  }
  const machines = (fields.get('machine') ?? []).filter(Boolean);
  if (machines.length === 0) return { problem: 'no "machine:" line' };
  if (new Set(machines).size > 1) return { problem: `two machines named (${[...new Set(machines)].join(', ')})` };
  const since = fields.get('since')?.find(Boolean);
  return { role: { machine: machines[0]!, ...(since ? { since } : {}) } };
}

/** The file's text for `role`. */
export function formatUpkeep(role: UpkeepRole): string {
  return `${UPKEEP_HEADER}\nmachine: ${role.machine}\n${role.since ? `since: ${role.since}\n` : ''}`;
}

/** A time as the file writes it: UTC, whole seconds (`2026-12-05T01:32:00Z`). */
export function upkeepStamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
