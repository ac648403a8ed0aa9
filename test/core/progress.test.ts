/**
 * Long passes over the files say how far they are on a terminal (lib/core/progress.ts): health's
 * first pass ("checking memory"), and consolidate, dream and palace reading every entry ("reading
 * memory"); never in a pipe, under --json or --quiet. Shown after MEMTIER_PROGRESS_AFTER_MS (0
 * here: a small memory shows it at once), cleared at the end.
 */
import { describe, expect, it } from 'vitest';
import { generateMemory } from '../../lib/bench/perf.js';
import { fileProgress } from '../../lib/core/progress.js';
import { runCli, tmpTree } from '../helpers.js';

const env = { MEMTIER_PROGRESS_AFTER_MS: '0', MEMTIER_WATCH: 'off', MEMTIER_GIT: 'off', MEMTIER_NOW: '2026-05-15T14:30:00Z', MEMTIER_TZ: 'UTC', MEMTIER_HEALTH_WORKERS: '0' };

async function onTerminal(root: string, args: string[]): Promise<string> {
  let err = '';
  const { main } = await import('../../lib/cli/main.js');
  await main({ argv: [...args, '--root', root], env, cwd: root, stdout: { write: () => true }, stderr: { isTTY: true, write: (s: string) => { err += s; return true; } } as NodeJS.WritableStream & { isTTY: boolean } });
  return err;
}

describe('progress of long passes', () => {
  const root = tmpTree();
  generateMemory(root, 60, 3, 'logs');

  it.each([
    [['health'], 'checking memory'],
    [['consolidate', '--dry-run'], 'reading memory'],
    [['dream', '--dry-run'], 'reading memory'],
    [['palace', '--dry-run'], 'reading memory'],
  ])('%j says "%s" on a terminal and clears the line', async (args, words) => {
    const err = await onTerminal(root, args);
    expect(err).toMatch(new RegExp(`\\r${words}: [\\d,]+/[\\d,]+ files, [\\d,]+ files/s, about \\d+ s left`));
    expect(err).toContain('\r\x1b[K');
  });

  it('says nothing under --json or --quiet, or into a pipe', async () => {
    expect(await onTerminal(root, ['palace', '--dry-run', '--json'])).not.toMatch(/reading memory/);
    expect(await onTerminal(root, ['health', '--quiet'])).not.toMatch(/checking memory/);
    const piped = runCli(['palace', '--dry-run', '--root', root], { env });
    expect((await piped).stderr).not.toMatch(/reading memory/);
  });

  it('in a log: a line every 5 s and one at the end', () => {
    const lines: string[] = [];
    let t = 0;
    const p = fileProgress({ mode: 'log', write: (l) => lines.push(l) }, 100, { doing: 'checking memory', did: 'checked memory' }, { MEMTIER_PROGRESS_AFTER_MS: '0' }, () => t);
    for (let i = 1; i <= 100; i++) { t += 200; p.tick(i); }
    p.done();
    expect(lines.filter((l) => l.startsWith('checking memory: ')).length).toBeGreaterThanOrEqual(3);
    expect(lines.at(-1)).toBe('checked memory: 100 files in 20.0 s');
  });
});
