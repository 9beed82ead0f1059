import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.ts';

describe('ManualClock with manual tasks', () => {
  it("runs a periodic task when it is moved past the task's time, once however far, and not after it is stopped", () => {
    const clock = new ManualClock(0, { manualTasks: true });
    const ticks: number[] = [];
    const stop = clock.every(1_000, () => ticks.push(clock.now()));
    clock.advance(999);
    expect(ticks).toEqual([]);
    clock.advance(1);
    expect(ticks).toEqual([1_000]);
    // Late, as an interval timer is: one run, then every 1,000 ms from there.
    clock.advance(5_000);
    expect(ticks).toEqual([1_000, 6_000]);
    clock.set(7_000);
    expect(ticks).toEqual([1_000, 6_000, 7_000]);
    stop();
    clock.advance(10_000);
    expect(ticks).toEqual([1_000, 6_000, 7_000]);
  });

  it('lets a task stop another that is due in the same move', () => {
    const clock = new ManualClock(0, { manualTasks: true });
    const ran: string[] = [];
    let stopSecond = () => {};
    clock.every(100, () => {
      ran.push('first');
      stopSecond();
    });
    stopSecond = clock.every(100, () => ran.push('second'));
    clock.advance(100);
    expect(ran).toEqual(['first']);
  });
});
