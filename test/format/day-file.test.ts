/** One file per day: where a day's entries go (lib/format/layout.ts dayFile). */
import { describe, expect, it } from 'vitest';
import { dayFile, isOpenClawWorkspace } from '../../lib/format/layout.js';
import { tmpTree } from '../helpers.js';

describe('dayFile', () => {
  it('an OpenClaw workspace is SOUL.md, or AGENTS.md with USER.md or IDENTITY.md (AGENTS.md alone is a Codex project)', () => {
    expect(isOpenClawWorkspace(tmpTree({ 'SOUL.md': '#' }))).toBe(true);
    expect(isOpenClawWorkspace(tmpTree({ 'AGENTS.md': '#', 'USER.md': '#' }))).toBe(true);
    expect(isOpenClawWorkspace(tmpTree({ 'AGENTS.md': '#', 'IDENTITY.md': '#' }))).toBe(true);
    expect(isOpenClawWorkspace(tmpTree({ 'AGENTS.md': '#' }))).toBe(false);
    expect(isOpenClawWorkspace(tmpTree({ 'MEMORY.md': '#' }))).toBe(false);
  });

  it('the day\'s existing file first, then the convention of the workspace', () => {
    const plain = tmpTree({ 'MEMORY.md': '#' });
    expect(dayFile(plain, '2026-05-15')).toBe('memory/episodic/2026-05-15.md');
    const flatDay = tmpTree({ 'MEMORY.md': '#', 'memory/2026-05-15.md': 'a person wrote this day' });
    expect(dayFile(flatDay, '2026-05-15')).toBe('memory/2026-05-15.md');
    const openclaw = tmpTree({ 'SOUL.md': '#', 'memory/episodic/2026-05-14.md': '# 2026-05-14\n' });
    expect(dayFile(openclaw, '2026-05-15')).toBe('memory/2026-05-15.md');
    expect(dayFile(openclaw, '2026-05-14')).toBe('memory/episodic/2026-05-14.md'); // an adopted day keeps its home
  });
});
