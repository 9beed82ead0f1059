import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_PUSH_DEADLINE_MS } from '../../../src/delivery/web-push/web-push-client.ts';
import { startFakeWebPush, type FakeWebPush } from '../../../tools/fakes/index.ts';
import { post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  androidToken,
  finalNotification,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/**
 * A web subscriber's endpoint is any https URL a page registers with the publishable key that every join page embeds,
 * so its server may answer at once and then drip its body a byte every second. Such a push is given up at its total
 * deadline (WEB_PUSH_DEADLINE_MS), and while it waits, its send job holds no worker slot that another platform's
 * notification needs: with the default worker (two jobs at once) and two such subscribers, an unrelated Android
 * notification still goes out before they are given up.
 */
let h: DeliveryHarness;
let slow: FakeWebPush;
beforeAll(async () => {
  h = await startDeliveryHarness();
  // Another origin than the well-behaved push service's: the endpoint an attacker registered, over HTTP/1.1, where an
  // answer's status counts once it has come (over HTTP/2 the pool gives the push up whole: web-push-client.test.ts).
  slow = await startFakeWebPush({ clock: h.clock, http2: false });
});
afterAll(async () => {
  await slow?.close();
  await h?.close();
});

describe('a Web Push endpoint that drips its answer', () => {
  it('is given up at the total deadline, and holds up no Android notification meanwhile', async () => {
    expect(h.config.workerConcurrency).toBe(2);
    const account = await h.newAccount({ channels: ['first', 'second', 'alerts'] });
    // Two channels with one dripping subscriber each: two web send jobs, as many as the worker runs at once.
    for (const channelCode of ['first', 'second']) {
      const subscription = slow.subscribe({ applicationServerKey: h.vapidKeys.publicKey });
      slow.setSubscriptionOutcome(subscription.id, { status: 201, dripBodyMs: 1_000 });
      await registerSubscriber(h, account.publishableKey, channelCode, 'web', subscription.json);
    }
    const android = androidToken(90_001);
    await registerSubscriber(h, account.publishableKey, 'alerts', 'android', android);

    const webSends: string[] = [];
    for (const channelCode of ['first', 'second']) {
      const sent = await post(h.app, '/api/v1/notifications', account.secretKey, {
        channelCode,
        title: 'Slow',
        body: 'A dripping endpoint',
      });
      expect(sent.statusCode).toBe(201);
      webSends.push(sent.body.data.id as string);
    }
    const dripStarted = performance.now();
    await waitFor(() => slow.messages.length === 2, 10_000, 'both dripping endpoints to be answering');

    const alert = await post(h.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'alerts',
      title: 'Unrelated',
      body: 'An Android alert',
    });
    expect(alert.statusCode).toBe(201);
    await waitFor(
      () => h.fcm.requests.some((request) => request.status === 200 && request.target?.value === android),
      WEB_PUSH_DEADLINE_MS,
      'the Android alert to reach FCM',
    );
    // It went out while both web pushes were still waiting on their dripping answers.
    const webJobs = await h.store.db
      .selectFrom('jobs')
      .select(['state', 'payload'])
      .where('kind', '=', 'notification.send')
      .where('lane', '=', 'web')
      .execute();
    expect(
      webJobs.filter((job) => webSends.includes(JSON.parse(job.payload).notificationId)).map((job) => job.state),
    ).toEqual(['running', 'running']);
    expect((await finalNotification(h, account.secretKey, alert.body.data.id)).stats).toMatchObject({
      delivered: 1,
      pending: 0,
    });

    // Each dripping push is given up at its deadline; the status it answered at once counts (201: delivered).
    for (const id of webSends) {
      const final = await finalNotification(h, account.secretKey, id);
      expect(final).toMatchObject({ status: 'sent', stats: { delivered: 1, failed: 0, pending: 0 } });
    }
    // Within the deadline, and the time for their jobs to settle, of the drips' start (a bound, not a speed test).
    expect(performance.now() - dripStarted).toBeLessThanOrEqual(WEB_PUSH_DEADLINE_MS + 5_000);
  });
});
