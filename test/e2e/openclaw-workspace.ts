/**
 * An OpenClaw workspace as people have it after a few weeks, built in a temp folder: the
 * host's own files (AGENTS.md, SOUL.md, USER.md, TOOLS.md), a hand-written MEMORY.md of 40
 * lines, and 20 free-form daily notes `memory/2026-10-DD.md` (headings and paragraphs, some
 * Chinese, one `-vendor-call` slug file), all committed to git. None of it was written by memtier.
 */
import { spawnSync } from 'node:child_process';
import { runCli, tmpTree } from '../helpers.js';

export const AGENTS_MD = `# AGENTS.md - Your Workspace

This folder is home. Treat it that way.

## Every Session

Before doing anything else:
1. Read \`SOUL.md\` — this is who you are
2. Read \`USER.md\` — this is who you're helping
3. Read \`memory/YYYY-MM-DD.md\` (today + yesterday) for recent context
4. **If in MAIN SESSION**: Also read \`MEMORY.md\`

## Memory

- **Daily notes:** \`memory/YYYY-MM-DD.md\` — raw logs of what happened
- **Long-term:** \`MEMORY.md\` — your curated memories
`;

export const SOUL_MD = '# SOUL.md\n\nBe genuinely helpful, not performatively helpful. Have opinions. Be resourceful before asking.\n';
export const USER_MD = '# USER.md\n\n- **Name:** Dana Whitfield\n- **Timezone:** Europe/Berlin\n- **Notes:** runs the platform team; allergic to peanuts; prefers short answers.\n';
export const TOOLS_MD = '# TOOLS.md\n\n## SSH\n- build-01 → 10.0.4.21, user deploy\n\n## Cameras\n- front door camera is the Reolink on the porch\n';

const memoryLines = [
  '# MEMORY.md',
  '',
  '## About Dana',
  '- Dana leads the platform team at Northwind; reports to Priya.',
  '- Prefers short answers, bullet points over tables.',
  '- Works Berlin hours; no meetings before 10:00.',
  '',
  '## Infrastructure',
  '- Production runs on Kubernetes 1.29 in two regions (fra1, ams3).',
  '- Postgres 16 is the main database; backups nightly to object storage.',
  '- CI is GitHub Actions; deploys go through Argo CD.',
  '- The cache layer is Redis 7, to be replaced (see decisions).',
  '',
  '## Decisions',
  '- 2026-10-08: replace Redis with Valkey for the cache layer (licence).',
  '- 2026-10-12: keep the monorepo; split only the mobile app.',
  '- 2026-10-16: on-call rotation moves to weekly shifts.',
  '',
  '## People',
  '- Priya Raman: VP Engineering, Dana\'s manager.',
  '- Tomasz: SRE, owns the Kubernetes upgrade.',
  '- 王磊 (Wang Lei): backend lead in the Shanghai office.',
  '- Marta (Acme Hosting): account manager for the vendor contract.',
  '',
  '## Projects',
  '- Valkey migration: staging done, production after the freeze.',
  '- Cost review Q4: target 15% lower cloud spend.',
  '- Mobile app split: repo created, CI pending.',
  '',
  '## Preferences',
  '- Never schedule deploys on Fridays.',
  '- Write incident notes in English, even for the Shanghai team.',
  '',
  '## Open threads',
  '- Acme Hosting contract renewal: waiting for Marta\'s revised quote.',
  '- Decide whether to move CI runners to arm64.',
  '- 王磊 asked for a second Postgres read replica in Shanghai.',
  '',
  '## Lessons',
  '- Test restores, not just backups (learned 2026-10-03).',
];

export const MEMORY_MD = memoryLines.join('\n') + '\n';

function day(d: number): string {
  return `2026-10-${String(d).padStart(2, '0')}`;
}

