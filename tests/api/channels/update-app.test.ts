import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError, expectSuccess, expectValidation } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { progressActivity, subscribe, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { createTestApp } from '../apps/app-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** A channel moves to another app of its account (docs/apps.md, "Moving a channel to another app"). */
describe('POST /api/v1/channels/:code/update with appId', () => {
  it('moves a channel made before any app (built-in) to the app named, and the view and GET show it', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expect(expectSuccess(await get(t.app, '/api/v1/channels/news', account.secretKey), 200).appId).toBeNull();
    const app = await createTestApp(t, account.secretKey);
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels/news/update', account.secretKey, { appId: app.id }), 200),
    ).toMatchObject({ code: 'news', appId: app.id });
    expect(expectSuccess(await get(t.app, '/api/v1/channels/news', account.secretKey), 200).appId).toBe(app.id);
  });

  it("refuses another account's app or an unknown id (400 on appId) and changes nothing", async () => {
    const owner = await t.newAccount();
    const theirs = await createTestApp(t, owner.secretKey);
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    expectValidation(
      await post(t.app, '/api/v1/channels/news/update', account.secretKey, { appId: theirs.id, name: 'Renamed' }),
      ['appId'],
    );
    expectValidation(await post(t.app, '/api/v1/channels/news/update', account.secretKey, { appId: 'app_nope' }), [
      'appId',
    ]);
    expectValidation(await post(t.app, '/api/v1/channels/news/update', account.secretKey, { appId: 42 }), ['appId']);
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('refuses the move with 409 while a Live Activity of the channel runs, and allows it once it ended', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const first = await createTestApp(t, account.secretKey, 'First');
    const second = await createTestApp(t, account.secretKey, 'Second');
    await post(t.app, '/api/v1/channels/orders/update', account.secretKey, { appId: first.id });
    await subscribe(t.app, account.publishableKey, 'orders', 'ios', { pushToStartToken: tokens.ios() });
    const started = expectSuccess(
      await post(t.app, '/api/v1/live-activities', account.secretKey, progressActivity('orders')),
      201,
    );
    const refused = expectError(
      await post(t.app, '/api/v1/channels/orders/update', account.secretKey, { appId: second.id, name: 'Orders' }),
      'conflict',
    );
    expect(refused.details).toEqual({ field: 'appId', channelCode: 'orders' });
    expect(expectSuccess(await get(t.app, '/api/v1/channels/orders', account.secretKey), 200)).toMatchObject({
      appId: first.id,
      name: 'orders',
    });
    // Naming the app it already has is no move: allowed while the activity runs.
    expectSuccess(await post(t.app, '/api/v1/channels/orders/update', account.secretKey, { appId: first.id }), 200);
    expectSuccess(await post(t.app, `/api/v1/live-activities/${started.id}/end`, account.secretKey, {}), 200);
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels/orders/update', account.secretKey, { appId: second.id }), 200)
        .appId,
    ).toBe(second.id);
  });

  it('an activity past iOS 8 hours, not yet swept, no longer holds the channel', async () => {
    const account = await t.newAccount({ channels: ['scores'] });
    const first = await createTestApp(t, account.secretKey, 'First');
    const second = await createTestApp(t, account.secretKey, 'Second');
    await post(t.app, '/api/v1/channels/scores/update', account.secretKey, { appId: first.id });
    await subscribe(t.app, account.publishableKey, 'scores', 'ios', { pushToStartToken: tokens.ios() });
    expectSuccess(await post(t.app, '/api/v1/live-activities', account.secretKey, progressActivity('scores')), 201);
    t.clock.advance(8 * 3600 * 1000 - 1);
    expectError(
      await post(t.app, '/api/v1/channels/scores/update', account.secretKey, { appId: second.id }),
      'conflict',
    );
    t.clock.advance(1);
    expect(
      expectSuccess(await post(t.app, '/api/v1/channels/scores/update', account.secretKey, { appId: second.id }), 200)
        .appId,
    ).toBe(second.id);
  });
});
