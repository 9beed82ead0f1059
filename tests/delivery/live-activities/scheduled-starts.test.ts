import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliveryWorker } from '../../../src/worker.ts';
import { listEvents } from '../../../src/store/events-queries.ts';
import type { FakeSubscription } from '../../../tools/fakes/index.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import type { TestAccount } from '../../harness/test-app.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * Scheduled starts (docs/live-activities.md, "Scheduled starts"), driven by the harness's clock: nothing is pushed
 * before sendAt; then the activity starts as an immediate one does, on every platform, and its 8 hours,
 * staleAfterSeconds and endAfterSecondsWithoutUpdate count from that moment. A cancel before it leaves nothing pushed.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => {
  // The restart test replaces the harness's worker: stop the current one too.
  await h?.worker.stop(1_000);
  await h?.close();
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function browser(account: TestAccount, channelCode: string): Promise<FakeSubscription> {
  const subscription = h.webPush.subscribe({ applicationServerKey: h.vapidKeys.publicKey });
  const response = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
    channelCode,
    platform: 'web',
    token: subscription.json,
  });
  expect(response.statusCode).toBe(201);
  return subscription;
}

const webPushesTo = (subscription: FakeSubscription) =>
  h.webPush.messages.filter((message) => message.subscriptionId === subscription.id);

/** The events Android accepted (a request the fake refused, e.g. for an access token the clock jump expired, is retried). */
const androidEvents = (token: string) =>
  h
    .fcmPushes(token)
    .filter((request) => request.status === 200)
    .map((request) => (request.message as any).data.event as string);

