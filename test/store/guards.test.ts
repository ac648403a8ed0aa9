/**
 * Path, symlink, text, decoding and frontmatter guards: each bad input is refused with a clear
 * error (code, file, line where it applies) and every file's bytes are unchanged afterwards.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { rmTree, tmpTree } from '../helpers.js';
import { snapshotBytes, store, thrown } from './util.js';
import { readMemoryFile } from '../../lib/store/store.js';
import { assertSessionId, resolveInside } from '../../lib/store/guards/paths.js';
import { decodeStrict, MAX_ENTRY_BYTES, MAX_FILE_BYTES, printable, printableJson, sanitizeText } from '../../lib/store/guards/text.js';
import { FrontmatterError, parseFrontmatter } from '../../lib/format/frontmatter.js';

let root: string;
let outside: string;
const LOG = 'memory/log.md';
const LOG_TEXT = '# Log\n\n- 14:30 [EVENT] first ^aaaa000001\n';

beforeEach(() => {
  root = tmpTree({ [LOG]: LOG_TEXT, 'MEMORY.md': '# Memory\n', 'memory/semantic/people.md': '---\ntags: [people]\n---\n# People\n' });
  outside = tmpTree({ 'victim.md': 'outside, must not change\n', 'dir/existing.md': 'outside dir file\n' });
});
afterEach(() => {
  rmTree(root);
  rmTree(outside);
});

/** Run a refused mutation: returns the error; asserts no file inside or outside changed. */
function refused(fn: Parameters<ReturnType<typeof store>['mutate']>[0]) {
  const inBefore = snapshotBytes(root);
  const outBefore = snapshotBytes(outside);
  const e = thrown(() => store(root).mutate(fn));
  const inAfter = snapshotBytes(root);
  inAfter.delete('.memtier/lock'); // never left behind, but keep the comparison about memory files
  inBefore.delete('.memtier/lock');
  expect(inAfter).toEqual(inBefore);
  expect(snapshotBytes(outside)).toEqual(outBefore);
  expect(existsSync(join(root, '.memtier/lock'))).toBe(false);
  return e;
}

describe('paths stay inside the root', () => {
  const BAD: [string, string][] = [
    ['parent', '../escape.md'],
    ['nested parent', 'memory/../../escape.md'],
    ['absolute', '/tmp/escape.md'],
    ['drive letter', 'C:/escape.md'],
    ['NUL byte', 'memory/a\u0000b.md'],
    ['control char', 'memory/a\u0001b.md'],
    ['escape sequence', 'memory/\u001b[31mred.md'],
    ['C1 control', 'memory/a\u0085b.md'],
    ['bidi override', 'memory/evil\u202egpj.md'],
    ['bidi isolate', 'memory/a\u2066b.md'],
    ['zero-width space', 'memory/pe\u200bople.md'],
    ['zero-width joiner', 'memory/a\u200db.md'],
    ['word joiner', 'memory/a\u2060b.md'],
    ['BOM', '\ufeffmemory/a.md'],
    ['empty', ''],
  ];
  it.each(BAD)('%s is refused for write, append, move and mkdir', (_why, rel) => {
    for (const op of [
      (tx: any) => tx.write(rel, 'x\n'),
      (tx: any) => tx.append(rel, '- 14:30 x ^abcd000001\n'),
      (tx: any) => tx.move(LOG, rel),
      (tx: any) => tx.mkdir(rel),
    ]) {
      const e = refused(op);
      expect(e.code).toBe('path');
      expect(e.message).not.toMatch(/[\u0000-\u001f\u202e\u200b]/);
    }
    expect(() => readMemoryFile(root, rel)).toThrow(/path/);
  });

  it('the escape target outside the root is never created', () => {
    refused((tx) => tx.write('../' + outside.split('/').pop() + '/created.md', 'x\n'));
    expect(existsSync(join(outside, 'created.md'))).toBe(false);
  });

  it('names memtier reserves (temp files, the lock) are not write destinations', () => {
    expect(refused((tx) => tx.write('memory/.log.md.memtier-tmp-0123456789ab', 'x\n')).rule).toBe('reserved-name');
    expect(refused((tx) => tx.write('.memtier/lock', '1 h t\n')).rule).toBe('reserved-name');
  });

  it('ordinary unicode paths are fine', () => {
    store(root).mutate((tx) => tx.write('memory/semantic/café-日本.md', '# ok\n'));
    expect(readFileSync(join(root, 'memory/semantic/café-日本.md'), 'utf8')).toBe('# ok\n');
    expect(resolveInside(root, 'memory/./semantic//x.md')).toBe(join(root, 'memory/semantic/x.md'));
  });
});

