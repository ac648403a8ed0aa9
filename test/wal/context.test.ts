/**
 * `wal context`: what a user means by each form (#13.8). KEY VALUE sets a key fact; one argument
 * "KEY: VALUE" or "KEY = VALUE" is the same; one argument of several words without a separator is
 * a keyless fact; `pref` logs a preference ([PREF] VALUE), not session context; a lone word is a
 * KEY without its VALUE and is refused.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contextArgs } from '../../lib/commands/wal.js';
import { parseSessionState } from '../../lib/format/session-state.js';
import { runCli, tmpTree } from '../helpers.js';

describe('wal context arguments', () => {
  const cases: [string[], { key: string | undefined; parts: string[] }][] = [
    [['deadline', '2026-06-01'], { key: 'deadline', parts: ['2026-06-01'] }],
    [['deadline:', '2026-06-01'], { key: 'deadline', parts: ['2026-06-01'] }], // a trailing colon on KEY is dropped
    [['deadline', '=', '2026-06-01'], { key: 'deadline', parts: ['2026-06-01'] }], // so is a separator of its own
    [['owner', 'Ana', 'Lopez'], { key: 'owner', parts: ['Ana', 'Lopez'] }],
    [['deadline: 2026-06-01'], { key: 'deadline', parts: ['2026-06-01'] }],
    [['deadline = 2026-06-01'], { key: 'deadline', parts: ['2026-06-01'] }],
    [['pref', 'short answers'], { key: 'pref', parts: ['short answers'] }],
    [['pref short answers'], { key: 'pref', parts: ['short answers'] }], // the seed's "context pref VALUE", quoted whole
    [['the demo moved to Friday'], { key: undefined, parts: ['the demo moved to Friday'] }], // a keyless fact
    [['', 'the demo moved to Friday'], { key: undefined, parts: ['the demo moved to Friday'] }], // the MCP tool without a key
    [['deadline', '-'], { key: 'deadline', parts: ['-'] }], // VALUE from standard input
  ];
  for (const [args, want] of cases) it(JSON.stringify(args), () => expect(contextArgs(args)).toEqual(want));

  for (const bad of [[], ['deadline'], ['deadline:'], ['-'], ['']]) {
    it(`refuses ${JSON.stringify(bad)}`, () => expect(() => contextArgs(bad)).toThrow(/KEY and a VALUE/));
  }
});

describe('wal context through the CLI', () => {
  it('stores what each form means: the entry and SESSION-STATE.md', async () => {
    const root = tmpTree({ 'MEMORY.md': '# M\n' });
    const wal = async (...args: string[]) => {
      const r = await runCli(['wal', 'context', ...args, '--root', root, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout).entry as string;
    };
    expect(await wal('deadline', '2026-06-01')).toMatch(/ \[TEMP\] context: deadline = 2026-06-01 \^/);
    expect(await wal('deadline: 2026-06-08')).toMatch(/ \[TEMP\] context: deadline = 2026-06-08 \^/);
    expect(await wal('the demo moved to Friday')).toMatch(/ \[TEMP\] context: the demo moved to Friday \^/);
    expect(await wal('pref', 'short answers, no tables')).toMatch(/ \[PREF\] short answers, no tables \^/);
    const again = await runCli(['wal', 'context', 'the demo moved to Friday', '--root', root, '--json']);
    expect(JSON.parse(again.stdout).note).toBe('already in Key Context');
    const text = readFileSync(join(root, 'SESSION-STATE.md'), 'utf8');
    // the key is set in place; the keyless fact is a bullet of its own, once; the preference is not session context
    expect(text).toContain('## Key Context\n- deadline: 2026-06-08\n- the demo moved to Friday\n');
    expect(text).not.toContain('short answers');
    expect(parseSessionState(text).state.keyContext).toEqual([['deadline', '2026-06-08'], ['the demo moved to Friday', '']]);
    const lone = await runCli(['wal', 'context', 'deadline', '--root', root]);
    expect(lone.code).toBe(2);
    expect(lone.stderr).toMatch(/"deadline" alone is a KEY/);
  });
});
