import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { startLiveActivityHarness, type LiveActivityHarness } from './live-activity-harness.ts';

/** iOS ends every Live Activity after 8 hours; Clarion records it then and tells Android, which has no such rule. */
let h: LiveActivityHarness;
beforeAll(async () => {
  h = await startLiveActivityHarness();
});
afterAll(async () => h?.close());

const EIGHT_HOURS = 8 * 3600 * 1000;

async function endedEvents(accountId: string) {
  return (await listEvents(h.store.db, accountId)).filter((event) => event.type === 'live_activity.ended');
}

describe('the 8-hour end', () => {
  it('ends the activity 8 hours after its start: status, event, an Android end, and no iOS push', async () => {
    const account = await h.newAccount({ channels: ['flights'] });
    const ios = await h.iosDevice(account, 'flights');
    const android = await h.androidDevice(account, 'flights');
    const createdAt = h.clock.now();
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'flights',
        template: 'timer',
        fields: { title: 'Boarding', durationSeconds: 3600 },
      })
    ).body.data.id as string;
    await h.settle();
    const device = await h.deviceActivity(ios, id);
    await waitFor(() => h.reporter.reports.some((report) => report.liveActivityId === id), 10_000, 'the token report');

    h.clock.advance(EIGHT_HOURS - 1000);
    h.worker.pool.wake();
    await h.settle();
    expect(await endedEvents(account.id)).toEqual([]);
    expect((await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data.status).toBe('active');

    h.clock.advance(1000);
    h.worker.pool.wake();
    await waitFor(async () => (await endedEvents(account.id)).length === 1, 10_000, 'live_activity.ended');
    await h.settle();
    const endedAt = new Date(createdAt + EIGHT_HOURS).toISOString();
    expect((await endedEvents(account.id))[0]!.data).toMatchObject({ liveActivityId: id, reason: 'expired', endedAt });
    expect((await get(h.app, `/api/v1/live-activities/${id}`, account.secretKey)).body.data).toMatchObject({
      status: 'ended',
      endedAt,
    });

    const androidEvents = h
      .fcmPushes(android.token)
      .map((request) => (request.message as { data: Record<string, string> }).data);
    expect(androidEvents.map((data) => data.event)).toEqual(['start', 'end']);
    expect(Number(androidEvents[1]!.timestamp)).toBeGreaterThan(Number(androidEvents[0]!.timestamp));
    expect(h.apnsPushes(device.updateToken)).toEqual([]);

    // Nothing more can happen to it, and the expiry cost the caller nothing.
    expectError(
      await post(h.app, `/api/v1/live-activities/${id}/update`, account.secretKey, { fields: { title: 'Late' } }),
      'activity_ended',
    );
    expect((await get(h.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(1);
  });

  it('does nothing to an activity the caller ended first', async () => {
    const account = await h.newAccount({ channels: ['food'] });
    const android = await h.androidDevice(account, 'food');
    const id = (
      await post(h.app, '/api/v1/live-activities', account.secretKey, {
        channelCode: 'food',
        template: 'steps',
        fields: { title: 'Pizza', currentStep: 1, totalSteps: 3 },
      })
    ).body.data.id as string;
    await h.settle();
    await post(h.app, `/api/v1/live-activities/${id}/end`, account.secretKey, { fields: { currentStep: 3 } });
    await h.settle();
    h.clock.advance(EIGHT_HOURS);
    h.worker.pool.wake();
    await waitFor(
      async () => {
        const job = await h.store.db
          .selectFrom('jobs')
          .select('state')
          .where('unique_key', '=', `live_activity.expire:${id}`)
          .executeTakeFirstOrThrow();
        return job.state === 'completed';
      },
      10_000,
      'the expiry job',
    );
    await h.settle();
    expect((await endedEvents(account.id)).map((event) => (event.data as { reason: string }).reason)).toEqual([
      'requested',
    ]);
    expect(
      h.fcmPushes(android.token).map((request) => (request.message as { data: Record<string, string> }).data.event),
    ).toEqual(['start', 'end']);
  });
});
