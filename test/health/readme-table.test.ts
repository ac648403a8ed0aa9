/**
 * The documentation's check table is generated from the registry (`memtier health --list --markdown`):
 * docs/guide.md (its Health section, where the README's table moved) must hold exactly that table
 * between its markers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checksTable, checksTableBlock, tableInReadme, TABLE_END, TABLE_START } from '../../lib/health/table.js';
import { CHECKS } from '../../lib/health/checks/index.js';
import { REPO } from '../helpers.js';

const readmePath = join(REPO, 'docs', 'guide.md');
const readme = existsSync(readmePath) ? readFileSync(readmePath, 'utf8') : '';
const hasMarkers = readme.includes(TABLE_START) && readme.includes(TABLE_END);

describe('the check table of docs/guide.md', () => {
  it.skipIf(!hasMarkers)(`docs/guide.md holds the generated table between ${TABLE_START} and ${TABLE_END} (skipped while the markers are absent; paste "memtier health --list --markdown")`, () => {
    expect(tableInReadme(readme)).toBe(checksTable());
  });

  it('reads back exactly what --list --markdown prints, pasted between the markers', () => {
    const pasted = `# memtier\n\n## Health checks\n\n${checksTableBlock()}\nMore text.\n`;
    expect(tableInReadme(pasted)).toBe(checksTable());
    expect(tableInReadme('# no markers\n')).toBeUndefined();
    expect(tableInReadme(pasted.replace('| `syntax`', '| `syntaks`'))).not.toBe(checksTable());
  });

  it('the generated table has one row per registered check, in registry order, and every check is documented', () => {
    const rows = checksTable().trim().split('\n').slice(2);
    expect(rows.map((r) => /^\| `([a-z-]+)` \|/.exec(r)?.[1])).toEqual(CHECKS.map((c) => c.id));
    for (const c of CHECKS) {
      expect(new Set(CHECKS.filter((x) => x.id === c.id)).size, `${c.id} is unique`).toBe(1);
      for (const k of ['trigger', 'failing', 'fixed', 'why'] as const) expect(c.doc[k].length, `${c.id}.doc.${k}`).toBeGreaterThan(10);
      expect(c.fixable, `${c.id}: fixable iff it has a fix`).toBe(c.fix !== undefined);
    }
  });
});
