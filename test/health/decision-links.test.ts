/**
 * decision-links (issue 18): a dead link anywhere in MEMORY.md is reported — FAIL inside
 * "Active decisions", WARN in the other sections (a dead index line there used to pass).
 */
import { describe, expect, it } from 'vitest';
import { runHealth } from '../../lib/health/run.js';
import { testCtx, tmpTree } from '../helpers.js';

const NOTE = '# Decisions\n\n- 2026-05-14 09:00 [DECISION] SQLite for the cache ^k2j3mx0a\n';
const memory = (keyFacts: string, decisions = '- [Cache](memory/semantic/decisions.md#^k2j3mx0a) — SQLite') =>
  `# MEMORY\n\n## Active decisions\n${decisions}\n\n## Key facts\n${keyFacts}\n`;

async function linkFindings(files: Record<string, string>) {
  const report = await runHealth(testCtx(tmpTree(files)), { only: ['decision-links'] });
  return { exitCode: report.exitCode, findings: report.findings.map((f) => [f.severity, f.line, f.message]) };
}

describe('decision-links over the whole of MEMORY.md', () => {
  it('a dead line under Key facts is a WARN (exit 0); under Active decisions a FAIL', async () => {
    const note = { 'memory/semantic/decisions.md': NOTE };
    expect(await linkFindings({ ...note, 'MEMORY.md': memory('- [Backups](memory/semantic/backups.md) — restic') })).toEqual({
      exitCode: 0,
      findings: [['warn', 7, 'link "memory/semantic/backups.md" does not resolve: no such file (outside "Active decisions")']],
    });
    expect(await linkFindings({ ...note, 'MEMORY.md': memory('- [Cache again](memory/semantic/decisions.md#^nothere1)', '- [Old](memory/semantic/old.md)') })).toEqual({
      exitCode: 1,
      findings: [
        ['fail', 4, 'link "memory/semantic/old.md" does not resolve: no such file'],
        ['warn', 7, 'link "memory/semantic/decisions.md#^nothere1" does not resolve: memory/semantic/decisions.md has no entry ^nothere1 (outside "Active decisions")'],
      ],
    });
    expect(await linkFindings({ ...note, 'MEMORY.md': memory('- [Decisions](memory/semantic/decisions.md)') })).toEqual({ exitCode: 0, findings: [] });
  });
});
