/**
 * memory/palace/topics.md as `memtier topics` writes it (lib/lifecycle/topics.ts): read here so
 * `search --topic` can use it without loading the upkeep code.
 */
import { PATHS } from './layout.js';

export const TOPICS_FILE = `${PATHS.palace}/topics.md`;

/** The entries (path#^id or path#Lline citations) listed under a topic of topics.md, subtopics included. */
export function topicEntries(text: string, topic: string): Set<string> | undefined {
  const want = topic.trim().toLowerCase();
  const lines = text.split('\n');
  const out = new Set<string>();
  let inTopic = false;
  let found = false;
  for (const l of lines) {
    const h2 = /^## (.+)$/.exec(l);
    if (h2) {
      inTopic = h2[1]!.toLowerCase().split(' / ').includes(want) || h2[1]!.toLowerCase() === want;
      found ||= inTopic;
      continue;
    }
    if (!inTopic) continue;
    for (const m of l.matchAll(/\[([^\]\s]+#(?:\^[A-Za-z0-9-]+|L\d+))\]\(/g)) out.add(m[1]!);
  }
  return found ? out : undefined;
}
