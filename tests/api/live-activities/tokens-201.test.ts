import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { activityPath, activityToken, startActivity } from '../../harness/live-activity-requests.ts';
import { get, post } from '../../harness/requests.ts';
import { subscribeDevice } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** Reports `token` for the device as its app does: with the device token it registered as proof (a publishable key needs it). */
const report = (key: string, id: string, device: { id: string; token: string }, token: string) =>
  post(t.app, activityPath(id, 'tokens'), key, { subscriberId: device.id, token, deviceToken: device.token });
const stored = (id: string) =>
  t.store.db
    .selectFrom('live_activity_tokens')
    .selectAll()
    .where('live_activity_id', '=', id)
    .orderBy('subscriber_id')
    .execute();

describe('POST /api/v1/live-activities/{id}/tokens → 201 / 200', () => {
  it("stores a device's first token with the publishable key (201), and a newer one replaces it (200)", async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const device = await subscribeDevice(t.app, account.publishableKey, 'orders', 'ios');
    const subscriberId = device.id;
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const first = activityToken();
    const created = expectSuccess(await report(account.publishableKey, id, device, first.toUpperCase()), 201);
    const now = new Date(t.clock.now()).toISOString();
    expect(created).toEqual({ liveActivityId: id, subscriberId, createdAt: now, updatedAt: now });
    expect((await stored(id)).map((row) => [row.subscriber_id, row.token])).toEqual([[subscriberId, first]]);

    t.clock.advance(60_000);
    const second = activityToken();
    const replaced = expectSuccess(await report(account.publishableKey, id, device, second), 200);
    expect(replaced).toEqual({
      liveActivityId: id,
      subscriberId,
      createdAt: now,
      updatedAt: new Date(t.clock.now()).toISOString(),
    });
    expect((await stored(id)).map((row) => [row.subscriber_id, row.token])).toEqual([[subscriberId, second]]);
    // The same token again changes nothing but the time.
    expectSuccess(await report(account.publishableKey, id, device, second), 200);
    expect(await stored(id)).toHaveLength(1);
  });

  it('keeps one token per subscriber, and accepts a secret key too', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const a = await subscribeDevice(t.app, account.publishableKey, 'orders', 'ios');
    const b = await subscribeDevice(t.app, account.publishableKey, 'orders', 'ios');
    const id = await startActivity(t.app, account.secretKey, 'orders');
    expectSuccess(await report(account.publishableKey, id, a, activityToken()), 201);
    // A secret key needs no proof.
    expectSuccess(
      await post(t.app, activityPath(id, 'tokens'), account.secretKey, { subscriberId: b.id, token: activityToken() }),
      201,
    );
    expect((await stored(id)).map((row) => row.subscriber_id)).toEqual([a.id, b.id].sort());
  });

  it('is free: reporting tokens spends no quota and records no event', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const device = await subscribeDevice(t.app, account.publishableKey, 'orders', 'ios');
    const id = await startActivity(t.app, account.secretKey, 'orders');
    const response = await report(account.publishableKey, id, device, activityToken());
    expectSuccess(response, 201);
    expect(response.headers['x-quota-remaining']).toBeUndefined();
    expect(expectSuccess(await get(t.app, '/api/v1/usage', account.secretKey), 200).used).toBe(1);
  });

  it('takes a publishable key scoped to the activity channel', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const scoped = await account.key({ kind: 'publishable', channels: ['orders'] });
    const device = await subscribeDevice(t.app, scoped.value, 'orders', 'ios');
    const id = await startActivity(t.app, account.secretKey, 'orders');
    expectSuccess(await report(scoped.value, id, device, activityToken()), 201);
  });
});
