/**
 * What memtier needs to know of the OpenClaw that hosts it: whether memory-core, OpenClaw's own
 * memory plugin, still runs beside memtier once memtier holds the memory slot.
 *
 * A plugin outside the memory slot keeps its "consolidation lifecycle" (OpenClaw's words in the
 * gateway log): memory-core's dreaming, on by default, adds a managed cron job "Memory Dreaming
 * Promotion" at 03:00 that appends whole daily notes to MEMORY.md, writes its diary into DREAMS.md
 * and makes memory/dreaming/ — a second dreaming system on memtier's files, at the minute of
 * memtier's own consolidate. And memory-core still offers memory_search and memory_get, which
 * memtier registered first: OpenClaw logs two "plugin tool name conflict (memory-core)" lines on
 * every tool call. Both stop when memory-core is disabled (`openclaw plugins disable memory-core`,
 * which sets plugins.entries.memory-core.enabled to false) and its job removed: measured on openclaw
 * 2026.9.6, a gateway started with memory-core disabled makes no dreaming job and logs no conflict
 * line; a job made before stays scheduled until `openclaw cron rm` (test/openclaw/gateway.test.ts).
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const DISABLE_MEMORY_CORE = 'openclaw plugins disable memory-core';
/** memory-core's managed job outlives the plugin: disabled, it is still listed, enabled, at 03:00 (measured on 2026.9.6). */
export const REMOVE_DREAMING_JOB = 'openclaw cron rm <the id "openclaw cron list" shows for "Memory Dreaming Promotion">';

/** Where OpenClaw reads its config: $OPENCLAW_CONFIG_PATH, else $OPENCLAW_STATE_DIR/openclaw.json, else ~/.openclaw/openclaw.json. */
export function openclawConfigPath(env: NodeJS.ProcessEnv): string {
  const home = env.HOME || homedir();
  const tilde = (p: string): string => p.replace(/^~(?=\/|$)/, home);
  if (env.OPENCLAW_CONFIG_PATH) return tilde(env.OPENCLAW_CONFIG_PATH);
  return join(env.OPENCLAW_STATE_DIR ? tilde(env.OPENCLAW_STATE_DIR) : join(home, '.openclaw'), 'openclaw.json');
}

const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

export interface MemoryCoreBeside {
  /** memtier holds plugins.slots.memory. */
  memtierInSlot: boolean;
  /** memory-core is not disabled (plugins.entries.memory-core.enabled is not false). */
  memoryCoreEnabled: boolean;
  /** its dreaming is on (plugins.entries.memory-core.config.dreaming.enabled is not false: on by default). */
  dreaming: boolean;
}

/** memory-core's state in a parsed OpenClaw config. */
export function memoryCoreState(config: unknown, pluginId = 'memtier'): MemoryCoreBeside {
  const plugins = obj(obj(config)?.plugins);
  const core = obj(obj(plugins?.entries)?.['memory-core']);
  const allow = Array.isArray(plugins?.allow) ? (plugins!.allow as unknown[]) : undefined;
  const deny = Array.isArray(plugins?.deny) ? (plugins!.deny as unknown[]) : [];
  const memoryCoreEnabled = plugins?.enabled !== false && core?.enabled !== false && !deny.includes('memory-core') && (allow === undefined || allow.includes('memory-core'));
  const dreaming = memoryCoreEnabled && obj(obj(core?.config)?.dreaming)?.enabled !== false;
  return { memtierInSlot: obj(plugins?.slots)?.memory === pluginId, memoryCoreEnabled, dreaming };
}

/** What to tell a person whose memory-core still runs beside memtier in the slot; undefined when nothing. */
export function memoryCoreAdvice(s: MemoryCoreBeside, opts: { slotPending?: boolean } = {}): string | undefined {
  if (!s.memoryCoreEnabled || (!s.memtierInSlot && !opts.slotPending)) return undefined;
  const dreaming = s.dreaming
    ? 'its dreaming job ("Memory Dreaming Promotion", 03:00, on by default) appends daily notes to MEMORY.md, writes DREAMS.md and memory/dreaming/ beside memtier\'s own nightly upkeep, and '
    : '';
  const job = s.dreaming ? `, then remove the job it made (disabling leaves it scheduled): ${REMOVE_DREAMING_JOB}` : '';
  return `OpenClaw's memory-core still runs beside memtier: ${dreaming}its memory_search and memory_get conflict with memtier's (two "plugin tool name conflict (memory-core)" log lines per tool call). Turn it off: ${DISABLE_MEMORY_CORE}${job}`;
}

/** The OpenClaw config of this user (JSON5, as OpenClaw reads it), or undefined when absent or unreadable. */
export async function readOpenClawConfig(env: NodeJS.ProcessEnv): Promise<{ path: string; config: unknown } | undefined> {
  const path = openclawConfigPath(env);
  let text: string;
  try { text = readFileSync(path, 'utf8'); } catch { return undefined; }
  try {
    const { default: JSON5 } = await import('json5');
    return { path, config: JSON5.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * For init --openclaw and adopt: the advice when this user's OpenClaw config runs memory-core beside
 * memtier (memtier in the slot, or about to be: `slotPending`), with the config's path.
 */
export async function memoryCoreNote(env: NodeJS.ProcessEnv, opts: { slotPending?: boolean } = {}): Promise<{ config: string; advice: string; command: string } | undefined> {
  const found = await readOpenClawConfig(env);
  if (!found) return undefined;
  const advice = memoryCoreAdvice(memoryCoreState(found.config), opts);
  return advice ? { config: found.path, advice, command: DISABLE_MEMORY_CORE } : undefined;
}
