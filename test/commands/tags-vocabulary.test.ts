/**
 * The frozen vocabulary (#13.3): every command that writes a new entry refuses a tag TAGS.md
 * does not hold (exit 2, nothing written, --json error, how to add one); the skeleton's vocabulary
 * is a generic set that holds what its own notes use; init on an existing memory adds the tags its
 * notes already use, and says so in text and --json.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashTags, isTag, parseVocabulary } from '../../lib/health/vocabulary.js';
import { seededRandom } from '../../lib/core/random.js';
import { readTree, runCli, SKELETON, tmpTree } from '../helpers.js';

const cli = (root: string, args: string[]) => runCli([...args, '--root', root], { env: { MEMTIER_WATCH: 'off' } });

async function fresh(): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root])).code).toBe(0);
  return root;
}

describe('refusing a tag outside TAGS.md', () => {
  it('add (--tags and inline), wal (every writing subcommand) and supersede --by: exit 2, nothing written, the closest tags, how to add one', async () => {
    const root = await fresh();
    const old = JSON.parse((await cli(root, ['add', '--type', 'TECH', '--tags', 'postgres', 'the db runs PostgreSQL 15', '--json'])).stdout);
    const before = readTree(root);
    const refusals: string[][] = [
      ['add', '--tags', 'postgresql', 'the db runs PostgreSQL 16'],
      ['add', 'the db runs PostgreSQL 16 #postgresql'],
      ['supersede', `^${old.id}`, '--by', 'the db runs PostgreSQL 16 #postgresql'],
      ...['task', 'decide', 'pending', 'done', 'blocker'].map((k) => ['wal', k, 'move the db to PostgreSQL 16 #postgresql']),
      ['wal', 'context', 'db', 'PostgreSQL 16 #postgresql'],
      ['wal', 'context', 'pref', 'answers about #postgresql first'],
    ];
    for (const args of refusals) {
      const r = await cli(root, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/tag "postgresql" not in TAGS\.md \(the frozen vocabulary\); nothing was written/);
      expect(r.stderr).toMatch(/closest in TAGS\.md: [^\n]*postgres[^\n]*\(51 tags in all\)/);
      expect(r.stderr).toMatch(/add "postgresql" on purpose to a group line of TAGS\.md/);
      const j = await cli(root, [...args, '--json']);
      expect(j.code).toBe(2);
      expect(JSON.parse(j.stdout)).toMatchObject({ ok: false, error: { code: 'usage', message: expect.stringMatching(/"postgresql"/), hint: expect.stringMatching(/group line of TAGS\.md/) } });
    }
    expect(readTree(root)).toEqual(before);
    // supersede --by ^ID names an existing entry: no new tags, nothing to check
    const by = JSON.parse((await cli(root, ['add', '--type', 'TECH', 'the db runs PostgreSQL 16', '--json'])).stdout);
    expect((await cli(root, ['supersede', `^${old.id}`, '--by', `^${by.id}`])).code).toBe(0);
  });

  it('a tag added to TAGS.md on purpose is accepted at once', async () => {
    const root = await fresh();
    expect((await cli(root, ['add', '--tags', 'grafana', 'dashboards moved'])).code).toBe(2);
    const tags = join(root, 'TAGS.md');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(tags, readFileSync(tags, 'utf8').replace('monitoring, ', 'monitoring, grafana, '));
    expect((await cli(root, ['add', '--tags', 'grafana', 'dashboards moved'])).code).toBe(0);
  });
});

describe('a memory made before TAGS.md moved to the root (its vocabulary is memory/TAGS.md)', () => {
  it('add, wal and supersede still check tags against memory/TAGS.md and name it, before any move', async () => {
    // made by an earlier memtier init: the vocabulary (the owner's, grown) under memory/, none at the root
    const root = await fresh();
    const { renameSync, writeFileSync, existsSync } = await import('node:fs');
    renameSync(join(root, 'TAGS.md'), join(root, 'memory/TAGS.md'));
    writeFileSync(join(root, 'memory/TAGS.md'), readFileSync(join(root, 'memory/TAGS.md'), 'utf8') + '- found in this memory: grafana, zfs\n');
    const ok = await cli(root, ['add', '--tags', 'grafana', 'dashboards moved to the NAS', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await cli(root, ['wal', 'decide', 'scrub the #zfs pool monthly'])).code).toBe(0);
    const before = readTree(root);
    for (const args of [['add', '--tags', 'postgresql', 'the db runs PostgreSQL 16'], ['wal', 'decide', 'move to #postgresql 16'], ['supersede', `^${JSON.parse(ok.stdout).id}`, '--by', 'dashboards moved #postgresql']]) {
      const r = await cli(root, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/tag "postgresql" not in memory\/TAGS\.md \(the frozen vocabulary\); nothing was written/);
      expect(r.stderr).toMatch(/closest in memory\/TAGS\.md: [^\n]*postgres[^\n]*\(53 tags in all\)/);
      expect(r.stderr).toMatch(/add "postgresql" on purpose to a group line of memory\/TAGS\.md/);
    }
    expect(readTree(root)).toEqual(before);
    // a write command never moves it (health --fix does): no vocabulary appears at the root
    expect(existsSync(join(root, 'TAGS.md'))).toBe(false);
    // health reads the same vocabulary: the memory's own tags are no finding
    const h = JSON.parse((await cli(root, ['health', '--only', 'tag-vocabulary', '--json'])).stdout);
    expect(h.findings).toEqual([]);
  });
});

describe("the skeleton's vocabulary", () => {
  const vocab = parseVocabulary(readFileSync(join(SKELETON, 'TAGS.md'), 'utf8'));

  it('is a generic set of 30 to 60 tags with what most people need, and nothing of one person\'s setup', () => {
    expect(vocab.size).toBeGreaterThanOrEqual(30);
    expect(vocab.size).toBeLessThanOrEqual(60);
    for (const t of ['work', 'tech', 'people', 'health', 'travel', 'family', 'finance', 'home', 'learning', 'projects', 'kubernetes', 'postgres', 'database', 'ci', 'friction']) expect(vocab.has(t), t).toBe(true);
    for (const t of ['tailscale', 'synapse', 'coturn', 'deepseek', 'qdrant', 'puppeteer', 'pm2']) expect(vocab.has(t), t).toBe(false);
    // FORMAT.md documents the same set
    const format = readFileSync(join(SKELETON, 'FORMAT.md'), 'utf8');
    expect(format).toContain(`generic set (${vocab.size} tags)`);
  });

  it("holds every tag the skeleton's own notes use: a fresh memory has no tag-vocabulary finding", async () => {
    const root = await fresh();
    const h = JSON.parse((await cli(root, ['health', '--only', 'tag-vocabulary', '--json'])).stdout);
    expect(h.findings).toEqual([]);
    expect(JSON.parse((await runCli(['init', join(tmpTree(), 'm2'), '--json'])).stdout).tagsAdded).toBeUndefined();
  });
});

describe('init on an existing memory', () => {
  it('adds the tags its notes already use (tags lines, inline #tags) and says so in text and --json', async () => {
    const files = {
      'MEMORY.md': '# Memory\n\n- the homelab runs on the NAS\n',
      'memory/semantic/lab.md': '---\ntags: [homelab, docker]\ntype: semantic\n---\n# Lab\n- the NAS runs #zfs\n',
      'memory/2026-10-01.md': '# 2026-10-01\n\n- talked to the #plumber about the boiler #home\n',
    };
    const text = await runCli(['init', tmpTree(files)]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^added 3 tags this memory already uses to TAGS\.md \("found in this memory"\): homelab, plumber, zfs$/m);
    const root = tmpTree(files);
    const j = JSON.parse((await runCli(['init', root, '--json'])).stdout);
    expect(j.tagsAdded).toEqual(['homelab', 'plumber', 'zfs']); // docker and home are in the generic set already
    expect(readFileSync(join(root, 'TAGS.md'), 'utf8')).toMatch(/\n- found in this memory: homelab, plumber, zfs\n$/);
    // the memory's own tags are then accepted
    expect((await cli(root, ['add', '--tags', 'zfs', 'scrub every month'])).code).toBe(0);
  });
});

describe('reading TAGS.md without Unicode tables for ASCII text', () => {
  it('isTag and the #tags of a line are what the \\p{L} patterns say', () => {
    const rnd = seededRandom(7);
    const chars = 'aZk09_/-#( ,\t.éÉ中文Ωſ\u212a٣';
    let tags = 0;
    for (let k = 0; k < 20_000; k++) {
      let s = '';
      for (let j = Math.floor(rnd() * 12); j > 0; j--) s += chars[Math.floor(rnd() * chars.length)];
      const want = /^[\p{L}][\p{L}\p{N}_/-]*$/u.test(s.toLowerCase());
      if (want) tags++;
      expect(isTag(s.toLowerCase()), JSON.stringify(s)).toBe(want);
      expect([...hashTags(s)].map((m) => m[1]), JSON.stringify(s)).toEqual([...s.matchAll(/(?:^|[\s(,])#([\p{L}][\p{L}\p{N}_/-]*)/gu)].map((m) => m[1]));
    }
    expect(tags).toBeGreaterThan(1000);
  });
});