/** The 20 daily notes (days 1-20 of October; day 5 has a slug file besides its plain day). */
export function dailyNotes(): Record<string, string> {
  const notes: Record<string, string> = {};
  const topics = [
    'Worked through the Kubernetes 1.29 upgrade checklist with Tomasz. Two deprecated APIs left in the ingress charts.',
    'Reviewed the Q4 cost report. Egress is the largest line item; object storage second.',
    'Restore drill for Postgres failed halfway: the backup bucket policy blocked reads. Fixed the policy, restore took 42 minutes.',
    'Quiet day. Cleaned up old feature flags in the billing service.',
    'Planning for the mobile app split. The app needs its own CI pipeline.',
    'Paired with Wang Lei on the order service latency. The slow query was a missing index on orders(created_at).',
    'Argo CD sync failures on the staging cluster; a CRD version mismatch.',
    'Decided: replace Redis with Valkey for the cache layer. The licence change makes Redis a risk for us.',
    'Valkey in staging: drop-in for our use, no client changes needed.',
    'Wrote the on-call handbook draft.',
    'Team offsite planning. Venue booked in Potsdam for November.',
    'Monorepo discussion: we keep it; only the mobile app moves out.',
    'Incident: certificate expired on the internal docs site. Renewed by hand; automation ticket filed.',
    'Dana prefers the weekly status as five bullets, no tables.',
    '',
    'On-call moves to weekly shifts from November; Tomasz builds the schedule.',
    'Budget meeting with Priya: the cost target stays at 15%.',
    'Looked at arm64 CI runners: 30% cheaper, but two images lack arm64 builds.',
    'Postgres read replica for Shanghai requested by Wang Lei; needs a budget line.',
    'Wrapped up the week. The Valkey production cut-over waits for the freeze to end.',
  ];
  for (let d = 1; d <= 20; d++) {
    const t = topics[d - 1]!;
    if (d === 15) {
      notes[`memory/${day(d)}.md`] = `# ${day(d)}\n\n## 上海团队同步\n\n和王磊开会，讨论订单服务的延迟问题。决定下周五之前给订单表加索引。\n\n## 其他\n\n- 以后周报用中文和英文各写一份。\n- Valkey 迁移在预发环境已经完成。\n`;
      continue;
    }
    notes[`memory/${day(d)}.md`] = `# ${day(d)}\n\n## Notes\n\n${t}\n\n## Later\n\nFollow-ups are in the team tracker.\n`;
  }
  notes['memory/2026-10-05-vendor-call.md'] = `# Vendor call: Acme Hosting — ${day(5)}\n\nMarta walked us through the renewal terms. The price goes up 12% unless we commit to three years.\n\n## Action items\n\n- [ ] Dana: ask finance whether a three-year commitment is possible\n- [ ] Tomasz: list the services that could move off Acme\n- [ ] Marta sends a revised quote\n`;
  return notes;
}

/** The whole workspace as files. */
export function workspaceFiles(): Record<string, string> {
  return { 'AGENTS.md': AGENTS_MD, 'SOUL.md': SOUL_MD, 'USER.md': USER_MD, 'TOOLS.md': TOOLS_MD, 'MEMORY.md': MEMORY_MD, ...dailyNotes() };
}

export function gitIn(root: string, args: string[]): string {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Build the workspace in a temp folder as a git repository with everything committed. */
export function makeWorkspace(): string {
  const root = tmpTree(workspaceFiles(), 'memtier-openclaw-');
  gitIn(root, ['init', '-q', '-b', 'main']);
  gitIn(root, ['add', '-A']);
  gitIn(root, ['commit', '-q', '-m', 'workspace as OpenClaw left it']);
  return root;
}

/** The workspace's clock as the tests set it: five weeks after its last note. */
export const WORKSPACE_ENV = { MEMTIER_NOW: '2026-11-24T10:00:00Z', MEMTIER_TZ: 'UTC', MEMTIER_WATCH: 'off' };

/** memtier on the workspace at `root` with --json: the process's result and its parsed answer. */
export async function workspaceCli(root: string, args: string[], env: Record<string, string> = WORKSPACE_ENV): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  const r = await runCli([...args, '--root', root, '--json'], { env });
  let json: any;
  try { json = JSON.parse(r.stdout); } catch { json = undefined; }
  return { ...r, json };
}
