import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/load-config.ts';
import { startWorkerThread, type WorkerThread } from '../../../src/worker-thread.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { androidToken, fakeProviderConfig, startFakeProviders, type FakeProviders } from './delivery-harness.ts';

// `clarion serve` with both roles runs the delivery worker on a thread of its own (src/worker-thread.ts): its own
// database connection and provider clients, woken by the API's enqueues across the thread boundary.
let t: TestApp;
let fakes: FakeProviders;
let thread: WorkerThread | null = null;
beforeAll(async () => {
  t = await startTestApp({}, { isolatedDatabase: true });
  fakes = await startFakeProviders();
});
afterAll(async () => {
  await thread?.stop(1_000);
  await Promise.all([fakes.apns.close(), fakes.fcm.close()]);
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
    };
    thread = await startWorkerThread(config);
    const unsubscribe = t.queue.onWake(() => thread!.wake());
    const account = await t.newAccount({ channels: ['news'] });
    const token = androidToken(7);
    expect((await post(t.app, '/api/v1/subscribers', account.publishableKey, { channelCode: 'news', platform: 'android', token })).statusCode).toBe(201);

    const sent = await post(t.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hello from the main thread' });
    expect(sent.statusCode).toBe(201);
    await waitFor(() => fakes.fcm.requests.some((request) => request.target?.value === token), 15_000, 'the push to reach fake FCM');
    await waitFor(
      async () => (await t.store.db.selectFrom('notifications').select('status').where('id', '=', sent.body.data.id).executeTakeFirstOrThrow()).status === 'sent',
      15_000,
      'the notification to be sent',
    );

    unsubscribe();
    await thread.stop(1_000);
    thread = null;
  });
});
