import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { countOf } from '../../src/cli/cli-output.ts';

const CLI = new URL('../../src/cli/', import.meta.url);

describe('counts in CLI output (src/cli/cli-output.ts)', () => {
  it.each([
    [0, 'subscriber', undefined, '0 subscribers'],
    [1, 'subscriber', undefined, '1 subscriber'],
    [2, 'subscriber', undefined, '2 subscribers'],
    [1, 'notification', undefined, '1 notification'],
    [2_500, 'notification', undefined, '2500 notifications'],
    [1, 'match', 'matches', '1 match'],
    [3, 'match', 'matches', '3 matches'],
  ] as const)('countOf(%d, %s, %s) is "%s"', (count, noun, plural, text) => {
    expect(countOf(count, noun, plural)).toBe(text);
  });

  it('no command writes a number straight before a plural noun ("1 subscribers"): counts go through countOf', () => {
    const nouns =
      'subscriber|notification|line|page|key|app|channel|account|user|owner|problem|attempt|token|row|second|minute|hour|day|push|event';
    const pattern = new RegExp(String.raw`\$\{[^}]+\}\)?\s+(?:${nouns})s\b`, 'g');
    const found = readdirSync(CLI)
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        [...readFileSync(new URL(file, CLI), 'utf8').matchAll(pattern)].map((match) => `${file}: ${match[0]}`),
      );
    expect(found).toEqual([]);
  });
});