describe('symlinks are never followed', () => {
  it('a symlinked file pointing outside: write, append, read and move refused, outside file unchanged', () => {
    symlinkSync(join(outside, 'victim.md'), join(root, 'memory/linked.md'));
    for (const op of [
      (tx: any) => tx.write('memory/linked.md', 'overwritten\n'),
      (tx: any) => tx.append('memory/linked.md', '- 14:30 appended ^abcd000001\n'),
      (tx: any) => tx.move(LOG, 'memory/linked.md'),
    ]) {
      const e = refused(op);
      expect(e.code).toBe('path');
      expect(e.message).toMatch(/symbolic link/);
    }
    expect(() => readMemoryFile(root, 'memory/linked.md')).toThrow(/symbolic link/);
    expect(readFileSync(join(outside, 'victim.md'), 'utf8')).toBe('outside, must not change\n');
  });

  it('a symlinked directory pointing outside: writes below it refused, nothing created or changed outside', () => {
    symlinkSync(join(outside, 'dir'), join(root, 'memory/linkdir'));
    for (const op of [
      (tx: any) => tx.write('memory/linkdir/existing.md', 'overwritten\n'),
      (tx: any) => tx.write('memory/linkdir/new.md', 'new\n'),
      (tx: any) => tx.append('memory/linkdir/existing.md', '- 14:30 appended ^abcd000001\n'),
      (tx: any) => tx.mkdir('memory/linkdir/sub'),
      (tx: any) => tx.move(LOG, 'memory/linkdir/moved.md'),
    ]) {
      const e = refused(op);
      expect(e.code).toBe('path');
      expect(e.message).toMatch(/symbolic link \(memory\/linkdir\)/);
    }
    expect(existsSync(join(outside, 'dir/new.md'))).toBe(false);
    expect(existsSync(join(outside, 'dir/sub'))).toBe(false);
    expect(readFileSync(join(outside, 'dir/existing.md'), 'utf8')).toBe('outside dir file\n');
  });

  it('a hard link to a file outside: append refused, replace breaks the link, outside file unchanged', () => {
    linkSync(join(outside, 'victim.md'), join(root, 'memory/hard.md'));
    expect(refused((tx) => tx.append('memory/hard.md', '- 14:30 [EVENT] x ^abcd000001\n')).rule).toBe('no-hardlink');
    store(root).mutate((tx) => tx.write('memory/hard.md', 'own copy\n'));
    expect(readFileSync(join(root, 'memory/hard.md'), 'utf8')).toBe('own copy\n');
    expect(readFileSync(join(outside, 'victim.md'), 'utf8')).toBe('outside, must not change\n');
  });

  it('a symlinked .memtier state folder is refused (the lock stays inside the root)', () => {
    symlinkSync(join(outside, 'dir'), join(root, '.memtier'));
    const e = thrown(() => store(root).mutate((tx) => tx.append(LOG, '- 14:31 x ^abcd000001\n')));
    expect(e.code).toBe('path');
    expect(existsSync(join(outside, 'dir/lock'))).toBe(false);
    expect(readFileSync(join(root, LOG), 'utf8')).toBe(LOG_TEXT);
  });
});

describe('session ids are allow-listed', () => {
  it.each(['a', 'Session_1', 'x-y-z', 'A'.repeat(64)])('accepts %s', (id) => {
    expect(assertSessionId(id)).toBe(id);
  });
  it.each(['', '-lead', '_lead', 'a/b', '../x', 'a b', 'a.b', 'A'.repeat(65), 'é', 'a\u200bb', 'a\u0000b'])('refuses %j', (id) => {
    const e = thrown(() => assertSessionId(id));
    expect(e.code).toBe('session-id');
    expect(e.message).not.toMatch(/[\u0000\u200b]/);
  });
});

