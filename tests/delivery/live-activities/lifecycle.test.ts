import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { APNS_TOPIC } from '../engine/delivery-harness.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * Start → update → end through the HTTP API against the fake APNs and FCM: the exact headers and `aps` dictionary of
 * every event, increasing timestamps, merged fields, the update token a device reports, and the Android messages.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const seconds = (ms: number) => Math.floor(ms / 1000);
const liveActivityHeaders = (priority: '5' | '10', createdAt: number) => ({
  'apns-push-type': 'liveactivity',
  'apns-topic': `${APNS_TOPIC}.push-type.liveactivity`,
  'apns-priority': priority,
  'apns-expiration': String(seconds(createdAt + 8 * 3600 * 1000)),
});

describe('a Live Activity from start to end', () => {
  it('starts by push-to-start, updates and ends through the reported token, and mirrors every event on Android', async () => {
    const account = await h.newAccount({ channels: ['match'] });
    const ios = await h.iosDevice(account, 'match');
    const iosWithoutPushToStart = await h.iosDevice(account, 'match', { pushToStartToken: false });
    const android = await h.androidDevice(account, 'match');
    const createdAt = h.clock.now();
    const staleAt = createdAt + 30 * 60 * 1000;
    const fields = {
      title: 'Ajax – PSV',
      home: { name: 'Ajax', score: 0 },
      away: { name: 'PSV', score: 0 },
      period: '1st half',
    };

    // Start.
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'match',
      template: 'score',
      fields,
      staleAt: new Date(staleAt).toISOString(),
      relevanceScore: 50,
    });
    expect(started.statusCode).toBe(201);
    const id = started.body.data.id as string;
    expect(started.body.data).toMatchObject({
      recipientCount: 2,
      alert: { title: 'Ajax – PSV', body: 'Ajax 0 – 0 PSV (1st half)' },
    });
    const t0 = seconds(createdAt);
    await h.settle();

    const [start] = h.apnsPushes(ios.pushToStartToken!);
    expect(start).toBeDefined();
    expect(start!.status).toBe(200);
    expect(start!.headers).toMatchObject(liveActivityHeaders('10', createdAt));
    expect(start!.payload).toEqual({
      aps: {
        timestamp: t0,
        event: 'start',
        // The device's receipt rides in the content state, which is all ActivityKit hands the app.
        'content-state': { ...fields, clarionReceipt: expect.stringMatching(/^a/) },
        'attributes-type': 'ClarionScoreAttributes',
        attributes: { activityId: id },
        alert: { title: 'Ajax – PSV', body: 'Ajax 0 – 0 PSV (1st half)' },
        'input-push-token': 1,
        'stale-date': seconds(staleAt),
        'relevance-score': 50,
      },
    });
    expect(h.apnsPushes(iosWithoutPushToStart.token)).toEqual([]);
    expect(h.apnsPushes(ios.token)).toEqual([]);
    const [androidStart] = h.fcmPushes(android.token);
    expect(androidStart!.status).toBe(200);
    expect(androidStart!.message).toEqual({
      token: android.token,
      data: {
        clarion: 'live_activity',
        event: 'start',
        activityId: id,
        template: 'score',
        fields: JSON.stringify(fields),
        timestamp: String(createdAt),
        alert: JSON.stringify({ title: 'Ajax – PSV', body: 'Ajax 0 – 0 PSV (1st half)' }),
        staleAt: new Date(staleAt).toISOString(),
        clarionReceipt: expect.stringMatching(/^a/),
      },
      android: { priority: 'HIGH', ttl: `${8 * 3600}s` },
    });

    // The device got an update token and reported it, as the app would.
    const device = await h.deviceActivity(ios, id);
    expect(device).toMatchObject({ attributesType: 'ClarionScoreAttributes', state: 'active', contentState: fields });
    expect(h.reporter.reports.filter((report) => report.liveActivityId === id)).toEqual([
      { liveActivityId: id, subscriberId: ios.subscriberId, token: device.updateToken, status: 201 },
    ]);

    // A silent update (priority 5), in the same millisecond: the event's timestamp still moves on (APNs gets the same
    // second, which iOS applies), and the fields merge.
    const silent = await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
      fields: { home: { score: 1 } },
    });
    expect(silent.statusCode).toBe(200);
    const afterGoal = { ...fields, home: { name: 'Ajax', score: 1 } };
    expect(silent.body.data.fields).toEqual(afterGoal);
    await h.settle();
    const [update1] = h.apnsPushes(device.updateToken);
    expect(update1!.headers).toMatchObject(liveActivityHeaders('5', createdAt));
    expect(update1!.payload).toEqual({
      aps: { timestamp: t0, event: 'update', 'content-state': afterGoal, 'relevance-score': 50 },
    });

    // An alerting update, 90 seconds later (priority 10).
    h.clock.advance(90_000);
    const alerting = await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, {
      fields: { away: { score: 1 }, period: '2nd half' },
      alert: { title: 'Goal!', body: 'PSV equalise' },
    });
    expect(alerting.statusCode).toBe(200);
    const equaliser = { ...afterGoal, away: { name: 'PSV', score: 1 }, period: '2nd half' };
    await h.settle();
    const update2 = h.apnsPushes(device.updateToken)[1];
    expect(update2!.headers).toMatchObject(liveActivityHeaders('10', createdAt));
    expect(update2!.payload).toEqual({
      aps: {
        timestamp: seconds(h.clock.now()),
        event: 'update',
        // An alerting update carries the receipt too; silent ones (above) and this end (below) do not.
        'content-state': { ...equaliser, clarionReceipt: expect.stringMatching(/^a/) },
        alert: { title: 'Goal!', body: 'PSV equalise' },
        'relevance-score': 50,
      },
    });

    // The end, with final fields and a dismissal date.
    const dismissAt = h.clock.now() + 15 * 60 * 1000;
    const ended = await post(h.app, `/api/v1/live-activities/${id}/end`, account.secretKey, {
      fields: { period: 'Full time', status: 'Draw' },
      dismissAt: new Date(dismissAt).toISOString(),
    });
    expect(ended.statusCode).toBe(200);
    expect(ended.body.data).toMatchObject({
      status: 'ended',
      endedAt: new Date(h.clock.now()).toISOString(),
      dismissAt: new Date(dismissAt).toISOString(),
    });
    const final = { ...equaliser, period: 'Full time', status: 'Draw' };
    await h.settle();
    const end = h.apnsPushes(device.updateToken)[2];
    expect(end!.headers).toMatchObject(liveActivityHeaders('10', createdAt));
    expect(end!.payload).toEqual({
      aps: {
        timestamp: seconds(h.clock.now()),
        event: 'end',
        'content-state': final,
        'dismissal-date': seconds(dismissAt),
        'relevance-score': 50,
      },
    });

    // APNs timestamps never decrease and stay at the clock's second, and the device applied every event.
    const timestamps = [start, update1, update2, end].map(
      (request) => (request!.payload as { aps: { timestamp: number } }).aps.timestamp,
    );
    expect(timestamps).toEqual([t0, t0, seconds(h.clock.now()), seconds(h.clock.now())]);
    expect(device.events.map((event) => [event.event, event.applied])).toEqual([
      ['start', true],
      ['update', true],
      ['update', true],
      ['end', true],
    ]);
    expect(device).toMatchObject({ state: 'ended', contentState: final, dismissalDate: seconds(dismissAt) });

    // Android saw the same four events, in order, with strictly increasing timestamps in milliseconds.
    const androidMessages = h
      .fcmPushes(android.token)
      .map((request) => (request.message as { data: Record<string, string> }).data);
    expect(androidMessages.map((data) => [data.event, Number(data.timestamp), JSON.parse(data.fields!)])).toEqual([
      ['start', createdAt, fields],
      ['update', createdAt + 1, afterGoal],
      ['update', h.clock.now(), equaliser],
      ['end', h.clock.now() + 1, final],
    ]);
    expect(androidMessages[2]!.alert).toBe(JSON.stringify({ title: 'Goal!', body: 'PSV equalise' }));
    expect(androidMessages[3]).toMatchObject({ dismissAt: new Date(dismissAt).toISOString() });
    expect(androidMessages[3]!.staleAt).toBeUndefined();

    // One event per change, one quota unit per start, update and end.
    const events = (await listEvents(h.store.db, account.id)).filter((event) =>
      event.type.startsWith('live_activity.'),
    );
    expect(events.map((event) => event.type)).toEqual([
      'live_activity.started',
      'live_activity.updated',
      'live_activity.updated',
      'live_activity.ended',
    ]);
    expect(events[3]!.data).toMatchObject({ liveActivityId: id, reason: 'requested', fields: final });
    expect((await get(h.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(4);

    // The ended activity's token now answers 410, like APNs does once the activity has ended.
    expect(h.apns.liveActivities.isGone(device.updateToken)).toBe(true);
  });

  it('sends a start to every iOS device with a push-to-start token, and updates only to those that reported a token', async () => {
    const account = await h.newAccount({ channels: ['orders'] });
    const devices = [
      await h.iosDevice(account, 'orders'),
      await h.iosDevice(account, 'orders'),
      await h.iosDevice(account, 'orders'),
    ];
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'orders',
      template: 'progress',
      fields: { title: 'Order #7', progress: 0.1 },
    });
    const id = started.body.data.id as string;
    await h.settle();
    const activities = await Promise.all(devices.map((device) => h.deviceActivity(device, id)));
    for (const device of devices) {
      expect(h.apnsPushes(device.pushToStartToken!)[0]!.payload).toMatchObject({
        aps: { event: 'start', alert: { title: 'Order #7', body: '10 %' } },
      });
    }
    await waitFor(
      () => h.reporter.reports.filter((report) => report.liveActivityId === id).length === 3,
      10_000,
      'three token reports',
    );

    // One device forgets to report (its token row removed as if it never had): it gets no update.
    await h.store.db
      .deleteFrom('live_activity_tokens')
      .where('live_activity_id', '=', id)
      .where('subscriber_id', '=', devices[2]!.subscriberId)
      .execute();
    await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { progress: 0.5 } });
    await h.settle();
    expect(h.apnsPushes(activities[0]!.updateToken)).toHaveLength(1);
    expect(h.apnsPushes(activities[1]!.updateToken)).toHaveLength(1);
    expect(h.apnsPushes(activities[2]!.updateToken)).toHaveLength(0);
    // Nothing but the start ever goes to a push-to-start token.
    for (const device of devices) expect(h.apnsPushes(device.pushToStartToken!)).toHaveLength(1);
  });

  it('uses the newest token after the device rotates it, and the old one is never used again', async () => {
    const account = await h.newAccount({ channels: ['rides'] });
    const ios = await h.iosDevice(account, 'rides');
    const started = await post(h.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'rides',
      template: 'steps',
      fields: { title: 'Your ride', currentStep: 1, totalSteps: 3 },
    });
    const id = started.body.data.id as string;
    await h.settle();
    const device = await h.deviceActivity(ios, id);
    const firstToken = device.updateToken;
    await waitFor(
      () => h.reporter.reports.some((report) => report.token === firstToken),
      10_000,
      'the first token report',
    );

    h.apns.liveActivities.rotateUpdateToken(firstToken);
    await waitFor(
      () => h.reporter.reports.some((report) => report.token === device.updateToken),
      10_000,
      'the rotated token report',
    );
    expect(h.reporter.reports.filter((report) => report.liveActivityId === id).map((report) => report.status)).toEqual([
      201, 200,
    ]);
    const stored = await h.store.db
      .selectFrom('live_activity_tokens')
      .selectAll()
      .where('live_activity_id', '=', id)
      .execute();
    expect(stored.map((row) => [row.subscriber_id, row.token])).toEqual([[ios.subscriberId, device.updateToken]]);

    await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { currentStep: 2 } });
    await h.settle();
    expect(h.apnsPushes(firstToken)).toEqual([]);
    expect(
      h
        .apnsPushes(device.updateToken)
        .map((request) => [request.status, (request.payload as any).aps['content-state'].currentStep]),
    ).toEqual([[200, 2]]);
  });
});
