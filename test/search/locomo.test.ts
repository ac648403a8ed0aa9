/**
 * `bench locomo` end to end on a small LoCoMo-shaped fixture built here (never the shared
 * benchmark file): ingest through the write path, the same search, the metrics.
 */
import { readdirSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diaToId, ingestConversation, normalizeEvidence, parseRange, parseSessionDate, runLocomo, sessionsOf } from '../../lib/bench/locomo.js';
import { rmTree, runCli, testCtx, tmpTree } from '../helpers.js';

const conversation = {
  speaker_a: 'Alice',
  speaker_b: 'Bob',
  session_1_date_time: '1:56 pm on 8 May, 2023',
  session_1: [
    { speaker: 'Alice', dia_id: 'D1:1', text: 'Hi Bob! Big news this week.' },
    { speaker: 'Alice', dia_id: 'D1:2', text: 'I adopted a puppy named Rex from the shelter.' },
    { speaker: 'Bob', dia_id: 'D1:3', text: 'Congrats! I started pottery classes on Monday.', img_url: ['x'], blip_caption: 'a photo of a clay vase on a wheel' },
  ],
  session_2_date_time: '10:00 am on 20 June, 2023',
  session_2: [
    { speaker: 'Bob', dia_id: 'D2:1', text: 'How is Rex doing?' },
    { speaker: 'Alice', dia_id: 'D2:2', text: 'Great, we hiked Mount Tam together on Saturday.' },
    { speaker: 'Bob', dia_id: 'D2:3', text: 'I sold my first vase at the market.' },
  ],
  session_3_date_time: '9:00 am on 1 July, 2023', // an orphan date key: no session_3
};
const sample = {
  sample_id: 'fixture-0',
  conversation,
  qa: [
    { question: 'What is the name of the puppy Alice adopted?', answer: 'Rex', evidence: ['D1:2'], category: 4 },
    { question: 'What did Bob sell at the market?', answer: 'a vase', evidence: ['D2:3; D1:3'], category: 1 },
    { question: 'Where did Alice hike?', answer: 'Mount Tam', evidence: ['D:2:2'], category: 2 },
    { question: 'What classes did Bob take?', answer: 'pottery', evidence: ['D01:03', 'D9:9'], category: 3 },
    { question: 'Is this unanswerable?', answer: 'n/a', evidence: ['D1:1'], category: 5 },
    { question: 'No evidence at all', answer: 'x', evidence: ['D', 'D7:1'], category: 4 },
  ],
  observation: { session_1_observation: 'UNIQUEOBSERVATIONWORD' },
  session_summary: { session_1_summary: 'UNIQUESUMMARYWORD' },
  event_summary: { events_session_1: 'UNIQUEEVENTWORD' },
};

const tmp = mkdtempSync(join(tmpdir(), 'memtier-locomo-test-'));
afterAll(() => rmTree(tmp));

describe('LoCoMo helpers', () => {
  it('parses session dates, ids and evidence the README way', () => {
    expect(parseSessionDate('1:56 pm on 8 May, 2023')!.toISOString()).toBe('2023-05-08T13:56:00.000Z');
    expect(parseSessionDate('12:05 am on 1 January, 2024')!.toISOString()).toBe('2024-01-01T00:05:00.000Z');
    expect(diaToId('D3:7')).toBe('d3-7');
    const known = new Set(['D8:6', 'D9:17', 'D11:26', 'D30:5']);
    expect(normalizeEvidence(['D8:6; D9:17'], known)).toEqual(['D8:6', 'D9:17']);
    expect(normalizeEvidence(['D:11:26', 'D30:05', 'D', 'D99:1'], known)).toEqual(['D11:26', 'D30:5']);
    expect(parseRange('0-2,4', 10)).toEqual([0, 1, 2, 4]);
    expect(sessionsOf(sample).map((s) => s.n)).toEqual([1, 2]); // the orphan session_3 date is ignored
  });

  it('ingests only the conversation, one entry per turn, on the session day, with the dialog id', async () => {
    const root = tmpTree({ 'MEMORY.md': '# Memory\n' });
    const guarded = { conversation } as Record<string, unknown>;
    for (const k of ['qa', 'observation', 'session_summary', 'event_summary']) Object.defineProperty(guarded, k, { get() { throw new Error(`ingest read ${k}`); } });
    await ingestConversation(testCtx(root), guarded as never);
    const days = readdirSync(join(root, 'memory/episodic')).sort();
    expect(days).toEqual(['2023-05-08.md', '2023-06-20.md']);
    const may = readFileSync(join(root, 'memory/episodic/2023-05-08.md'), 'utf8');
    expect(may).toContain('Alice: I adopted a puppy named Rex from the shelter. ^d1-2');
    expect(may).toContain('Bob: Congrats! I started pottery classes on Monday. [image: a photo of a clay vase on a wheel] ^d1-3');
    expect(may.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(3);
    rmTree(root);
  });
});

describe('bench locomo end to end', () => {
  it('scores the fixture through the search code path', async () => {
    const rep = await runLocomo([sample], { ks: [1, 5], tmp });
    // 4 scored questions: category 5 excluded, the one without resolvable evidence skipped
    expect(rep.overall.n).toBe(4);
    expect(rep.skipped).toBe(1);
    const q = rep.questions!;
    // "puppy … adopted": D1:2 holds both terms → rank 1
    expect(q[0]!.retrieved[0]).toBe('D1:2');
    expect(q[0]!.recall[1]).toBe(1);
    // evidence "D2:3; D1:3" split in two; both in the top 5 of a 6-entry memory
    expect(q[1]!.evidence).toEqual(['D2:3', 'D1:3']);
    expect(q[1]!.recall[5]).toBe(1);
    // "D:2:2" repaired to D2:2, "D01:03" to D1:3 (D9:9 dropped: not in the conversation)
    expect(q[2]!.evidence).toEqual(['D2:2']);
    expect(q[3]!.evidence).toEqual(['D1:3']);
    expect(Object.keys(rep.categories)).toEqual(['1 multi-hop', '2 temporal', '3 open-domain', '4 single-hop']);
    expect(rep.overall['R@5']).toBe(1);
    expect(rep.overall['sessionR@5']).toBe(1);
    expect(rep.overall['tokens@1']).toBeGreaterThan(5);
    // temp memories are removed
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('runs as `memtier bench locomo --data FILE --json`', async () => {
    const file = join(tmp, 'fixture.json');
    writeFileSync(file, JSON.stringify([sample, sample]));
    const r = await runCli(['bench', 'locomo', '--data', file, '--conversations', '1', '--k', '5,10', '--json'], { cwd: tmp });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.conversations).toEqual([1]);
    expect(j.overall).toHaveProperty('R@10');
    expect(j.categories['4 single-hop'].n).toBe(1); // the second copy of the fixture: same 4 questions
    const bad = await runCli(['bench', 'locomo', '--data', file, '--conversations', '5'], { cwd: tmp });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('conversation 5');
  });
});
