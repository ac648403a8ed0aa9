/**
 * The facts graph round trip through the CLI: add (and the same fact again, which refreshes instead
 * of adding), relations stated in notes, related at 1 and 2 hops with the path to each, Hebbian
 * weights after recalls (and their decay), stats, a Mermaid export, forget to the trash.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatFact, parseFacts } from '../../lib/graph/facts.js';
import { FactGraph, weightOf } from '../../lib/graph/graph.js';
import { runCli, tmpTree } from '../helpers.js';

const json = async (args: string[]): Promise<any> => {
  const r = await runCli([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

async function memory(): Promise<string> {
  const root = join(tmpTree(), 'mem');
  expect((await runCli(['init', root])).code).toBe(0);
  return root;
}

describe('the facts graph', () => {
  it('adds facts as readable lines, refreshes the same fact instead of adding it twice', async () => {
    const root = await memory();
    const a = await json(['fact', 'add', '--root', root, 'Ana', 'owns', 'quarterly budget review', '--source', '^3lo7dflvjw35']);
    expect(a).toMatchObject({ added: true, fact: { subject: 'Ana', predicate: 'owns', object: 'quarterly budget review', source: '^3lo7dflvjw35', date: '2026-05-15' } });
    const again = await json(['fact', 'add', '--root', root, 'ana', 'OWNS', 'Quarterly  Budget Review']);
    expect(again).toMatchObject({ added: false, fact: { id: a.fact.id } });
    const text = readFileSync(join(root, 'memory/graph/facts.md'), 'utf8');
    expect(text.match(/^- \[\[/gm)).toHaveLength(1);
    expect(text).toContain(`- [[Ana]] owns [[quarterly budget review]] — 2026-05-15 (source: ^3lo7dflvjw35) ^${a.fact.id}`);
    // the refresh is a recall-history bump of that fact
    const hist = JSON.parse(readFileSync(join(root, '.memtier/recall-history.json'), 'utf8'));
    expect(JSON.stringify(hist)).toContain(a.fact.id);
    const bad = await runCli(['fact', 'add', '--root', root, 'Ana', 'owns']);
    expect(bad.code).toBe(2);
    expect((await runCli(['fact', 'add', '--root', root, 'A[x]', 'is', 'B'])).code).toBe(2);
  });

  it('reads relations stated in notes, finds neighbours at 1 and 2 hops with their paths, draws them', async () => {
    const root = await memory();
    for (const [s, p, o] of [['Ana', 'owns', 'budget review'], ['budget review', 'reported to', 'CFO'], ['张伟', '负责', '数据库迁移']]) {
      await json(['fact', 'add', '--root', root, s!, p!, o!]);
    }
    writeFileSync(join(root, 'knowledge', 'cfo.md'), '---\ntitle: CFO\n---\n# Chief financial officer\n\n- works_with [[Marguerite]]\n- part of [[Finance]]\n\nprose with a [[Link]] inside is not a relation\n');
    const list = await json(['fact', 'list', '--root', root, 'cfo']);
    expect(list.facts.map((f: any) => `${f.subject} ${f.predicate} ${f.object}`).sort()).toEqual(['CFO part of Finance', 'CFO works_with Marguerite', 'budget review reported to CFO']);
    const one = await json(['graph', 'related', '--root', root, 'Ana', '--hops', '1']);
    expect(one.related.map((n: any) => n.entity)).toEqual(['budget review']);
    const two = await json(['graph', 'related', '--root', root, 'ana']);
    expect(two.related.map((n: any) => [n.entity, n.hops])).toEqual([['budget review', 1], ['CFO', 2]]);
    expect(two.related[1].path.map((s: any) => s.predicate)).toEqual(['owns', 'reported to']);
    const three = await json(['graph', 'related', '--root', root, 'Ana', '--hops', '3']);
    expect(three.related.map((n: any) => n.entity).sort()).toEqual(['budget review', 'CFO', 'Finance', 'Marguerite'].sort());
    const stats = await json(['graph', 'stats', '--root', root]);
    expect(stats.facts).toBe(5);
    expect(stats.entities[0]).toEqual({ entity: 'CFO', facts: 3 });
    const m = await json(['graph', 'export', '--root', root, 'Ana', '--mermaid', '--hops', '2']);
    expect(m.mermaid).toBe('graph LR\n  n0["Ana"] -->|owns| n1["budget review"]\n  n1["budget review"] -->|reported to| n2["CFO"]');
    expect((await runCli(['graph', 'related', '--root', root, 'Nobody'])).code).toBe(2);
  });

  it('reads a Logseq page\'s properties that name pages as relations of the page (not its tags or aliases)', async () => {
    const root = await memory();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(root, 'memory', 'pages'));
    writeFileSync(join(root, 'memory', 'pages', 'Website Redesign.md'), 'status:: active\nowner:: [[Priya]]\ndepends-on:: [[CMS Migration]], [[Brand Refresh]]\ntags:: [[marketing]]\nalias:: [[Site v2]]\n\n- Goal: launch before the holidays\n- depends_on [[Hosting]]\n');
    writeFileSync(join(root, 'memory', 'pages', 'Priya.md'), 'title:: Priya Shah\nteam:: [[Marketing]]\n\n- Head of marketing\n');
    const list = await json(['fact', 'list', '--root', root]);
    expect(list.facts.map((f: any) => `${f.subject} | ${f.predicate} | ${f.object} | ${f.path}:${f.line}`).sort()).toEqual([
      'Priya Shah | team | Marketing | memory/pages/Priya.md:2',
      'Website Redesign | depends-on | Brand Refresh | memory/pages/Website Redesign.md:3',
      'Website Redesign | depends-on | CMS Migration | memory/pages/Website Redesign.md:3',
      'Website Redesign | depends_on | Hosting | memory/pages/Website Redesign.md:8',
      'Website Redesign | owner | Priya | memory/pages/Website Redesign.md:2',
    ]);
    // a block's property, indented under a bullet, is the block's, not the page's
    writeFileSync(join(root, 'memory', 'pages', 'Marco.md'), '- Runs the CMS\n  owner:: [[Someone]]\n');
    expect((await json(['fact', 'list', '--root', root, 'Marco'])).facts).toEqual([]);
    // Obsidian: a frontmatter property that links (a value or list items), a Dataview field in the body
    writeFileSync(join(root, 'memory', 'pages', 'Launch.md'), '---\ntags: [project]\naliases: ["[[Go-live]]"]\nup: "[[Website Redesign]]"\nrelated:\n  - "[[Brand Refresh]]"\n  - "[[Hosting]]"\n---\n# Launch\n\nlead:: [[Priya]]\n\n```\nfake:: [[Not a fact]]\n```\n');
    const launch = await json(['fact', 'list', '--root', root, 'Launch']);
    expect(launch.facts.map((f: any) => `${f.predicate} ${f.object} :${f.line}`)).toEqual(['up Website Redesign :4', 'related Brand Refresh :6', 'related Hosting :7', 'lead Priya :11']);
  });

  it('recall adds the facts about the entities a query names, and facts recalled together gain weight', async () => {
    const root = await memory();
    await json(['fact', 'add', '--root', root, 'Ana', 'owns', 'budget review']);
    await json(['fact', 'add', '--root', root, 'budget review', 'reported to', 'CFO']);
    await json(['fact', 'add', '--root', root, 'Ana', 'likes', 'tea']);
    const r = await json(['recall', '--root', root, '--query', 'what does Ana work on?']);
    expect(r.text).toContain('Related facts (memory/graph/facts.md):');
    expect(r.text).toContain('- Ana owns budget review (memory/graph/facts.md#L');
    expect(r.facts.map((f: any) => f.hops)).toEqual([1, 1, 2]);
    const w = JSON.parse(readFileSync(join(root, '.memtier/graph-weights.json'), 'utf8'));
    expect(Object.values(w).map((x: any) => x.w)).toEqual([0.2, 0.2, 0.2]);
    await json(['recall', '--root', root, '--query', 'Ana again']);
    const w2 = JSON.parse(readFileSync(join(root, '.memtier/graph-weights.json'), 'utf8'));
    expect(Object.values(w2).map((x: any) => x.w)).toEqual([0.4, 0.4, 0.4]);
    // --no-record leaves the weights alone
    await json(['recall', '--root', root, '--query', 'Ana', '--no-record']);
    expect(JSON.parse(readFileSync(join(root, '.memtier/graph-weights.json'), 'utf8'))).toEqual(w2);
    const none = await json(['recall', '--root', root, '--query', 'nothing about anyone']);
    expect(none.facts).toEqual([]);
  });

  it('weights decay with a half-life of 30 days, and heavier paths come first at one distance', () => {
    const weights = { a: { w: 0.4, last: '2026-05-01' } };
    expect(weightOf(weights, 'a', '2026-05-01')).toBeCloseTo(1.4);
    expect(weightOf(weights, 'a', '2026-05-31')).toBeCloseTo(1.2);
    expect(weightOf(weights, 'missing', '2026-05-31')).toBe(1);
    const facts = parseFacts([
      formatFact({ subject: 'Ana', predicate: 'knows', object: 'Bo', id: 'f-aaa' }),
      formatFact({ subject: 'Ana', predicate: 'knows', object: 'Cy', id: 'f-bbb' }),
    ].join('\n'));
    const g = new FactGraph(facts);
    expect(g.related('Ana', 1, {}, '2026-05-01').map((n) => n.entity)).toEqual(['Bo', 'Cy']);
    expect(g.related('Ana', 1, { 'f-bbb': { w: 1, last: '2026-05-01' } }, '2026-05-01').map((n) => n.entity)).toEqual(['Cy', 'Bo']);
    expect(g.entitiesIn('did ana meet bo? and anabel?')).toEqual(['Ana', 'Bo']);
  });

  it('forgets a fact into the trash', async () => {
    const root = await memory();
    const a = await json(['fact', 'add', '--root', root, 'Ana', 'owns', 'budget review']);
    const f = await json(['fact', 'forget', '--root', root, `^${a.fact.id}`]);
    expect(f.savedTo).toBe('memory/.trash/forgotten/2026-05-15.md');
    expect(readFileSync(join(root, 'memory/graph/facts.md'), 'utf8')).not.toContain('Ana');
    expect(readFileSync(join(root, f.savedTo), 'utf8')).toContain(`- [[Ana]] owns [[budget review]] — 2026-05-15 ^${a.fact.id}`);
    expect((await runCli(['fact', 'forget', '--root', root, `^${a.fact.id}`])).code).toBe(2);
  });
});
