/**
 * Selective capture on a fixture memory: a contradiction (another value, or the opposite) adds the
 * new entry and supersedes the old one with a link; a duplicate refreshes instead of adding; `add`
 * and `wal` stay literal but report a near-duplicate they just wrote, and `add --dedupe` refreshes
 * instead.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contradiction } from '../../lib/capture/capture.js';
import { nearSimilarity } from '../../lib/capture/similar.js';
import { runCli, tmpTree } from '../helpers.js';

const DAY = 'memory/episodic/2026-05-15.md';

async function memory(): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root])).code).toBe(0);
  return root;
}

const extract = async (root: string, text: string): Promise<any> => {
  const r = await runCli(['extract', '--root', root, '--apply', '--json', text]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('contradictions', () => {
  it('tells another value and the opposite from a different fact', () => {
    expect(contradiction('The broker runs on port 8080 in staging', 'The broker runs on port 8081 in staging')).toBe('another value (8080 → 8081)');
    expect(contradiction('网关端口是 8443', '网关端口是 9443')).toBe('another value (8443 → 9443)');
    expect(contradiction('We decided to deploy the billing app on Fridays', 'We decided to never deploy the billing app on Fridays')).toBe('says the opposite (now negated)');
    expect(contradiction('我们决定用 MySQL 存订单', '我们决定不用 MySQL 存订单')).toBe('says the opposite (now negated)');
    // another subject, or the same value: no contradiction
    expect(contradiction('The broker runs on port 8080 in staging', 'The billing database keeps 30 days of backups')).toBeUndefined();
    expect(contradiction('The broker runs on port 8080 in staging', 'The broker runs on port 8080 in staging today')).toBeUndefined();
    expect(contradiction('We decided to use Postgres for billing', 'We decided not to use Kafka for the analytics events pipeline')).toBeUndefined();
  });

  it('extract --apply adds the new entry and supersedes the old one, linked', async () => {
    const root = await memory();
    const first = await extract(root, 'The broker runs on port 8080 in staging.');
    const oldId = first.proposals[0].added.id;
    const second = await extract(root, 'The broker runs on port 8081 in staging.');
    const p = second.proposals[0];
    expect(p.contradicts).toMatchObject({ reason: 'another value (8080 → 8081)', id: oldId });
    expect(second.superseded[0]).toContain(`superseded by ^${p.added.id}`);
    const text = readFileSync(join(root, DAY), 'utf8');
    expect(text).toContain(`~~14:30 [TECH] The broker runs on port 8080 in staging~~ superseded by ^${p.added.id} ^${oldId}`);
    expect(text).toContain(`[TECH] The broker runs on port 8081 in staging ^${p.added.id}`);
    // search leaves the superseded entry out
    const s = JSON.parse((await runCli(['search', '--root', root, 'broker port', '--type', 'TECH', '--json'])).stdout);
    expect(s.results.map((r: any) => r.text)).toEqual(['The broker runs on port 8081 in staging']);
  });
});

describe('literal writers report near-duplicates', () => {
  it('add says so, add --dedupe refreshes instead of adding, a changed number is not a duplicate', async () => {
    const root = await memory();
    const a = JSON.parse((await runCli(['add', '--root', root, '--type', 'TECH', 'the broker runs on port 9000', '--json'])).stdout);
    expect(a.nearDuplicateOf).toBeUndefined();
    const b = JSON.parse((await runCli(['add', '--root', root, '--type', 'TECH', 'The broker runs on port 9000.', '--json'])).stdout);
    expect(b.nearDuplicateOf).toBe(`${DAY}#^${a.id}`);
    const lines = (): number => readFileSync(join(root, DAY), 'utf8').split('\n').filter((l) => l.startsWith('- ')).length;
    const before = lines();
    const c = JSON.parse((await runCli(['add', '--root', root, '--dedupe', '--type', 'TECH', 'the broker runs on port 9000', '--json'])).stdout);
    expect(c).toMatchObject({ added: false, duplicateOf: `${DAY}#^${a.id}` });
    expect(lines()).toBe(before);
    const d = JSON.parse((await runCli(['add', '--root', root, '--type', 'TECH', 'the broker runs on port 9001', '--json'])).stdout);
    expect(d.nearDuplicateOf).toBeUndefined();
  });

  it('wal says so for the same decision logged twice', async () => {
    const root = await memory();
    const a = JSON.parse((await runCli(['wal', 'decide', '--root', root, 'use Valkey for the session cache', '--json'])).stdout);
    const b = JSON.parse((await runCli(['wal', 'decide', '--root', root, 'Use Valkey for the session cache.', '--json'])).stdout);
    expect(b.nearDuplicateOf).toBe(`memory/working-buffer.md#^${a.id}`);
    expect(nearSimilarity('数据库迁移到 PostgreSQL 16', '数据库迁移到 PostgreSQL 16。')).toBe(1);
  });
});
