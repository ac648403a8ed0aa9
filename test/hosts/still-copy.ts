/**
 * A still copy of this package for a host to load (test/hosts/openclaw-turn.test.ts,
 * test/openclaw/gateway.test.ts).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers.js';

/**
 * A still copy of this package for OpenClaw to load: the tree's dist/ is rebuilt by whoever runs
 * `npm run build` meanwhile, and OpenClaw refuses a linked plugin whose sources change while it
 * loads it ("Plugin source changed while preparing its reload"). dist/lib is copied once nothing in
 * it or dist/build-id has changed for 2 seconds, and again if anything changed over the copy. Not
 * "dist/lib older than build-id": some suites run a bare `npx tsc -p .` (test/store/util.ts,
 * test/wal/wal.test.ts), which rewrites dist/lib without a new build-id, so after `npm test` that
 * never held (CI's run of this file failed on it). The dependencies are the tree's node_modules,
 * linked in the folder above the copy. Throws when dist/ does not hold still for 3 minutes.
 */
export async function stillCopy(dest: string): Promise<string> {
  const dist = join(REPO, 'dist');
  const newest = (dir: string): number => {
    let m = 0;
    for (const d of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (d.isFile()) m = Math.max(m, statSync(join(d.parentPath, d.name)).mtimeMs);
    }
    return m;
  };
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      const id = readFileSync(join(dist, 'build-id'), 'utf8');
      const last = Math.max(newest(join(dist, 'lib')), statSync(join(dist, 'build-id')).mtimeMs);
      if (Date.now() - last > 2_000) {
        rmSync(dest, { recursive: true, force: true });
        mkdirSync(dest, { recursive: true });
        cpSync(join(dist, 'lib'), join(dest, 'dist', 'lib'), { recursive: true });
        if (readFileSync(join(dist, 'build-id'), 'utf8') === id && Math.max(newest(join(dist, 'lib')), statSync(join(dist, 'build-id')).mtimeMs) === last) {
          writeFileSync(join(dest, 'dist', 'build-id'), id);
          for (const f of ['package.json', 'openclaw.plugin.json']) cpSync(join(REPO, f), join(dest, f));
          for (const d of ['bin', 'templates', 'memory-skeleton']) cpSync(join(REPO, d), join(dest, d), { recursive: true });
          // its dependencies from the folder above (OpenClaw's install scan refuses a node_modules symlink inside the plugin)
          if (!existsSync(join(dest, '..', 'node_modules'))) symlinkSync(join(REPO, 'node_modules'), join(dest, '..', 'node_modules'), 'dir');
          return dest;
        }
      }
    } catch { /* mid-build: a file went away */ }
    if (Date.now() > deadline) throw new Error('dist/ did not hold a finished build still for 3 minutes (npm run build running meanwhile?)');
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

