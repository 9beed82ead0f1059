import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/notifications → 413 when the rendered platform payload is over 4 KB', () => {
  it('refuses a body whose APNs payload would pass 4,096 bytes, and stores and charges nothing', async () => {
    const account = await t.newAccount({ channels: ['long'] });
    // 1,500 euro signs are 1,500 characters (within the 4,000-character field limit) but 4,500 bytes of UTF-8.
    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'long',
      title: 'Too big',
      body: '€'.repeat(1500),
    });
    expect(response.statusCode).toBe(413);
    expect(response.body.error).toMatchObject({
      code: 'payload_too_large',
      details: { limit: 'platform_payload', platform: 'ios', limitBytes: 4096, payloadBytes: expect.any(Number) },
    });
    expect(response.body.error.details.payloadBytes).toBeGreaterThan(4096);
    expect((await get(t.app, '/api/v1/notifications', account.secretKey)).body.data).toEqual([]);
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(0);
  });

  it('accepts the longest body that still fits, and refuses one byte more', async () => {
    // Web Push binds first: its declarative message and the room kept for the push's receipt (95 bytes,
    // docs/engagement.md) leave 3,715 bytes of body beside a short title and no url (docs/web-push.md, "What the
    // browser receives").
    const account = await t.newAccount({ channels: ['fits'] });
    const send = (length: number) =>
      post(t.app, '/api/v1/notifications', account.secretKey, {
        channelCode: 'fits',
        title: 'Fits',
        body: 'x'.repeat(length),
      });
    expect((await send(3715 + t.config.baseUrl.length - 'http://localhost:3000'.length)).statusCode).toBe(201);
    expect((await send(3716 + t.config.baseUrl.length - 'http://localhost:3000'.length)).body.error).toMatchObject({
      code: 'payload_too_large',
      details: { platform: 'web', payloadBytes: 4097 },
    });
  });

  it('checks every localized variant: a German body too long is refused, naming the language', async () => {
    const account = await t.newAccount({ channels: ['localized-long'] });
    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'localized-long',
      title: 'Short',
      body: 'Fine',
      localizations: { de: { title: 'Kurz', body: 'ä'.repeat(2500) }, fr: { title: 'Court' } },
    });
    expect(response.statusCode).toBe(413);
    expect(response.body.error).toMatchObject({
      code: 'payload_too_large',
      message: expect.stringContaining(' in de '),
      details: { limit: 'platform_payload', platform: 'ios', localization: 'de' },
    });
    expect((await get(t.app, '/api/v1/notifications', account.secretKey)).body.data).toEqual([]);
  });

  it('holds a silent push to the APNs and FCM limits only: browsers never get one', async () => {
    const account = await t.newAccount({ channels: ['silent-long'] });
    const data = Object.fromEntries(['a', 'b', 'c', 'd'].map((key) => [key, key.repeat(960)]));
    const shown = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'silent-long',
      body: 'x',
      data,
    });
    expect(shown.body.error).toMatchObject({ code: 'payload_too_large', details: { platform: 'web' } });
    const silent = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'silent-long',
      contentAvailable: true,
      data,
    });
    expect(silent.statusCode).toBe(201);
  });

  it('refuses a body that fits APNs and FCM but not Web Push once encrypted (RFC 8291 adds 103 bytes), naming web', async () => {
    const account = await t.newAccount({ channels: ['web-long'] });
    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'web-long',
      title: 'T',
      body: 'x'.repeat(3880),
    });
    expect(response.statusCode).toBe(413);
    expect(response.body.error).toMatchObject({
      code: 'payload_too_large',
      message: expect.stringContaining('Web Push'),
      details: { limit: 'platform_payload', platform: 'web', limitBytes: 4096 },
    });
    expect(response.body.error.details.payloadBytes).toBeGreaterThan(4096);
    expect((await get(t.app, '/api/v1/usage', account.secretKey)).body.data.used).toBe(0);
  });

  it('counts data entries too', async () => {
    const account = await t.newAccount({ channels: ['data'] });
    const data = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`k${i}`, 'v'.repeat(1000)]));
    const response = await post(t.app, '/api/v1/notifications', account.secretKey, {
      channelCode: 'data',
      title: 'Data',
      data,
    });
    expect(response.statusCode).toBe(413);
    expect(response.body.error.details.limit).toBe('platform_payload');
  });
});
