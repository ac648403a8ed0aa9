import type { Check, Finding } from '../types.js';
import { loadIndexBridge } from '../search.js';

/** The search index cache under .memtier/ is derived state: it must match the files, or be rebuilt. */
export const check: Check = {
  id: 'index-fresh',
  description: 'the search index cache (.memtier/index) is consistent with the files; --fix rebuilds it when far behind or broken',
  severity: 'warn',
  fixable: true,
  rerunAfterFixes: true,
  source: 'DESIGN: derived state',
  doc: {
    trigger: 'more memory files changed since the cache was built than a query re-reads on the fly (24), or a manifest pointing at a build folder that is gone; a few changed files are info only (queries re-read them); skipped when there is no cache yet',
    failing: '.memtier/index built before 40 episodic days were archived',
    fixed: '.memtier/index rebuilt from the files (0 files behind)',
    why: 'the files are the truth and search re-reads what changed, but every query pays for each changed file until the cache is rebuilt; a broken manifest makes every search read every file',
  },
  async run(snap) {
    const bridge = await loadIndexBridge(snap.root);
    if (!bridge) return { findings: [], skipped: 'no index (not built yet: the first search builds it)' };
    const st = bridge.status(snap.root);
    if (st.missing) return { findings: [], skipped: 'no index (unreadable or from another version: the next search rebuilds it)' };
    const figures = { files: st.files, changed: st.changed, ...(st.build ? { build: st.build } : {}) };
    const out: Finding[] = [];
    if (st.vanished) {
      out.push({ check: 'index-fresh', severity: 'warn', file: bridge.dir, message: `the manifest points at build ${st.build}, which is gone: every search reads every file`, fix: 'run "memtier health --fix" (rebuilds the index)', fixable: true });
    } else if (st.changed > bridge.rebuildAt) {
      out.push({ check: 'index-fresh', severity: 'warn', file: bridge.dir, message: `${st.changed} of ${st.files} files changed since the index was built (queries re-read up to ${bridge.rebuildAt})`, fix: 'run "memtier health --fix" (rebuilds the index)', fixable: true });
    } else if (st.changed > 0) {
      out.push({ check: 'index-fresh', severity: 'info', file: bridge.dir, message: `${st.changed} ${st.changed === 1 ? 'file' : 'files'} changed since the index was built (each query re-reads them)` });
    }
    return { findings: out, figures };
  },
  async fix(_findings, snap, env) {
    const bridge = await loadIndexBridge(snap.root);
    if (!bridge) return [];
    bridge.rebuild(env.ctx);
    return [`rebuilt the search index (${bridge.dir})`];
  },
};
