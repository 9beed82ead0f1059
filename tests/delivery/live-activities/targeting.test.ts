import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patch, post } from '../../harness/requests.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/** A Live Activity started for an audience reaches, and keeps updating, exactly that audience (against the fakes). */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

describe('a targeted Live Activity', () => {
  it('starts, updates and ends only on the devices of the named people', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const aliceIos = await h.iosDevice(account, 'orders');
    const aliceAndroid = await h.androidDevice(account, 'orders');
    const bobIos = await h.iosDevice(account, 'orders');
    const bobAndroid = await h.androidDevice(account, 'orders');
    for (const [id, externalId] of [
      [aliceIos.subscriberId, 'alice'],
      [aliceAndroid.subscriberId, 'alice'],
      [bobIos.subscriberId, 'bob'],
      [bobAndroid.subscriberId, 'bob'],
    ] as const) {
      expect((await patch(h.app, `/api/v1/subscribers/${id}`, account.secretKey, { externalId })).statusCode).toBe(200);
    }
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'orders',
      template: 'progress',
      fields: { title: 'Order #9', progress: 0.2 },
      externalIds: ['alice'],
    });
    expect(started.statusCode).toBe(201);
    expect(started.body.data.recipientCount).toBe(2);
    const id = started.body.data.id as string;
    await h.settle();
    await h.deviceActivity(aliceIos, id);
    expect(h.apnsPushes(aliceIos.pushToStartToken!)).toHaveLength(1);
    expect(h.fcmPushes(aliceAndroid.token)).toHaveLength(1);

    expect(
      (await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { progress: 0.6 } }))
        .statusCode,
    ).toBe(200);
    await h.settle();
    expect(h.fcmPushes(aliceAndroid.token)).toHaveLength(2);

    // Bob's devices never heard of it.
    expect(h.apnsPushes(bobIos.pushToStartToken!)).toEqual([]);
    expect(h.apnsPushes(bobIos.token)).toEqual([]);
    expect(h.fcmPushes(bobAndroid.token)).toEqual([]);
  });
});
