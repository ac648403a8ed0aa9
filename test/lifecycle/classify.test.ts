describe('a Logseq graph moved into memory/ (journals/2026_05_14.md, outliner bullets, TODO markers)', () => {
  const journal = [
    '- Met with [[Priya]] about the [[Website Redesign]]',
    '\t- Decided to go with Astro for the marketing site',
    '\t- She prefers async updates over meetings',
    '- TODO ask Marco for the CMS export',
    '- DONE book the usability test room',
    '- Deploy failed again because the staging DB ran out of disk',
    '\t- Lesson: always check free disk space before a deploy',
    '',
  ].join('\n');

  it('dates the journal by its name, reads nested bullets as the person\'s text, files no task; consolidate lists TODO as an action item and leaves DONE out; boot shows the day', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(root, 'memory/journals'));
    const note = join(root, 'memory/journals/2026_05_14.md');
    writeFileSync(note, journal);
    const dry = JSON.parse((await runCli(['review', '--root', root, '--json'])).stdout);
    expect(dry.extracted.map((x: any) => [x.type, x.source])).toEqual([
      ['DECISION', 'memory/journals/2026_05_14.md#L2'],
      ['LESSON', 'memory/journals/2026_05_14.md#L7'],
    ]);
    const applied = JSON.parse((await runCli(['review', '--root', root, '--apply', '--json'])).stdout);
    expect(applied.extracted.every((x: any) => x.filed)).toBe(true);
    expect(readFileSync(join(root, 'memory/procedural/lessons-learned.md'), 'utf8')).toContain('\n- 2026-05-14 [LESSON] Lesson: always check free disk space before a deploy (from memory/journals/2026_05_14.md#L7)\n');
    expect(readFileSync(note, 'utf8')).toBe(journal);
    expect((await runCli(['consolidate', '--root', root, '--date', '2026-05-14'])).code).toBe(0);
    const sum = readFileSync(join(root, 'memory/reviews/daily/2026-05-14.md'), 'utf8');
    const section = (name: string): string => sum.split(`## ${name}\n`)[1]!.split('\n## ')[0]!;
    expect(section('Action Items').trim()).toBe('- TODO ask Marco for the CMS export — [memory/journals/2026_05_14.md#L4](../../journals/2026_05_14.md)');
    expect(section('Decisions Made')).toContain('Decided to go with Astro for the marketing site — [memory/journals/2026_05_14.md#L2]');
    expect(sum).not.toContain('usability test room');
    const boot = JSON.parse((await runCli(['boot', '--root', root, '--json', '--now', '2026-05-15T10:00:00Z'])).stdout);
    expect(boot.files.map((f: any) => f.path)).toContain('memory/journals/2026_05_14.md');
  });
});

