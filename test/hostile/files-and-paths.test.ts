/**
 * The hostile input corpus, file-system and parsing rows (issue 18): each row builds a hostile
 * memory or argument, runs the real binary, and states the outcome — exit code and a message
 * naming the rule, or the documented normalization. Every row also checks that no byte of the
 * memory changed (every file hashed before and after, `.memtier/` aside: it is derived state),
 * that the folder outside the root is untouched, and that no stack trace was printed. Rows that
 * could blow up run with a 256 MB heap, so a regression fails instead of eating the machine.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BIN, runCli } from '../helpers.js';
import { hashTree, OUTSIDE_SECRET, runMemtier, runMemtierAsync, sandbox, SENTINEL, STACK_LINE, type Run, type Sandbox } from './fs-kit.js';

interface Row {
  name: string;
  /** Make the memory hostile (runs on a fresh copy). */
  setup?: (sb: Sandbox) => void;
  args: (sb: Sandbox) => string[];
  input?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  /** Run through main() in-process: argv cannot carry a NUL through exec. */
  inProcess?: boolean;
  heapMb?: number;
  code: number | number[];
  /** Must appear in stdout + stderr. */
  says?: RegExp;
  /** Must not appear (e.g. the content of a file outside the root). */
  never?: RegExp;
  /** The row writes on purpose (then `then` checks what). */
  writes?: boolean;
  /** New paths the command may add (a report it writes); every existing byte must stay. */
  mayAdd?: RegExp;
  then?: (sb: Sandbox, r: Run) => void;
}

const mkfifo = (p: string): void => { execFileSync('mkfifo', [p]); };
const write = (sb: Sandbox, rel: string, content: string | Buffer): void => {
  mkdirSync(join(sb.root, rel, '..'), { recursive: true });
  writeFileSync(join(sb.root, rel), content);
};
const note = (fm: string): string => `---\n${fm}\n---\n# a note\n\nbody text about kubernetes\n`;
/** A YAML billion laughs: 9 levels of 9 aliases each, ~3.9e8 values once followed. */
const aliasBomb = (): string => {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  let prev = 'a';
  for (let i = 1; i <= 9; i++) { lines.push(`l${i}: &l${i} [${Array(9).fill(`*${prev}`).join(',')}]`); prev = `l${i}`; }
  return note(lines.join('\n'));
};
const LINK_NOTE = 'memory/semantic/link.md';
const DAY = 'memory/episodic/2026-05-14.md';
const secretOutside = new RegExp(OUTSIDE_SECRET.split(':')[4]!);
/** verify and review write their report (memory/reviews/…): a new file, never a change to one. */
const REPORTS = /^memory\/reviews(?:\/|$)/;
const bufferIds = (sb: Sandbox): string[] => [...readFileSync(join(sb.root, 'memory/working-buffer.md'), 'utf8').matchAll(/\^([a-z0-9]+)$/gm)].map((m) => m[1]!);

