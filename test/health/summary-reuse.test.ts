/**
 * A full `health` run takes the cross-file checks' per-file summaries from
 * .memtier/health-summary.json for files whose size and mtime are what the last full run saw
 * (lib/health/summary.ts). Its report must be the report of a run with nothing kept, on every
 * fixture and on a synthetic memory after files are edited, added, deleted and renamed; a stale,
 * torn or malformed summary file is never trusted.
 */
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMemory } from '../../lib/bench/perf.js';
import { rmTree, runCli } from '../helpers.js';
import { copyFixture } from './fixture-kit.js';

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmTree(r); });

const SUMMARY = '.memtier/health-summary.json';
const HOUR_AGO = (): Date => new Date(Date.now() - 3_600_000);

/** Every file under `root` an hour old (a change within 2 s of a run is not kept). */
function age(root: string): string {
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p); else utimesSync(p, HOUR_AGO(), HOUR_AGO());
    }
  };
  walk(root);
  return root;
}

interface Doc { exitCode: number; findings: unknown[]; results: unknown[]; counts: unknown; figures: Record<string, Record<string, unknown>> }

/** The report, without what differs between two copies of one memory: the bytes of .memtier/ and the disk's free space. */
async function report(root: string): Promise<Doc> {
  const d = JSON.parse((await runCli(['health', '--root', root, '--json'])).stdout) as Doc & { time?: unknown };
  if (d.figures.disk) { delete d.figures.disk.stateBytes; delete d.figures.disk.freeBytes; }
  return { exitCode: d.exitCode, findings: d.findings, results: d.results, counts: d.counts, figures: d.figures };
}

/** The report of a copy of `root` with nothing kept (no health-summary.json, no health-files.json). */
async function afresh(root: string): Promise<Doc> {
  const copy = mkdtempSync(join(tmpdir(), 'memtier-summary-ref-'));
  roots.push(copy);
  cpSync(root, copy, { recursive: true, preserveTimestamps: true });
  rmSync(join(copy, '.memtier'), { recursive: true, force: true });
  const r = await report(copy);
  expect(existsSync(join(copy, SUMMARY))).toBe(true);
  return r;
}

type Kept = { build: string; words: string[]; files: Record<string, [number, number, Record<string, unknown>]>; across?: Record<string, [string, Record<string, { n: number; p: string }>]> };
const readKept = (root: string): Kept => JSON.parse(readFileSync(join(root, SUMMARY), 'utf8')) as Kept;

