import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { accountCounts, accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { subscribeDevice, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/subscribers/:id/unsubscribe → 404 not_found', () => {
  it.each(['ios', 'android', 'web'] as const)(
    "answers not_found to a publishable key with another %s device's token, and the subscriber stays active",
    async (platform) => {
      const account = await t.newAccount({ channels: ['news'] });
      const device = await subscribeDevice(t.app, account.publishableKey, 'news', platform);
      const before = await accountState(t, account.id);
      for (const token of [tokens[platform](), tokens.web(), 'not-a-token']) {
        expectError(
          await post(t.app, `/api/v1/subscribers/${device.id}/unsubscribe`, account.publishableKey, { token }),
          'not_found',
        );
      }
      expect(await accountState(t, account.id)).toEqual(before);
    },
  );

  it.each([
    ['an unknown id', () => newId('subscriber')],
    ['an id of another kind', () => newId('notification')],
    ['a malformed id', () => 'sub_123'],
    ['an id of 90 characters', () => `sub_${'a'.repeat(86)}`],
    ['a NUL character', () => 'sub_%00'],
  ])('answers not_found for %s', async (_name, id) => {
    const account = await t.newAccount({ channels: ['news'] });
    const { token } = await subscribeDevice(t.app, account.publishableKey, 'news');
    const before = await accountState(t, account.id);
    expectError(
      await post(t.app, `/api/v1/subscribers/${id()}/unsubscribe`, account.publishableKey, { token }),
      'not_found',
    );
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it.each(['publishableKey', 'secretKey'] as const)(
    "answers not_found to another account's %s, even with the subscriber's token, and the subscriber stays active",
    async (which) => {
      const owner = await t.newAccount({ channels: ['news'] });
      const { id, token } = await subscribeDevice(t.app, owner.publishableKey, 'news');
      const other = await t.newAccount({ channels: ['news'] });
      expectError(await post(t.app, `/api/v1/subscribers/${id}/unsubscribe`, other[which], { token }), 'not_found');
      expect(await accountCounts(t, owner.id)).toMatchObject({ activeSubscribers: 1 });
    },
  );

  it.each(['publishable', 'secret'] as const)(
    'answers not_found to a %s key scoped to another channel, and the subscriber stays active',
    async (kind) => {
      const account = await t.newAccount({ channels: ['news', 'sport'] });
      const { id, token } = await subscribeDevice(t.app, account.publishableKey, 'sport');
      const scoped = await account.key({ kind, channels: ['news'] });
      expectError(await post(t.app, `/api/v1/subscribers/${id}/unsubscribe`, scoped.value, { token }), 'not_found');
      expect(await accountCounts(t, account.id)).toMatchObject({ activeSubscribers: 1 });
    },
  );
});
