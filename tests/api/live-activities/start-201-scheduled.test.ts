import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

/**
 * Scheduled starts through the API alone (no worker runs here, so nothing starts): the LiveActivity while
 * `scheduled`, the list's status filter, and a stream started with sendAt.
 * Delivery at sendAt is tests/delivery/live-activities/scheduled-starts.test.ts's.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const HOUR = 3600_000;
const later = () => new Date(t.clock.now() + HOUR).toISOString();

describe('POST /api/v1/live-activities with sendAt → 201 scheduled', () => {
  it('answers the activity scheduled, with sendAt, and GET shows the same', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const sendAt = later();
    const created = expectSuccess(
      await post(t.app, '/api/v1/live-activities', account.secretKey, { ...progressActivity('orders'), sendAt }),
      201,
    );
    expect(created).toMatchObject({
      status: 'scheduled',
      sendAt,
      startedAt: null,
      endedAt: null,
      recipientCount: 0,
      lastEvent: null,
      fields: progressActivity('orders').fields,
    });
    expect(expectSuccess(await get(t.app, activityPath(created.id), account.secretKey), 200)).toEqual(created);
    // An immediate start shows its start time and no sendAt.
    const now = expectSuccess(
      await post(t.app, '/api/v1/live-activities', account.secretKey, progressActivity('orders')),
      201,
    );
    expect(now).toMatchObject({ status: 'active', sendAt: null, startedAt: new Date(t.clock.now()).toISOString() });
  });

  it('lists scheduled and canceled activities under their own status', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const scheduled = await startActivity(t.app, account.secretKey, 'orders', { sendAt: later() });
    const canceled = await startActivity(t.app, account.secretKey, 'orders', { sendAt: later() });
    expectSuccess(await post(t.app, activityPath(canceled, 'cancel'), account.secretKey), 200);
    const active = await startActivity(t.app, account.secretKey, 'orders');
    const ids = async (status?: string) =>
      (
        await get(t.app, `/api/v1/live-activities${status ? `?status=${status}` : ''}`, account.secretKey)
      ).body.data.map((activity: { id: string }) => activity.id);
    expect(await ids('scheduled')).toEqual([scheduled]);
    expect(await ids('canceled')).toEqual([canceled]);
    expect(await ids('active')).toEqual([active]);
    expect(await ids('ended')).toEqual([]);
    expect(await ids()).toEqual([active, canceled, scheduled]);
    // Past 8 hours after they were accepted, a scheduled activity is still scheduled: its hours have not begun.
    t.clock.advance(9 * HOUR);
    expect(await ids('scheduled')).toEqual([scheduled]);
    expect(await ids('ended')).toEqual([active]);
  });

  it('starts a stream with sendAt; the stream’s next calls update the scheduled activity without a charge', async () => {
    const account = await t.newAccount({ channels: ['deploys'] });
    const path = '/api/v1/live-activities/streams/deploy-5';
    const sendAt = later();
    const body = {
      channelCode: 'deploys',
      template: 'steps',
      fields: { title: 'Deploy 5', currentStep: 1, totalSteps: 3 },
    };
    const started = expectSuccess(await post(t.app, path, account.secretKey, { ...body, sendAt }), 201);
    expect(started).toMatchObject({ event: 'started', status: 'scheduled', sendAt, streamKey: 'deploy-5' });
    const updated = expectSuccess(
      await post(t.app, path, account.secretKey, { ...body, fields: { currentStep: 2, status: 'Testing' } }),
      200,
    );
    expect(updated).toMatchObject({
      event: 'updated',
      id: started.id,
      status: 'scheduled',
      fields: { title: 'Deploy 5', currentStep: 2, totalSteps: 3, status: 'Testing' },
    });
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(1);
    const before = await accountState(t, account.id);
    const refused = expectError(
      await post(t.app, `${path}/end`, account.secretKey, { channelCode: 'deploys' }),
      'activity_not_started',
    );
    expect(refused.message).toContain(`/api/v1/live-activities/${started.id}/cancel`);
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
