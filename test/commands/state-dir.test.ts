/**
 * memtier watch and cron write into .memtier/ outside the store (the server's announcement, socket
 * folder and log; the crontab lines' log): never through a linked .memtier/ into another folder.
 */
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, tmpTree, trackTemp } from '../helpers.js';

describe('a linked .memtier/', () => {
  it('stops memtier watch and memtier cron with one clear message, nothing written outside the root', () => {
    const root = join(tmpTree(), 'mem');
    expect(runBin(['init', root]).code).toBe(0);
    const outside = trackTemp(mkdtempSync(join(tmpdir(), 'memtier-outside-')));
    rmSync(join(root, '.memtier'), { recursive: true, force: true });
    symlinkSync(outside, join(root, '.memtier'));
    for (const args of [['watch', '--detach', '--wait', '5000'], ['cron']]) {
      const r = runBin(['--root', root, ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/\.memtier: is a symbolic link: .* nothing was written/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(readdirSync(outside)).toEqual([]);
  });
});
