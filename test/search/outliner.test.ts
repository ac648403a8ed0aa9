/**
 * A Logseq graph (or any outliner's pages) moved into memory/: a page's `key:: value` properties
 * are its frontmatter, a page with no title of its own is titled by its name, and each top-level
 * bullet with what is indented under it is a unit (not the whole page one), so recall answers
 * "what should I know about Priya" with the line that says it, under her name.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileUnits } from '../../lib/search/units.js';
import { TAGS_LINE, parseTagList } from '../../lib/health/markdown.js';
import { runCli, tmpTree } from '../helpers.js';

const page = 'alias:: Priya Shah\ntags:: people, [[Team Leads]], #marketing\n\n- Head of marketing, owns the [[Website Redesign]]\n  id:: 6565a1b2-0c3d-4e5f-8a9b-0c1d2e3f4a5b\n- Allergic to shellfish\n  collapsed:: true\n\t- so no seafood place for the team dinner\n';

describe('an outliner page', () => {
  it('reads properties as frontmatter, titles the page by its name, makes each top-level block a unit', () => {
    const units = fileUnits('memory/pages/Priya.md', page);
    expect(units.map((u) => [u.line, u.endLine, u.heading, u.text])).toEqual([
      // a block's own settings (its id, its folding) are not its text
      [4, 4, 'Priya', 'Head of marketing, owns the [[Website Redesign]]'],
      [6, 8, 'Priya', 'Allergic to shellfish\n- so no seafood place for the team dinner'],
    ]);
    expect(units[0]!.tags).toEqual(['people', 'team-leads', 'marketing']);
    expect(units[0]!.aliases).toEqual([['Priya', 'Priya Shah']]);
    // a "tags::" line read as a tags line, without its second colon as a tag
    expect(parseTagList(TAGS_LINE.exec('tags:: people, marketing')![1]!)).toEqual(['people', 'marketing']);
  });

  it('leaves a note that is not an outline as it was: a heading titles it, a paragraph and a list under it are one section', () => {
    const note = '# Infra\n\nThe cluster runs on three nodes.\n- node-a\n- node-b\n';
    expect(fileUnits('memory/pages/Infra notes.md', note).map((u) => [u.line, u.heading])).toEqual([[1, 'Infra']]);
    // no heading, not an outline: the name titles the one section
    expect(fileUnits('memory/pages/Infra notes.md', 'The cluster runs on three nodes.\n- node-a\n').map((u) => [u.line, u.heading])).toEqual([[1, 'Infra notes']]);
    // a dated note is titled by its day's text, not by a name like "2026_11_24"
    expect(fileUnits('memory/journals/2026_11_24.md', '- shipped the beta\n')[0]).toMatchObject({ heading: '', date: '2026-11-24' });
  });

  it('recall answers with the block that says it, under the page\'s name', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    mkdirSync(join(root, 'memory/pages'));
    writeFileSync(join(root, 'memory/pages/Priya.md'), page);
    writeFileSync(join(root, 'memory/pages/Marco.md'), 'tags:: people\n\n- Runs the CMS, exports take a day\n- Prefers email over chat\n');
    const r = await runCli(['recall', '--root', root, 'what should I know about Priya before the team dinner']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('- '));
    expect(lines[0]).toBe('- Priya — Allergic to shellfish; so no seafood place for the team dinner (memory/pages/Priya.md#L6-L8)');
    expect(r.stdout).not.toContain('Marco');
    // pages with properties are not "notes without frontmatter" to adopt; a journal is a day, not one either
    mkdirSync(join(root, 'memory/journals'));
    writeFileSync(join(root, 'memory/journals/2026_05_14.md'), '- shipped the beta\n');
    writeFileSync(join(root, 'memory/pages/Loose.md'), '- a page with no properties\n');
    const a = JSON.parse((await runCli(['adopt', '--root', root, '--dry-run', '--json'])).stdout);
    expect(a.untyped).toEqual(['memory/pages/Loose.md']);
  });

  it('a Chinese page: its alias:: finds it, its tags:: are its tags, each block a unit', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    mkdirSync(join(root, 'memory/pages'));
    writeFileSync(join(root, 'memory/pages/小王.md'), 'alias:: 王小明\ntags:: 同事, 前端\n\n- 负责官网前端\n- 对花生过敏\n');
    expect(fileUnits('memory/pages/小王.md', 'alias:: 王小明\ntags:: 同事, 前端\n\n- 负责官网前端\n- 对花生过敏\n').map((u) => [u.heading, u.tags, u.text])).toEqual([
      ['小王', ['同事', '前端'], '负责官网前端'],
      ['小王', ['同事', '前端'], '对花生过敏'],
    ]);
    const r = await runCli(['recall', '--root', root, '王小明负责什么']);
    expect(r.stdout.split('\n').find((l) => l.startsWith('- '))).toBe('- 小王 — 负责官网前端 (memory/pages/小王.md#L4)');
  });
});