describe('text guards on write', () => {
  it('control characters are stripped, escape sequences whole, CRLF and CR become LF, tabs and unicode kept', () => {
    store(root).mutate((tx) => tx.write('memory/semantic/t.md', 'a\r\nb\rc\u0000d\u0007e\u001b[31mf\u009b2Jg\th — café ✓ עברית 👩‍💻\n'));
    expect(readFileSync(join(root, 'memory/semantic/t.md'), 'utf8')).toBe('a\nb\ncdefg\th — café ✓ עברית 👩‍💻\n');
    expect(sanitizeText('x\r\n\u007f')).toBe('x\n');
    expect(sanitizeText('title \u001b]0;pwned\u0007 and \u001b[1;31mred\u001b[0m \u001bc')).toBe('title  and red ');
  });

  it('bidi embedding/override/isolate characters are stripped; RTL text and the marks U+200E/U+200F are kept', () => {
    for (const c of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']) {
      store(root).mutate((tx) => tx.write('memory/semantic/bidi.md', `# B\n\nx ${c}y\n`));
      expect(readFileSync(join(root, 'memory/semantic/bidi.md'), 'utf8')).toBe('# B\n\nx y\n');
    }
    store(root).mutate((tx) => tx.write('memory/semantic/rtl.md', '# RTL\n\nשלום עולם \u200f مرحبا \u200e ok\n'));
    expect(readFileSync(join(root, 'memory/semantic/rtl.md'), 'utf8')).toContain('\u200f مرحبا');
  });

  it('appends get the same treatment and always end with a newline', () => {
    store(root).mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] a\u0000b\r\n- 14:32 [EVENT] c ^bbbb000002'));
    expect(readFileSync(join(root, LOG), 'utf8')).toBe(LOG_TEXT + '- 14:31 [EVENT] ab\n- 14:32 [EVENT] c ^bbbb000002\n');
  });

  it('an oversized file or entry is refused, file unchanged', () => {
    expect(refused((tx) => tx.write(LOG, 'x'.repeat(MAX_FILE_BYTES + 1))).code).toBe('oversized');
    expect(refused((tx) => tx.append(LOG, `- 14:30 ${'x'.repeat(MAX_ENTRY_BYTES)} ^abcd000001\n`)).rule).toBe('max-entry-size');
  });

  it('compare-before-replace refuses a file edited since it was read', () => {
    const e = refused((tx) => tx.write(LOG, 'new\n', { expected: 'something else\n' }));
    expect(e.code).toBe('conflict');
    expect(refused((tx) => tx.write(LOG, 'new\n', { expected: null })).code).toBe('conflict');
  });

  it('a complete human last line without newline gets one before the appended entry', () => {
    writeFileSync(join(root, LOG), '# Log\n\nwritten by hand');
    store(root).mutate((tx) => tx.append(LOG, '- 14:31 [EVENT] b ^bbbb000002\n'));
    expect(readFileSync(join(root, LOG), 'utf8')).toBe('# Log\n\nwritten by hand\n- 14:31 [EVENT] b ^bbbb000002\n');
  });
});

describe('decodeStrict and the strict reader', () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  it('invalid UTF-8 is refused with the file and line', () => {
    const bytes = Buffer.concat([Buffer.from('ok\nfine\n'), Buffer.from([0x61, 0xc3, 0x28]), Buffer.from('\nmore\n')]);
    const e = thrown(() => decodeStrict(bytes, 'memory/bad.md'));
    expect(e).toMatchObject({ code: 'encoding', file: 'memory/bad.md', line: 3 });
    const e2 = thrown(() => decodeStrict(Buffer.from([0xff, 0xfe, 0x41]), 'memory/bad.md'));
    expect(e2.line).toBe(1);
  });
  it('a NUL byte (binary) is refused with the line', () => {
    expect(thrown(() => decodeStrict(enc('a\nb\nc\u0000d'), 'x.md'))).toMatchObject({ code: 'binary', line: 3 });
  });
  it('oversized is refused', () => {
    expect(thrown(() => decodeStrict(new Uint8Array(MAX_FILE_BYTES + 1).fill(97), 'x.md')).code).toBe('oversized');
  });
  it('BOM stripped, CRLF normalized, valid text returned', () => {
    expect(decodeStrict(enc('\ufeffa\r\nb\rc ✓'), 'x.md')).toBe('a\nb\nc ✓');
  });

  it('bad files on disk: read refused, write with expected and append refused, bytes unchanged', () => {
    const bad = Buffer.concat([Buffer.from('# Log\n- 14:30 [EVENT] ok ^aaaa000001\n- 14:31 caf'), Buffer.from([0xe9]), Buffer.from(' ^aaaa000002\n')]);
    writeFileSync(join(root, 'memory/latin1.md'), bad);
    writeFileSync(join(root, 'memory/binary.md'), Buffer.from('# x\n\u0000\u0001\u0002\n'));
    writeFileSync(join(root, 'memory/huge.md'), Buffer.alloc(MAX_FILE_BYTES + 10, 0x61));
    expect(thrown(() => readMemoryFile(root, 'memory/latin1.md'))).toMatchObject({ code: 'encoding', line: 3, file: 'memory/latin1.md' });
    expect(thrown(() => readMemoryFile(root, 'memory/binary.md'))).toMatchObject({ code: 'binary', line: 2 });
    expect(thrown(() => readMemoryFile(root, 'memory/huge.md')).code).toBe('oversized');
    expect(refused((tx) => tx.append('memory/latin1.md', '- 14:32 [EVENT] new ^bbbb000001\n')).code).toBe('encoding');
    expect(refused((tx) => tx.append('memory/binary.md', '- 14:32 [EVENT] new ^bbbb000001\n')).code).toBe('binary');
    expect(refused((tx) => tx.write('memory/latin1.md', 'replaced\n', { expected: '' })).code).toBe('encoding');
    expect(readFileSync(join(root, 'memory/latin1.md')).equals(bad)).toBe(true);
  });

  it('a FIFO or a folder is not read as a memory file (and never blocks)', () => {
    expect(spawnSync('mkfifo', [join(root, 'memory/fifo.md')]).status).toBe(0);
    expect(thrown(() => readMemoryFile(root, 'memory/fifo.md')).code).toBe('path');
    expect(refused((tx) => tx.append('memory/fifo.md', '- 14:30 x ^abcd000001\n')).code).toBe('path');
    mkdirSync(join(root, 'memory/folder.md'));
    expect(thrown(() => readMemoryFile(root, 'memory/folder.md')).code).toBe('path');
    expect(refused((tx) => tx.write('memory/folder.md', 'x\n')).code).toBe('path');
  });
});

