/**
 * The facts as a graph: entities are nodes, facts are edges (read both ways). Neighbours by
 * breadth-first search with the path to each, counts of entities and relation types, a Mermaid
 * drawing of a neighbourhood, and Hebbian weights: facts recalled together gain weight (+0.1 per
 * co-recall, kept in .memtier/graph-weights.json like the recall history) and weights decay
 * (half-life 30 days), so the facts that keep coming up together come first.
 */
import type { Ctx } from '../core/context.js';
import { daysBetween, localDate } from '../core/clock.js';
import { openStore, readMemoryFile } from '../store/store.js';
import { entityKey, type Fact } from './facts.js';

export const WEIGHTS_FILE = '.memtier/graph-weights.json';
export const HEBBIAN_STEP = 0.1;
export const WEIGHT_HALF_LIFE_DAYS = 30;

export interface Step { fact: Fact; from: string; to: string }
export interface Neighbour { entity: string; hops: number; path: Step[]; weight: number }

/** A fact's key for weights: its ^id, else its words and place. */
export const factKey = (f: Fact): string => f.id ?? `${entityKey(f.subject)}|${f.predicate.toLowerCase()}|${entityKey(f.object)}`;

interface WeightRecord { w: number; last: string }

export function readWeights(root: string): Record<string, WeightRecord> {
  return parseWeights(readMemoryFile(root, WEIGHTS_FILE));
}

/** weights.json as a null-prototype map: a fact key is never looked up on Object.prototype. */
function parseWeights(text: string | undefined): Record<string, WeightRecord> {
  const out = Object.create(null) as Record<string, WeightRecord>;
  try {
    const j = JSON.parse(text ?? '{}') as unknown;
    if (j && typeof j === 'object' && !Array.isArray(j)) Object.assign(out, j);
  } catch { /* damaged: start afresh */ }
  return out;
}

/** A fact's weight today: 1 plus its Hebbian gain, decayed since it was last reinforced. */
export function weightOf(weights: Record<string, WeightRecord>, key: string, today: string): number {
  const r = Object.hasOwn(weights, key) ? weights[key] : undefined;
  if (!r || typeof r.w !== 'number') return 1;
  const age = Math.max(0, daysBetween(r.last, today));
  return 1 + r.w * Math.pow(0.5, age / WEIGHT_HALF_LIFE_DAYS);
}

/** Facts recalled together: each gains HEBBIAN_STEP per other fact recalled with it (decayed gain first). */
export function reinforce(ctx: Ctx, facts: Fact[]): void {
  if (facts.length < 2) return;
  const today = localDate(ctx.clock.now(), ctx.clock.tz);
  openStore(ctx).mutate((tx) => {
    const cur = parseWeights(tx.read(WEIGHTS_FILE));
    const keys = [...new Set(facts.map(factKey))];
    for (const k of keys) {
      const gain = weightOf(cur, k, today) - 1;
      cur[k] = { w: Math.round((gain + HEBBIAN_STEP * (keys.length - 1)) * 1000) / 1000, last: today };
    }
    tx.write(WEIGHTS_FILE, JSON.stringify(cur, null, 1) + '\n');
  });
}

export class FactGraph {
  /** entity key → display name (the first spelling seen). */
  readonly names = new Map<string, string>();
  private readonly edges = new Map<string, { fact: Fact; other: string }[]>();

  constructor(readonly facts: Fact[]) {
    for (const f of facts) {
      const s = entityKey(f.subject);
      const o = entityKey(f.object);
      if (!this.names.has(s)) this.names.set(s, f.subject);
      if (!this.names.has(o)) this.names.set(o, f.object);
      this.edges.set(s, [...(this.edges.get(s) ?? []), { fact: f, other: o }]);
      if (o !== s) this.edges.set(o, [...(this.edges.get(o) ?? []), { fact: f, other: s }]);
    }
  }

  has(entity: string): boolean { return this.names.has(entityKey(entity)); }

