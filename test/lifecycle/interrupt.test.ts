/**
 * A long upkeep command stopped with Ctrl-C (SIGINT) leaves no half state: each file it writes is
 * the old one or the whole new one (the store replaces files atomically), no temp file stays once
 * the next command has run, and running the command again finishes the job. Interrupted at several
 * moments of palace and consolidate over a memory of hand-typed daily logs (bench perf's logs shape).
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateMemory } from '../../lib/bench/perf.js';
import { BIN, runBin, tmpTree } from '../helpers.js';

const env = { ...process.env, MEMTIER_NOW: '2026-05-15T14:30:00Z', MEMTIER_TZ: 'UTC', MEMTIER_WATCH: 'off', MEMTIER_GIT: 'off' };

/** Every file under root (but .memtier/) with its bytes. */
function files(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, d.name);
      if (d.isDirectory()) { if (d.name !== '.memtier') walk(abs); } else out.set(relative(root, abs), readFileSync(abs, 'latin1'));
    }
  };
  walk(root);
  return out;
}

function interrupted(root: string, args: string[], afterMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args, '--root', root], { env, stdio: 'ignore' });
    const t = setTimeout(() => p.kill('SIGINT'), afterMs);
    p.on('exit', (code) => { clearTimeout(t); resolve(code); });
  });
}

describe('an upkeep command interrupted with Ctrl-C', () => {
  const base = tmpTree();
  generateMemory(base, 500, 5, 'logs');
  const before = files(base);

  for (const command of [['palace'], ['consolidate', '--date', '2026-05-14']]) {
    it(`${command[0]}: every file old or whole, no temp file after the next command, the rerun completes`, async () => {
      const done = tmpTree();
      cpSync(base, done, { recursive: true });
      expect(runBin([...command, '--root', done], { env }).code).toBeLessThanOrEqual(1);
      const after = files(done);
      const changed = [...after.keys()].filter((k) => before.get(k) !== after.get(k));
      expect(changed.length).toBeGreaterThan(0);
      let stopped = 0;
      for (const ms of [150, 400, 900]) {
        const root = tmpTree();
        cpSync(base, root, { recursive: true });
        const code = await interrupted(root, command, ms);
        if (code === null) stopped++; // killed by the signal (else it finished first)
        const now = files(root);
        for (const [rel, text] of now) {
          if (/\.memtier-tmp-/.test(rel)) continue; // a dead writer's temp file: swept by the next command
          expect([before.get(rel), after.get(rel)], `${rel} after SIGINT at ${ms} ms`).toContain(text);
        }
        expect(runBin([...command, '--root', root], { env }).code).toBeLessThanOrEqual(1);
        const again = files(root);
        expect([...again.keys()].filter((k) => /\.memtier-tmp-/.test(k))).toEqual([]);
        for (const rel of changed) expect(again.get(rel), rel).toBe(after.get(rel));
        expect(existsSync(join(root, '.memtier', 'lock'))).toBe(false);
      }
      expect(stopped).toBeGreaterThan(0);
    });
  }
});
