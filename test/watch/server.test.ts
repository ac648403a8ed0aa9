/**
 * `memtier watch` as processes: the CLI hands search and recall to the server and prints exactly
 * what it would have printed itself; an edit made right before a call is seen; a server killed
 * with SIGKILL, stopped, or from another build is bypassed; one server per root.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, FIXED_NOW, readTree, rmTree, runBin, tmpTree } from '../helpers.js';

const roots: string[] = [];
const servers: ChildProcess[] = [];
afterEach(() => {
  while (servers.length) { const s = servers.pop()!; if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL'); }
  while (roots.length) rmTree(roots.pop()!);
});

const ENV = { PATH: process.env.PATH, HOME: tmpdir(), MEMTIER_NOW: FIXED_NOW, MEMTIER_TZ: 'UTC', MEMTIER_GIT: 'off' };

function memory(): string {
  const files: Record<string, string> = { 'MEMORY.md': '# Memory\n- [People](memory/semantic/people.md) — who is who\n' };
  for (let d = 1; d <= 9; d++) files[`memory/episodic/2026-05-0${d}.md`] = `- 10:00 [EVENT] routine standup number ${d} about the deploy ^st00000${d}\n`;
  files['memory/semantic/people.md'] = '---\ntags: [people]\n---\n# People\n## Dana\nDana runs the billing team and the deploy rota.\n';
  const root = tmpTree(files);
  roots.push(root);
  return root;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Start `memtier watch` in the foreground; resolves once it answers. */
