import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * `aps.timestamp` under sustained updates: iOS ignores an update older than the last one and drops one more than
 * 8 hours ahead (tools/fakes/apns/apns-live-activities.ts), so every event must carry the time it was made, to the
 * second, however many come per second.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

describe('Live Activity timestamps', () => {
  it('stay at the current second under ten updates a second, and every update still applies in order', async () => {
    const account = await h.newAccount({ channels: ['race'] });
    const ios = await h.iosDevice(account, 'race');
    const android = await h.androidDevice(account, 'race');
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'race',
        template: 'progress',
        fields: { title: 'Race', progress: 0 },
      })
    ).body.data.id as string;
    await h.settle();
    const device = await h.deviceActivity(ios, id);
    await waitFor(() => h.reporter.reports.some((report) => report.liveActivityId === id), 10_000, 'the token report');

    for (let n = 1; n <= 30; n += 1) {
      h.clock.advance(100);
      expect(
        (
          await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
            fields: { progress: n / 100 },
          })
        ).statusCode,
      ).toBe(200);
      await h.settle();
    }

    const updates = h.apnsPushes(device.updateToken);
    expect(updates).toHaveLength(30);
    for (const request of updates) {
      const seconds = (request.payload as { aps: { timestamp: number } }).aps.timestamp;
      expect(seconds).toBe(Math.floor(request.at / 1000));
    }
    expect(device.events.filter((event) => !event.applied)).toEqual([]);
    expect(device.contentState).toMatchObject({ progress: 0.3 });
    // Android orders by its own `timestamp`: strictly increasing, and near the clock too.
    const androidTimestamps = h
      .fcmPushes(android.token)
      .map((request) => Number((request.message as { data: { timestamp: string } }).data.timestamp));
    expect(androidTimestamps.every((value, index) => index === 0 || value > androidTimestamps[index - 1]!)).toBe(true);
    expect(androidTimestamps.at(-1)! - h.clock.now()).toBeLessThanOrEqual(0);
  });
});
