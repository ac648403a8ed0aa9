/**
 * The ordered registry of health checks (markdownlint's lib/rules.mjs pattern): one check per
 * file, named by its id; this order is the order of the report and of the README table.
 * Seed 004's nine invariants come first, in the seed's order.
 */
import type { Check } from '../types.js';
import { check as warmTagsLine } from './warm-tags-line.js';
import { check as tagVocabulary } from './tag-vocabulary.js';
import { check as lastVerified } from './last-verified.js';
import { check as bufferSize } from './buffer-size.js';
import { check as openQuestions } from './open-questions.js';
import { check as closureBlock } from './closure-block.js';
import { check as decisionLinks } from './decision-links.js';
import { check as episodicCount } from './episodic-count.js';
import { check as walIntegrity } from './wal-integrity.js';
import { check as memoryBudget } from './memory-budget.js';
import { check as canonicalHome } from './canonical-home.js';
import { check as syntax } from './syntax.js';
import { check as fileTypes } from './file-types.js';
import { check as secrets } from './secrets.js';
import { check as leftovers } from './leftovers.js';
import { check as trash } from './trash.js';
import { check as indexFresh } from './index-fresh.js';
import { check as disk } from './disk.js';
import { check as orphans } from './orphans.js';
import { check as nearDuplicates } from './near-duplicates.js';
import { check as unadopted } from './unadopted.js';
import { check as metaFiles } from './meta-files.js';
import { check as uncommitted } from './uncommitted.js';
import { check as sync } from './sync.js';

export const CHECKS: readonly Check[] = [
  warmTagsLine,
  tagVocabulary,
  lastVerified,
  bufferSize,
  openQuestions,
  closureBlock,
  decisionLinks,
  episodicCount,
  walIntegrity,
  memoryBudget,
  canonicalHome,
  syntax,
  fileTypes,
  secrets,
  leftovers,
  trash,
  indexFresh,
  disk,
  orphans,
  nearDuplicates,
  unadopted,
  metaFiles,
  uncommitted,
  sync,
];

/**
 * The order repairs run in: crash leftovers first (a torn tail or a stale lock would block the
 * others), then the buffer (rotation appends to today), then closing days before archiving them.
 */
export const FIX_ORDER: readonly string[] = ['file-types', 'wal-integrity', 'leftovers', 'buffer-size', 'closure-block', 'episodic-count', 'index-fresh'];
