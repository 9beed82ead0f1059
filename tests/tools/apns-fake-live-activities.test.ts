import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { reportLiveActivityTokens } from '../../tools/fakes/index.ts';
import { BUNDLE, apnsFixture } from './apns-fixture.ts';
import { closeAfterTest } from './h2-test-client.ts';

const PUSH_TO_START = 'c3'.repeat(40);
const liveActivity = {
  'apns-push-type': 'liveactivity',
  'apns-topic': `${BUNDLE}.push-type.liveactivity`,
  'apns-priority': '10',
};
const start = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    aps: {
      timestamp: 1000,
      event: 'start',
      'content-state': { progress: 0.1 },
      'attributes-type': 'ClarionProgressAttributes',
      attributes: { activityId: 'lva_1' },
      alert: { title: 'Started' },
      'input-push-token': 1,
      ...extra,
    },
  });
const event = (name: string, timestamp: number, state: unknown = { progress: 0.5 }) =>
  JSON.stringify({ aps: { timestamp, event: name, 'content-state': state } });

describe('fake APNs: Live Activities', () => {
  it('starts an activity from a push-to-start, mints an update token, and applies newer updates only', async () => {
    const { push, apns } = await apnsFixture();
    const minted: string[] = [];
    apns.liveActivities.onUpdateToken((activity) => minted.push(activity.updateToken));
    expect((await push(PUSH_TO_START, liveActivity, start())).status).toBe(200);
    const [activity] = apns.liveActivities.activities;
    expect(activity).toMatchObject({
      pushToStartToken: PUSH_TO_START,
      attributesType: 'ClarionProgressAttributes',
      attributes: { activityId: 'lva_1' },
      state: 'active',
      timestamp: 1000,
    });
    expect(activity!.updateToken).toMatch(/^[0-9a-f]{160}$/);
    expect(minted).toEqual([activity!.updateToken]);

    expect(
      (await push(activity!.updateToken, { ...liveActivity, 'apns-priority': '5' }, event('update', 1001))).status,
    ).toBe(200);
    // APNs accepts an older update; the device ignores it.
    expect((await push(activity!.updateToken, liveActivity, event('update', 999, { progress: 0.2 }))).status).toBe(200);
    expect(activity!.contentState).toEqual({ progress: 0.5 });
    expect(activity!.events.map((item) => [item.event, item.timestamp, item.applied])).toEqual([
      ['start', 1000, true],
      ['update', 1001, true],
      ['update', 999, false],
    ]);
  });

  it("keeps each content's own stale date and relevance (none and 0 without them), and drops one it cannot decode", async () => {
    const { push, apns } = await apnsFixture();
    expect((await push(PUSH_TO_START, liveActivity, start({ 'stale-date': 5000, 'relevance-score': 80 }))).status).toBe(
      200,
    );
    const [activity] = apns.liveActivities.activities;
    expect(activity).toMatchObject({ staleDate: 5000, relevanceScore: 80 });
    const update = (timestamp: number, extra: Record<string, unknown>) =>
      JSON.stringify({ aps: { timestamp, event: 'update', 'content-state': { progress: 0.5 }, ...extra } });
    await push(activity!.updateToken, liveActivity, update(1001, {}));
    expect(activity).toMatchObject({ staleDate: null, relevanceScore: 0 });
    await push(activity!.updateToken, liveActivity, update(1002, { 'stale-date': '5000', 'relevance-score': 10 }));
    await push(activity!.updateToken, liveActivity, update(1003, { 'relevance-score': 'high' }));
    expect(activity!.events.map((item) => item.applied)).toEqual([true, true, false, false]);
    expect(activity).toMatchObject({ staleDate: null, relevanceScore: 0, timestamp: 1001 });
    // A start it cannot decode starts nothing.
    await push('d4'.repeat(40), liveActivity, start({ 'relevance-score': '80' }));
    expect(apns.liveActivities.refusedStarts.map((refused) => refused.problem)).toEqual([
      'aps.relevance-score must be a number',
    ]);
  });

  it('applies an update as new as the last one, and drops one more than 8 hours ahead of the device clock', async () => {
    const { push, apns } = await apnsFixture();
    const now = Math.floor(Date.now() / 1000);
    await push(PUSH_TO_START, liveActivity, start({ timestamp: now }));
    const [activity] = apns.liveActivities.activities;
    await push(activity!.updateToken, liveActivity, event('update', now, { progress: 0.3 }));
    expect(activity!.contentState).toEqual({ progress: 0.3 });
    await push(activity!.updateToken, liveActivity, event('update', now + 8 * 3600 + 60, { progress: 0.9 }));
    expect(activity!.contentState).toEqual({ progress: 0.3 });
    await push(activity!.updateToken, liveActivity, event('update', now + 60, { progress: 0.4 }));
    expect(activity!.events.map((item) => [item.timestamp! - now, item.applied])).toEqual([
      [0, true],
      [0, true],
      [8 * 3600 + 60, false],
      [60, true],
    ]);
    expect((await push('e5'.repeat(40), liveActivity, start({ timestamp: now + 9 * 3600 }))).status).toBe(200);
    expect(apns.liveActivities.refusedStarts.map((refused) => refused.problem)).toEqual([
      'aps.timestamp is more than 8 hours ahead',
    ]);
  });

  it("answers 410 Unregistered for an ended activity's token, and for a token rotated away", async () => {
    const { push, apns } = await apnsFixture();
    await push(PUSH_TO_START, liveActivity, start());
    await push('d4'.repeat(40), liveActivity, start({ attributes: { activityId: 'lva_2' } }));
    const [first, second] = apns.liveActivities.activities;
    const ended = await push(
      first!.updateToken,
      liveActivity,
      JSON.stringify({ aps: { timestamp: 1002, event: 'end', 'content-state': {}, 'dismissal-date': 5000 } }),
    );
    expect(ended.status).toBe(200);
    expect(first).toMatchObject({ state: 'ended', dismissalDate: 5000 });
    const gone = await push(first!.updateToken, liveActivity, event('update', 1003));
    expect(gone.status).toBe(410);
    expect(JSON.parse(gone.body)).toMatchObject({ reason: 'Unregistered', timestamp: expect.any(Number) });

    const old = second!.updateToken;
    apns.liveActivities.rotateUpdateToken(old);
    expect((await push(old, liveActivity, event('update', 1001))).status).toBe(410);
    expect((await push(second!.updateToken, liveActivity, event('update', 1001))).status).toBe(200);
    // The push-to-start token itself keeps working for further starts.
    expect((await push(PUSH_TO_START, liveActivity, start({ attributes: { activityId: 'lva_3' } }))).status).toBe(200);
    expect(apns.liveActivities.activities).toHaveLength(3);
  });

  it('starts nothing for a start the device cannot use, and mints no token without input-push-token', async () => {
    const { push, apns } = await apnsFixture();
    const minted: string[] = [];
    apns.liveActivities.onUpdateToken((activity) => minted.push(activity.updateToken));
    const noAlert = JSON.parse(start()) as { aps: Record<string, unknown> };
    delete noAlert.aps.alert;
    expect((await push(PUSH_TO_START, liveActivity, JSON.stringify(noAlert))).status).toBe(200);
    expect(apns.liveActivities.refusedStarts.map((refused) => refused.problem)).toEqual([
      'aps.alert is required on start',
    ]);
    await push(PUSH_TO_START, liveActivity, start({ 'input-push-token': undefined }));
    expect(apns.liveActivities.activities).toHaveLength(1);
    expect(minted).toEqual([]);
  });

  it('still enforces the Live Activity topic and priority rules before any of that', async () => {
    const { push, apns } = await apnsFixture();
    expect((await push(PUSH_TO_START, { ...liveActivity, 'apns-topic': BUNDLE }, start())).body).toBe(
      '{"reason":"TopicDisallowed"}',
    );
    expect((await push(PUSH_TO_START, { ...liveActivity, 'apns-priority': '1' }, start())).body).toBe(
      '{"reason":"BadPriority"}',
    );
    expect(apns.liveActivities.activities).toEqual([]);
  });

  it("reports each minted token to a Clarion-like server as the app would, with the device's key", async () => {
    const { push, apns } = await apnsFixture();
    const received: Array<{ url: string; authorization: string | undefined; body: unknown }> = [];
    const server = createServer((request: IncomingMessage, response) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => {
        received.push({ url: request.url ?? '', authorization: request.headers.authorization, body: JSON.parse(text) });
        response
          .writeHead(received.length === 1 ? 201 : 200, { 'content-type': 'application/json' })
          .end('{"success":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closeAfterTest(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const reporter = reportLiveActivityTokens(apns.liveActivities, {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      deviceFor: (token) =>
        token === PUSH_TO_START
          ? { subscriberId: 'sub_1', deviceToken: 'ab'.repeat(32), publishableKey: 'clr_pk_test' }
          : undefined,
    });
    closeAfterTest(async () => reporter.stop());

    await push(PUSH_TO_START, liveActivity, start());
    await push('e5'.repeat(40), liveActivity, start({ attributes: { activityId: 'lva_other' } }));
    const [activity] = apns.liveActivities.activities;
    apns.liveActivities.rotateUpdateToken(activity!.updateToken);
    await reporter.settled();
    expect(received).toEqual([
      {
        url: '/api/v1/live-activities/lva_1/tokens',
        authorization: 'Bearer clr_pk_test',
        body: { subscriberId: 'sub_1', token: expect.stringMatching(/^[0-9a-f]{160}$/), deviceToken: 'ab'.repeat(32) },
      },
      {
        url: '/api/v1/live-activities/lva_1/tokens',
        authorization: 'Bearer clr_pk_test',
        body: { subscriberId: 'sub_1', token: activity!.updateToken, deviceToken: 'ab'.repeat(32) },
      },
    ]);
    expect(reporter.reports.map((report) => report.status)).toEqual([201, 200]);
  });
});
