import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCounts } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications → 413 payload_too_large', () => {
  it('refuses a request body over 64 KiB and says which limit', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'news',
      title: 'Hi',
      body: 'x'.repeat(65 * 1024),
    });
    expect(expectError(response, 'payload_too_large').details).toEqual({ limit: 'request_body', limitBytes: 65_536 });
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 0, quotaUsed: 0 });
  });

  // docs/design.md 2.7: platform payloads are checked against APNs 4 KB / FCM 4 KB before accepting. Every field here is
  // within its own bound (title 256, body 4,000, data 50 × 1,000), yet no push could carry them.
  it('refuses a notification whose rendered platform payload is over 4 KB, saying which, and stores nothing', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const data = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key${i}`, 'v'.repeat(1000)]));
    for (const [url, channel] of [
      ['/api/v1/notifications', { channelCode: 'news' }],
      ['/api/v1/notify', { channel: 'news' }],
    ] as const) {
      const response = await post(t.app, url, account.secretKey, {
        ...channel,
        title: 'T'.repeat(256),
        body: 'B'.repeat(4000),
        data,
      });
      const error = expectError(response, 'payload_too_large');
      expect(error.details).toEqual({
        limit: 'platform_payload',
        platform: expect.stringMatching(/^(ios|android|web)$/),
        payloadBytes: expect.any(Number),
        limitBytes: 4096,
      });
      expect(error.details.payloadBytes).toBeGreaterThan(4096);
    }
    expect(await accountCounts(t, account.id)).toMatchObject({ notifications: 0, quotaUsed: 0 });
  });
});
