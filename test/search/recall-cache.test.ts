/**
 * Issue #12: recall's 15-second cache never answers for a memory that changed since it was
 * filled — a write through memtier, a hand edit, a file moved — and still answers a repeated
 * call on an unchanged memory (same turn, several hooks). Through the CLI; the same through
 * `memtier watch` is in test/watch/server.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { runBin, tmpTree } from '../helpers.js';

const ENV = { MEMTIER_WATCH: 'off', MEMTIER_GIT: 'off' };

async function memory(): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect(runBin(['init', root]).code).toBe(0);
  expect(runBin(['add', '--root', root, '--type', 'TECH', 'the broker runs on port 7001'], { env: ENV }).code).toBe(0);
  return root;
}

const recall = (root: string): { text: string; cached: boolean } => {
  const r = runBin(['recall', '--root', root, '--query', 'broker port', '--json'], { env: ENV });
  expect(r.code, r.stderr).toBe(0);
  const j = JSON.parse(r.stdout);
  return { text: j.text, cached: j.cached };
};

describe('the recall cache is never stale', () => {
  it('serves an unchanged memory from the cache, and a memtier write is in the next answer', async () => {
    const root = await memory();
    expect(recall(root)).toMatchObject({ cached: false });
    const again = recall(root);
    expect(again.cached).toBe(true);
    expect(again.text).toContain('7001');
    expect(runBin(['add', '--root', root, '--type', 'TECH', 'the broker moved to port 7002 after the upgrade'], { env: ENV }).code).toBe(0);
    const after = recall(root);
    expect(after.cached).toBe(false);
    expect(after.text).toContain('7002');
  });

  it('a hand edit (echo >>) is in the next answer', async () => {
    const root = await memory();
    recall(root);
    appendFileSync(join(root, 'memory/episodic/2026-05-15.md'), '- 16:00 [TECH] the broker port is 7003 on staging\n');
    const after = recall(root);
    expect(after.cached).toBe(false);
    expect(after.text).toContain('7003');
  });

  it('a file moved by hand is answered from its new place', async () => {
    const root = await memory();
    expect(recall(root).text).toContain('memory/episodic/2026-05-15.md');
    mkdirSync(join(root, 'memory/semantic'), { recursive: true });
    renameSync(join(root, 'memory/episodic/2026-05-15.md'), join(root, 'memory/semantic/broker.md'));
    const after = recall(root);
    expect(after.cached).toBe(false);
    expect(after.text).toContain('memory/semantic/broker.md');
    expect(after.text).not.toContain('memory/episodic/2026-05-15.md');
  });
});
