/**
 * The limits and thresholds every part of memtier shares (health checks, the lifecycle, stats). Defaults follow the seeds (004: MEMORY.md ≤ 60
 * lines, buffer < 80 lines, ≤ 5 open questions, last_verified < 30 days, episodic TTL 30 days).
 * Each can be overridden through the environment (MEMTIER_HEALTH_<NAME>, e.g.
 * MEMTIER_HEALTH_BUFFER_LINES=120) so a deployment can tune them without code.
 */
export interface Limits {
  /** MEMORY.md: most lines (seed 004: 60). */
  memoryLines: number;
  /** MEMORY.md: most bytes (60 lines × ~100 bytes). */
  memoryBytes: number;
  /**
   * Characters an agent host injects from one bootstrap file before cutting it. Assumption:
   * OpenClaw's default `bootstrapMaxChars` of 20,000 characters per workspace file.
   */
  hostMaxChars: number;
  /** The working buffer must stay under this many lines (seed 004: 80). */
  bufferLines: number;
  /** At most this many open questions in MEMORY.md (seed 004: 5). */
  openQuestions: number;
  /** `last_verified` must be younger than this many days (seed 004: 30). */
  verifiedDays: number;
  /** Episodic days older than this are due for the archive (seed 004: 30). */
  episodicTtlDays: number;
  /** Most files in memory/episodic/ (TTL + a week of slack). */
  episodicMaxFiles: number;
  /** Warn when the memory's filesystem has less free space than this many bytes. */
  minFreeBytes: number;
  /** Near-duplicate entries: Jaccard similarity of their word sets at or above this. */
  nearDuplicate: number;
  /** A `.git/index.lock` or temp file older than this many minutes is stale. */
  staleMinutes: number;
}

export const DEFAULT_LIMITS: Limits = {
  memoryLines: 60,
  memoryBytes: 6144,
  hostMaxChars: 20_000,
  bufferLines: 80,
  openQuestions: 5,
  verifiedDays: 30,
  episodicTtlDays: 30,
  episodicMaxFiles: 37,
  minFreeBytes: 100 * 1024 * 1024,
  nearDuplicate: 0.8,
  staleMinutes: 10,
};

const envName = (k: string): string => 'MEMTIER_HEALTH_' + k.replace(/[A-Z]/g, (c) => '_' + c).toUpperCase();

export function limitsFrom(env: NodeJS.ProcessEnv): Limits {
  const out = { ...DEFAULT_LIMITS };
  for (const k of Object.keys(out) as (keyof Limits)[]) {
    const v = env[envName(k)];
    if (v !== undefined && v.trim() !== '' && Number.isFinite(Number(v))) out[k] = Number(v);
  }
  // the WAL's own rotation limit (lib/wal/rotate.ts) is the buffer limit unless health's is set
  const wal = env.MEMTIER_BUFFER_MAX_LINES;
  if (env[envName('bufferLines')] === undefined && wal !== undefined && Number.isFinite(Number(wal)) && Number(wal) >= 2) out.bufferLines = Math.floor(Number(wal));
  // likewise the archive's TTL (lib/lifecycle/archive.ts) is the episodic TTL
  const ttl = env.MEMTIER_ARCHIVE_DAYS;
  if (env[envName('episodicTtlDays')] === undefined && ttl !== undefined && ttl !== '' && Number.isFinite(Number(ttl)) && Number(ttl) >= 0) out.episodicTtlDays = Math.floor(Number(ttl));
  return out;
}

export const limitEnvName = envName;
