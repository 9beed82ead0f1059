import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSubscriber } from '../../../src/store/subscribers-queries.ts';
import type { FakeSubscription, WebPushRecord } from '../../../tools/fakes/index.ts';
import { get, post } from '../../harness/requests.ts';
import type { TestAccount } from '../../harness/test-app.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * Live Activities on the web (docs/live-activities.md, "Web"): every event reaches the channel's browsers through the
 * fake push service as one notification replaced in place (tag = activity id), its state as text, and
 * `recipientCount` counts exactly the subscribers the start reaches on every platform.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const EIGHT_HOURS = 8 * 3600 * 1000;

/** A browser subscribed at the fake push service with the instance's key and registered in the channel. */
async function browser(
  account: TestAccount,
  channelCode: string,
  place: { timezone?: string; locale?: string } = {},
): Promise<{ subscriberId: string; subscription: FakeSubscription }> {
  const subscription = h.webPush.subscribe({ applicationServerKey: h.vapidKeys.publicKey });
  const response = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
    channelCode,
    platform: 'web',
    token: subscription.json,
    ...place,
  });
  expect(response.statusCode).toBe(201);
  return { subscriberId: response.body.data.id, subscription };
}

const pushesTo = (subscription: FakeSubscription): WebPushRecord[] =>
  h.webPush.messages.filter((message) => message.subscriptionId === subscription.id);

/** What a browser shows of a push: the declarative message's notification, with the activity's data. */
function shown(record: WebPushRecord): { tag: string; body: string; data: Record<string, string> } {
  if (record.declarative?.kind !== 'declarative') throw new Error(`not a declarative message: ${record.clearText}`);
  const { notification } = record.declarative.message;
  return {
    tag: notification.tag as string,
    body: notification.body as string,
    data: (notification.data as { data: Record<string, string> }).data,
  };
}