/**
 * classify: orphans of memtier's logs typed and tagged in place with --apply (id, time and words
 * kept), tags only from TAGS.md, a person's OpenClaw day reported but never rewritten, what no rule
 * places listed, and a second run changing nothing.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tmpTree } from '../helpers.js';

describe('memtier classify', () => {
  it('types and tags orphans of memtier\'s logs, reports a person\'s day, lists what it cannot place', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    const day = join(root, 'memory/episodic/2026-05-14.md');
    writeFileSync(day, '# 2026-05-14\n\n- 09:00 we decided to move billing to postgres ^aaa111\n- 09:10 [TECH] postgres runs on port 5433 ^bbb222\n- 09:20 lunch went long ^ccc333\n- 09:30 [PREF] short answers #style ^ddd444\n');
    const person = join(root, 'memory/2026-05-13.md');
    const personText = '# notes\n\n- Ana owns the budget review\n';
    writeFileSync(person, personText);
    const dry = JSON.parse((await runCli(['classify', '--root', root, '--json'])).stdout);
    expect(dry.dryRun).toBe(true);
    expect(readFileSync(day, 'utf8')).toContain('- 09:00 we decided to move billing to postgres ^aaa111');
    const r = JSON.parse((await runCli(['classify', '--root', root, '--apply', '--json'])).stdout);
    expect(r.placed.map((p: any) => [p.line, p.type ?? null, p.tags, p.rewritten])).toEqual([[3, 'DECISION', ['postgres'], true], [4, null, ['postgres'], true], [3, 'PEOPLE', ['budget'], false]]);
    expect(r.unplaced.map((u: any) => u.text)).toEqual(['lunch went long']);
    const text = readFileSync(day, 'utf8');
    expect(text).toContain('- 09:00 [DECISION] we decided to move billing to postgres #postgres ^aaa111');
    expect(text).toContain('- 09:10 [TECH] postgres runs on port 5433 #postgres ^bbb222');
    expect(text).toContain('- 09:20 lunch went long ^ccc333');
    expect(text).toContain('- 09:30 [PREF] short answers #style ^ddd444');
    expect(readFileSync(person, 'utf8')).toBe(personText);
    const again = JSON.parse((await runCli(['classify', '--root', root, '--apply', '--json'])).stdout);
    expect(again.changed).toBe(false);
  });
});

describe('memtier review over free-form notes', () => {
  it('lists what extraction finds in a person\'s notes, files it with --apply linking back, never rewrites the note, files once', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    const note = join(root, 'memory/2026-05-14.md');
    const text = '# 2026-05-14\n\n决定用 Astro 重写官网，因为要静态部署。\n\n- Ana owns the quarterly budget review\n- lunch was good\n';
    writeFileSync(note, text);
    const dry = JSON.parse((await runCli(['review', '--root', root, '--json'])).stdout);
    expect(dry.extracted.map((x: any) => [x.type, x.filed])).toEqual([['DECISION', false], ['PEOPLE', false]]);
    expect(dry.message).toContain('2 entries found in free-form notes (memtier review --apply files them)');
    const r = JSON.parse((await runCli(['review', '--root', root, '--apply', '--json'])).stdout);
    expect(r.extracted.every((x: any) => x.filed)).toBe(true);
    // the note's day, and no time it did not give (no made-up 00:00)
    expect(readFileSync(join(root, 'memory/semantic/decisions.md'), 'utf8')).toContain('\n- 2026-05-14 [DECISION] 决定用 Astro 重写官网，因为要静态部署 (from memory/2026-05-14.md#L3)\n');
    expect(readFileSync(join(root, 'memory/semantic/people.md'), 'utf8')).toContain('[PEOPLE] Ana owns the quarterly budget review (from memory/2026-05-14.md#L5)');
    expect(readFileSync(note, 'utf8')).toBe(text);
    expect(readFileSync(join(root, r.report), 'utf8')).toContain('## Found in free-form notes');
    const again = JSON.parse((await runCli(['review', '--root', root, '--apply', '--json'])).stdout);
    expect(again.extracted).toEqual([]);
    // a line added above the paragraph moves it; it is not filed a second time
    writeFileSync(note, text.replace('# 2026-05-14\n', '# 2026-05-14\n\nMorning: inbox.\n'));
    const moved = JSON.parse((await runCli(['review', '--root', root, '--apply', '--json'])).stdout);
    expect(moved.extracted).toEqual([]);
  });

  it('an Obsidian daily note: each sentence cited from its own line, a "## Todo" checklist neither run into a sentence nor filed, a telegraphic "Decided to …" found', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    const note = join(root, 'memory/Daily/2026-05-14.md');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(root, 'memory/Daily'));
    const text = '# Thursday 14 May\n\nMet with Priya about the website redesign.\nFrom now on we always write the migration runbook before touching production.\nDecided to go with Astro for the marketing site; Next.js stays for the app.\n\n## Todo\n- [ ] ask Marco for the CMS export\n- [x] book the usability test room\n';
    writeFileSync(note, text);
    const dry = JSON.parse((await runCli(['review', '--root', root, '--json'])).stdout);
    expect(dry.extracted.map((x: any) => [x.type, x.source])).toEqual([
      ['PREF', 'memory/Daily/2026-05-14.md#L4'],
      ['DECISION', 'memory/Daily/2026-05-14.md#L5'],
    ]);
    expect(dry.extracted[1].text).toBe('Decided to go with Astro for the marketing site (from memory/Daily/2026-05-14.md#L5)');
    expect(readFileSync(note, 'utf8')).toBe(text);
  });
});

describe('review and consolidate over notes dated by what they say (a frontmatter date, a Notion page\'s Date property)', () => {
  it('reads an Obsidian note with created: and a Notion meeting page with Date: as their days\' text; a Due: date or an old note is no such day', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(root, 'memory/Meetings'));
    mkdirSync(join(root, 'memory/Work 1c2d3e4f'));
    writeFileSync(join(root, 'memory/Meetings/Sync with Priya.md'), '---\ncreated: 2026-05-14\ntags: [meetings]\n---\n# Sync with Priya\n\nDecided to go with Astro for the marketing site.\n');
    writeFileSync(join(root, 'memory/Work 1c2d3e4f/Meeting notes bb22.md'), '# Meeting notes\n\nDate: May 15, 2026 10:00 AM\nAttendees: Priya Shah, Marco\n\n- Priya prefers async updates over meetings.\n');
    writeFileSync(join(root, 'memory/Work 1c2d3e4f/Launch plan aa11.md'), '# Launch plan\n\nOwner: Priya Shah\nDue: May 14, 2026\n\nWe decided to launch with a waitlist.\n');
    writeFileSync(join(root, 'memory/Meetings/Kickoff.md'), '---\ncreated: 2026-01-05\n---\n# Kickoff\n\nWe decided to use Linear for tickets.\n');
    const dry = JSON.parse((await runCli(['review', '--root', root, '--json'])).stdout);
    expect(dry.extracted.map((x: any) => [x.type, x.source])).toEqual([
      ['DECISION', 'memory/Meetings/Sync with Priya.md#L7'],
      ['PEOPLE', 'memory/Work 1c2d3e4f/Meeting notes bb22.md#L6'],
    ]);
    const r = await runCli(['consolidate', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    // the page's bullet is the day's entry; its properties (Date, Attendees) are not the day's text
    const sum = readFileSync(join(root, 'memory/reviews/daily/2026-05-15.md'), 'utf8');
    expect(sum).toContain('Priya prefers async updates over meetings. — [memory/Work 1c2d3e4f/Meeting notes bb22.md#L6]');
    expect(sum).not.toContain('Attendees');
  });
});

describe('memtier consolidate over free-form notes', () => {
  it('types untyped bullets and reads the day\'s paragraphs into the daily summary, citing their lines', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    writeFileSync(join(root, 'memory/2026-05-15.md'), '# 2026-05-15\n\n决定用 Astro 重写官网，因为要静态部署。\n\n- Ana owns the quarterly budget review\n- lunch was good\n');
    const r = await runCli(['consolidate', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    const sum = readFileSync(join(root, 'memory/reviews/daily/2026-05-15.md'), 'utf8');
    const section = (name: string): string => sum.split(`## ${name}\n`)[1]!.split('\n## ')[0]!;
    expect(section('Decisions Made')).toContain('决定用 Astro 重写官网，因为要静态部署 — [memory/2026-05-15.md#L3]');
    expect(section('Facts Learned')).toContain('Ana owns the quarterly budget review — [memory/2026-05-15.md#L5]');
    expect(section('Facts Learned')).toContain('lunch was good');
  });
});

describe('memtier consolidate over a daily note of a person\'s own (memory/Daily/DATE.md)', () => {
  it('cites each sentence\'s line, lists the open checklist items as action items and leaves the ticked ones out', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(root, 'memory/Daily'));
    writeFileSync(join(root, 'memory/Daily/2026-05-15.md'), '# Friday\n\nMet with Priya about the redesign.\nFrom now on we always write the migration runbook first.\nDecided to go with Astro for the marketing site.\n\n## Todo\n- [ ] ask Marco for the CMS export\n- [x] book the usability test room\n');
    const r = await runCli(['consolidate', '--root', root]);
    expect(r.code, r.stderr).toBe(0);
    const sum = readFileSync(join(root, 'memory/reviews/daily/2026-05-15.md'), 'utf8');
    const section = (name: string): string => sum.split(`## ${name}\n`)[1]!.split('\n## ')[0]!;
    expect(section('Decisions Made')).toContain('Decided to go with Astro for the marketing site — [memory/Daily/2026-05-15.md#L5]');
    expect(section('Preferences Noted')).toContain('From now on we always write the migration runbook first — [memory/Daily/2026-05-15.md#L4]');
    expect(section('Action Items').trim()).toBe('- [ ] ask Marco for the CMS export — [memory/Daily/2026-05-15.md#L8](../../Daily/2026-05-15.md)');
    expect(sum).not.toContain('usability test room');
  });

  it('links a daily note whose name has a space ("2026-05-15 Friday.md") with the space encoded, so the link works', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(root, 'memory/Daily'));
    writeFileSync(join(root, 'memory/Daily/2026-05-15 Friday.md'), '# Friday\n\nDecided to go with Astro for the marketing site.\n');
    expect((await runCli(['consolidate', '--root', root])).code).toBe(0);
    expect(readFileSync(join(root, 'memory/reviews/daily/2026-05-15.md'), 'utf8')).toContain('— [memory/Daily/2026-05-15 Friday.md#L3](../../Daily/2026-05-15%20Friday.md)');
    const { linkDest, linkPath, managedLines, indexLine } = await import('../../lib/lifecycle/pipeline.js');
    expect(linkDest('memory/Projects/Website Redesign (v2).md')).toBe('memory/Projects/Website%20Redesign%20%28v2%29.md');
    expect(linkPath(linkDest('memory/a b/100% (x).md'))).toBe('memory/a b/100% (x).md');
    // a MEMORY.md index line to such a file is read back with its real path (consolidate relinks by it)
    const line = indexLine('Astro for the marketing site', 'memory/Daily/2026-05-15 Friday.md', 'abc1234567');
    expect(managedLines(line)[0]).toMatchObject({ id: 'abc1234567', target: 'memory/Daily/2026-05-15 Friday.md' });
  });
});

describe('relative dates in notes of past days', () => {
  it('review and consolidate read "明天" / "tomorrow" against the day the note was written, not the day they run', async () => {
    const root = join(tmpTree(), 'mem');
    expect((await runCli(['init', root])).code).toBe(0);
    // written on Thursday 2026-05-14; the review runs on Monday 2026-05-18
    writeFileSync(join(root, 'memory/2026-05-14.md'), '# 2026-05-14\n\n决定明天上线新版官网，因为活动下周一开始。\n\n- we decided to ship the billing fix tomorrow\n');
    const r = JSON.parse((await runCli(['review', '--root', root, '--now', '2026-05-18T09:00:00', '--apply', '--json'])).stdout);
    expect(r.extracted.every((x: any) => x.filed)).toBe(true);
    const decisions = readFileSync(join(root, 'memory/semantic/decisions.md'), 'utf8');
    expect(decisions).toContain('决定明天 (2026-05-15)上线新版官网');
    expect(decisions).toContain('下周一 (2026-05-18)开始');
    expect(decisions).toContain('ship the billing fix tomorrow (2026-05-15)');
    expect(decisions).not.toContain('2026-05-19');
    // consolidate of that day, run days later, the same
    const c = await runCli(['consolidate', '--root', root, '--now', '2026-05-18T09:00:00', '--date', '2026-05-14']);
    expect(c.code, c.stderr).toBe(0);
    const sum = readFileSync(join(root, 'memory/reviews/daily/2026-05-14.md'), 'utf8');
    expect(sum).toContain('决定明天 (2026-05-15)上线新版官网');
    expect(sum).not.toContain('2026-05-19');
  });
});
