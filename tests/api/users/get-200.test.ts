import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { subscribe } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/users/:externalId → 200', () => {
  it("lists a person's subscribers across channels, newest first, and only theirs", async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const phone = await subscribe(t.app, account.publishableKey, 'news', 'ios', { externalId: 'alice@example.com' });
    t.clock.advance(1000);
    const browser = await subscribe(t.app, account.publishableKey, 'sport', 'web', { externalId: 'alice@example.com' });
    await subscribe(t.app, account.publishableKey, 'news', 'android', { externalId: 'bob' });
    const data = expectSuccess(
      await get(t.app, `/api/v1/users/${encodeURIComponent('alice@example.com')}`, account.secretKey),
      200,
    );
    expect(data.externalId).toBe('alice@example.com');
    expect(data.subscribers.map((row: any) => [row.id, row.channelCode, row.platform])).toEqual([
      [browser, 'sport', 'web'],
      [phone, 'news', 'ios'],
    ]);
  });

  it('shows a scoped key only the devices in its channels', async () => {
    const account = await t.newAccount({ channels: ['news', 'sport'] });
    const phone = await subscribe(t.app, account.publishableKey, 'news', 'ios', { externalId: 'alice' });
    await subscribe(t.app, account.publishableKey, 'sport', 'web', { externalId: 'alice' });
    const scoped = await account.key({ channels: ['news'] });
    expect(
      expectSuccess(await get(t.app, '/api/v1/users/alice', scoped.value), 200).subscribers.map((row: any) => row.id),
    ).toEqual([phone]);
  });
});