describe('Live Activities on the web', () => {
  it('shows start, silent and alerting updates and the end as one notification replaced by tag; recipientCount counts who gets the start', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const ios = await h.iosDevice(account, 'orders');
    await h.iosDevice(account, 'orders', { pushToStartToken: false });
    const android = await h.androidDevice(account, 'orders');
    const web = await browser(account, 'orders');
    const otherWeb = await browser(account, 'orders');

    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'orders',
      template: 'progress',
      fields: { title: 'Order #42', progress: 0.2, status: 'Packing' },
      alert: { title: 'Your order', body: 'is being packed' },
    });
    expect(started.statusCode).toBe(201);
    const id = started.body.data.id as string;
    // Joined after the start: not a recipient, as for Android (the activity's audience is fixed at its start).
    h.clock.advance(1);
    const late = await browser(account, 'orders');
    await h.settle();

    // Exactly the subscribers the start reached: iOS with push-to-start, Android, and both browsers.
    const reached = [
      h.apnsPushes(ios.pushToStartToken!).length,
      h.fcmPushes(android.token).length,
      pushesTo(web.subscription).length,
      pushesTo(otherWeb.subscription).length,
    ];
    expect(reached).toEqual([1, 1, 1, 1]);
    expect(started.body.data.recipientCount).toBe(reached.length);
    expect(pushesTo(late.subscription)).toEqual([]);

    const [start] = pushesTo(web.subscription);
    expect(start).toMatchObject({ status: 201, urgency: 'high', topic: id, ttl: EIGHT_HOURS / 1000 });
    // A declarative message, so Safari shows it without the service worker; an activity has no url of its own.
    expect(start!.message).toEqual({
      // The browser's receipt (docs/engagement.md): the service worker reports what the person does with it.
      clarionReceipt: expect.stringMatching(/^a/),
      web_push: 8030,
      notification: {
        title: 'Order #42',
        body: 'Your order: is being packed\n▓▓░░░░░░░░\n20 % · Packing',
        navigate: h.config.baseUrl,
        tag: id,
        data: {
          clarion: true,
          url: null,
          data: {
            clarion: 'live_activity',
            event: 'start',
            activityId: id,
            template: 'progress',
            timestamp: expect.any(String),
            alerting: 'true',
          },
        },
      },
      mutable: true,
    });
    expect(start!.declarative?.kind).toBe('declarative');

    // A silent update: same tag, not alerting, normal urgency.
    h.clock.advance(60_000);
    expect(
      (
        await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
          fields: { progress: 0.6, status: 'On its way' },
        })
      ).statusCode,
    ).toBe(200);
    await h.settle();
    const update = pushesTo(web.subscription)[1]!;
    expect(update).toMatchObject({ status: 201, urgency: 'normal', topic: id, ttl: EIGHT_HOURS / 1000 - 60 });
    expect(shown(update)).toMatchObject({
      tag: id,
      body: '▓▓▓▓▓▓░░░░\n60 % · On its way',
      data: { event: 'update', alerting: 'false' },
    });

    // An alerting update, then the end.
    expect(
      (
        await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
          fields: { progress: 0.9 },
          alert: { title: 'Almost there' },
        })
      ).statusCode,
    ).toBe(200);
    await h.settle();
    expect(shown(pushesTo(web.subscription)[2]!)).toMatchObject({
      body: 'Almost there\n▓▓▓▓▓▓▓▓▓░\n90 % · On its way',
      data: { event: 'update', alerting: 'true' },
    });
    expect(
      (
        await post(h.app, `/api/v1/live-activities/${id}/end`, account.secretKey, {
          fields: { progress: 1, status: 'Delivered' },
        })
      ).statusCode,
    ).toBe(200);
    await h.settle();
    const events = pushesTo(web.subscription).map(shown);
    expect(events.map((message) => [message.tag, message.data.event])).toEqual([
      [id, 'start'],
      [id, 'update'],
      [id, 'update'],
      [id, 'end'],
    ]);
    expect(events[3]!.body).toBe('▓▓▓▓▓▓▓▓▓▓\n100 % · Delivered\nEnded');
    // Every event's timestamp moves on, as on the other platforms.
    const timestamps = events.map((message) => Number(message.data.timestamp));
    expect([...timestamps].sort((a, b) => a - b)).toEqual(timestamps);
    expect(new Set(timestamps).size).toBe(4);
    expect(pushesTo(otherWeb.subscription)).toHaveLength(4);
    expect(pushesTo(late.subscription)).toEqual([]);
  });

  it("writes a timer's end in each browser's own zone and language", async () => {
    const account = await h.newAccount({ channels: ['flights'] });
    const berlin = await browser(account, 'flights', { timezone: 'Europe/Berlin', locale: 'de-DE' });
    const unknown = await browser(account, 'flights');
    const endsAt = new Date(Math.ceil(h.clock.now() / 3600_000) * 3600_000 + 30 * 60_000);
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'flights',
        template: 'timer',
        fields: { title: 'Gate closes', endsAt: endsAt.toISOString(), status: 'Boarding' },
      })
    ).body.data.id as string;
    await h.settle();
    const inBerlin = new Intl.DateTimeFormat('de-DE', {
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'Europe/Berlin',
    }).format(endsAt);
    const inUtc = new Intl.DateTimeFormat('en-GB', {
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'UTC',
      timeZoneName: 'short',
    }).format(endsAt);
    expect(shown(pushesTo(berlin.subscription)[0]!)).toMatchObject({
      tag: id,
      body: `Ends at ${inBerlin} · Boarding`,
      data: { endsAt: endsAt.toISOString() },
    });
    expect(shown(pushesTo(unknown.subscription)[0]!)).toMatchObject({ body: `Ends at ${inUtc} · Boarding` });
  });

  it('unsubscribes a browser whose subscription is gone, like a notification does', async () => {
    const account = await h.newAccount({ channels: ['scores'] });
    const gone = await browser(account, 'scores');
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'scores',
        template: 'score',
        fields: { title: 'Final', home: { name: 'Ajax', score: 0 }, away: { name: 'PSV', score: 0 } },
      })
    ).body.data.id as string;
    await h.settle();
    h.webPush.expire(gone.subscription.id, 410);
    await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { home: { score: 1 } } });
    await h.settle();
    await waitFor(
      async () => (await findSubscriber(h.store.db, account.id, gone.subscriberId))?.status === 'unsubscribed',
      10_000,
      'the gone browser to be unsubscribed',
    );
    expect((await findSubscriber(h.store.db, account.id, gone.subscriberId))!.unsubscribe_reason).toBe(
      'token_unregistered',
    );
  });

  it('tells browsers when the activity reaches its 8 hours', async () => {
    const account = await h.newAccount({ channels: ['food'] });
    const web = await browser(account, 'food');
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'food',
        template: 'steps',
        fields: { title: 'Pizza', currentStep: 1, totalSteps: 3 },
      })
    ).body.data.id as string;
    await h.settle();
    h.clock.advance(EIGHT_HOURS);
    h.worker.pool.wake();
    await waitFor(
      async () => (await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data.status === 'ended',
      10_000,
      'the 8-hour end',
    );
    await h.settle();
    await waitFor(() => pushesTo(web.subscription).length === 2, 10_000, 'the end pushed to the browser');
    expect(pushesTo(web.subscription).map((message) => shown(message).data.event)).toEqual(['start', 'end']);
    expect(shown(pushesTo(web.subscription)[1]!).body).toBe('▓▓▓░░░░░░░\nStep 1 of 3\nEnded');
  });

  it("an end at the 8-hour expiry reaches a browser that was offline, coming back hours later; its Topic is not the updates'", async () => {
    const account = await h.newAccount({ channels: ['parcels'] });
    const web = await browser(account, 'parcels');
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'parcels',
        template: 'progress',
        fields: { title: 'Parcel', progress: 0.1 },
      })
    ).body.data.id as string;
    await h.settle();
    h.webPush.setOnline(web.subscription.id, false);
    h.clock.advance(3600_000);
    expect(
      (await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { progress: 0.5 } }))
        .statusCode,
    ).toBe(200);
    await h.settle();
    h.clock.advance(EIGHT_HOURS - 3600_000);
    h.worker.pool.wake();
    await waitFor(() => pushesTo(web.subscription).length === 3, 10_000, 'the 8-hour end pushed to the push service');
    const [, update, end] = pushesTo(web.subscription);
    expect(end!.topic).not.toBe(update!.topic);
    // The browser comes back two hours later: the end is still held; the update's TTL ran out at the 8 hours.
    h.clock.advance(2 * 3600_000);
    h.webPush.setOnline(web.subscription.id, true);
    const received = h.webPush.received(web.subscription.id).map((message) => shown(message).data.event);
    expect(received).toEqual(['start', 'end']);
  });

  it("a caller's end a minute before the 8 hours outlives an offline browser too", async () => {
    const account = await h.newAccount({ channels: ['rides'] });
    const web = await browser(account, 'rides');
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'rides',
        template: 'progress',
        fields: { title: 'Ride', progress: 0.1 },
      })
    ).body.data.id as string;
    await h.settle();
    h.webPush.setOnline(web.subscription.id, false);
    h.clock.advance(EIGHT_HOURS - 2 * 60_000);
    expect(
      (await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { progress: 0.9 } }))
        .statusCode,
    ).toBe(200);
    await h.settle();
    h.clock.advance(60_000);
    expect(
      (await post(h.app, `/api/v1/live-activities/${id}/end`, account.secretKey, { fields: { progress: 1 } }))
        .statusCode,
    ).toBe(200);
    await h.settle();
    const end = pushesTo(web.subscription).at(-1)!;
    expect(shown(end).data.event).toBe('end');
    expect(end.ttl).toBeGreaterThanOrEqual(12 * 3600);
    h.clock.advance(3 * 3600_000);
    h.webPush.setOnline(web.subscription.id, true);
    expect(h.webPush.received(web.subscription.id).map((message) => shown(message).data.event)).toEqual([
      'start',
      'end',
    ]);
  });
});
