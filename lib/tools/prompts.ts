/**
 * The memory's prompts for agent hosts (MCP prompts: a host offers them to the user, e.g. as
 * slash commands): `boot`, the memory's current state as `memtier boot` prints it, and
 * `write-before-answering`, the protocol an agent follows with memtier's tools.
 */
import type { Invocation } from '../watch/runner.js';

/** The protocol: search before answering, write the state before answering, never a secret. */
export const WRITE_BEFORE_ANSWERING = [
  'Long-term memory protocol (memtier). Follow it for the rest of this session:',
  '1. Before answering anything that depends on earlier work, decisions, preferences or people, call memory_search first (or memory_recall with the last turns) and cite the path#Lline of what you used; open a citation with memory_get to read its context. Say so when the memory has nothing.',
  '2. Record before you answer, not after: a decision or a correction with memory_wal verb "decide", the task you are on with "task", open items with "pending" / "blocker" and "done" when one is closed. A compaction or a restart then loses nothing.',
  '3. Store a durable fact (a preference, a person, a project, infrastructure, a lesson) with memory_write, one fact per call, in the user\'s words. Search first: what is already in memory is not written again. A fact that changed is corrected with memory_supersede (the old one is kept as history); memory_forget is only for what should not be remembered at all.',
  '4. Never store secrets, passwords, tokens, keys or credentials, not even in part (memtier refuses them). Nor small talk.',
  '5. At the start of a task and after a compaction, reload the state: memory_wal verb "get" (or the boot prompt), and memory_recent for what changed lately.',
  '6. If memory_health reports a failure, say that the memory could not be trusted and do not answer from it until it is fixed.',
].join('\n');

/** The prompts, as a table: what each is for and, for boot, the command it runs. */
export function promptTable() {
  return {
    boot: {
      title: 'Load the memory',
      description: 'The memory\'s current state, to read at the start of a session or after a compaction: MEMORY.md (the index), SESSION-STATE.md (task, decisions, open items), today\'s and yesterday\'s log and the working buffer, as "memtier boot" prints them.',
      invoke: (): Invocation => ({ argv: ['boot'] }),
    },
    'write-before-answering': {
      title: 'Memory protocol',
      description: 'How to use the memory in this session: search before answering and cite; record decisions and the working state with memory_wal before answering; store durable facts with memory_write; never store secrets.',
      text: WRITE_BEFORE_ANSWERING,
    },
  } as const;
}
