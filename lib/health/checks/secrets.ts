import { scanSecrets } from '../../store/guards/secrets.js';
import type { Check, Finding } from '../types.js';
import type { MemFile } from '../../memory/snapshot.js';

/** The store refuses credentials, but people edit files by hand. */
export const check: Check = {
  id: 'secrets',
  description: 'no credential on disk (API keys, tokens, passwords, private keys); reports rule, file, line and a masked value',
  severity: 'fail',
  fixable: false,
  source: 'seed 004, seed 002',
  doc: {
    trigger: 'any memory file matching a rule of the store\'s secret scanner (lib/store/guards/secrets.ts)',
    failing: '- 10:02 [TECH] staging db password=hunter2hunter2 ^k2j3mx0a',
    fixed: '- 10:02 [TECH] staging db password is in the team vault under "staging-db" ^k2j3mx0a',
    why: 'memory files are read into prompts, committed to git and synced between machines: a credential there leaks everywhere they go',
  },
  run(snap) {
    return snap.files.flatMap(fileFindings);
  },
};

/** The credentials in one file (its findings depend on the file alone). */
export function fileFindings(f: MemFile): Finding[] {
  if (f.text === undefined) return [];
  return scanSecrets(f.text).map((s) => ({ check: 'secrets', severity: 'fail', file: f.rel, line: s.line, message: `looks like a ${s.description} (rule ${s.rule}, value ${s.masked})`, fix: 'remove the credential by hand (rotate it if it was real) and write where to find it instead' }));
}
