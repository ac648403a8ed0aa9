/**
 * Issue #13's single points, one test each: tags refused outside the vocabulary, init adding the
 * tags a memory already uses, forget everywhere an entry is materialized, free-form days and the
 * closure block, --fix --dry-run writing nothing, close-day --file, consolidate's exit code.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readTree, runCli, tmpTree, writeTree } from '../helpers.js';

const cli = (root: string, args: string[]) => runCli([...args, '--root', root], { env: { MEMTIER_WATCH: 'off' } });

async function fresh(): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root])).code).toBe(0);
  return root;
}

describe('tags', () => {
  it('add and wal refuse a tag outside TAGS.md, write nothing, and say how to add one', async () => {
    const root = await fresh();
    const before = readTree(root);
    const a = await cli(root, ['add', '--tags', 'kubernetez', 'the cluster runs 1.29']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/tag "kubernetez" not in TAGS\.md/);
    expect(a.stderr).toMatch(/closest in TAGS\.md: kubernetes/);
    expect(a.stderr).toMatch(/add "kubernetez" on purpose/);
    const w = await cli(root, ['wal', 'decide', 'use #valkey for the cache', '--json']);
    expect(w.code).toBe(2);
    expect(JSON.parse(w.stdout).error.message).toMatch(/"valkey"/);
    expect(readTree(root)).toEqual(before);
    // the generic vocabulary holds what most people need
    for (const t of ['kubernetes', 'postgres', 'ci', 'database', 'health', 'travel', 'family', 'work']) {
      expect((await cli(root, ['add', '--tags', t, `a note about ${t}`])).code, t).toBe(0);
    }
    expect((await cli(root, ['wal', 'decide', 'keep #postgres as the main database'])).code).toBe(0);
  });

  it('init on an existing memory adds the tags it already uses to TAGS.md and says so', async () => {
    const root = tmpTree({
      'memory/semantic/lab.md': '---\ntags: [homelab, docker]\n---\n# Lab\n- the NAS runs #zfs\n',
      'memory/2026-10-01.md': '# 2026-10-01\n\n- talked to the #plumber about the boiler\n',
    });
    const r = await runCli(['init', root, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).tagsAdded).toEqual(['homelab', 'plumber', 'zfs']);
    expect(readFileSync(join(root, 'TAGS.md'), 'utf8')).toMatch(/^- found in this memory: homelab, plumber, zfs$/m);
    const text = await runCli(['init', root]);
    expect(text.stdout).not.toMatch(/found in this memory/); // TAGS.md kept: a person's vocabulary is theirs
    const h = JSON.parse((await cli(root, ['health', '--only', 'tag-vocabulary', '--json'])).stdout);
    expect(h.findings).toEqual([]);
  });
});

describe('small things a newcomer meets', () => {
  it('wal context pref logs the preference itself; wal context takes "KEY: VALUE" too', async () => {
    const root = await fresh();
    const p = JSON.parse((await cli(root, ['wal', 'context', 'pref', 'short answers, bullet points', '--json'])).stdout);
    expect(p.entry).toMatch(/\[PREF\] short answers, bullet points \^/);
    expect(p.entry).not.toMatch(/context: pref =/);
    expect(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).not.toContain('short answers');
    const one = JSON.parse((await cli(root, ['wal', 'context', 'deadline: 2026-06-01', '--json'])).stdout);
    expect(one.entry).toMatch(/\[TEMP\] context: deadline = 2026-06-01/);
    expect(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).toMatch(/deadline: 2026-06-01/);
    expect((await cli(root, ['wal', 'context', 'lonely'])).code).toBe(2);
  });

  it('a time query that finds nothing says which days it searched; USER.md and TOOLS.md are searched', async () => {
    const root = await fresh();
    writeTree(root, { 'USER.md': '# USER.md\n\n- allergic to peanuts\n', 'TOOLS.md': '# TOOLS.md\n\n## SSH\n- build-01 is 10.0.4.21\n', 'SOUL.md': '# SOUL\n\nbe kind to peanuts\n' });
    const none = await cli(root, ['search', 'zebra last Tuesday']);
    expect(none.stdout).toMatch(/^nothing on 2026-05-12 \("last tuesday"\) matching zebra/);
    expect(JSON.parse((await cli(root, ['search', 'zebra last Tuesday', '--json'])).stdout).nothing).toBe('nothing on 2026-05-12');
    const u = JSON.parse((await cli(root, ['search', 'peanuts', '--json'])).stdout).results.map((r: { path: string }) => r.path);
    expect(u).toContain('USER.md');
    expect(u).not.toContain('SOUL.md'); // instructions to the agent, not memory
    expect(JSON.parse((await cli(root, ['search', 'build-01', '--json'])).stdout).results[0].path).toBe('TOOLS.md');
  });
});

describe('forget', () => {
  it('removes a WAL decision everywhere: buffer, SESSION-STATE.md, search and boot', async () => {
    const root = await fresh();
    const d = JSON.parse((await cli(root, ['wal', 'decide', 'replace Redis with Valkey for the cache', '--json'])).stdout);
    const id = d.id ?? /\^(\w+)/.exec(d.entry)![1];
    expect(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).toContain('Valkey');
    const f = await cli(root, ['forget', `^${id}`, '--json']);
    expect(f.code, f.stderr).toBe(0);
    expect(JSON.parse(f.stdout).also).toContain('SESSION-STATE.md');
    expect(readFileSync(join(root, 'SESSION-STATE.md'), 'utf8')).not.toContain('Valkey');
    expect(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8')).not.toContain('Valkey');
    expect(JSON.parse((await cli(root, ['search', 'Valkey cache', '--json'])).stdout).results.filter((r: { text: string }) => /valkey/i.test(r.text))).toEqual([]);
    expect((await cli(root, ['boot'])).stdout).not.toMatch(/valkey/i);
    expect(readFileSync(join(root, 'memory/.trash/forgotten/2026-05-15.md'), 'utf8')).toContain('Valkey');
  });
});

describe('forget, one entry in two places', () => {
  it('removes every line carrying the id when they are the same entry (buffer and episodic day)', async () => {
    const root = await fresh();
    writeTree(root, {
      'memory/working-buffer.md': '# Working buffer\n\n- 2026-05-14 11:00 [PREF] likes tea ^same00001\n',
      'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 11:00 [PREF] likes tea ^same00001\n',
    });
    const r = await cli(root, ['forget', '^same00001']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(root, 'memory/working-buffer.md'), 'utf8')).not.toContain('likes tea');
    expect(readFileSync(join(root, 'memory/episodic/2026-05-14.md'), 'utf8')).not.toContain('likes tea');
  });
});

describe('closure blocks and --fix', () => {
  const days = {
    // free-form: needs no block
    'memory/episodic/2026-05-10.md': '# 2026-05-10\n\n## Notes\n\nDecided: replace Redis with Valkey.\n',
    // typed entries only: --fix derives the block
    'memory/episodic/2026-05-11.md': '# 2026-05-11\n\n- 09:00 [DECISION] use SQLite for the cache ^dec00011\n',
    // typed entries and a person's text: no derived claim about the text
    'memory/episodic/2026-05-12.md': '# 2026-05-12\n\n- 09:00 [TECH] the broker runs on port 7001 ^tec00012\n\nMarta will send the revised quote; we still owe her an answer.\n',
  };

  it('a free-form day needs no block; a mixed day is warned about but not written; --fix --dry-run writes nothing', async () => {
    const root = await fresh();
    writeTree(root, days);
    const h = JSON.parse((await cli(root, ['health', '--only', 'closure-block', '--json'])).stdout);
    expect(h.exitCode).toBe(0);
    const files = h.findings.map((f: { file: string; severity: string; fixable: boolean }) => [f.file, f.severity, f.fixable]);
    expect(files).toEqual([['memory/episodic/2026-05-11.md', 'warn', true], ['memory/episodic/2026-05-12.md', 'warn', false]]);

    const before = readTree(root, { includeState: true });
    const mtimes = Object.keys(before).map((p) => statSync(join(root, p)).mtimeMs);
    const dry = await cli(root, ['health', '--fix', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/--fix would change/);
    expect(dry.stdout).toMatch(/\+\+\+ b\/memory\/episodic\/2026-05-11\.md/);
    expect(dry.stdout).toMatch(/^\+Decisions: use SQLite for the cache \(\^dec00011\)$/m);
    expect(dry.stdout).not.toMatch(/2026-05-10\.md|2026-05-12\.md/);
    expect(readTree(root, { includeState: true })).toEqual(before);
    expect(Object.keys(before).map((p) => statSync(join(root, p)).mtimeMs)).toEqual(mtimes);
    const json = JSON.parse((await cli(root, ['health', '--fix', '--dry-run', '--json'])).stdout);
    expect(json.changes.map((c: { path: string; change: string }) => [c.path, c.change])).toContainEqual(['memory/episodic/2026-05-11.md', 'modified']);

    const fix = await cli(root, ['health', '--fix']);
    expect(fix.code, fix.stderr).toBe(0);
    expect(readFileSync(join(root, 'memory/episodic/2026-05-11.md'), 'utf8')).toMatch(/Decisions: use SQLite/);
    expect(readFileSync(join(root, 'memory/episodic/2026-05-10.md'), 'utf8')).toBe(days['memory/episodic/2026-05-10.md']);
    expect(readFileSync(join(root, 'memory/episodic/2026-05-12.md'), 'utf8')).toBe(days['memory/episodic/2026-05-12.md']);
    expect((await cli(root, ['health', '--fix', '--dry-run'])).code).toBe(0);
    expect((await cli(root, ['health', '--dry-run'])).code).toBe(2); // --dry-run goes with --fix
  });

  it('close-day --file closes a slug file, not the plain day beside it', async () => {
    const root = await fresh();
    writeTree(root, {
      'memory/episodic/2026-05-05.md': '# 2026-05-05\n\n- 09:00 [EVENT] standup ^evt00005\n',
      'memory/episodic/2026-05-05-vendor-call.md': '# Vendor call\n\n- 10:00 [DECISION] ask for a three-year quote ^dec00005\n',
    });
    const h = JSON.parse((await cli(root, ['health', '--only', 'closure-block', '--json'])).stdout);
    const hint = h.findings.find((f: { file: string }) => f.file === 'memory/episodic/2026-05-05-vendor-call.md').fix;
    expect(hint).toContain('close-day --file memory/episodic/2026-05-05-vendor-call.md');
    const r = await cli(root, ['close-day', '--file', 'memory/episodic/2026-05-05-vendor-call.md']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(root, 'memory/episodic/2026-05-05-vendor-call.md'), 'utf8')).toMatch(/Decisions: ask for a three-year quote/);
    expect(readFileSync(join(root, 'memory/episodic/2026-05-05.md'), 'utf8')).not.toMatch(/Closure/);
    const after = JSON.parse((await cli(root, ['health', '--only', 'closure-block', '--json'])).stdout);
    expect(after.findings.map((f: { file: string }) => f.file)).toEqual(['memory/episodic/2026-05-05.md']);
  });
});

describe('review and stats on a memory people wrote', () => {
  it('review --dry-run announces every file review then changes; "## Open threads" is MEMORY.md\'s open section; a throwaway is not filed', async () => {
    const root = await fresh();
    writeTree(root, {
      'MEMORY.md': '# MEMORY.md\n\n## Decisions\n- keep the monorepo\n\n## Open threads\n- Acme contract renewal\n- arm64 CI runners\n- a third\n- a fourth\n- a fifth\n',
      'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 09:00 [LESSON] test ^les00001\n- 10:00 [LESSON] restore drills catch broken bucket policies ^les00002\n',
    });
    const dry = await cli(root, ['review', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBeLessThan(2);
    const d = JSON.parse(dry.stdout);
    const before = readTree(root);
    const real = await cli(root, ['review', '--json']);
    const r = JSON.parse(real.stdout);
    // the dry run named every file the review then changed
    const changed = Object.keys(readTree(root)).filter((p) => readTree(root)[p] !== before[p]).sort();
    expect(d.changes).toEqual(r.changes);
    for (const f of changed) expect(d.changes, f).toContain(f);
    expect(d.message).toMatch(/would change: .*MEMORY\.md/);
    // five open threads already: none added (the heading is recognized), the lesson filed, not the throwaway
    expect(r.openQuestions.added).toEqual([]);
    const lessons = readFileSync(join(root, 'memory/procedural/lessons-learned.md'), 'utf8');
    expect(lessons).toContain('restore drills catch broken bucket policies');
    expect(lessons).not.toMatch(/\[LESSON\] test\b/);
  });

  it('stats counts the memory, not memtier\'s own views and docs', async () => {
    const root = await fresh();
    writeTree(root, {
      'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 09:00 [TECH] the broker runs on port 7001 #kubernetes ^tec00014\n',
      'memory/palace/timeline.md': '# Timeline\n\n- 2026-05-14 the broker runs on port 7001 #kubernetes\n',
      'memory/reviews/2026-W20.md': '# Weekly review\n\n- the broker runs on port 7001 #kubernetes\n',
    });
    const s = JSON.parse((await cli(root, ['stats', '--json'])).stdout);
    expect(s.entries.byTag.kubernetes ?? s.entries.byTag.find?.((t: { tag: string }) => t.tag === 'kubernetes')?.count).toBe(1);
    expect(s.bytes.largest.map((l: { file: string }) => l.file)).not.toContain('FORMAT.md');
  });
});

describe('free-form days in dream and palace', () => {
  it('dream stages a person\'s paragraphs as candidates; palace\'s timeline lists days written as paragraphs', async () => {
    const root = await fresh();
    writeTree(root, {
      'memory/2026-05-13.md': '# 2026-05-13\n\n## Notes\n\nDecided to replace Redis with Valkey for the cache layer; the licence change makes Redis a risk.\n',
      'memory/2026-05-14.md': '# 2026-05-14\n\n和王磊开会，讨论订单服务的延迟问题。决定下周五之前给订单表加索引。\n',
    });
    // recalled often (through recall, as an agent host would), the paragraph becomes a dream candidate
    for (let i = 0; i < 4; i++) expect((await cli(root, ['recall', '--query', `Valkey Redis cache licence ${i}`])).code).toBe(0);
    const d = JSON.parse((await cli(root, ['dream', '--explain', '--json'])).stdout);
    const texts = d.candidates.map((c: { text: string }) => c.text);
    expect(texts.some((t: string) => /replace Redis with Valkey/.test(t))).toBe(true);
    expect(texts.some((t: string) => /订单表加索引/.test(t))).toBe(true);
    expect((await cli(root, ['palace'])).code).toBe(0);
    const tl = readFileSync(join(root, 'memory/palace/timeline.md'), 'utf8');
    expect(tl).toMatch(/## 2026-05-14[\s\S]*订单表加索引/);
    expect(tl).toMatch(/## 2026-05-13[\s\S]*replace Redis with Valkey/);
  });
});
