import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/domain/clock.ts';
import { OriginLanes } from '../../../src/delivery/web-push/web-push-origin-lanes.ts';

describe('OriginLanes', () => {
  it('runs at most `limit` pushes per origin at once, other origins beside them', async () => {
    const lanes = new OriginLanes(() => 2, 60_000, new ManualClock(0));
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const work = () =>
      new Promise<string>((resolve) => {
        running += 1;
        most = Math.max(most, running);
        releases.push(() => {
          running -= 1;
          resolve('sent');
        });
      });
    const results = Array.from({ length: 5 }, () => lanes.run('https://a.example', work, () => 'paused'));
    const other = lanes.run(
      'https://b.example',
      async () => 'other',
      () => 'paused',
    );
    expect(await other).toBe('other');
    while (releases.length > 0 || running > 0) {
      await Promise.resolve();
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(results)).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
    expect(most).toBe(2);
  });

  it('a paused origin answers at once, with the time left, until the pause is over', async () => {
    const clock = new ManualClock(0);
    const lanes = new OriginLanes(() => 2, 60_000, clock);
    lanes.pause('https://slow.example');
    let called = 0;
    const work = async () => {
      called += 1;
      return 'sent';
    };
    clock.advance(10_000);
    expect(await lanes.run('https://slow.example', work, (remaining) => `paused ${remaining}`)).toBe('paused 50000');
    expect(await lanes.run('https://other.example', work, () => 'paused')).toBe('sent');
    clock.advance(50_000);
    expect(await lanes.run('https://slow.example', work, () => 'paused')).toBe('sent');
    expect(called).toBe(2);
  });

  it('follows a limit that changes: one push until the origin is known, then the raised limit lets the waiting in at once', async () => {
    let limit = 1;
    const lanes = new OriginLanes(() => limit, 60_000, new ManualClock(0));
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const work = () =>
      new Promise<string>((resolve) => {
        running += 1;
        most = Math.max(most, running);
        releases.push(() => {
          running -= 1;
          resolve('sent');
        });
      });
    const results = Array.from({ length: 5 }, () => lanes.run('https://a.example', work, () => 'paused'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(running).toBe(1);
    limit = 3;
    lanes.widen('https://a.example');
    await new Promise((resolve) => setImmediate(resolve));
    // The first push is still in flight: two more joined it, and no further one.
    expect(running).toBe(3);
    while (releases.length > 0 || running > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(results)).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
    expect(most).toBe(3);
  });
});
