/**
 * memtier inside the real OpenClaw (npm run test:openclaw; .ci/run runs it): openclaw@2026.9.6 under
 * Node 24 in a scratch HOME, this package installed as a plugin the way the README says
 * (`openclaw plugins install <path> --link --force`), selected in plugins.slots.memory, the gateway
 * on loopback with token auth, and OpenClaw's own tool endpoint (POST /tools/invoke) called: no model,
 * no API key. Then memtier's cron jobs added to the running gateway, listed back, and one run.
 *
 * Skipped unless MEMTIER_OPENCLAW=1 (the install is ~650 MB and takes a minute or two); when the host
 * cannot be installed the tests say "skipped" with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installHost, openclawCli, readConfig, startGateway, writeConfig, type Gateway, type OpenClawHost } from '../../lib/bench/openclaw-host.js';
import { runCli, tmpTree } from '../helpers.js';
import { stillCopy } from '../hosts/still-copy.js';

const enabled = process.env.MEMTIER_OPENCLAW === '1';
let host: OpenClawHost | undefined;
let gw: Gateway | undefined;
let skipped = enabled ? '' : 'set MEMTIER_OPENCLAW=1 (npm run test:openclaw) to run memtier inside a real OpenClaw gateway';
let root = '';
let home = '';

const text = (r: { body: any }): any => {
  if (process.env.MEMTIER_OPENCLAW_TRACE) process.stderr.write(`${new Date().toISOString()} ${JSON.stringify(r.body).slice(0, 100)}\n`);
  expect(r.body.ok, JSON.stringify(r.body).slice(0, 400)).toBe(true);
  return r.body.result.details;
};

beforeAll(async () => {
  if (!enabled) return;
  try {
    host = installHost({ log: (m) => process.stderr.write(`openclaw host: ${m}\n`) });
  } catch (e) {
    skipped = `OpenClaw ${'2026.9.6'} could not be installed: ${(e as Error).message.split('\n')[0]}`;
    process.stderr.write(`skipped: ${skipped}\n`);
    return;
  }
  const base = tmpTree();
  home = join(base, 'home');
  root = join(base, 'workspace');
  mkdirSync(home, { recursive: true });
  expect((await runCli(['init', root])).code).toBe(0);
  expect((await runCli(['wal', 'decide', '--root', root, 'deploy the web app with Argo CD, not Flux'])).code).toBe(0);
  writeFileSync(join(root, 'knowledge', 'vendor-notes.md'), '# Vendor notes\n\nThe vendor call moved to Thursday.\n\n数据库迁移到 PostgreSQL 16，负责人是 Ana。\n');
  // the plugin installed as a user does it; it takes the memory slot
  // a still copy of the package: OpenClaw refuses a linked plugin whose files change while it loads it
  const pkg = await stillCopy(join(base, 'memtier-package'));
  openclawCli(host, home, ['plugins', 'install', pkg, '--link', '--force', '--accept-capabilities'], 180_000);
  const cfg = readConfig(home);
  expect(cfg.plugins.slots.memory).toBe('memtier');
  cfg.plugins.entries.memtier.config = { root };
  cfg.plugins.entries.memtier.hooks = { allowConversationAccess: true };
  writeConfig(home, cfg);
  gw = await startGateway(host, home, { readyMs: 600_000 });
}, 900_000);

afterAll(async () => {
  await gw?.stop();
}, 60_000);

describe('memtier inside a real OpenClaw gateway', () => {
  it('memory_search through /tools/invoke is memtier\'s: a knowledge/ entry, a Chinese query, a line citation', async (t) => {
    if (!gw) return t.skip(skipped);
    const zh = text(await gw.invoke('memory_search', { query: '数据库迁移 负责人' }));
    expect(zh.provider).toBe('memtier');
    expect(zh.results[0]).toMatchObject({ path: 'knowledge/vendor-notes.md', source: 'memory' });
    expect(zh.results[0].snippet).toContain('PostgreSQL 16');
    expect(zh.results[0].citation).toMatch(/^knowledge\/vendor-notes\.md#L\d+(-L\d+)?$/);
    const en = text(await gw.invoke('memory_search', { query: 'which tool deploys the web app?' }));
    expect(en.results[0].snippet).toContain('Argo CD');
    expect(en.results[0].citation).toMatch(/#L\d+/);
  });

  it('memtier\'s reference files are not where memory indexers look (#31 finding 5): nothing of memtier\'s own under memory/, and FORMAT.md\'s words find nothing', async (t) => {
    if (!gw) return t.skip(skipped);
    for (const f of ['memory/FORMAT.md', 'memory/TAGS.md']) expect(existsSync(join(root, f)), f).toBe(false);
    for (const f of ['FORMAT.md', 'TAGS.md']) expect(existsSync(join(root, f)), f).toBe(true);
    const r = text(await gw.invoke('memory_search', { query: 'frontmatter closure block canonical home tier' }));
    expect(r.results.filter((h: { path: string }) => /(?:^|\/)(?:FORMAT|TAGS)\.md$/.test(h.path))).toEqual([]);
  });

  it('memory_get on the cited path returns the lines', async (t) => {
    if (!gw) return t.skip(skipped);
    const hit = text(await gw.invoke('memory_search', { query: 'vendor call Thursday' })).results[0];
    const got = text(await gw.invoke('memory_get', { path: hit.path, from: hit.startLine, lines: hit.endLine - hit.startLine + 1 }));
    expect(got).toMatchObject({ status: 'ok', path: 'knowledge/vendor-notes.md', from: hit.startLine });
    expect(got.text).toContain('Thursday');
    const esc = text(await gw.invoke('memory_get', { path: '../../etc/passwd' }));
    expect(esc.status).toBe('error');
  });

  it('sees a hand edit made just before the call, and writes through the WAL', async (t) => {
    if (!gw) return t.skip(skipped);
    appendFileSync(join(root, 'knowledge', 'vendor-notes.md'), '\nThe quarterly budget review is owned by Marguerite.\n');
    const r = text(await gw.invoke('memory_search', { query: 'Marguerite quarterly budget' }));
    expect(r.results[0].snippet).toContain('Marguerite');
    const w = text(await gw.invoke('memory_wal', { verb: 'decide', text: 'move the cache to Valkey' }));
    expect(w).toMatchObject({ ok: true, kind: 'decide' });
    expect(text(await gw.invoke('memory_search', { query: 'Valkey cache' })).results[0].snippet).toContain('Valkey');
    const secret = text(await gw.invoke('memory_write', { text: 'deploy key ghp_abcdefghijklmnopqrstuvwxyz0123456789', type: 'TECH' }));
    expect(secret.ok).toBe(false);
    expect(JSON.stringify(secret)).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it('serves memtier watch from the gateway for the agent\'s CLI calls', async (t) => {
    if (!gw) return t.skip(skipped);
    // the gateway warms the memory, then announces the server: give it a moment under load
    let st = await runCli(['watch', '--status', '--root', root, '--json']);
    for (let i = 0; i < 40 && st.code !== 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      st = await runCli(['watch', '--status', '--root', root, '--json']);
    }
    expect(st.code, st.stderr).toBe(0);
    const s = JSON.parse(st.stdout);
    expect(s).toMatchObject({ running: true, root });
    expect(s.pid).not.toBe(process.pid);
  });

  it('memtier cron --openclaw: the command jobs go into the running gateway, list back, and the nightly one summarizes the day that ended (#31 finding 1)', async (t) => {
    if (!gw || !host) return t.skip(skipped);
    // a decision of yesterday afternoon: the job that runs tonight (now, by hand) must summarize that day
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await runCli(['add', '--root', root, '--now', `${yesterday}T15:00:00Z`, '--type', 'DECISION', 'the billing export moves to Parquet files'], { env: { MEMTIER_TZ: 'UTC' } })).code).toBe(0);
    const cron = await runCli(['cron', '--openclaw', '--root', root, '--json']);
    expect(cron.code, cron.stderr).toBe(0);
    const plan = JSON.parse(cron.stdout) as { commands: string[]; kinds: string[] };
    for (const [i, cmd] of plan.commands.entries()) {
      if (plan.kinds[i] !== 'command') continue;
      // the printed command, run by a shell as a user pastes it, against this gateway
      const args = shellWords(cmd).slice(1);
      gw.cli(args, 60_000);
    }
    const list = JSON.parse(gw.cli(['cron', 'list', '--json'], 60_000)) as { jobs: { id: string; name: string; payload?: { kind?: string } }[] };
    const names = list.jobs.map((j) => j.name).filter((n) => n.startsWith('memtier-')).sort();
    expect(names).toEqual(['memtier-consolidate', 'memtier-dream', 'memtier-review']);
    const job = list.jobs.find((j) => j.name === 'memtier-consolidate')!;
    gw.cli(['cron', 'run', job.id], 60_000);
    let status = '';
    for (let i = 0; i < 60 && !status; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const runs = JSON.parse(gw.cli(['cron', 'runs', '--id', job.id, '--json'], 60_000)) as { entries: { action: string; status: string; summary?: string }[] };
      const done = runs.entries.find((e) => e.action === 'finished');
      if (done) {
        status = done.status;
        expect(done.summary).toMatch(/consolidate:/);
      }
    }
    expect(status).toBe('ok');
    expect(readFileSync(join(root, 'memory/reviews/daily', `${yesterday}.md`), 'utf8')).toContain('the billing export moves to Parquet files');
  }, 180_000);

  it('memory-core beside memtier (#31 findings 6, 7): its dreaming job and tool conflicts are there, memtier says so once with the command, and after that command both are gone', async (t) => {
    if (!gw || !host) return t.skip(skipped);
    const list = (g: Gateway): { id: string; name: string }[] => (JSON.parse(g.cli(['cron', 'list', '--all', '--json'], 60_000)) as { jobs: { id: string; name: string }[] }).jobs;
    const jobs = (g: Gateway): string[] => list(g).map((j) => j.name);
    const advice = (g: Gateway): string[] => g.log().split('\n').filter((l) => l.includes("memtier: OpenClaw's memory-core still runs beside memtier"));
    const conflicts = (g: Gateway): string[] => g.log().split('\n').filter((l) => l.includes('plugin tool name conflict (memory-core)'));
    expect(jobs(gw)).toContain('Memory Dreaming Promotion');
    expect(advice(gw)).toHaveLength(1);
    expect(advice(gw)[0]).toContain('openclaw plugins disable memory-core');
    expect(advice(gw)[0]).toContain('openclaw cron rm');
    // the command memtier gives, as the person runs it; then the gateway again
    await gw.stop();
    gw = undefined;
    openclawCli(host, home, ['plugins', 'disable', 'memory-core'], 120_000);
    const again = await startGateway(host, home, { probeTool: 'memory_search', readyMs: 600_000 });
    gw = again;
    text(await again.invoke('memory_search', { query: 'vendor call Thursday' }));
    text(await again.invoke('memory_get', { path: 'MEMORY.md', lines: 3 }));
    expect(conflicts(again)).toEqual([]);
    expect(advice(again)).toEqual([]);
    // the job memory-core made stays scheduled (as memtier's advice says) until it is removed
    const dream = list(again).find((j) => j.name === 'Memory Dreaming Promotion');
    expect(dream).toBeDefined();
    again.cli(['cron', 'rm', dream!.id], 60_000);
    expect(jobs(again)).not.toContain('Memory Dreaming Promotion');
  }, 900_000);
});

/** The words of a POSIX shell command as `memtier cron` prints it (single quotes, '\'' and line continuations). */
function shellWords(cmd: string): string[] {
  const words: string[] = [];
  let cur = '';
  let has = false;
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]!;
    if (c === "'") {
      const end = cmd.indexOf("'", i + 1);
      cur += cmd.slice(i + 1, end);
      has = true;
      i = end;
    } else if (c === '\\' && cmd[i + 1] === '\n') {
      i++;
    } else if (c === '\\') {
      cur += cmd[++i] ?? '';
      has = true;
    } else if (/\s/.test(c)) {
      if (has) words.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) words.push(cur);
  return words;
}
