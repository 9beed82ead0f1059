import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/live-activities → 413 payload_too_large', () => {
  it('refuses a start whose APNs payload would pass 4,096 bytes, before storing or charging anything', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const before = await accountState(t, account.id);
    // 1,000 characters of 4 bytes each: within the schema's lengths, not within APNs' limit.
    const alert = { title: 'Big', body: '😀'.repeat(1000) };
    const response = await post(t.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'orders',
      template: 'progress',
      fields: { title: 'x', progress: 0.5 },
      alert,
    });
    const error = expectError(response, 'payload_too_large');
    expect(error.details).toMatchObject({ limit: 'platform_payload', platform: 'ios', limitBytes: 4096 });
    expect(error.details.payloadBytes).toBeGreaterThan(4096);
    expect(await accountState(t, account.id)).toEqual(before);
  });

  it('holds every language of the alert to the limit, naming the one over it', async () => {
    const account = await t.newAccount({ channels: ['orders'] });
    const before = await accountState(t, account.id);
    const response = await post(t.app, '/api/v1/live-activities', account.secretKey, {
      channelCode: 'orders',
      template: 'progress',
      fields: { title: 'x', progress: 0.5 },
      alert: { title: 'Short', localizations: { ja: { title: '大', body: '😀'.repeat(1000) } } },
    });
    const error = expectError(response, 'payload_too_large');
    expect(error.details).toMatchObject({ limit: 'platform_payload', platform: 'ios', localization: 'ja' });
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
