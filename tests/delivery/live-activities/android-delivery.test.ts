import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../harness/requests.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * What an Android device gets of a Live Activity, through the fake FCM's devices (tools/fakes/fcm/fcm-devices.ts): FCM
 * delays collapsible messages past a burst of 20 per app and device and keeps undelivered ones for android.ttl.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const HOUR = 3600 * 1000;
const dataOf = (message: Record<string, unknown>) => message.data as Record<string, string>;

describe('Android Live Activity delivery', () => {
  it('gets every update and the end at once, past FCM’s 20-message burst for collapsible messages', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    const android = await h.androidDevice(account, 'match');
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'match',
        template: 'progress',
        fields: { title: 'Match', progress: 0 },
      })
    ).body.data.id as string;
    await h.settle();
    // Each update goes out before the next is made (an update still queued when the activity ends is skipped).
    for (let n = 1; n <= 25; n += 1) {
      expect(
        (
          await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
            fields: { progress: n / 100 },
          })
        ).statusCode,
      ).toBe(200);
      await h.settle();
    }
    expect(
      (await post(h.app, `/api/v1/live-activities/${id}/end`, account.secretKey, { fields: { progress: 1 } }))
        .statusCode,
    ).toBe(200);
    await h.settle();

    const received = h.fcm.devices.delivered(android.token).map((delivery) => dataOf(delivery.message));
    expect(received).toHaveLength(27);
    expect(h.fcm.devices.pending(android.token)).toBe(0);
    // The app orders by timestamp: strictly increasing per activity, so the end is the newest.
    const ordered = [...received].sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
    expect(new Set(received.map((data) => data.timestamp)).size).toBe(27);
    expect(ordered.at(-1)).toMatchObject({ event: 'end', fields: JSON.stringify({ title: 'Match', progress: 1 }) });
  });

  it('lets FCM keep a start or update only until the activity’s 8 hours, and the end 4 hours longer', async () => {
    const account = await h.newAccount({ channels: ['parcel'] });
    const android = await h.androidDevice(account, 'parcel');
    const startedAt = h.clock.now();
    h.fcm.devices.setOnline(android.token, false);
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'parcel',
        template: 'progress',
        fields: { title: 'Parcel', progress: 0.1 },
      })
    ).body.data.id as string;
    await h.settle();
    h.clock.advance(HOUR);
    await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { progress: 0.5 } });
    await h.settle();

    const ttls = h
      .fcmPushes(android.token)
      .map((request) => (request.message as { android: { ttl?: string } }).android.ttl);
    expect(ttls).toEqual([`${8 * 3600}s`, `${7 * 3600}s`]);

    // The 8-hour end reaches a device that comes back within 4 hours after it; the start and update do not.
    h.clock.set(startedAt + 8 * HOUR);
    h.worker.pool.wake();
    await h.settle();
    expect(h.fcmPushes(android.token).at(-1)!.message).toMatchObject({
      data: { event: 'end' },
      android: { ttl: `${4 * 3600}s` },
    });
    h.clock.advance(3 * HOUR);
    h.fcm.devices.setOnline(android.token, true);
    expect(h.fcm.devices.delivered(android.token).map((delivery) => dataOf(delivery.message).event)).toEqual(['end']);
  });
});
