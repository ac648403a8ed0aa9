import { localDate, addDays } from '../../core/clock.js';
import { PATHS } from '../../format/layout.js';
import { listTrash, trashDays } from '../../format/trash.js';
import { trashProblem } from '../../store/store.js';
import type { Check, Finding } from '../types.js';

/** The trash can take what memtier removes; how much it holds and how much is past retention. */
export const check: Check = {
  id: 'trash',
  description: 'memory/.trash is a folder (or absent): forget, rotation and every removal save there first and refuse to remove anything otherwise',
  severity: 'fail',
  fixable: false,
  source: 'issue 18 (save first, remove second)',
  doc: {
    trigger: '`memory/.trash` exists and is a file, a symbolic link or anything but a folder (an info line counts the items past the trash\'s retention, `MEMTIER_TRASH_DAYS`)',
    failing: 'memory/.trash → /tmp/elsewhere (a symbolic link)',
    fixed: 'memory/.trash/ (a folder; the link moved aside by a person after looking at where it pointed)',
    why: 'memtier saves what it removes to the trash before removing it: without a trash folder forget, fact forget, buffer rotation and the cleanups stop with an error until a person fixes it',
  },
  run(snap, env) {
    const problem = trashProblem(snap.root);
    if (problem) {
      return [{
        check: 'trash', severity: 'fail', file: PATHS.trash,
        message: `is ${problem}, not a folder: forget, rotation and every removal refuse to run (they save to the trash first)`,
        fix: `look at it, then move it aside (mv ${PATHS.trash} ${PATHS.memoryDir}/trash-was-not-a-folder); memtier creates the folder again`,
      }];
    }
    const { tz } = env.ctx.clock;
    const items = listTrash(snap.root, (d) => localDate(d, tz));
    const days = trashDays(env.ctx.env);
    const out: Finding[] = [];
    let due = 0;
    if (typeof days === 'number') {
      const cutoff = addDays(env.today, -days);
      due = items.filter((i) => i.day < cutoff).length;
      if (due) out.push({ check: 'trash', severity: 'info', file: PATHS.trash, message: `${due} item${due === 1 ? '' : 's'} trashed more than ${days} days ago: the next "memtier consolidate" deletes them ("memtier trash list" shows them)` });
    } else if (typeof days === 'object') {
      out.push({ check: 'trash', severity: 'warn', file: PATHS.trash, message: `${days.error}: the trash's retention does not run`, fix: 'set MEMTIER_TRASH_DAYS to a whole number of days (default 30), or "off"' });
    }
    return { findings: out, figures: { items: items.length, bytes: items.reduce((n, i) => n + i.bytes, 0), pastRetention: due } };
  },
};
