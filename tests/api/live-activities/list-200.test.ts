import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { activityPath, startActivity } from '../../harness/live-activity-requests.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const list = async (key: string, query = '') => {
  const response = await get(t.app, `/api/v1/live-activities${query}`, key);
  expectSuccess(response, 200);
  return response.body as {
    data: Array<{ id: string; status: string; channelCode: string }>;
    nextCursor: string | null;
  };
};

describe('GET /api/v1/live-activities → 200', () => {
  it('lists the account activities newest first, page by page', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(await startActivity(t.app, account.secretKey, 'orders'));
      t.clock.advance(1);
    }
    const other = await t.newAccount({ channels: ['orders'] });
    await startActivity(t.app, other.secretKey, 'orders');

    const first = await list(account.secretKey, '?limit=2');
    expect(first.data.map((item) => item.id)).toEqual([ids[4], ids[3]]);
    const second = await list(account.secretKey, `?limit=2&cursor=${first.nextCursor}`);
    expect(second.data.map((item) => item.id)).toEqual([ids[2], ids[1]]);
    const last = await list(account.secretKey, `?limit=2&cursor=${second.nextCursor}`);
    expect(last).toEqual({ success: true, data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    // Items are the same LiveActivity objects GET /{id} returns.
    expect(last.data[0]).toEqual((await get(t.app, activityPath(ids[0]!), account.secretKey)).body.data);
  });

  it('filters by channel and by status, counting activities past their 8 hours as ended', async () => {
    const account = await t.newAccount({ channels: ['orders', 'sport'] });
    const old = await startActivity(t.app, account.secretKey, 'orders');
    t.clock.advance(8 * 3600 * 1000);
    const ended = await startActivity(t.app, account.secretKey, 'orders');
    await post(t.app, activityPath(ended, 'end'), account.secretKey, {});
    const active = await startActivity(t.app, account.secretKey, 'orders');
    const sport = await startActivity(t.app, account.secretKey, 'sport');

    expect((await list(account.secretKey, '?channelCode=orders')).data.map((item) => item.id)).toEqual([
      active,
      ended,
      old,
    ]);
    expect((await list(account.secretKey, '?status=active')).data.map((item) => item.id)).toEqual([sport, active]);
    expect((await list(account.secretKey, '?status=ended')).data.map((item) => [item.id, item.status])).toEqual([
      [ended, 'ended'],
      [old, 'ended'],
    ]);
    expect((await list(account.secretKey, '?channelCode=sport&status=ended')).data).toEqual([]);
  });

  it("shows a scoped key only its channels' activities", async () => {
    const account = await t.newAccount({ channels: ['orders', 'sport'] });
    const orders = await startActivity(t.app, account.secretKey, 'orders');
    await startActivity(t.app, account.secretKey, 'sport');
    const scoped = await account.key({ channels: ['orders', 'not-created-yet'] });
    expect((await list(scoped.value)).data.map((item) => item.id)).toEqual([orders]);
    const none = await account.key({ channels: ['not-created-yet'] });
    expect(await list(none.value)).toEqual({ success: true, data: [], nextCursor: null });
  });
});
