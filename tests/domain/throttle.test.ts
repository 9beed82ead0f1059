import { describe, expect, it } from 'vitest';
import { plannedFinishAt, throttlePace } from '../../src/domain/throttle.ts';

describe('the pace of a throttled fan-out', () => {
  it.each([
    [10_000, { batchSize: 167, intervalMs: 1002 }],
    [60, { batchSize: 1, intervalMs: 1000 }],
    [2, { batchSize: 1, intervalMs: 30_000 }],
    // Never more than a send job's 500 at once: 600,000 a minute is 500 every 50 ms.
    [600_000, { batchSize: 500, intervalMs: 50 }],
  ])('%i a minute → %j', (perMinute, pace) => {
    expect(throttlePace(perMinute, 500)).toEqual(pace);
  });

  it('is none without a throttle', () => {
    expect(throttlePace(null, 500)).toBeNull();
  });

  it('plans N subscribers at R a minute to take N / R minutes', () => {
    expect(plannedFinishAt(0, 100_000, 10_000)).toBe(10 * 60_000);
  });
});
