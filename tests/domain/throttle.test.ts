import { describe, expect, it } from 'vitest';
import { pacedDueAt, plannedFinishAt, throttleBatchSize } from '../../src/domain/throttle.ts';

describe('the pace of a throttled fan-out', () => {
  it.each([
    [10_000, 167],
    [60, 1],
    [2, 1],
    // Never more than a send job's 500 at once.
    [600_000, 500],
  ])('%i a minute → batches of %i', (perMinute, batchSize) => {
    expect(throttleBatchSize(perMinute, 500)).toBe(batchSize);
  });

  it('makes a batch due once the pushes before it have had their time', () => {
    expect(pacedDueAt(1_000, 0, 10_000)).toBe(1_000);
    // 167 pushes at 10,000 a minute take 1,002 ms.
    expect(pacedDueAt(1_000, 167, 10_000)).toBe(2_002);
    expect(pacedDueAt(0, 3, 2)).toBe(90_000);
  });

  it('plans N subscribers at R a minute to take N / R minutes', () => {
    expect(plannedFinishAt(0, 100_000, 10_000)).toBe(10 * 60_000);
  });
});