describe('frontmatter is parsed strictly', () => {
  it('valid YAML: data (dates as strings), body and the body line', () => {
    const r = parseFrontmatter('---\ntags: [a, b]\ntype: semantic\ncreated: 2026-05-15\n---\n# Title\ntext\n', 'n.md');
    expect(r).toEqual({ data: { tags: ['a', 'b'], type: 'semantic', created: '2026-05-15' }, body: '# Title\ntext\n', hasFrontmatter: true, bodyLine: 6 });
    expect(parseFrontmatter('# no frontmatter\n', 'n.md')).toEqual({ data: {}, body: '# no frontmatter\n', hasFrontmatter: false, bodyLine: 1 });
    expect(parseFrontmatter('----\nrule\n', 'n.md').hasFrontmatter).toBe(false);
    expect(parseFrontmatter('---\n---\nbody', 'n.md')).toMatchObject({ data: {}, body: 'body', bodyLine: 3 });
    expect(parseFrontmatter('---yaml\na: 1\n---\n', 'n.md').data).toEqual({ a: 1 });
  });

  it('a ---js block is never executed (gray-matter alone would run it)', () => {
    const marker = join(outside, 'pwned');
    const evil = `---js\n{ title: require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran') || 'x' }\n---\nbody\n`;
    // Prove the side effect is real: plain gray-matter runs the block.
    createRequire(import.meta.url)('gray-matter')(evil);
    expect(readFileSync(marker, 'utf8')).toBe('ran');
    rmTree(marker);
    for (const text of [evil, evil.replace('---js', '---javascript'), evil.replace('---js', '---coffee'), evil.replace('---js', '--- JS')]) {
      const e = thrown(() => parseFrontmatter(text, 'memory/semantic/evil.md'));
      expect(e).toBeInstanceOf(FrontmatterError);
      expect(e).toMatchObject({ code: 'frontmatter', file: 'memory/semantic/evil.md', line: 1 });
      expect(existsSync(marker)).toBe(false);
      refused((tx) => tx.write('memory/semantic/people.md', text));
      expect(existsSync(marker)).toBe(false);
    }
    expect(thrown(() => parseFrontmatter('---json\n{"a": 1}\n---\n', 'n.md')).message).toMatch(/only YAML/);
  });

  it('a missing closing fence is an error (gray-matter would silently empty the body)', () => {
    const text = '---\ntags: [x]\n# Title\n\nAll the body that gray-matter would drop.\n';
    const e = thrown(() => parseFrontmatter(text, 'memory/semantic/open.md'));
    expect(e).toMatchObject({ code: 'frontmatter', file: 'memory/semantic/open.md', line: 1 });
    expect(e.message).toMatch(/never closed/);
    refused((tx) => tx.write('memory/semantic/people.md', text));
  });

  it('deep nesting (RangeError inside the YAML parser) becomes a FrontmatterError', () => {
    const deep = `---\na: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n---\nbody\n`;
    const e = thrown(() => parseFrontmatter(deep, 'memory/semantic/deep.md'));
    expect(e).toBeInstanceOf(FrontmatterError);
    expect(e.message).toMatch(/over the 65536-byte limit/); // refused before any parse (FRONTMATTER_LIMITS.bytes)
    expect(e.rule).toBe('frontmatter-size');
    const deepMap = `---\n${Array.from({ length: 3000 }, (_, i) => ' '.repeat(i) + 'k:').join('\n')} 1\n---\n`;
    expect(thrown(() => parseFrontmatter(deepMap, 'm.md')).code).toBe('frontmatter');
    refused((tx) => tx.write('memory/semantic/people.md', deep));
  });

  it.each([
    ['unclosed flow list', '---\ntags: [a, b\ntype: x\n---\n', 3],
    ['duplicate key', '---\na: 1\na: 2\n---\n', 3],
    ['bad indentation', '---\nfoo: bar\n  baz: : x\n---\n', 3],
    ['unterminated quote', '---\na: "open\nb: 2\n---\n', 4],
    ['a list, not a mapping', '---\n- a\n- b\n---\n', 2],
    ['a scalar, not a mapping', '---\njust words\n---\n', 2],
  ])('bad YAML (%s) is refused with the line; the file is never written', (_why, text, line) => {
    const e = thrown(() => parseFrontmatter(text + 'body\n', 'memory/semantic/bad.md'));
    expect(e).toMatchObject({ code: 'frontmatter', file: 'memory/semantic/bad.md', line });
    const e2 = refused((tx) => tx.write('memory/semantic/people.md', text + 'body\n'));
    expect(e2).toMatchObject({ code: 'frontmatter', file: 'memory/semantic/people.md' });
  });

  it('non-markdown files and text without frontmatter are not parsed', () => {
    store(root).mutate((tx) => {
      tx.write('memory/notes.txt', '---\nnot: closed\n');
      tx.write('memory/semantic/plain.md', '# Plain\n---\n');
    });
    expect(readFileSync(join(root, 'memory/notes.txt'), 'utf8')).toBe('---\nnot: closed\n');
  });
});

