/**
 * The layers of lib/ (ARCHITECTURE.md), bottom to top: a module may import from its own folder
 * and from any layer below its own, never from one above or beside it. Every import counts:
 * static, `import type` and dynamic `import()`. The entry (lib/cli/main.ts) sits above all.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO } from './helpers.js';

/** Layer of each lib/ folder (or single file, for the entry): higher may import lower. */
export const LAYERS: Record<string, number> = {
  core: 0, types: 0,
  format: 1,
  store: 2,
  wal: 3, git: 3, search: 3, memory: 3,
  cli: 4,
  health: 5, stats: 5, watch: 5, capture: 5, graph: 5,
  tools: 6,
  lifecycle: 7, mcp: 7, integrations: 7, openclaw: 7,
  commands: 8,
  bench: 9,
  'cli/main.ts': 10,
  'openclaw/entry.ts': 11,
};

const LIB = join(REPO, 'lib');

function files(dir: string): string[] {
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...files(p));
    else if (d.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

function unitOf(abs: string): string {
  const rel = relative(LIB, abs).replace(/\\/g, '/');
  return rel in LAYERS ? rel : rel.split('/')[0]!;
}

/** Every relative module specifier in a file: `from '…'`, `import '…'`, `import('…')`. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[2]!);
  return out;
}

export function upwardImports(): string[] {
  const bad: string[] = [];
  for (const f of files(LIB)) {
    const from = unitOf(f);
    const level = LAYERS[from];
    if (level === undefined) { bad.push(`${relative(REPO, f)}: folder "${from}" has no layer in test/architecture.test.ts`); continue; }
    for (const s of specifiers(readFileSync(f, 'utf8'))) {
      const target = resolve(dirname(f), s).replace(/\.js$/, '.ts');
      if (!target.startsWith(LIB + '/')) continue;
      const to = unitOf(target);
      if (to === from) continue;
      const tl = LAYERS[to];
      if (tl === undefined || tl >= level) bad.push(`${relative(REPO, f)} (${from}, layer ${level}) imports ${s} (${to}, layer ${tl ?? '?'})`);
    }
  }
  return bad;
}

describe('layers', () => {
  it('no module imports from a layer above or beside its own', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('sees every kind of import (a check that cannot fail would prove nothing)', () => {
    expect(specifiers("import type { A } from '../x/a.js';\nconst m = await import('./b.js');\nimport './c.js';")).toEqual(['../x/a.js', './b.js', './c.js']);
  });
});