  /** Entities within `hops` of `entity`, nearest first, heavier paths first, each with the facts that lead there. */
  related(entity: string, hops = 2, weights: Record<string, WeightRecord> = {}, today = '1970-01-01'): Neighbour[] {
    const start = entityKey(entity);
    if (!this.names.has(start)) return [];
    const seen = new Map<string, Neighbour>([[start, { entity: this.names.get(start)!, hops: 0, path: [], weight: 0 }]]);
    let frontier = [start];
    for (let h = 1; h <= hops && frontier.length; h++) {
      const next: string[] = [];
      for (const e of frontier) {
        const base = seen.get(e)!;
        for (const { fact, other } of this.edges.get(e) ?? []) {
          const w = base.weight + weightOf(weights, factKey(fact), today);
          const prev = seen.get(other);
          if (prev && (prev.hops < h || prev.weight >= w)) continue;
          const step = { fact, from: this.names.get(e)!, to: this.names.get(other)! };
          if (!prev) next.push(other);
          seen.set(other, { entity: this.names.get(other)!, hops: h, path: [...base.path, step], weight: w });
        }
      }
      frontier = next;
    }
    seen.delete(start);
    return [...seen.values()].sort((a, b) => a.hops - b.hops || b.weight / b.hops - a.weight / a.hops || a.entity.localeCompare(b.entity));
  }

  /** Entities with their number of facts, and relation types with theirs, most first. */
  stats(): { entities: { entity: string; facts: number }[]; relations: { relation: string; facts: number }[] } {
    const rel = new Map<string, number>();
    for (const f of this.facts) rel.set(f.predicate.toLowerCase(), (rel.get(f.predicate.toLowerCase()) ?? 0) + 1);
    const entities = [...this.edges.entries()].map(([k, es]) => ({ entity: this.names.get(k)!, facts: es.length }));
    return {
      entities: entities.sort((a, b) => b.facts - a.facts || a.entity.localeCompare(b.entity)),
      relations: [...rel.entries()].map(([relation, facts]) => ({ relation, facts })).sort((a, b) => b.facts - a.facts || a.relation.localeCompare(b.relation)),
    };
  }

  /** Entities named in a text (whole words, case aside; longest names first, no overlaps). */
  entitiesIn(text: string): string[] {
    const lower = ` ${text.toLowerCase()} `;
    const out: string[] = [];
    for (const k of [...this.names.keys()].sort((a, b) => b.length - a.length)) {
      if (k.length < 2) continue;
      const cjk = /[\u3400-\u9fff]/.test(k);
      const i = lower.indexOf(k);
      if (i < 0) continue;
      if (!cjk && (/[\p{L}\p{N}]/u.test(lower[i - 1] ?? '') || /[\p{L}\p{N}]/u.test(lower[i + k.length] ?? ''))) continue;
      if (out.some((o) => o.includes(k))) continue;
      out.push(k);
    }
    return out.map((k) => this.names.get(k)!);
  }

  /** A Mermaid flowchart of `entity`'s neighbourhood. */
  mermaid(entity: string, hops = 1): string {
    const start = entityKey(entity);
    const ids = new Map<string, string>();
    const id = (k: string): string => { let v = ids.get(k); if (!v) ids.set(k, (v = `n${ids.size}`)); return v; };
    const label = (s: string): string => s.replace(/"/g, '#quot;');
    const lines = ['graph LR'];
    const facts = new Set<Fact>();
    for (const n of this.related(entity, hops)) for (const s of n.path) facts.add(s.fact);
    id(start);
    for (const f of facts) {
      const s = entityKey(f.subject);
      const o = entityKey(f.object);
      lines.push(`  ${id(s)}["${label(this.names.get(s)!)}"] -->|${label(f.predicate)}| ${id(o)}["${label(this.names.get(o)!)}"]`);
    }
    if (facts.size === 0 && this.names.has(start)) lines.push(`  ${id(start)}["${label(this.names.get(start)!)}"]`);
    return lines.join('\n');
  }
}
