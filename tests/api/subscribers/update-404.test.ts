import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError, expectSuccess } from '../../harness/api-expect.ts';
import { get, patch, post } from '../../harness/requests.ts';
import { subscribe, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('PATCH /api/v1/subscribers/:id → 404', () => {
  it("answers not_found for a publishable key with another device's token, and changes nothing", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const id = await subscribe(t.app, account.publishableKey, 'news', 'android', { externalId: 'alice' });
    expectError(
      await patch(t.app, `/api/v1/subscribers/${id}`, account.publishableKey, {
        token: tokens.android(),
        externalId: 'mallory',
      }),
      'not_found',
    );
    expectError(
      await patch(t.app, `/api/v1/subscribers/${id}`, account.publishableKey, {
        token: { junk: true },
        externalId: 'mallory',
      }),
      'not_found',
    );
    expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200).externalId).toBe(
      'alice',
    );
  });

  it("answers not_found for an unknown id, another account's subscriber and one outside the key scope", async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const other = await t.newAccount({ channels: ['news'] });
    const token = tokens.android();
    const theirs = expectSuccess(
      await post(t.app, '/api/v1/subscribers', other.publishableKey, {
        channelCode: 'news',
        platform: 'android',
        token,
      }),
      201,
    ).id;
    const sport = await subscribe(t.app, account.publishableKey, 'sport');
    const scoped = await account.key({ channels: ['news'] });
    expectError(
      await patch(t.app, `/api/v1/subscribers/${newId('subscriber')}`, account.secretKey, { tags: ['x'] }),
      'not_found',
    );
    expectError(await patch(t.app, `/api/v1/subscribers/${theirs}`, account.secretKey, { tags: ['x'] }), 'not_found');
    expectError(
      await patch(t.app, `/api/v1/subscribers/${theirs}`, account.publishableKey, { token, tags: ['x'] }),
      'not_found',
    );
    expectError(await patch(t.app, `/api/v1/subscribers/${sport}`, scoped.value, { tags: ['x'] }), 'not_found');
    expect(expectSuccess(await get(t.app, `/api/v1/subscribers/${theirs}`, other.secretKey), 200).tags).toEqual([]);
  });
});
