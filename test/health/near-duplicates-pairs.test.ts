/**
 * near-duplicates finds its candidates through a prefix index (PPJoin), dream merges through one
 * too: both must find exactly what comparing every pair finds. The reference here is that
 * all-pairs comparison, run on every health fixture memory, a Chinese memory (三点 and 3 点), a
 * small synthetic memory with planted near-copies, and random word sets at several thresholds.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { records } from '../../lib/health/checks/near-duplicates.js';
import { similarPairs } from '../../lib/core/similarity-join.js';
import { firstSimilar } from '../../lib/lifecycle/dream.js';
import { loadSnapshot } from '../../lib/memory/snapshot.js';
import { generateMemory } from '../../lib/bench/perf.js';
import { tmpTree, writeTree } from '../helpers.js';
import { seededRandom } from '../../lib/core/random.js';

/** Every pair i < j with Jaccard ≥ t, the way the check computed it before (all pairs). */
function pairwise(sets: { words: string[] }[], t: number): string[] {
  const out: string[] = [];
  for (let j = 0; j < sets.length; j++) {
    const b = new Set(sets[j]!.words);
    for (let i = 0; i < j; i++) {
      const a = new Set(sets[i]!.words);
      let inter = 0;
      for (const w of a) if (b.has(w)) inter++;
      const jac = inter / (a.size + b.size - inter);
      if (jac >= t) out.push(`${i} ${j} ${jac}`);
    }
  }
  return out;
}

const found = (sets: { words: string[] }[], t: number): string[] => similarPairs(sets, t).map(([i, j, jac]) => `${i} ${j} ${jac}`);

const rng = seededRandom;

/** Word sets where about a third are near-copies of an earlier one (a word or two changed, added or dropped). */
function randomSets(seed: number, n: number): { words: string[] }[] {
  const r = rng(seed);
  const vocab = Array.from({ length: 60 }, (_, i) => `w${i}`);
  const sets: string[][] = [];
  for (let k = 0; k < n; k++) {
    if (sets.length && r() < 0.35) {
      const base = [...sets[Math.floor(r() * sets.length)]!];
      const edits = 1 + Math.floor(r() * 3);
      for (let e = 0; e < edits; e++) {
        const op = r();
        if (op < 0.4 && base.length > 1) base.splice(Math.floor(r() * base.length), 1);
        else if (op < 0.7) base.push(vocab[Math.floor(r() * vocab.length)]!);
        else base[Math.floor(r() * base.length)] = vocab[Math.floor(r() * vocab.length)]!;
      }
      sets.push([...new Set(base)]);
    } else {
      const len = 1 + Math.floor(r() * 14);
      sets.push([...new Set(Array.from({ length: len }, () => vocab[Math.floor(r() ** 2 * vocab.length)]!))]);
    }
  }
  return sets.map((words) => ({ words }));
}

const THRESHOLDS = [0.8, 0.65, 0.5, 0.3];

function memories(): { name: string; root: string }[] {
  const fixtures = join(import.meta.dirname, 'fixtures');
  const out = readdirSync(fixtures).map((name) => ({ name, root: join(fixtures, name) }));
  const cjk = tmpTree();
  writeTree(cjk, {
    'MEMORY.md': '# Memory\n',
    'memory/episodic/2026-05-14.md': '# 2026-05-14\n\n- 09:00 [EVENT] 周会时间改到下午三点，在三楼会议室 ^aaa111\n- 10:00 [EVENT] 周会时间改到下午 3 点, 在 3 楼会议室 ^bbb222\n- 11:00 [EVENT] 周会时间改到下午四点，在三楼会议室 ^ccc333\n- 12:00 [EVENT] 部署 docker 到集群 失败 了 两次 ^ddd444\n',
    'memory/episodic/2026-05-15.md': '# 2026-05-15\n\n- 09:00 [EVENT] 部署 docker 到集群失败了两次 ^eee555\n- 10:00 [EVENT] 周会时间改到下午３点，在３楼会议室 ^fff666\n',
    'memory/semantic/preferences.md': '# Preferences\n- 用户偏好简短的中文周报，每周五中午之前发送\n- 用户偏好简短的中文周报，每周五中午前发送\n',
  });
  out.push({ name: 'chinese', root: cjk });
  const synth = tmpTree();
  generateMemory(synth, 40, 7);
  // plant near-copies: every tenth log line again with one word changed
  const day = join(synth, 'memory/episodic');
  const extra: Record<string, string> = {};
  const days = readdirSync(day).sort().slice(0, 6);
  for (const [n, d] of days.entries()) extra[`memory/episodic/${d.replace('.md', '')}-copy.md`] = `# copy\n- 10:00 [EVENT] ${['deploy', 'docker', 'nginx', 'postgres', 'billing', 'invoice', 'customer', 'backup', 'restore', 'cache'].join(' ')} ${n}\n- 11:00 [EVENT] deploy docker nginx postgres billing invoice customer backup restore queue ${n}\n`;
  writeTree(synth, extra);
  out.push({ name: 'synthetic', root: synth });
  return out;
}

describe('near-duplicate candidates through the index', () => {
  it('find every pair that comparing all pairs finds, and no other, in every fixture memory', () => {
    let pairs = 0;
    for (const { name, root } of memories()) {
      const recs = records(loadSnapshot(root));
      for (const group of ['fact', 'log'] as const) {
        const rs = recs.filter((r) => r.group === group);
        for (const t of THRESHOLDS) {
          const want = pairwise(rs, t);
          pairs += want.length;
          expect(found(rs, t), `${name} ${group} t=${t}`).toEqual(want);
        }
      }
    }
    expect(pairs).toBeGreaterThan(20); // the memories do hold near-duplicates
  });

  it('find the same pairs as all pairs on random word sets (sizes 1 to 16, thresholds 0.3 to 0.9)', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const sets = randomSets(seed, 200);
      for (const t of [...THRESHOLDS, 0.9, 0.75]) expect(found(sets, t), `seed ${seed} t=${t}`).toEqual(pairwise(sets, t));
    }
  });

  it("dream's merge index answers what scanning every kept candidate answers", () => {
    for (let seed = 1; seed <= 8; seed++) {
      const sets = randomSets(seed, 300).map((s) => new Set(s.words));
      for (const t of [0.8, 0.5]) {
        const jac = (a: Set<string>, b: Set<string>): number => {
          if (!a.size || !b.size) return 0;
          let n = 0;
          for (const w of a) if (b.has(w)) n++;
          return n / (a.size + b.size - n);
        };
        const keptScan: Set<string>[] = [];
        const scan: (number | undefined)[] = [];
        for (const s of sets) {
          const i = keptScan.findIndex((k) => jac(k, s) >= t);
          scan.push(i < 0 ? undefined : i);
          if (i < 0) keptScan.push(s);
        }
        expect(firstSimilar(sets, t), `seed ${seed} t=${t}`).toEqual(scan);
        expect(scan.some((x) => x !== undefined)).toBe(true);
      }
    }
  });
});
