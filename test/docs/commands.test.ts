/**
 * docs/commands.md is generated from the commands' own tables (scripts/gen-commands.mjs) and
 * cannot drift from them: rendered again here from lib/ it must be the file, byte for byte; and
 * every command's `memtier CMD --help`, from the real binary, names exactly the flags and usage
 * lines its section of the reference holds.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../lib/commands/index.js';
import { GLOBAL_FLAGS } from '../../lib/cli/args.js';
import { COMMANDS_MD, renderCommands } from '../../scripts/gen-commands.mjs';
import { BIN, REPO } from '../helpers.js';

const doc = readFileSync(join(REPO, 'docs', 'commands.md'), 'utf8');

/** The part of the reference under `### memtier NAME`, up to the next heading of its level or above. */
function section(name: string): string {
  const start = doc.indexOf(`\n### memtier ${name}\n`);
  if (start < 0) return '';
  const rest = doc.slice(start + 1);
  const end = rest.slice(1).search(/\n#{2,3} /);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

/** Flags named in a section's option tables (`| \`--name VALUE\` |`). */
const docFlags = (md: string): string[] => [...md.matchAll(/^\| `(?:-\w, )?--([a-z0-9-]+)[^`]*` \|/gm)].map((m) => m[1]!).sort();

/** Flags `--help` lists under Options and Global options. */
function helpFlags(help: string): string[] {
  const out: string[] = [];
  let inOptions = false;
  for (const line of help.split('\n')) {
    if (/^(Options|Global options):$/.test(line)) { inOptions = true; continue; }
    if (/^\S/.test(line)) inOptions = false;
    const m = inOptions ? /^ {2}(?:-\w, | {4})--([a-z0-9-]+)/.exec(line) : null;
    if (m) out.push(m[1]!);
  }
  return out.sort();
}

/** `memtier NAME --help` of every command, through the real binary, four at a time. */
const helps = new Map<string, { code: number; stdout: string; stderr: string }>();
beforeAll(async () => {
  const names = registry.map((c) => c.name);
  const one = (name: string) => new Promise<void>((done) => {
    execFile(process.execPath, [BIN, name, '--help'], { cwd: tmpdir(), env: { PATH: process.env.PATH, HOME: tmpdir() }, encoding: 'utf8' }, (err, stdout, stderr) => {
      helps.set(name, { code: err ? Number(err.code ?? 2) : 0, stdout, stderr });
      done();
    });
  });
  const queue = [...names];
  await Promise.all(Array.from({ length: 4 }, async () => { while (queue.length) await one(queue.shift()!); }));
});

const usage = (help: string): string[] => {
  const m = /^Usage:\n((?: {2}.*\n)+)/m.exec(help);
  return m ? m[1]!.trimEnd().split('\n').map((l) => l.trim()) : [];
};

describe('docs/commands.md', () => {
  it('is what scripts/gen-commands.mjs renders from the commands\' tables (run "npm run build && npm run docs" after changing a flag)', async () => {
    expect(COMMANDS_MD).toBe(join(REPO, 'docs', 'commands.md'));
    expect(doc).toBe(await renderCommands(registry, GLOBAL_FLAGS));
  });

  it('has a section for every command of the registry', () => {
    expect(registry.filter((c) => section(c.name) === '').map((c) => c.name)).toEqual([]);
    expect([...doc.matchAll(/^### memtier (\S+)$/gm)].map((m) => m[1])).toEqual(registry.map((c) => c.name));
  });

  const globals = docFlags(doc.slice(doc.indexOf('## Global options'), doc.indexOf('\n## ', doc.indexOf('## Global options') + 1)));

  it('lists the global options --help prints for every command', () => {
    expect(globals).toEqual(GLOBAL_FLAGS.map((f) => f.name).sort());
  });

  it.each(registry.map((c) => c.name))('memtier %s --help: the same usage and flags as its section', (name) => {
    const r = helps.get(name)!;
    expect(r.code, r.stderr).toBe(0);
    const own = docFlags(section(name));
    expect(helpFlags(r.stdout)).toEqual([...own, ...globals].sort());
    for (const u of usage(r.stdout)) expect(section(name), `usage line "${u}"`).toContain(`\n${u}\n`);
  });
});