async function serve(root: string, env: NodeJS.ProcessEnv = {}): Promise<ChildProcess> {
  const p = spawn(process.execPath, [BIN, 'watch', '--root', root], { env: { ...ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  servers.push(p);
  let err = '';
  p.stderr!.on('data', (d) => { err += String(d); });
  for (let i = 0; i < 200; i++) {
    if (existsSync(join(root, '.memtier/watch.json')) && runBin(['watch', '--status', '--root', root], { env: ENV }).code === 0) return p;
    if (p.exitCode !== null) throw new Error(`watch exited ${p.exitCode}: ${err}`);
    await sleep(50);
  }
  throw new Error(`watch did not start: ${err}`);
}

const viaWatch = (args: string[], root: string) => runBin([...args, '--root', root], { env: { ...ENV, MEMTIER_WATCH: 'require' } });
const local = (args: string[], root: string) => runBin([...args, '--root', root], { env: { ...ENV, MEMTIER_WATCH: 'off' } });

describe('memtier watch', () => {
  it('serves search and recall with the output the CLI prints itself', async () => {
    const root = memory();
    const copy = tmpTree();
    roots.push(copy);
    cpSync(root, copy, { recursive: true });
    await serve(root);
    for (const args of [['search', 'deploy'], ['search', 'deploy', '--json', '--explain'], ['search', 'nothing-like-this'], ['search', 'Dana', '--k', '2', '--json'], ['search', '--k', 'x', 'deploy']]) {
      const a = viaWatch(args, root);
      const b = local(args, root);
      expect(a, args.join(' ')).toEqual(b);
    }
    // recall records its history: the served one (in root) and a local one (in a copy made before) agree
    const a = viaWatch(['recall', '--query', 'who runs billing', '--json'], root);
    const b = local(['recall', '--query', 'who runs billing', '--json'], copy);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('memory/semantic/people.md');
    expect(a).toEqual(b);
    expect(existsSync(join(root, '.memtier/recall-history.json'))).toBe(true);
    expect(readTree(root, { includeState: true })['.memtier/recall-history.json'] ?? 'none').toEqual(readTree(copy, { includeState: true })['.memtier/recall-history.json'] ?? 'none');
    const status = JSON.parse(runBin(['watch', '--status', '--json', '--root', root], { env: ENV }).stdout);
    expect(status).toMatchObject({ ok: true, running: true, requests: 6 });
    expect(status.tree).toMatchObject({ files: 11, rescans: 1 });
  });

  it('a MEMORY.md linked out of the root is not read to warm the server up (a FIFO there would block its start)', async () => {
    const root = memory();
    const outside = tmpTree();
    roots.push(outside);
    execFileSync('mkfifo', [join(outside, 'pipe')]);
    rmSync(join(root, 'MEMORY.md'));
    symlinkSync(join(outside, 'pipe'), join(root, 'MEMORY.md'));
    await serve(root);
    expect(viaWatch(['search', 'deploy'], root).code).toBe(0);
  });

  it('recall\'s cache never answers for a memory that changed: a write, a hand edit, a moved file (issue #12)', async () => {
    const root = memory();
    await serve(root);
    const recall = (): { text: string; cached: boolean } => { const j = JSON.parse(viaWatch(['recall', '--query', 'axolotl tank', '--json'], root).stdout); return { text: j.text, cached: j.cached }; };
    appendFileSync(join(root, 'memory/episodic/2026-05-02.md'), '- 11:00 [EVENT] axolotl tank cleaned, water at 18 degrees\n');
    expect(recall()).toMatchObject({ cached: false });
    expect(recall().cached).toBe(true);
    expect(runBin(['add', '--root', root, '--type', 'EVENT', 'axolotl tank moved to the office'], { env: ENV }).code).toBe(0);
    const written = recall();
    expect(written.cached).toBe(false);
    expect(written.text).toContain('moved to the office');
    appendFileSync(join(root, 'memory/episodic/2026-05-03.md'), '- 12:00 [EVENT] axolotl tank filter replaced\n');
    const edited = recall();
    expect(edited.cached).toBe(false);
    expect(edited.text).toContain('filter replaced');
    renameSync(join(root, 'memory/episodic/2026-05-03.md'), join(root, 'memory/episodic/2026-05-04-tank.md'));
    const moved = recall();
    expect(moved.cached).toBe(false);
    expect(moved.text).toContain('memory/episodic/2026-05-04-tank.md');
  });

  it('an edit made right before a call is in its answer (append, editor rename, new folder, delete)', async () => {
    const root = memory();
    await serve(root);
    const hit = (w: string): string[] => [...new Set<string>(JSON.parse(viaWatch(['search', w, '--json'], root).stdout).results.map((r: { path: string }) => r.path))];
    appendFileSync(join(root, 'memory/episodic/2026-05-02.md'), '- 11:00 [EVENT] axolotl tank cleaned\n');
    expect(hit('axolotl')).toEqual(['memory/episodic/2026-05-02.md']);
    writeFileSync(join(root, 'memory/semantic/people.tmp'), '# People\n## Dana\nDana left for the capybara team.\n');
    renameSync(join(root, 'memory/semantic/people.tmp'), join(root, 'memory/semantic/people.md'));
    expect(hit('capybara')).toEqual(['memory/semantic/people.md']);
    expect(hit('billing')).toEqual([]);
    mkdirSync(join(root, 'knowledge/zoo'), { recursive: true });
    writeFileSync(join(root, 'knowledge/zoo/birds.md'), '# Birds\nthe cassowary is fast\n');
    expect(hit('cassowary')).toEqual(['knowledge/zoo/birds.md']);
    rmSync(join(root, 'knowledge/zoo'), { recursive: true });
    expect(hit('cassowary')).toEqual([]);
    // more changes than the cache takes in memory: the server rebuilds it, and still sees all
    for (let i = 0; i < 40; i++) writeFileSync(join(root, `memory/semantic/n${i}.md`), `# N${i}\nmarmot ${i}\n`);
    expect(hit('marmot')).toHaveLength(10);
    expect(viaWatch(['search', 'marmot', '--json', '--k', '50'], root)).toEqual(local(['search', 'marmot', '--json', '--k', '50'], root));
  });

  it('recall --messages - sends its standard input along; a declined call still gets it', async () => {
    const root = memory();
    const copy = tmpTree();
    roots.push(copy);
    cpSync(root, copy, { recursive: true });
    await serve(root);
    const input = JSON.stringify([{ role: 'user', content: 'who runs the billing team?' }]);
    const args = ['recall', '--messages', '-', '--json'];
    const a = runBin([...args, '--root', root], { env: { ...ENV, MEMTIER_WATCH: 'require' }, input });
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('memory/semantic/people.md');
    expect(a).toEqual(runBin([...args, '--root', copy], { env: { ...ENV, MEMTIER_WATCH: 'off' }, input }));
    // declined (another CJK mode): the CLI runs it itself with the input the client already read
    const d = runBin([...args, '--root', root], { env: { ...ENV, MEMTIER_CJK: 'bigram' }, input });
    expect(d.code).toBe(0);
    expect(d.stdout).toContain('memory/semantic/people.md');
  });

  it('concurrent calls are all served, each with its own answer', async () => {
    const root = memory();
    await serve(root);
    const words = ['deploy', 'standup', 'Dana', 'billing', 'rota', 'number'];
    const run = (w: string) => new Promise<{ code: number; out: string }>((resolve) => {
      const p = spawn(process.execPath, [BIN, 'search', w, '--json', '--root', root], { env: { ...ENV, MEMTIER_WATCH: 'require' } });
      let out = '';
      p.stdout.on('data', (d) => { out += String(d); });
      p.on('close', (code) => resolve({ code: code ?? 2, out }));
    });
    const got = await Promise.all(words.map(run));
    got.forEach((g, i) => {
      expect(g.code).toBe(0);
      expect(g.out).toBe(local(['search', words[i]!, '--json'], root).stdout);
    });
  });

  it('a server killed with SIGKILL is bypassed, and a new one starts over its leftovers', async () => {
    const root = memory();
    const s = await serve(root);
    s.kill('SIGKILL');
    await new Promise((r) => s.once('exit', r));
    expect(existsSync(join(root, '.memtier/watch.json'))).toBe(true); // left behind
    const plain = runBin(['search', 'deploy', '--json', '--root', root], { env: ENV });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(local(['search', 'deploy', '--json'], root).stdout);
    const req = viaWatch(['search', 'deploy'], root);
    expect(req.code).toBe(2);
    expect(req.stderr).toMatch(/MEMTIER_WATCH=require, but the memtier watch of .* does not answer/);
    await serve(root);
    expect(viaWatch(['search', 'deploy'], root).code).toBe(0);
  });

  it('one server per root; --stop stops it and removes its announcement', async () => {
    const root = memory();
    const s = await serve(root);
    const second = runBin(['watch', '--root', root], { env: ENV });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/already running .*pid \d+/);
    const stop = runBin(['watch', '--stop', '--json', '--root', root], { env: ENV });
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout)).toMatchObject({ ok: true, stopped: s.pid });
    await new Promise((r) => (s.exitCode !== null ? r(0) : s.once('exit', r)));
    expect(s.exitCode).toBe(0);
    expect(existsSync(join(root, '.memtier/watch.json'))).toBe(false);
    expect(existsSync(join(root, '.memtier/run/watch.sock'))).toBe(false);
    expect(runBin(['watch', '--status', '--root', root], { env: ENV }).code).toBe(1);
  });

  it('a server whose announcement is gone (.memtier deleted) stops by itself', async () => {
    const root = memory();
    const s = await serve(root);
    rmSync(join(root, '.memtier'), { recursive: true, force: true });
    const code = await new Promise((r) => (s.exitCode !== null ? r(s.exitCode) : s.once('exit', (c) => r(c))));
    expect(code).toBe(0);
    // and the CLI works alone
    expect(runBin(['search', 'deploy', '--root', root], { env: ENV }).code).toBe(0);
  }, 20_000);

  it('a root too deep for a socket path in .memtier gets its socket in a private temp folder', async () => {
    const root = join(tmpTree(), 'a-rather-long-folder-name-to-push-the-socket-path'.repeat(2));
    roots.push(dirname(root));
    cpSync(memory(), root, { recursive: true });
    await serve(root);
    const info = JSON.parse(readFileSync(join(root, '.memtier/watch.json'), 'utf8'));
    expect(info.socket.startsWith(tmpdir())).toBe(true);
    expect(Buffer.byteLength(info.socket)).toBeLessThanOrEqual(100);
    expect(statSync(info.socket).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(info.socket)).mode & 0o777).toBe(0o700);
    expect(viaWatch(['search', 'deploy', '--json'], root)).toEqual(local(['search', 'deploy', '--json'], root));
    expect(runBin(['watch', '--stop', '--root', root], { env: ENV }).code).toBe(0);
    expect(existsSync(info.socket)).toBe(false);
  });

  it('a server of another build, or with another CJK mode, declines; the CLI runs the call itself', async () => {
    const root = memory();
    await serve(root);
    const info = JSON.parse(readFileSync(join(root, '.memtier/watch.json'), 'utf8'));
    writeFileSync(join(root, '.memtier/watch.json'), JSON.stringify({ ...info, build: 'older' }));
    expect(viaWatch(['search', 'deploy'], root).stderr).toMatch(/runs another build/);
    expect(runBin(['search', 'deploy', '--root', root], { env: ENV }).code).toBe(0);
    writeFileSync(join(root, '.memtier/watch.json'), JSON.stringify(info));
    const cjk = runBin(['search', 'deploy', '--root', root], { env: { ...ENV, MEMTIER_WATCH: 'require', MEMTIER_CJK: 'bigram' } });
    expect(cjk.code).toBe(2);
    expect(cjk.stderr).toMatch(/declined: MEMTIER_CJK differs/);
    expect(runBin(['search', 'deploy', '--root', root], { env: { ...ENV, MEMTIER_CJK: 'bigram' } }).code).toBe(0);
  });

  it('--detach starts it in the background; --help and --json work without one', async () => {
    const root = memory();
    const d = runBin(['watch', '--detach', '--json', '--root', root], { env: ENV });
    expect(d.code).toBe(0);
    const j = JSON.parse(d.stdout);
    expect(j).toMatchObject({ ok: true, running: true, log: '.memtier/watch.log' });
    try {
      expect(viaWatch(['search', 'deploy'], root).code).toBe(0);
    } finally {
      expect(runBin(['watch', '--stop', '--root', root], { env: ENV }).code).toBe(0);
    }
    expect(runBin(['watch', '--help'], { env: ENV }).stdout).toMatch(/cookie file/);
    expect(JSON.parse(runBin(['watch', '--status', '--json', '--root', root], { env: ENV }).stdout)).toEqual({ ok: true, running: false });
  });
});
