import { describe, expect, it } from 'vitest';
import { parseOsVersion, supportsBroadcast } from '../../src/domain/ios-version.ts';

describe('iOS versions (ios-version.ts)', () => {
  it.each<[string, [number, number, number] | null]>([
    ['18', [18, 0, 0]],
    ['18.2', [18, 2, 0]],
    ['17.4.1', [17, 4, 1]],
    [' 26.0 ', [26, 0, 0]],
    ['eighteen', null],
    ['18.', null],
    ['1.2.3.4', null],
  ])('parses %j', (value, parsed) => {
    expect(parseOsVersion(value)).toEqual(parsed);
  });

  it('takes broadcast channels from iOS 18 on; an unknown version goes per token', () => {
    expect([
      supportsBroadcast('18.0'),
      supportsBroadcast('26.1'),
      supportsBroadcast('17.6'),
      supportsBroadcast(null),
      supportsBroadcast('x'),
    ]).toEqual([true, true, false, false, false]);
  });
});
