import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { rawRequest } from '../../harness/api-routes.ts';
import { post } from '../../harness/requests.ts';
import { subscribeDevice } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/**
 * A publishable key is public (inside every app, on every join page): it proves nothing about a subscriber. It may
 * unsubscribe only the device whose registration token it sends, as for PATCH (docs/api.md, "Subscribers").
 */
describe('POST /api/v1/subscribers/:id/unsubscribe → 403 forbidden', () => {
  it.each([
    ['no body', undefined, {}],
    ['an empty JSON body', '', { 'content-type': 'application/json' }],
    ['{}', '{}', { 'content-type': 'application/json' }],
  ] as const)(
    'refuses a publishable key with %s: the subscriber stays active and nothing is recorded',
    async (_name, payload, headers) => {
      const account = await t.newAccount({ channels: ['news'] });
      const device = await subscribeDevice(t.app, account.publishableKey, 'news', 'ios');
      const before = await accountState(t, account.id);
      const error = expectError(
        await rawRequest(
          t.app,
          'POST',
          `/api/v1/subscribers/${device.id}/unsubscribe`,
          account.publishableKey,
          payload,
          headers,
        ),
        'forbidden',
      );
      expect(error.message).toMatch(/token/);
      expect(await accountState(t, account.id)).toEqual(before);
    },
  );

  it('answers the same whether or not the subscriber exists', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const error = expectError(
      await post(t.app, '/api/v1/subscribers/sub_01jzzzzzzzzzzzzzzzzzzzzzzz/unsubscribe', account.publishableKey, {}),
      'forbidden',
    );
    expect(error.message).toMatch(/token/);
  });
});
