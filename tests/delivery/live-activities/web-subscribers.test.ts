import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * A Live Activity on a channel that also has browsers: Web Push delivery must not break it. What browsers get for a Live
 * Activity (docs/live-activities.md, "Web") is tested in web-live-activities.test.ts; here, that they get each event.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

describe('a Live Activity on a channel with web subscribers', () => {
  it('starts, updates and ends on iOS as before', async () => {
    const account = await h.newAccount({ channels: ['mixed'] });
    const ios = await h.iosDevice(account, 'mixed');
    const browser = h.webPush.subscribe({ applicationServerKey: h.vapidKeys.publicKey });
    expect(
      (
        await post(h.app, '/api/v1/subscribers', account.publishableKey, {
          channelCode: 'mixed',
          platform: 'web',
          token: browser.json,
        })
      ).statusCode,
    ).toBe(201);

    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'mixed',
      template: 'progress',
      fields: { title: 'Order', progress: 0.1 },
    });
    expect(started.statusCode).toBe(201);
    const id = started.body.data.id as string;
    await h.settle();
    expect(h.apnsPushes(ios.pushToStartToken!).map((push) => push.status)).toEqual([200]);
    await h.deviceActivity(ios, id);
    await h.settle();
    expect(
      (await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { progress: 0.5 } }))
        .statusCode,
    ).toBe(200);
    // Each event settled before the next: an end may otherwise overtake an update still queued, which then is not sent.
    await h.settle();
    expect((await post(h.app, `/api/v1/live-activities/${id}/end`, account.secretKey, {})).statusCode).toBe(200);
    await h.settle();
    const activity = (await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data;
    expect(activity.status).toBe('ended');
    const events = h.apns.requests
      .filter((push) => push.headers['apns-push-type'] === 'liveactivity')
      .map((push) => [(push.payload as any)?.aps?.event, push.status]);
    expect(events).toEqual([
      ['start', 200],
      ['update', 200],
      ['end', 200],
    ]);
    expect(
      h.webPush.messages
        .filter((message) => message.subscriptionId === browser.id)
        .map((message) => [(message.message as any)?.notification?.data?.data?.event, message.status]),
    ).toEqual([
      ['start', 201],
      ['update', 201],
      ['end', 201],
    ]);
  });
});