describe('health-summary.json', () => {
  it('gives every fixture the report of a run with nothing kept', async () => {
    const dir = join(__dirname, 'fixtures');
    for (const name of readdirSync(dir)) {
      const root = age(copyFixture(name));
      roots.push(root);
      rmSync(join(root, SUMMARY), { force: true });
      await report(root);
      expect(existsSync(join(root, SUMMARY)), name).toBe(true);
      expect(await report(root), name).toEqual(await afresh(root));
    }
  });

  it('is trusted for unchanged files only, and a changed file is read again', async () => {
    const root = mkdtempSync(join(tmpdir(), 'memtier-summary-'));
    roots.push(root);
    generateMemory(root, 40);
    age(root);
    await report(root);
    const kept = readKept(root);
    const note = Object.keys(kept.files).find((rel) => rel.startsWith('memory/semantic/') && Array.isArray(kept.files[rel]![2]['last-verified']))!;
    expect(note).toBeDefined();
    // a date planted in the kept summary of an unchanged note: the run takes the summary, not the file
    kept.files[note]![2]['last-verified'] = [2, '2000-01-01'];
    writeFileSync(join(root, SUMMARY), JSON.stringify(kept));
    const planted = (d: Doc): boolean => JSON.stringify(d.findings).includes('last verified 2000-01-01');
    expect(planted(await report(root))).toBe(true);
    // the note changed (its mtime): read again, the planted date is gone
    utimesSync(join(root, note), new Date(Date.now() - 1_800_000), new Date(Date.now() - 1_800_000));
    const r = await report(root);
    expect(planted(r)).toBe(false);
    expect(r).toEqual(await afresh(root));
  });

  it('matches a run with nothing kept after files are edited, added, deleted and renamed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'memtier-summary-'));
    roots.push(root);
    generateMemory(root, 60);
    age(root);
    await report(root);
    const files = Object.keys(readKept(root).files).sort();
    const semantic = files.filter((f) => f.startsWith('memory/semantic/'));
    const days = files.filter((f) => f.startsWith('memory/episodic/'));
    expect(semantic.length).toBeGreaterThan(3);
    expect(days.length).toBeGreaterThan(1);
    const text = (rel: string): string => readFileSync(join(root, rel), 'utf8');
    // edited: a near-duplicate of another note's fact, a new id, a dangling `superseded by`, a tag
    const fact = text(semantic[1]!).split('\n').find((l) => /^- .*\^\S+\s*$/.test(l));
    appendFileSync(join(root, semantic[0]!), `\n${fact ? fact.replace(/\^\S+\s*$/, '^dup0001') : '- a fact written twice over here'}\n- ~~old value~~ superseded by ^nosuchid1 ^edit0001 #newtag\n`);
    // edited without a new size: the same bytes count, another text
    const day = text(days[0]!);
    writeFileSync(join(root, days[0]!), day.replace(/[a-z]/, (c) => (c === 'a' ? 'b' : 'a')));
    // added: a copy of a note (canonical-home) and a new past day without closure
    writeFileSync(join(root, 'memory/semantic/added-note.md'), text(semantic[2]!));
    writeFileSync(join(root, 'memory/episodic/2026-04-01.md'), '# 2026-04-01\n- 09:00 [DECISION] keep the summaries per file ^added01\n');
    // deleted and renamed
    rmSync(join(root, semantic[3]!));
    renameSync(join(root, days[1]!), join(root, days[1]!.replace(/\d{4}-\d{2}-\d{2}/, '2026-03-03')));
    const changed = await report(root);
    expect(changed).toEqual(await afresh(root));
    // once the changes settle they are kept, and the next run still agrees
    age(root);
    await report(root);
    expect(await report(root)).toEqual(await afresh(root));
  });

  it('is ignored when torn, malformed or written by another build', async () => {
    const root = mkdtempSync(join(tmpdir(), 'memtier-summary-'));
    roots.push(root);
    generateMemory(root, 30);
    age(root);
    const ref = await report(root);
    const good = readFileSync(join(root, SUMMARY), 'utf8');
    const kept = JSON.parse(good) as Kept;
    const mangle = (f: (v: unknown, name: string) => unknown): string => {
      const k = JSON.parse(good) as Kept;
      for (const rec of Object.values(k.files)) for (const name of Object.keys(rec[2])) rec[2][name] = f(rec[2][name], name);
      return JSON.stringify(k);
    };
    const bad = [
      good.slice(0, Math.floor(good.length / 2)),
      '{"build": 1}',
      JSON.stringify({ ...kept, build: 'another' }),
      JSON.stringify({ ...kept, words: [] }),
      mangle(() => 'x'),
      mangle(() => [[1, 2, 3]]),
      mangle((v) => (v && typeof v === 'object' && 'w' in v ? { ...v, w: 'AAAA////' } : v)),
      mangle((v, name) => (name === 'canonical-home' ? [[1, 'a fact key long enough here', 'constructor']] : v)),
      // a word twice in the kept words: no kept number can be trusted
      JSON.stringify({ ...kept, words: [...kept.words, kept.words[0]] }),
      // near-duplicates' kept pairs of the wrong shape, or naming entries the groups do not have
      JSON.stringify({ ...kept, across: { 'near-duplicates': [kept.across!['near-duplicates']![0], { fact: { n: 1, p: 'AAAA' }, log: 7 }] } }),
      JSON.stringify({ ...kept, across: { 'near-duplicates': [kept.across!['near-duplicates']![0], { ...kept.across!['near-duplicates']![1], log: { n: kept.across!['near-duplicates']![1].log!.n, p: Buffer.from([1, 0, 1]).toString('base64') } }] } }),
    ];
    for (const [i, text] of bad.entries()) {
      writeFileSync(join(root, SUMMARY), text);
      expect(await report(root), `case ${i}`).toEqual(ref);
    }
  });

  it("keeps near-duplicates' pairs while no compared file changed, and finds them again when one did", async () => {
    const root = mkdtempSync(join(tmpdir(), 'memtier-summary-'));
    roots.push(root);
    generateMemory(root, 40);
    const days = readdirSync(join(root, 'memory/episodic')).filter((n) => n.endsWith('.md')).sort();
    const line = (id: string): string => `\n- 10:00 [DECISION] the deploy pipeline keeps one summary per file for every nightly run ^${id}\n`;
    appendFileSync(join(root, 'memory/episodic', days[0]!), line('dupa0001'));
    appendFileSync(join(root, 'memory/episodic', days[1]!), line('dupb0001'));
    age(root);
    const dup = (d: Doc): boolean => JSON.stringify(d.findings).includes(`100% the same as memory/episodic/${days[0]}`);
    expect(dup(await report(root))).toBe(true);
    const kept = readKept(root);
    const pairs = kept.across?.['near-duplicates'];
    expect(pairs?.[1].log?.p).not.toBe('');
    // no pair planted in the kept result: the run takes it (no compared file changed)
    pairs![1].log!.p = '';
    writeFileSync(join(root, SUMMARY), JSON.stringify(kept));
    expect(dup(await report(root))).toBe(false);
    // a compared file changed: the pairs are worked out again
    utimesSync(join(root, 'memory/episodic', days[2]!), new Date(Date.now() - 1_800_000), new Date(Date.now() - 1_800_000));
    const r = await report(root);
    expect(dup(r)).toBe(true);
    expect(r).toEqual(await afresh(root));
  });

  it('numbers its words afresh once most kept words are no longer used', async () => {
    const root = mkdtempSync(join(tmpdir(), 'memtier-summary-'));
    roots.push(root);
    generateMemory(root, 30);
    // a near-duplicate among the logs: found again through the renumbered words
    const days = readdirSync(join(root, 'memory/episodic')).filter((n) => n.endsWith('.md')).sort();
    const line = (id: string): string => `\n- 10:00 [DECISION] the nightly job renumbers its kept words once most went unused ^${id}\n`;
    appendFileSync(join(root, 'memory/episodic', days[0]!), line('renu0001'));
    appendFileSync(join(root, 'memory/episodic', days[1]!), line('renu0002'));
    age(root);
    const ref = await report(root);
    expect(JSON.stringify(ref.findings)).toContain(`100% the same as memory/episodic/${days[0]}`);
    const kept = readKept(root);
    const used = kept.words.length;
    // words of notes long gone, at the end (the kept numbers stay valid)
    kept.words.push(...Array.from({ length: 3 * used + 5000 }, (_, i) => `gone${i}word`));
    writeFileSync(join(root, SUMMARY), JSON.stringify(kept));
    expect(await report(root)).toEqual(ref);
    const after = readKept(root).words;
    expect(after.length).toBeLessThanOrEqual(used);
    expect(after.some((w) => w.startsWith('gone'))).toBe(false);
    expect(await report(root)).toEqual(ref);
  });
});
