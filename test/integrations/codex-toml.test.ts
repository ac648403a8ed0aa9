/**
 * Issue #30, finding 6 (Codex): the config.toml entry memtier prints for Codex is valid TOML
 * whatever the memory's path, read back by a real TOML parser (Python's tomllib, TOML 1.0) to the
 * very path: a Windows path's backslashes, a double or a single quote, spaces, unicode, a tab.
 * It pasted the root into "…" unescaped (C:\Users\me → an invalid escape; a " ends the string).
 * The entry sets startup_timeout_sec (Codex's key; its default of 10 s is short for a cold start).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { codexSnippets } from '../../lib/integrations/claude-code.js';

/** Python 3.11+ with tomllib, the TOML parser of its standard library. */
const python = ['python3', 'python'].find((p) => spawnSync(p, ['-c', 'import tomllib'], { encoding: 'utf8' }).status === 0);

/** Each document parsed by tomllib (one Python for all): its value, or the parser's error. */
function parseTomls(docs: string[]): ({ value: any } | { error: string })[] {
  const script = [
    'import sys, json, tomllib',
    'out = []',
    'for d in json.load(sys.stdin):',
    '    try: out.append({"value": tomllib.loads(d)})',
    '    except Exception as e: out.append({"error": str(e)})',
    'print(json.dumps(out))',
  ].join('\n');
  const r = spawnSync(python!, ['-c', script], { input: JSON.stringify(docs), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

const ROOTS = [
  '/home/me/memory',
  'C:\\Users\\me\\memory',
  '\\\\server\\share\\memory',
  '/home/me/my "quoted" memory',
  "/home/o'brien/memory",
  "C:\\Users\\o'brien\\\"both\"",
  '/home/me/with space/mem ory',
  '/home/me/記憶/メモリー/café',
  '/tmp/tab\there',
  '/tmp/a\\b\\"c"\\\\',
];

describe.skipIf(!python)('codexSnippets: the config.toml entry for Codex (read back with python3\'s tomllib)', () => {
  it('is valid TOML that gives back the root, for backslashes, quotes, spaces, unicode and a tab', () => {
    const snippets = ROOTS.map((root) => codexSnippets(root));
    const parsed = parseTomls(snippets.map((s) => s.configToml));
    ROOTS.forEach((root, i) => {
      const p = parsed[i]!;
      expect('error' in p ? `${p.error}\n${snippets[i]!.configToml}` : '', root).toBe('');
      const t = (p as { value: any }).value;
      expect(t.mcp_servers.memtier.command, root).toBe('memtier');
      expect(t.mcp_servers.memtier.args, root).toEqual(['mcp', '--root', root]);
      expect(t.mcp_servers.memtier.startup_timeout_sec, root).toBe(30);
      expect(snippets[i]!.agentsMd, root).toContain(root);
    });
  });

  it('writes a literal string when the path has no single quote, an escaped basic string when it has', () => {
    expect(codexSnippets('C:\\Users\\me').configToml).toContain(`args = ["mcp", "--root", 'C:\\Users\\me']`);
    expect(codexSnippets("/home/o'brien").configToml).toContain(`args = ["mcp", "--root", "/home/o'brien"]`);
    expect(codexSnippets("C:\\o'b\"x").configToml).toContain(`args = ["mcp", "--root", "C:\\\\o'b\\"x"]`);
  });
});
