/**
 * Issue #13, end to end: a real-looking OpenClaw workspace (AGENTS.md, SOUL.md, USER.md, a
 * hand-written MEMORY.md, 20 free-form daily notes in English and Chinese, a slug file, all in
 * git) taken through the README's path as a new user would, five weeks after its last note:
 * init, adopt, health, health --fix --dry-run, health --fix, add with an unknown tag, wal decide
 * + forget, review --dry-run + review, dream --explain, palace, boot.
 *
 * Asserted: no FAIL from upkeep; no line added to a person's note; one file per day; the
 * forgotten decision gone from search and boot; every change announced by its dry run.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readTree, runCli } from '../helpers.js';
import { dailyNotes, gitIn, makeWorkspace, MEMORY_MD, WORKSPACE_ENV, workspaceCli } from './openclaw-workspace.js';

const ENV = WORKSPACE_ENV;
const cli = workspaceCli;

/** Every file of the tree that is a person's daily note, by name (wherever adopt or archive moved it). */
function notesByName(tree: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [p, text] of Object.entries(tree)) {
    const name = p.split('/').pop()!;
    if (/^2026-10-\d{2}(?:-[a-z-]+)?\.md$/.test(name) && !p.startsWith('memory/.trash/')) out.set(name, text);
  }
  return out;
}

/** Files named exactly DATE.md (a day's own file) per date, over every folder a day can live in. */
function dayFileCounts(root: string): Map<string, number> {
  const counts = new Map<string, number>();
  const walk = (rel: string): void => {
    let ents;
    try { ents = readdirSync(join(root, rel), { withFileTypes: true }); } catch { return; }
    for (const d of ents) {
      if (d.name === '.trash') continue;
      const p = `${rel}/${d.name}`;
      if (d.isDirectory()) walk(p);
      else if (/^\d{4}-\d{2}-\d{2}\.md$/.test(d.name) && !p.includes('/reviews/') && !p.includes('/palace/')) counts.set(d.name, (counts.get(d.name) ?? 0) + 1);
    }
  };
  walk('memory');
  return counts;
}

/** Paths whose content differs between two trees (added, removed or changed). */
function changedPaths(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((p) => a[p] !== b[p]).sort();
}

describe('first contact with a real OpenClaw workspace (issue #13)', () => {
  it('takes the README path without breaking it or writing what is not true', { timeout: 120_000 }, async () => {
    const root = makeWorkspace();
    const original = notesByName(dailyNotes());
    expect(original.size).toBe(21);

    // init: completes the memory around the person's files, keeps every one of them
    const init = await cli(root, ['init', root]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.json.kept).toContain('MEMORY.md');
    expect(readTree(root)['MEMORY.md']).toBe(MEMORY_MD);

    // health before and after adopt: no FAIL (free-form days need no closure block; the TTL is upkeep)
    const h0 = await cli(root, ['health']);
    expect(h0.code, JSON.stringify(h0.json?.findings?.filter((f: any) => f.severity === 'fail'))).toBe(0);
    const adopt = await cli(root, ['adopt']);
    expect(adopt.code, adopt.stderr).toBe(0);
    expect(adopt.json.moves.length).toBe(21);
    const h1 = await cli(root, ['health']);
    expect(h1.code, JSON.stringify(h1.json?.findings?.filter((f: any) => f.severity === 'fail'))).toBe(0);
    expect(h1.json.counts.fail).toBe(0);
    expect(h1.json.findings.filter((f: any) => f.check === 'closure-block')).toEqual([]);

    // health --fix --dry-run announces exactly what health --fix then does, and writes nothing
    const beforeDry = readTree(root, { includeState: false });
    const dry = await cli(root, ['health', '--fix', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(readTree(root)).toEqual(beforeDry);
    const fix = await cli(root, ['health', '--fix']);
    expect(fix.code, fix.stderr).toBe(0);
    const afterFix = readTree(root);
    const announced = new Set<string>(dry.json.changes.flatMap((c: any) => (c.to ? [c.path, c.to] : [c.path])));
    for (const p of changedPaths(beforeDry, afterFix)) expect([...announced], `${p} changed by --fix but not announced by --dry-run`).toContain(p);

    // boot five weeks after the last note: the last days with notes, said to be old
    const boot = await runCli(['boot', '--root', root], { env: ENV });
    expect(boot.code, boot.stderr).toBe(0);
    expect(boot.stdout).toMatch(/no daily notes since 2026-10-20 \(35 days ago\)/);
    expect(boot.stdout).toContain('Wrapped up the week. The Valkey production cut-over waits for the freeze to end.');
    expect(boot.stdout).not.toMatch(/^## Current Task$/m); // the empty SESSION-STATE.md template is one line

    // add with an unknown tag: refused, nothing written
    const beforeTag = readTree(root);
    const tag = await cli(root, ['add', '--tags', 'kubernetez', 'the cluster runs 1.29']);
    expect(tag.code).toBe(2);
    expect(tag.json.error.message).toMatch(/not in TAGS\.md/);
    expect(readTree(root)).toEqual(beforeTag);
    expect((await cli(root, ['add', '--type', 'TECH', '--tags', 'kubernetes', 'the cluster runs Kubernetes 1.29'])).code).toBe(0);

    // wal decide + forget: gone from search and boot
    const d = await cli(root, ['wal', 'decide', 'move the staging database to Aurora Serverless']);
    expect(d.code, d.stderr).toBe(0);
    expect((await cli(root, ['search', 'Aurora Serverless'])).json.results[0].text).toContain('Aurora Serverless');
    const f = await cli(root, ['forget', `^${d.json.id}`]);
    expect(f.code, f.stderr).toBe(0);
    expect((await cli(root, ['search', 'Aurora Serverless'])).json.results.filter((r: any) => /aurora/i.test(r.text))).toEqual([]);
    expect((await runCli(['boot', '--root', root], { env: ENV })).stdout).not.toMatch(/aurora/i);

    // review --dry-run names every file review then changes
    const beforeReview = readTree(root);
    const rd = await cli(root, ['review', '--dry-run']);
    expect(rd.code, rd.stderr).toBeLessThan(2);
    expect(readTree(root)).toEqual(beforeReview);
    const rv = await cli(root, ['review']);
    expect(rv.code, rv.stderr).toBeLessThan(2);
    for (const p of changedPaths(beforeReview, readTree(root))) expect(rd.json.changes, `${p} changed by review but not announced by its dry run`).toContain(p);

    // dream --explain and palace run on the free-form memory
    const dream = await cli(root, ['dream', '--explain']);
    expect(dream.code, dream.stderr).toBeLessThan(2);
    const palace = await cli(root, ['palace']);
    expect(palace.code, palace.stderr).toBe(0);

    // no line added to a person's note: every daily note is byte-identical, wherever it now lives
    const final = readTree(root);
    const now = notesByName(final);
    for (const [name, text] of original) expect(now.get(name), name).toBe(text);
    for (const line of MEMORY_MD.split('\n')) expect(final['MEMORY.md'], 'a person\'s MEMORY.md line kept').toContain(line);

    // one file per day: today's writes went to the day's one home (OpenClaw's memory/DATE.md here)
    for (const [day, n] of dayFileCounts(root)) expect(n, day).toBe(1);
    expect(final['memory/2026-11-24.md']).toContain('the cluster runs Kubernetes 1.29');

    // and the workspace is still a git repository whose history memtier added to
    expect(gitIn(root, ['log', '--format=%s']).split('\n').filter((s) => s.startsWith('memtier ')).length).toBeGreaterThan(3);
  });
});