const rows: Row[] = [
  // ── path escapes, for every command that takes a path ──
  { name: 'get ../ leaves the root', args: () => ['get', '../outside/passwd'], code: 2, says: /leaves the memory root.*path-containment/, never: secretOutside },
  { name: 'get an absolute path', args: (sb) => ['get', join(sb.outside, 'passwd')], code: 2, says: /is absolute/, never: secretOutside },
  { name: 'get a path holding NUL', inProcess: true, args: () => ['get', 'memory/\u0000../../outside/passwd'], code: 2, says: /control, bidi or zero-width character/, never: secretOutside },
  { name: 'get URL-encoded ../ (%2e%2e%2f) is a literal name, never decoded', args: () => ['get', '%2e%2e%2foutside%2fpasswd'], code: 2, says: /%2e%2e%2foutside%2fpasswd: not a memory file/, never: secretOutside },
  { name: 'get full-width dots and slash (．．／) are literal characters', args: () => ['get', '．．／outside／passwd'], code: 2, says: /．．／outside／passwd: not a memory file/, never: secretOutside },
  { name: 'get a U+2215 division slash is not a separator', args: () => ['get', '..\u2215outside\u2215passwd'], code: 2, says: /\.\.\u2215outside\u2215passwd: not a memory file/, never: secretOutside },
  { name: 'get a symlinked file', setup: (sb) => symlinkSync(join(sb.outside, 'passwd'), join(sb.root, LINK_NOTE)), args: () => ['get', LINK_NOTE], code: 2, says: /symbolic link/, never: secretOutside },
  { name: 'get through a symlinked folder', setup: (sb) => symlinkSync(sb.outside, join(sb.root, 'memory/semantic/linked')), args: () => ['get', 'memory/semantic/linked/passwd'], code: 2, says: /symbolic link/, never: secretOutside },
  { name: 'get a FIFO where a day file belongs (never blocks)', setup: (sb) => { rmSync(join(sb.root, DAY)); mkfifo(join(sb.root, DAY)); }, args: () => ['get', DAY], code: 2, says: /not a regular file/ },
  { name: 'get a folder where SESSION-STATE.md belongs', setup: (sb) => { rmSync(join(sb.root, 'SESSION-STATE.md')); mkdirSync(join(sb.root, 'SESSION-STATE.md')); }, args: () => ['get', 'SESSION-STATE.md'], code: 2, says: /not a regular file/ },
  { name: 'forget ../ is not an entry reference', args: () => ['forget', '../outside/passwd:1'], code: 2, says: /not an entry reference/ },
  { name: 'forget a line of a symlinked file', setup: (sb) => symlinkSync(join(sb.outside, 'passwd'), join(sb.root, LINK_NOTE)), args: () => ['forget', `${LINK_NOTE}:1`], code: 2, says: /symbolic link/, never: secretOutside },
  { name: 'supersede a line of a FIFO', setup: (sb) => { rmSync(join(sb.root, DAY)); mkfifo(join(sb.root, DAY)); }, args: () => ['supersede', `${DAY}:3`, '--by', 'deploy on monday'], code: 2, says: /not a regular file/ },
  { name: 'supersede an absolute path', args: (sb) => ['supersede', `${join(sb.outside, 'passwd')}:1`, '--by', 'x'], code: 2, says: /not an entry reference|absolute/ },
  { name: 'extract --file a FIFO is refused before any read', setup: (sb) => mkfifo(join(sb.outside, 'pipe')), args: (sb) => ['extract', '--file', join(sb.outside, 'pipe')], code: 2, says: /not a regular file/ },
  { name: 'extract --file /dev/zero is refused (a device, endless)', heapMb: 256, args: () => ['extract', '--file', '/dev/zero'], code: 2, says: /not a regular file/ },
  { name: 'extract --file a folder', args: (sb) => ['extract', '--file', sb.outside], code: 2, says: /is a folder/ },
  { name: 'recall --messages a FIFO', setup: (sb) => mkfifo(join(sb.outside, 'pipe')), args: (sb) => ['recall', '--messages', join(sb.outside, 'pipe')], code: 2, says: /not a regular file/ },
  { name: '--root a file is no memory', args: (sb) => ['health', '--root', join(sb.outside, 'passwd')], code: 2, says: /no memory found/ },
  { name: 'wal snapshot NAME with ../', args: () => ['wal', 'snapshot', '../../outside/x'], code: 2, says: /invalid snapshot name/ },
  // ── session ids and cache keys ──
  { name: 'cache --session ../x', args: () => ['cache', 'set', 'k', 'v', '--session', '../x'], code: 2, says: /invalid session id.*session-id/ },
  { name: 'cache --session a/b', args: () => ['cache', 'set', 'k', 'v', '--session', 'a/b'], code: 2, says: /invalid session id/ },
  { name: 'cache --session with NUL', inProcess: true, args: () => ['cache', 'set', 'k', 'v', '--session', 'a\u0000b'], code: 2, says: /invalid session id/ },
  {
    name: 'cache key ../x is an opaque key inside the session file (documented), never a path',
    args: () => ['cache', 'set', '../../outside/x', 'v'], code: 0,
    then: (sb) => {
      expect(readdirSync(join(sb.root, '.memtier/cache'))).toEqual(['default.json']);
      expect(runMemtier(['cache', 'get', '../../outside/x', '--root', sb.root], {}).stdout).toContain('v');
    },
  },
  // ── frontmatter ──
  {
    name: '---js frontmatter is never evaluated (sentinel untouched) and health names the rule',
    setup: (sb) => write(sb, 'memory/semantic/js.md', `---js\n{ a: require("fs").writeFileSync(${JSON.stringify(join(sb.outside, 'sentinel.txt'))}, "EVALUATED") }\n---\n# js\n`),
    args: () => ['health'], code: 1, says: /memory\/semantic\/js\.md:1: frontmatter language "js" is not allowed.*frontmatter-language/,
  },
  {
    name: '---js frontmatter read by search and verify: still never evaluated',
    setup: (sb) => write(sb, 'memory/semantic/js.md', `---js\n{ a: require("fs").writeFileSync(${JSON.stringify(join(sb.outside, 'sentinel.txt'))}, "EVALUATED") }\n---\n# js\n`),
    args: () => ['verify'], code: 1, says: /js\.md.*not allowed/, mayAdd: REPORTS,
    then: (sb) => { expect(runMemtier(['search', 'require', '--root', sb.root], {}).code).toBe(0); },
  },
  { name: 'unclosed frontmatter', setup: (sb) => write(sb, 'memory/semantic/open.md', '---\ntags: [a]\n# never closed\n'), args: () => ['health'], code: 1, says: /open\.md:1: frontmatter is never closed/ },
  { name: 'duplicate frontmatter keys', setup: (sb) => write(sb, 'memory/semantic/dup.md', note('tags: [a]\ntags: [b]')), args: () => ['health'], code: 1, says: /dup\.md:\d+: frontmatter: .*duplicated mapping key/ },
  { name: 'YAML alias bomb: health reports it within 256 MB', heapMb: 256, setup: (sb) => write(sb, 'memory/semantic/bomb.md', aliasBomb()), args: () => ['health'], code: 1, says: /bomb\.md:2: frontmatter: .*rule frontmatter-aliases/ },
  { name: 'YAML alias bomb: verify reports it within 256 MB', heapMb: 256, setup: (sb) => write(sb, 'memory/semantic/bomb.md', aliasBomb()), args: () => ['verify'], code: 1, says: /bomb\.md.*aliases/, mayAdd: REPORTS },
  { name: 'YAML alias bomb: review and search stay bounded', heapMb: 256, setup: (sb) => write(sb, 'memory/semantic/bomb.md', aliasBomb()), args: () => ['review'], code: [0, 1], writes: true, then: (sb) => {
      // review promotes the day's decision (its job); the bomb note is left as it is
      expect(readFileSync(join(sb.root, 'memory/semantic/bomb.md'), 'utf8')).toBe(aliasBomb());
      expect(runMemtier(['search', 'kubernetes', '--root', sb.root], { heapMb: 256 }).code).toBe(0); } },
  { name: '5,000-deep flow nesting', heapMb: 256, setup: (sb) => write(sb, 'memory/semantic/deep.md', note(`a: ${'['.repeat(5000)}${']'.repeat(5000)}`)), args: () => ['health'], code: 1, says: /deep\.md:2: frontmatter: .*nested more than 64 levels.*frontmatter-depth/ },
  // ── encodings ──
  { name: 'invalid UTF-8 in a note', setup: (sb) => write(sb, 'memory/semantic/latin1.md', Buffer.from('# caf\xe9\n', 'latin1')), args: () => ['health'], code: 1, says: /latin1\.md.*UTF-8/ },
  { name: 'a lone surrogate (CESU-8 bytes) in a day file', setup: (sb) => write(sb, DAY, Buffer.concat([Buffer.from('# 2026-05-14\n\n- 09:00 [EVENT] half '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(' a pair ^lone000001\n')])), args: () => ['health'], code: 1, says: /2026-05-14\.md.*UTF-8/ },
  { name: 'a lone surrogate in an argument becomes U+FFFD (documented normalization)', inProcess: true, writes: true, args: () => ['add', 'half \ud800 a pair'], code: 0, then: (sb) => { expect(readdirSync(join(sb.root, 'memory/episodic')).join()).toContain('2026-05-15.md'); expect(readFileSync(join(sb.root, 'memory/episodic/2026-05-15.md'), 'utf8')).toContain('half \ufffd a pair'); } },
  { name: 'a NUL byte in a note', setup: (sb) => write(sb, 'memory/semantic/nul.md', '# a\n\nbefore\u0000after\n'), args: () => ['health'], code: 1, says: /nul\.md:3.*NUL/ },
  { name: 'a binary file named .md', setup: (sb) => write(sb, 'memory/semantic/image.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0xfe])), args: () => ['health'], code: 1, says: /image\.md.*(UTF-8|NUL)/ },
  { name: 'BOM + CRLF day file is read as LF text (documented), bytes kept', setup: (sb) => write(sb, DAY, '\ufeff# 2026-05-14\r\n\r\n- 09:00 [DECISION] deploy with kubernetes on friday ^k8sdecide1\r\n'), args: () => ['search', 'kubernetes'], code: 0, says: /2026-05-14\.md#L3/ },
  // ── sizes ──
  {
    name: '50 MB MEMORY.md: health and get refuse to read it, search skips it and says so, all within 256 MB',
    heapMb: 256, setup: (sb) => write(sb, 'MEMORY.md', Buffer.alloc(50 * 1024 * 1024, '- a line of memory text about kubernetes\n')),
    args: () => ['health'], code: 1, says: /MEMORY\.md: cannot be read: file is \d+ bytes, over the 4194304-byte limit/,
    then: (sb) => {
      const g = runMemtier(['get', 'MEMORY.md', '--root', sb.root], { heapMb: 256 });
      expect([g.code, g.stderr]).toEqual([2, expect.stringMatching(/over the 4194304-byte limit.*max-file-size/)]);
      const q = runMemtier(['search', 'kubernetes', '--root', sb.root], { heapMb: 256 });
      expect([q.code, q.stdout]).toEqual([0, expect.stringMatching(/2026-05-14\.md/)]);
      // no result from it, and the answer says it was not searched (issue 29 finding 12)
      expect(q.stdout).not.toMatch(/^\d+\. MEMORY\.md/m);
      expect(q.stdout).toContain('not searched: 1 file over the 4 MiB limit (MEMORY.md)');
    },
  },
  { name: 'a 20 KB entry', args: () => ['wal', 'decide', 'x'.repeat(20_000)], code: 2, says: /over the 16384-byte entry limit.*max-entry-size/ },
  { name: 'a 10 MB text on stdin (add -)', heapMb: 256, input: 'y'.repeat(10 * 1024 * 1024), args: () => ['add', '-'], code: 2, says: /over the 16384-byte entry limit/ },
  { name: 'a 17 MB text on stdin (extract -) is over the input limit', heapMb: 256, input: 'z '.repeat(8_500_000), args: () => ['extract', '-'], code: 2, says: /over the 16 MiB input limit.*max-input-size/ },
  // ── links, FIFOs and folders where memtier reads and writes ──
  {
    name: 'MEMORY.md linked to a file outside: search never prints it, health reports it',
    setup: (sb) => { rmSync(join(sb.root, 'MEMORY.md')); symlinkSync(join(sb.outside, 'passwd'), join(sb.root, 'MEMORY.md')); },
    args: () => ['search', 'root bin bash sentinel'], code: 0, never: secretOutside,
    then: (sb) => {
      const h = runMemtier(['health', '--root', sb.root], {});
      expect(h.code).toBe(1);
      expect(h.stdout).toMatch(/FAIL file-types +MEMORY\.md: is a symbolic link to .*outside the memory root/);
      expect(runMemtier(['recall', '--query', 'root bin bash', '--root', sb.root], {}).stdout).not.toMatch(secretOutside);
    },
  },
  {
    name: 'SESSION-STATE.md and todos.md linked outside: boot and recall never print them',
    setup: (sb) => { for (const f of ['SESSION-STATE.md', 'todos.md']) { rmSync(join(sb.root, f)); symlinkSync(join(sb.outside, 'passwd'), join(sb.root, f)); } },
    args: () => ['boot'], code: [0, 1], never: secretOutside,
    then: (sb) => { expect(runMemtier(['search', 'sentinel', '--root', sb.root], {}).stdout).not.toMatch(secretOutside); },
  },
  {
    name: 'memory/ linked to a folder outside: search does not walk it',
    setup: (sb) => { writeFileSync(join(sb.outside, 'stolen.md'), '- 09:00 [EVENT] outside sentinel words ^outside001\n'); rmSync(join(sb.root, 'memory/semantic'), { recursive: true }); symlinkSync(sb.outside, join(sb.root, 'memory/semantic')); },
    args: () => ['search', 'outside sentinel words'], code: 0, never: /stolen\.md/,
    then: (sb) => { expect(runMemtier(['health', '--root', sb.root], {}).stdout).toMatch(/file-types +memory\/semantic: is a symbolic link/); },
  },
  {
    name: '.memtier/ linked outside: search keeps no index there, writers refuse, health reports it',
    setup: (sb) => { rmSync(join(sb.root, '.memtier'), { recursive: true, force: true }); symlinkSync(sb.outside, join(sb.root, '.memtier')); },
    args: () => ['search', 'kubernetes'], code: 0, says: /2026-05-14\.md/,
    then: (sb) => {
      expect(readdirSync(sb.outside).sort()).toEqual(['passwd', 'sentinel.txt']);
      const w = runMemtier(['wal', 'decide', 'use sqlite', '--root', sb.root], {});
      expect(w.code).toBe(2);
      expect(w.stderr).toMatch(/\.memtier is a symbolic link.*no-symlink/);
      expect(runMemtier(['health', '--root', sb.root], {}).stdout).toMatch(/FAIL file-types +\.memtier: is a symbolic link/);
      expect(readdirSync(sb.outside).sort()).toEqual(['passwd', 'sentinel.txt']);
    },
  },
  { name: 'SESSION-STATE.md is a folder: health reports it', setup: (sb) => { rmSync(join(sb.root, 'SESSION-STATE.md')); mkdirSync(join(sb.root, 'SESSION-STATE.md')); }, args: () => ['health'], code: 1, says: /FAIL file-types +SESSION-STATE\.md: is a folder where memtier expects a file/ },
  { name: 'SESSION-STATE.md is a folder: wal refuses', setup: (sb) => { rmSync(join(sb.root, 'SESSION-STATE.md')); mkdirSync(join(sb.root, 'SESSION-STATE.md')); }, args: () => ['wal', 'decide', 'use sqlite'], code: 2, says: /SESSION-STATE\.md: is not a regular file/ },
  { name: 'a day file is a FIFO: health reports it (and does not block)', setup: (sb) => { rmSync(join(sb.root, DAY)); mkfifo(join(sb.root, DAY)); }, args: () => ['health'], code: 1, says: /FAIL file-types +memory\/episodic\/2026-05-14\.md: is a FIFO/ },
  { name: 'a day file is a symlink: health reports it', setup: (sb) => { rmSync(join(sb.root, DAY)); symlinkSync(join(sb.outside, 'passwd'), join(sb.root, DAY)); }, args: () => ['health'], code: 1, says: /FAIL file-types +memory\/episodic\/2026-05-14\.md: is a symbolic link/, never: secretOutside },
  { name: '.memtier/lock is a folder: writers say so', setup: (sb) => mkdirSync(join(sb.root, '.memtier/lock'), { recursive: true }), args: () => ['wal', 'decide', 'use sqlite'], code: 2, says: /\.memtier\/lock is a folder, not memtier's lock file[\s\S]*health --fix/ },
  {
    name: '.memtier/lock is a folder: health --fix moves it to the trash, then writes work',
    setup: (sb) => { mkdirSync(join(sb.root, '.memtier/lock'), { recursive: true }); writeFileSync(join(sb.root, '.memtier/lock/keep.txt'), 'kept\n'); },
    args: () => ['health', '--fix'], code: [0, 1], writes: true, says: /file-types: moved \.memtier\/lock \(a folder\) to memory\/\.trash\//,
    then: (sb) => {
      const trashed = readdirSync(join(sb.root, 'memory/.trash'));
      expect(trashed).toHaveLength(1);
      expect(readFileSync(join(sb.root, 'memory/.trash', trashed[0]!, '.memtier', readdirSync(join(sb.root, 'memory/.trash', trashed[0]!, '.memtier'))[0]!, 'keep.txt'), 'utf8')).toBe('kept\n');
      expect(runMemtier(['wal', 'decide', 'use sqlite', '--root', sb.root], {}).code).toBe(0);
    },
  },
  // ── clock ──
  { name: '--now 2026-02-30 is not a date (Date would roll it into March)', args: () => ['add', '--now', '2026-02-30', 'x'], code: 2, says: /--now is not a valid date\/time: "2026-02-30" \(2026-02 has 28 days\)/ },
  { name: '--now year 0000', args: () => ['add', '--now', '0000-01-01T00:00:00Z', 'x'], code: 2, says: /year 0000 is outside 1970-9999/ },
  { name: '--now year 275760', args: () => ['add', '--now', '+275760-01-01', 'x'], code: 2, says: /--now is not a valid date/ },
  { name: 'MEMTIER_NOW 2026-13-01', env: { MEMTIER_NOW: '2026-13-01' }, args: () => ['add', 'x'], code: 2, says: /MEMTIER_NOW is not a valid date\/time.*no month 13/ },
  // ── ids and the WAL transaction ──
  {
    name: 'add --id an id a WAL entry holds',
    setup: (sb) => { const r = runMemtier(['wal', 'decide', 'use postgres', '--root', sb.root], {}); expect(r.code).toBe(0); },
    args: (sb) => ['add', '--id', bufferIds(sb)[0]!, 'hijack the id'], code: 2, says: /an entry with id \^\w+ already exists \(in memory\/working-buffer\.md\)/,
  },
  { name: 'add --id an id an episodic day holds', args: () => ['add', '--id', 'k8sdecide1', 'another entry'], code: 2, says: /already exists \(in memory\/episodic\/2026-05-14\.md\)/ },
  {
    name: 'SESSION-STATE.md cannot be written after the buffer append: nothing kept, a retry does not duplicate',
    setup: (sb) => {
      expect(runMemtier(['wal', 'decide', 'use postgres', '--root', sb.root], {}).code).toBe(0);
      // a hand edit the store refuses to write back (a credential): the state write fails after the append
      writeFileSync(join(sb.root, 'SESSION-STATE.md'), readFileSync(join(sb.root, 'SESSION-STATE.md'), 'utf8') + '- aws: AKIAIOSFODNN7EXAMPLE\n');
    },
    args: () => ['wal', 'decide', 'use sqlite'], code: 2, says: /SESSION-STATE\.md.*aws-access-key-id/,
    then: (sb) => {
      expect(runMemtier(['wal', 'decide', 'use sqlite', '--root', sb.root], {}).code).toBe(2);
      expect(readFileSync(join(sb.root, 'memory/working-buffer.md'), 'utf8')).not.toContain('use sqlite');
    },
  },
];

describe('hostile input: files and paths', () => {
  it('has at least 20 rows', () => { expect(rows.length).toBeGreaterThanOrEqual(20); });

  // rows are independent (a fresh memory each): run a few side by side
  it.concurrent.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const sb = sandbox();
    row.setup?.(sb);
    const before = hashTree(sb.root);
    const outsideBefore = hashTree(sb.outside);
    const args = row.args(sb);
    if (!args.includes('--root')) args.push('--root', sb.root);
    let r: Run;
    if (row.inProcess) {
      r = await runCli(args, { env: { MEMTIER_GIT: 'off', ...row.env } });
    } else {
      r = await runMemtierAsync(args, { ...(row.env ? { env: row.env } : {}), ...(row.input !== undefined ? { input: row.input } : {}), ...(row.heapMb ? { heapMb: row.heapMb } : {}) });
    }
    const out = r.stdout + r.stderr;
    const codes = Array.isArray(row.code) ? row.code : [row.code];
    expect(codes, `exit ${r.code}: ${out.slice(0, 600)}`).toContain(r.code);
    if (row.says) expect(out).toMatch(row.says);
    if (row.never) expect(out).not.toMatch(row.never);
    expect(out, 'no stack trace').not.toMatch(STACK_LINE);
    expect(out).not.toMatch(/heap out of memory|RangeError|TypeError/);
    if (!row.writes) {
      const after = hashTree(sb.root);
      if (row.mayAdd) for (const p of Object.keys(after)) if (!(p in before) && row.mayAdd.test(p)) delete after[p];
      expect(after, 'memory bytes unchanged').toEqual(before);
    }
    row.then?.(sb, r);
    expect(hashTree(sb.outside), 'outside the root untouched').toEqual(outsideBefore);
    expect(readFileSync(join(sb.outside, 'sentinel.txt'), 'utf8')).toBe(SENTINEL);
  });

  it('a 10 MB argument is refused by the OS (E2BIG), before memtier runs', () => {
    const r = spawnSync(process.execPath, [BIN, 'add', 'a'.repeat(10 * 1024 * 1024)], { encoding: 'utf8' });
    expect((r.error as NodeJS.ErrnoException | undefined)?.code).toBe('E2BIG');
  });
});
