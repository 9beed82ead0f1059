import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/load-config.ts';
import { generateVapidKeyPair, type VapidKeys } from '../../../src/delivery/web-push/vapid-keys.ts';
import { startWorkerThread, type WorkerThread } from '../../../src/worker-thread.ts';
import { startFakeWebPush, type FakeWebPush } from '../../../tools/fakes/index.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { androidToken, fakeProviderConfig, startFakeProviders, type FakeProviders } from './delivery-harness.ts';

// `clarion serve` with both roles runs the delivery worker on a thread of its own (src/worker-thread.ts): its own
// database connection and provider clients, woken by the API's enqueues across the thread boundary.
let t: TestApp;
let fakes: FakeProviders;
let webPush: FakeWebPush;
let thread: WorkerThread | null = null;
beforeAll(async () => {
  // Loopback push endpoints: the fake push service listens on 127.0.0.1.
  t = await startTestApp({ allowPrivateAddresses: true }, { isolatedDatabase: true });
  fakes = await startFakeProviders();
  webPush = await startFakeWebPush();
});
afterAll(async () => {
  await thread?.stop(1_000);
  await Promise.all([fakes.close(), webPush.close()]);
  await t.close();
});

describe('the delivery worker on its own thread', () => {
  it('delivers what the API in the main thread accepts, woken at once, and stops when asked', async () => {
    const config: Config = {
      ...t.config,
      databaseUrl: t.databaseUrl,
      ...fakeProviderConfig(fakes.providerEnv),
      // Only a wake-up can find the job within the test's time: the thread would otherwise look once an hour.
      queuePollInterval: 3_600_000,
      logLevel: 'silent',
    };
    // The VAPID keys cross to the thread with the config (src/server.ts loads them once, in the main thread).
    const vapidKeys: VapidKeys = { ...generateVapidKeyPair(), subject: 'mailto:ops@example.com', source: 'generated' };
    thread = await startWorkerThread(config, vapidKeys);
    const unsubscribe = t.queue.onWake(() => thread!.wake());
    const account = await t.newAccount({ channels: ['news'] });
    const token = androidToken(7);
    expect(
      (
        await post(t.app, '/api/v1/subscribers', account.publishableKey, {
          channelCode: 'news',
          platform: 'android',
          token,
        })
      ).statusCode,
    ).toBe(201);
    const browser = webPush.subscribe({ applicationServerKey: vapidKeys.publicKey });
    expect(
      (
        await post(t.app, '/api/v1/subscribers', account.publishableKey, {
          channelCode: 'news',
          platform: 'web',
          token: browser.json,
        })
      ).statusCode,
    ).toBe(201);

    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Hello from the main thread',
    });
    expect(sent.statusCode).toBe(201);
    await waitFor(
      () => fakes.fcm.requests.some((request) => request.target?.value === token),
      15_000,
      'the push to reach fake FCM',
    );
    await waitFor(
      () => webPush.messages.some((message) => message.subscriptionId === browser.id),
      15_000,
      'the push to reach the fake push service',
    );
    const [message] = webPush.messages.filter((entry) => entry.subscriptionId === browser.id);
    expect(message).toMatchObject({
      status: 201,
      decryptError: null,
      message: { web_push: 8030, notification: { title: 'Hello from the main thread' } },
    });
    await waitFor(
      async () =>
        (
          await t.store.db
            .selectFrom('notifications')
            .select('status')
            .where('id', '=', sent.body.data.id)
            .executeTakeFirstOrThrow()
        ).status === 'sent',
      15_000,
      'the notification to be sent',
    );

    unsubscribe();
    await thread.stop(1_000);
    thread = null;
  });
});
