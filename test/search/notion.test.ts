/**
 * A Notion export moved into memory/: a page's properties are "Key: Value" lines under its
 * "# Title" ("Owner: Priya Shah", "Tags: web, marketing", "Created: November 20, 2026 10:00 AM").
 * They stay the note's text, give it its tags and its day, and recall shows each as an item.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileUnits } from '../../lib/search/units.js';
import { oneLineText } from '../../lib/search/recall.js';
import { runCli, tmpTree } from '../helpers.js';

const page = '# Website relaunch\n\nOwner: Priya Shah\nStatus: In progress\nDue: November 28, 2026\nTags: web, Marketing Ops\n\nWe decided to move the site from WordPress to Astro.\n';
const meeting = '# Meeting notes\n\nDate: November 20, 2026 10:00 AM\nAttendees: Priya Shah, Marco\n\n- Decided to launch on December 5.\n';

describe('a Notion page', () => {
  it('takes its tags and day from the properties under its title, and keeps them as its text', () => {
    const [u] = fileUnits('memory/Work 1c2d3e4f/Website relaunch aa11bb22.md', page);
    expect(u).toMatchObject({ line: 1, heading: 'Website relaunch', tags: ['web', 'marketing-ops'] });
    expect(u!.text).toContain('Owner: Priya Shah');
    expect(u!.date).toBeUndefined(); // "Due" is not the page's day
    expect(fileUnits('memory/Work/Meeting notes bb22.md', meeting)[0]).toMatchObject({ date: '2026-11-20', tags: [] });
    expect(fileUnits('memory/Work/Kickoff.md', '# Kickoff\nCreated time: 2026-11-03T09:15:00.000Z\nStatus: Done\n')[0]).toMatchObject({ date: '2026-11-03' });
    expect(fileUnits('memory/Work/Kickoff.md', '# Kickoff\n\nTags: launch\n\nText.\n')[0]!.tags).toEqual(['launch']);
  });

  it('leaves other notes as they were: one label line, a line not under the title, a frontmatter note', () => {
    expect(fileUnits('memory/notes/a.md', '# A\n\nNote: the staging host moved.\n\nMore text.\n')[0]).toMatchObject({ tags: [] });
    expect(fileUnits('memory/notes/b.md', '# B\n\nSome text first.\nTags: web\nDate: November 20, 2026\n')[0]).toMatchObject({ tags: [] });
    expect(fileUnits('memory/notes/b.md', '# B\n\nSome text first.\nTags: web\nDate: November 20, 2026\n')[0]!.date).toBeUndefined();
    expect(fileUnits('memory/notes/c.md', '---\ntags: [infra]\n---\n# C\n\nTags: web\nOwner: Ana\n')[0]!.tags).toEqual(['infra']);
  });

  it('recall shows each property as an item', async () => {
    expect(oneLineText('Owner: Priya Shah\nStatus: In progress\nTags: web, marketing\n\nWe decided to move to Astro.')).toBe('Owner: Priya Shah; Status: In progress; Tags: web, marketing; We decided to move to Astro.');
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    mkdirSync(join(root, 'memory', 'Work 1c2d3e4f'), { recursive: true });
    writeFileSync(join(root, 'memory', 'Work 1c2d3e4f', 'Website relaunch aa11bb22.md'), page);
    writeFileSync(join(root, 'memory', 'Work 1c2d3e4f', 'Meeting notes bb22.md'), meeting);
    const env = { MEMTIER_NOW: '2026-11-24T10:00:00Z', MEMTIER_TZ: 'UTC' };
    const r = await runCli(['recall', '--root', root, '--query', 'who owns the website relaunch'], { env });
    expect(r.stdout).toContain('- Website relaunch — Owner: Priya Shah; Status: In progress; Due: November 28, 2026;');
    const s = await runCli(['search', '--root', root, '--json', '--since', '2026-11-18', 'launch'], { env });
    expect((JSON.parse(s.stdout) as { results: { path: string }[] }).results.map((x) => x.path)).toEqual(['memory/Work 1c2d3e4f/Meeting notes bb22.md']);
    const t = await runCli(['search', '--root', root, '--json', '--tags', 'marketing-ops', 'astro'], { env });
    expect((JSON.parse(t.stdout) as { results: { path: string }[] }).results.map((x) => x.path)).toEqual(['memory/Work 1c2d3e4f/Website relaunch aa11bb22.md']);
  });
});
