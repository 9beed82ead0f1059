import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectValidation } from '../../harness/api-expect.ts';
import { switchJoinPage } from '../../harness/join-pages.ts';
import { get } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/channels/:code/join-qr-code → 400, 403, 404', () => {
  it('400 for a code that is not a channel code', async () => {
    const account = await t.newAccount();
    expectValidation(await get(t.app, '/api/v1/channels/News!/join-qr-code', account.secretKey), ['code']);
  });

  it('403 for a publishable key, and for a key scoped to other channels', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    await switchJoinPage(t, account, 'sport', true);
    expectError(await get(t.app, '/api/v1/channels/sport/join-qr-code', account.publishableKey), 'forbidden');
    const scoped = await account.key({ channels: ['news'] });
    expectError(await get(t.app, '/api/v1/channels/sport/join-qr-code', scoped.value), 'channel_not_allowed');
  });

  it('404 channel_not_found for an unknown channel, not_found while its join page is off', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    expectError(await get(t.app, '/api/v1/channels/ghost/join-qr-code', account.secretKey), 'channel_not_found');
    expect(
      expectError(await get(t.app, '/api/v1/channels/news/join-qr-code', account.secretKey), 'not_found').message,
    ).toMatch(/join page of channel "news" is off/);
    await switchJoinPage(t, account, 'news', true);
    await switchJoinPage(t, account, 'news', false);
    expectError(await get(t.app, '/api/v1/channels/news/join-qr-code', account.secretKey), 'not_found');
  });
});
