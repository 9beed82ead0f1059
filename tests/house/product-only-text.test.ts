import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The repository speaks of the product, not of its making: no code, test, doc or benchmark cites a work item or a
 * working session by its number. What holds now is said as such; measured figures live in
 * docs/performance.md and history in git. Other projects' bug reports are cited by their URL.
 */
const ROOT = resolve(import.meta.dirname, '../..');

describe('the repository text', () => {
  it('names no work item or session by number', () => {
    // Tracked files only (git grep), so node_modules, dist/ and caches never count. Exit 1 means no match.
    let matches = '';
    try {
      matches = execFileSync('git', ['grep', '-niE', String.raw`\b(session|issue) [0-9]`], {
        cwd: ROOT,
        encoding: 'utf8',
      });
    } catch (error) {
      if ((error as { status?: number }).status !== 1) throw error;
    }
    expect(matches.split('\n').filter(Boolean)).toEqual([]);
  });
});
