import type { Check, Finding } from '../types.js';
import { loadIndexBridge } from '../search.js';

/** The search index cache under .memtier/ is derived state: it must match the files, or be rebuilt. */
export const check: Check = {
  id: 'index-fresh',
  description: 'the search index cache under .memtier/ is fresh and consistent with the files; --fix rebuilds it',
  severity: 'warn',
  fixable: true,
  source: 'DESIGN: derived state',
  doc: {
    trigger: 'a cached index older than a memory file it covers, built by another index version, or listing files that no longer exist (skipped when there is no index yet)',
    failing: 'memory/semantic/people.md edited after .memtier/index was written',
    fixed: '.memtier/index rebuilt from the files',
    why: 'search answers from the cache: a stale cache misses new facts and returns deleted ones; the files are the truth and the cache is rebuilt from them',
  },
  async run(snap, env) {
    const bridge = await loadIndexBridge();
    if (!bridge) return { findings: [], skipped: 'no index (the search index module is not in this build)' };
    const st = await bridge.status(env.ctx, snap);
    if (st.missing) return { findings: [], skipped: 'no index (not built yet; the first search builds it)' };
    const out: Finding[] = st.problems.map((p) => ({ check: 'index-fresh', severity: 'warn' as const, file: p.file ?? '.memtier/', message: p.message, fix: 'run "memtier health --fix" (rebuilds the index)', fixable: bridge.canRebuild }));
    return { findings: out, figures: st.figures };
  },
  async fix(_findings, _snap, env) {
    const bridge = await loadIndexBridge();
    if (!bridge?.canRebuild) return ['not fixed: index rebuild is not available in this build'];
    return [await bridge.rebuild(env.ctx)];
  },
};
