/**
 * Every relative link and #anchor in the documentation resolves: README.md, docs/*.md,
 * ARCHITECTURE.md, SECURITY.md and memory-skeleton/FORMAT.md. A link to a file names a file or
 * folder that exists; an anchor names a heading of the target (GitHub's anchors, duplicates
 * numbered). Web links are not fetched.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers.js';
import { anchors, DOC_FILES, links, read, slug } from './markdown.js';

const docs = [...DOC_FILES, ...readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('links in the documentation', () => {
  it('the slug of a heading is GitHub\'s', () => {
    expect(slug('memtier watch: a server the CLI may use, never must')).toBe('memtier-watch-a-server-the-cli-may-use-never-must');
    expect(slug('Many machines proven (issue 28, sessions 16 and 17)')).toBe('many-machines-proven-issue-28-sessions-16-and-17');
    expect(slug('`memtier health [--fix [--dry-run]]`')).toBe('memtier-health---fix---dry-run');
    expect(slug('The files, in 30 seconds')).toBe('the-files-in-30-seconds');
    expect(slug('2026-12-05')).toBe('2026-12-05');
  });

  it.each(docs)('%s: every relative link and anchor resolves', (doc) => {
    const md = read(doc);
    const broken: string[] = [];
    for (const target of links(md)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path = '', anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? join(REPO, doc) : normalize(join(REPO, dirname(doc), decodeURIComponent(path)));
      if (!file.startsWith(REPO)) { broken.push(`${target}: outside the repository`); continue; }
      if (!existsSync(file)) { broken.push(`${target}: ${relative(REPO, file)} does not exist`); continue; }
      if (anchor === undefined) continue;
      if (statSync(file).isDirectory() || !file.endsWith('.md')) { broken.push(`${target}: an anchor into a file that is not markdown`); continue; }
      if (!anchors(read(relative(REPO, file))).has(anchor)) broken.push(`${target}: no heading "${anchor}" in ${relative(REPO, file)}`);
    }
    expect(broken, `${doc}: broken links`).toEqual([]);
  });

  it('README.md links every page of docs/', () => {
    const readme = new Set(links(read('README.md')).map((l) => l.split('#')[0]));
    const pages = readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
    expect(pages.filter((p) => !readme.has(p)), 'pages of docs/ the README does not link').toEqual([]);
  });
});
