import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY_FILE, MAX_KEYS, queryHash, readRecallHistory, recordRecalls } from '../../lib/search/history.js';
import { REPO, rmTree, testCtx, tmpTree } from '../helpers.js';

const roots: string[] = [];
const mk = () => { const r = tmpTree({ 'MEMORY.md': '# Memory\n' }); roots.push(r); return r; };
afterEach(() => { while (roots.length) rmTree(roots.pop()!); });

describe('recall history', () => {
  it('is empty when missing or damaged', () => {
    const root = mk();
    expect(readRecallHistory(root).size).toBe(0);
    recordRecalls(testCtx(root), ['abc123'], 'x');
    writeFileSync(join(root, HISTORY_FILE), '{not json');
    expect(readRecallHistory(root).size).toBe(0);
  });

  it('keys are plain keys: an entry id ^constructor or ^toString is counted, not looked up on Object.prototype', () => {
    const root = mk();
    recordRecalls(testCtx(root), ['constructor', 'toString', 'hasOwnProperty'], 'x');
    recordRecalls(testCtx(root), ['constructor'], 'y');
    const h = readRecallHistory(root);
    expect([h.get('constructor')!.count, h.get('toString')!.count, h.get('hasOwnProperty')!.count]).toEqual([2, 1, 1]);
    // a damaged record is dropped, not trusted
    writeFileSync(join(root, HISTORY_FILE), JSON.stringify({ version: 1, entries: { a: { count: 'x' }, b: { count: 1, queries: [], days: [], last: '2026-05-15T00:00:00Z' } } }));
    expect([...readRecallHistory(root).keys()]).toEqual(['b']);
  });

  it('counts recalls, distinct query hashes, days and the last time', () => {
    const root = mk();
    recordRecalls(testCtx(root, '2026-05-14T10:00:00Z'), ['e1abcd', 'MEMORY.md#L2'], 'Docker deploy');
    recordRecalls(testCtx(root, '2026-05-15T09:00:00Z'), ['e1abcd'], 'docker   DEPLOY!'); // same query once normalized
    recordRecalls(testCtx(root, '2026-05-15T10:00:00Z'), ['e1abcd', 'e1abcd'], 'billing'); // a key once per call
    const h = readRecallHistory(root);
    expect(h.get('e1abcd')).toEqual({ count: 3, queries: [queryHash('docker deploy'), queryHash('billing')], days: ['2026-05-14', '2026-05-15'], last: '2026-05-15T10:00:00.000Z' });
    expect(h.get('MEMORY.md#L2')!.count).toBe(1);
    // never the query text itself
    expect(readFileSync(join(root, HISTORY_FILE), 'utf8')).not.toContain('billing');
  });

  it('is bounded: the least recently recalled keys go first', () => {
    const root = mk();
    const ctxOld = testCtx(root, '2026-01-01T00:00:00Z');
    recordRecalls(ctxOld, ['oldest1'], 'q');
    recordRecalls(testCtx(root), Array.from({ length: MAX_KEYS }, (_, i) => `k${String(i).padStart(5, '0')}`), 'q');
    const h = readRecallHistory(root);
    expect(h.size).toBe(MAX_KEYS);
    expect(h.has('oldest1')).toBe(false);
  });

  it('loses no update under concurrent writer processes (root lock + atomic replace)', async () => {
    const root = mk();
    const worker = join(REPO, 'test', 'search', 'history-worker.mjs');
    expect(existsSync(join(REPO, 'dist', 'lib', 'search', 'history.js'))).toBe(true); // run `npx tsc -p .` first
    const run = (prefix: string) => new Promise<number>((res) => {
      const p = spawn(process.execPath, [worker, root, '15', prefix], { stdio: 'ignore' });
      p.on('exit', (code) => res(code ?? 2));
    });
    const codes = await Promise.all(['a', 'b', 'c', 'd'].map(run));
    expect(codes).toEqual([0, 0, 0, 0]);
    const h = readRecallHistory(root);
    expect(h.get('shared0001')!.count).toBe(60);
    expect(h.size).toBe(61);
    for (const p of ['a', 'b', 'c', 'd']) for (let i = 0; i < 15; i++) expect(h.get(`${p}-${i}`)!.count).toBe(1);
  });
});
