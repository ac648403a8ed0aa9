/**
 * Selective capture (seed 003): the one path for automatic writes. Given proposals (extraction),
 * each is checked against the memory before it is written:
 *
 *   duplicate   a live entry of the same type says the same (token overlap ≥ 0.85, Dice over
 *               the search tokenizer's terms): not added; that entry's activation is refreshed
 *               (a recall-history bump, as a search hit gets)
 *
 * and the rest are written in one store transaction as typed entries of today's log (the way
 * `memtier add` writes them), their tags from TAGS.md. `add` and `wal` stay literal.
 */
import type { Ctx } from '../core/context.js';
import { recordRecalls } from '../search/history.js';
import { search } from '../search/search.js';
import { tokenize } from '../search/tokenize.js';
import { openStore } from '../store/store.js';
import { addEntriesTx, type AddedEntry } from '../wal/episodic.js';
import { finishRotationTx } from '../wal/rotate.js';
import type { Proposal } from './extract.js';

export const DUPLICATE_SIMILARITY = 0.85;

export interface Captured extends Proposal { added?: AddedEntry; duplicateOf?: string }

/** Dice similarity of two texts' term sets. */
export function similarity(a: string, b: string): number {
  const A = new Set(tokenize(a));
  const B = new Set(tokenize(b));
  if (!A.size || !B.size) return 0;
  let both = 0;
  for (const t of A) if (B.has(t)) both++;
  return (2 * both) / (A.size + B.size);
}

/** Write the proposals that are not duplicates; report each with what happened. */
export async function capture(ctx: Ctx, proposals: Proposal[]): Promise<Captured[]> {
  const out: Captured[] = [];
  const fresh: Captured[] = [];
  const bumps: string[] = [];
  for (const p of proposals) {
    const hits = await search(ctx, p.text, { k: 5, type: p.type });
    const dup = hits.find((h) => similarity(h.text, p.text) >= DUPLICATE_SIMILARITY);
    if (dup) {
      bumps.push(dup.key);
      out.push({ ...p, duplicateOf: `${dup.path}#L${dup.line}` });
    } else {
      const c: Captured = { ...p };
      fresh.push(c);
      out.push(c);
    }
  }
  if (fresh.length) {
    const added = openStore(ctx).mutate((tx) => {
      finishRotationTx(tx, ctx);
      return addEntriesTx(tx, ctx, fresh.map((p) => ({ text: p.text, type: p.type, tags: p.tags })));
    });
    fresh.forEach((p, i) => { p.added = added[i]; });
  }
  if (bumps.length) recordRecalls(ctx, bumps, 'capture: seen again');
  return out;
}