const view = async (account: TestAccount, id: string) =>
  (await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data;

const startedEvents = async (accountId: string) =>
  (await listEvents(h.store.db, accountId)).filter((event) => event.type === 'live_activity.started');

/** Moves the clock to `at`, lets the worker run what is due by then, and waits until nothing due is left. */
async function advanceTo(at: number): Promise<void> {
  h.clock.set(at);
  h.worker.pool.wake();
  await h.settle();
}

describe('scheduled Live Activity starts', () => {
  it('pushes nothing before sendAt, then starts on iOS, Android and the web as an immediate start does', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    const ios = await h.iosDevice(account, 'match');
    const android = await h.androidDevice(account, 'match');
    const web = await browser(account, 'match');
    const acceptedAt = h.clock.now();
    const sendAt = acceptedAt + HOUR;
    const accepted = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields: { title: 'Final', home: { name: 'Ajax', score: 0 }, away: { name: 'PSV', score: 0 } },
      alert: { title: 'Kick-off' },
      sendAt: new Date(sendAt).toISOString(),
    });
    expect(accepted.statusCode).toBe(201);
    const id = accepted.body.data.id as string;
    expect(accepted.body.data).toMatchObject({
      status: 'scheduled',
      sendAt: new Date(sendAt).toISOString(),
      startedAt: null,
      createdAt: new Date(acceptedAt).toISOString(),
      recipientCount: 0,
      lastEvent: null,
    });
    // Charged when accepted, as a scheduled notification is.
    expect((await get(h.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(1);

    await advanceTo(sendAt - 1);
    expect(h.apnsPushes(ios.pushToStartToken!)).toEqual([]);
    expect(h.fcmPushes(android.token)).toEqual([]);
    expect(webPushesTo(web)).toEqual([]);
    expect(await startedEvents(account.id)).toEqual([]);
    expect((await view(account, id)).status).toBe('scheduled');

    await advanceTo(sendAt);
    const device = await h.deviceActivity(ios, id);
    expect(device.attributes.activityId).toBe(id);
    expect(h.apnsPushes(ios.pushToStartToken!)).toHaveLength(1);
    expect(androidEvents(android.token)).toEqual(['start']);
    await waitFor(() => webPushesTo(web).length === 1, 10_000, 'the web start');
    await h.settle();
    expect(await view(account, id)).toMatchObject({
      status: 'active',
      sendAt: new Date(sendAt).toISOString(),
      startedAt: new Date(sendAt).toISOString(),
      recipientCount: 3,
      lastEvent: { event: 'start', status: 'done', delivered: 3 },
    });
    const started = await startedEvents(account.id);
    expect(started.map((event) => event.data)).toMatchObject([
      { liveActivityId: id, alert: { title: 'Kick-off' }, recipientCount: 3 },
    ]);
    expect((await get(h.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(1);
  });

  it('counts the 8 hours and staleAfterSeconds from the start, not the request', async () => {
    const account = await h.newAccount({ channels: ['builds'] });
    const android = await h.androidDevice(account, 'builds');
    const acceptedAt = h.clock.now();
    const sendAt = acceptedAt + 2 * HOUR;
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'builds',
        template: 'progress',
        fields: { title: 'Nightly', progress: 0 },
        staleAfterSeconds: 600,
        sendAt: new Date(sendAt).toISOString(),
      })
    ).body.data.id as string;
    expect((await view(account, id)).staleAt).toBe(new Date(sendAt + 10 * MINUTE).toISOString());

    await advanceTo(sendAt);
    expect((await view(account, id)).status).toBe('active');
    // Eight hours after the request it still runs: they count from its start.
    await advanceTo(acceptedAt + 8 * HOUR);
    expect((await view(account, id)).status).toBe('active');
    expect(
      (
        await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
          fields: { progress: 0.5 },
        })
      ).statusCode,
    ).toBe(200);
    await advanceTo(sendAt + 8 * HOUR - 1);
    expect((await view(account, id)).status).toBe('active');
    await advanceTo(sendAt + 8 * HOUR);
    await waitFor(async () => (await view(account, id)).status === 'ended', 10_000, 'the 8-hour end');
    expect((await view(account, id)).endedAt).toBe(new Date(sendAt + 8 * HOUR).toISOString());
    const events = (await listEvents(h.store.db, account.id)).filter((event) => event.type === 'live_activity.ended');
    expect(events.map((event) => (event.data as { reason: string }).reason)).toEqual(['expired']);
    expect(androidEvents(android.token)).toEqual(['start', 'update', 'end']);
  });

  it('ends for inactivity counted from the start', async () => {
    const account = await h.newAccount({ channels: ['deploys'] });
    const android = await h.androidDevice(account, 'deploys');
    const sendAt = h.clock.now() + HOUR;
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'deploys',
        template: 'steps',
        fields: { title: 'Deploy 7', currentStep: 1, totalSteps: 3 },
        endAfterSecondsWithoutUpdate: 600,
        endStatus: 'No word from the deploy',
        sendAt: new Date(sendAt).toISOString(),
      })
    ).body.data.id as string;
    await advanceTo(sendAt);
    await advanceTo(sendAt + 10 * MINUTE - 1);
    expect((await view(account, id)).status).toBe('active');
    await advanceTo(sendAt + 10 * MINUTE);
    expect(await view(account, id)).toMatchObject({
      status: 'ended',
      endedAt: new Date(sendAt + 10 * MINUTE).toISOString(),
      fields: { status: 'No word from the deploy' },
    });
    expect(androidEvents(android.token)).toEqual(['start', 'end']);
  });

  it('starts with what updates before sendAt changed, which pushed and charged nothing', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const android = await h.androidDevice(account, 'orders');
    const sendAt = h.clock.now() + HOUR;
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'orders',
        template: 'progress',
        fields: { title: 'Order #42', progress: 0, status: 'Received' },
        sendAt: new Date(sendAt).toISOString(),
      })
    ).body.data.id as string;
    const updated = await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
      fields: { status: 'Packing' },
      alert: { title: 'Your order is being packed' },
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.body.data).toMatchObject({
      status: 'scheduled',
      fields: { title: 'Order #42', progress: 0, status: 'Packing' },
      alert: { title: 'Your order is being packed' },
    });
    await advanceTo(sendAt - 1);
    expect(h.fcmPushes(android.token)).toEqual([]);
    expect((await get(h.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(1);

    await advanceTo(sendAt);
    const [start] = h.fcmPushes(android.token).map((request) => (request.message as any).data);
    expect(start.event).toBe('start');
    expect(JSON.parse(start.fields)).toEqual({ title: 'Order #42', progress: 0, status: 'Packing' });
    expect(JSON.parse(start.alert)).toMatchObject({ title: 'Your order is being packed' });
  });

  it('pushes nothing ever for an activity canceled before its start, and refunds its quota unit', async () => {
    const account = await h.newAccount({ channels: ['trains'] });
    const ios = await h.iosDevice(account, 'trains');
    const android = await h.androidDevice(account, 'trains');
    const sendAt = h.clock.now() + HOUR;
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'trains',
        template: 'timer',
        fields: { title: 'IC 512', durationSeconds: 1800 },
        sendAt: new Date(sendAt).toISOString(),
      })
    ).body.data.id as string;
    // A timer's duration counts from the start too.
    expect((await view(account, id)).fields.endsAt).toBe(new Date(sendAt + 30 * MINUTE).toISOString());
    const canceled = await post(h.app, `/api/v1/live-activities/${id}/cancel`, account.secretKey);
    expect(canceled.statusCode).toBe(200);
    expect(canceled.body.data).toMatchObject({ status: 'canceled', startedAt: null });
    expect((await get(h.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(0);

    await advanceTo(sendAt + HOUR);
    expect(h.apnsPushes(ios.pushToStartToken!)).toEqual([]);
    expect(h.fcmPushes(android.token)).toEqual([]);
    expect(await startedEvents(account.id)).toEqual([]);
    expect((await view(account, id)).status).toBe('canceled');
    const jobs = await h.store.db
      .selectFrom('jobs')
      .select('kind')
      .where('unique_key', 'like', `live_activity.%${id}%`)
      .execute();
    expect(jobs).toEqual([]);
  });

  it('answers 409 to a cancel once the activity started, and to an end before it starts', async () => {
    const account = await h.newAccount({ channels: ['races'] });
    await h.androidDevice(account, 'races');
    const sendAt = h.clock.now() + HOUR;
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'races',
        template: 'progress',
        fields: { title: 'Marathon', progress: 0 },
        sendAt: new Date(sendAt).toISOString(),
      })
    ).body.data.id as string;
    const end = expectError(
      await post(h.app, `/api/v1/live-activities/${id}/end`, account.secretKey, {}),
      'activity_not_started',
    );
    expect(end.message).toContain(`/api/v1/live-activities/${id}/cancel`);
    await advanceTo(sendAt);
    const refused = expectError(
      await post(h.app, `/api/v1/live-activities/${id}/cancel`, account.secretKey),
      'not_cancelable',
    );
    expect(refused.details).toEqual({ status: 'active' });
    expect((await view(account, id)).status).toBe('active');
  });

  it('leaves exactly one outcome when cancels race the start jobs: canceled with nothing pushed, or started and 409', async () => {
    const account = await h.newAccount({ channels: ['race'] });
    const android = await h.androidDevice(account, 'race');
    const sendAt = h.clock.now() + HOUR;
    const ids: string[] = [];
    for (let n = 0; n < 6; n += 1)
      ids.push(
        (
          await post(h.app, '/api/v1/live-activities', account.secretKey, {
            channelCode: 'race',
            template: 'progress',
            fields: { title: `Heat ${n}`, progress: 0 },
            sendAt: new Date(sendAt).toISOString(),
          })
        ).body.data.id as string,
      );
    h.clock.set(sendAt);
    h.worker.pool.wake();
    const answers = await Promise.all(
      ids.map((id) => post(h.app, `/api/v1/live-activities/${id}/cancel`, account.secretKey)),
    );
    await h.settle();
    const starts = h
      .fcmPushes(android.token)
      .filter((request) => request.status === 200)
      .map((request) => (request.message as any).data.activityId as string);
    for (const [n, id] of ids.entries()) {
      const status = (await view(account, id)).status;
      if (answers[n]!.statusCode === 200) {
        expect(status).toBe('canceled');
        expect(starts.filter((started) => started === id)).toEqual([]);
      } else {
        expect(answers[n]!.body.error.code).toBe('not_cancelable');
        expect(status).toBe('active');
        expect(starts.filter((started) => started === id)).toEqual([id]);
      }
    }
    const used = (await get(h.app, '/api/v1/usage', account.secretKey)).body.data.used;
    expect(used).toBe(answers.filter((answer) => answer.statusCode === 409).length);
  });

  it('loses nothing to a restart between the acceptance and sendAt', async () => {
    const account = await h.newAccount({ channels: ['restart'] });
    const android = await h.androidDevice(account, 'restart');
    await h.worker.stop(1_000);
    const sendAt = h.clock.now() + HOUR;
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'restart',
        template: 'progress',
        fields: { title: 'Upload', progress: 0 },
        sendAt: new Date(sendAt).toISOString(),
      })
    ).body.data.id as string;
    h.clock.set(sendAt + MINUTE);
    h.worker = await startDeliveryWorker({
      store: h.store,
      queue: h.queue,
      clock: h.clock,
      config: h.config,
      logger: pino({ level: 'silent' }),
      providers: h.providers,
      secretKey: h.secretKey,
    });
    await waitFor(() => h.fcmPushes(android.token).length === 1, 10_000, 'the start after the restart');
    await h.settle();
    // It started when the worker came back: its 8 hours count from then.
    expect((await view(account, id)).startedAt).toBe(new Date(sendAt + MINUTE).toISOString());
  });
});