describe('decodeStrict decodes as a fatal TextDecoder does', () => {
  it('on random bytes: valid and invalid UTF-8, BOMs, surrogates, overlongs', async () => {
    const { seededRandom } = await import('../../lib/core/random.js');
    const rnd = seededRandom(5);
    const pieces = [[0x41], [0x0a], [0x0d, 0x0a], [0xef, 0xbb, 0xbf], [0xc3, 0xa9], [0xe4, 0xb8, 0xad], [0xf0, 0x9f, 0x98, 0x80], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe0, 0x80, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80], [0xc3], [0xe4, 0xb8], [0xff]];
    const fatal = new TextDecoder('utf-8', { fatal: true });
    let valid = 0;
    for (let k = 0; k < 20_000; k++) {
      const bytes: number[] = [];
      for (let j = Math.floor(rnd() * 8); j > 0; j--) bytes.push(...pieces[Math.floor(rnd() * pieces.length)]!);
      const buf = new Uint8Array(bytes);
      let want: string | undefined;
      try { want = fatal.decode(buf); } catch { want = undefined; }
      if (want === undefined) {
        expect(() => decodeStrict(buf, 'x.md'), JSON.stringify(bytes)).toThrow(/not valid UTF-8/);
        continue;
      }
      valid++;
      if (want.charCodeAt(0) === 0xfeff) want = want.slice(1);
      expect(decodeStrict(buf, 'x.md'), JSON.stringify(bytes)).toBe(want.replace(/\r\n?/g, '\n'));
    }
    expect(valid).toBeGreaterThan(2000);
  });
});

describe('printable and printableJson', () => {
  it('escape exactly the control and bidi code units, and return other text as it is', async () => {
    const { seededRandom } = await import('../../lib/core/random.js');
    const rnd = seededRandom(6);
    const chars = ['a', ' ', '\t', '\n', '\r', '\u0000', '\u001b', '\u007f', '\u0085', '\u009f', '\u00a0', '\u202a', '\u202e', '\u202f', '\u2066', '\u2069', '中', '😀'];
    const hex = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    for (let k = 0; k < 10_000; k++) {
      let s = '';
      for (let j = Math.floor(rnd() * 10); j > 0; j--) s += chars[Math.floor(rnd() * chars.length)];
      // eslint-disable-next-line no-control-regex
      expect(printable(s), JSON.stringify(s)).toBe(s.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, hex));
      expect(printableJson(s), JSON.stringify(s)).toBe(s.replace(/[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, hex));
    }
  });
});
