import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../harness/requests.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/**
 * iOS issues one push-to-start token per ActivityAttributes type: a start goes to the token of its template, or to the
 * one a device reported without a template (which serves every template it has no token of its own for), and to no
 * other. `recipientCount` counts exactly the devices a start goes to.
 */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const start = async (key: string, template: 'progress' | 'timer') => {
  const fields =
    template === 'progress' ? { title: 'Upload', progress: 0.1 } : { title: 'Pizza', durationSeconds: 600 };
  const response = await post(h.app, '/api/v1/live-activities', key, { channelCode: 'live', template, fields });
  expect(response.statusCode).toBe(201);
  return response.body.data as { id: string; recipientCount: number };
};

describe('push-to-start tokens per template', () => {
  it('starts each template only on devices with a token for it, preferring the template’s own token', async () => {
    const account = await h.newAccount({ channels: ['live'] });
    const timerOnly = await h.iosDevice(account, 'live', { template: 'timer' });
    const untemplated = await h.iosDevice(account, 'live');
    const both = await h.iosDevice(account, 'live');
    const bothProgress = await h.addPushToStartToken(account, 'live', both, 'progress');
    await h.androidDevice(account, 'live');

    const progress = await start(account.secretKey, 'progress');
    expect(progress.recipientCount).toBe(3); // untemplated, both (its progress token), Android
    await h.settle();
    expect(h.apnsPushes(timerOnly.pushToStartToken!)).toEqual([]);
    expect(h.apnsPushes(untemplated.pushToStartToken!).map((request) => request.payload)).toMatchObject([
      { aps: { event: 'start', 'attributes-type': 'ClarionProgressAttributes' } },
    ]);
    expect(h.apnsPushes(bothProgress).map((request) => request.payload)).toMatchObject([
      { aps: { event: 'start', 'attributes-type': 'ClarionProgressAttributes' } },
    ]);
    expect(h.apnsPushes(both.pushToStartToken!)).toEqual([]);

    const timer = await start(account.secretKey, 'timer');
    expect(timer.recipientCount).toBe(4); // timerOnly, untemplated, both (untemplated serves timer), Android
    await h.settle();
    expect(h.apnsPushes(timerOnly.pushToStartToken!).map((request) => request.payload)).toMatchObject([
      { aps: { event: 'start', 'attributes-type': 'ClarionTimerAttributes' } },
    ]);
    expect(h.apnsPushes(both.pushToStartToken!).map((request) => request.payload)).toMatchObject([
      { aps: { event: 'start', 'attributes-type': 'ClarionTimerAttributes' } },
    ]);
    expect(h.apnsPushes(bothProgress)).toHaveLength(1);
  });

  it('forgets only the templated token APNs answers 410 for', async () => {
    const account = await h.newAccount({ channels: ['live'] });
    const device = await h.iosDevice(account, 'live');
    const progressToken = await h.addPushToStartToken(account, 'live', device, 'progress');
    h.apns.unregisterToken(progressToken);
    await start(account.secretKey, 'progress');
    await h.settle();
    const left = await h.store.db
      .selectFrom('push_to_start_tokens')
      .select('template')
      .where('subscriber_id', '=', device.subscriberId)
      .execute();
    expect(left).toEqual([]);
    const subscriber = await h.store.db
      .selectFrom('subscribers')
      .select(['push_to_start_token', 'status'])
      .where('id', '=', device.subscriberId)
      .executeTakeFirstOrThrow();
    expect(subscriber).toEqual({ push_to_start_token: device.pushToStartToken, status: 'active' });
  });
});
