import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { widgetTokens } from '../widgets/widget-requests.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/subscribers with widgetPushToken → 201', () => {
  it('stores an iOS widget push token lower-cased, shows widgetPushEnabled, never the token', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const widgetPushToken = tokens.ios().toUpperCase();
    const response = await post(t.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'news',
      platform: 'ios',
      token: tokens.ios(),
      widgetPushToken,
    });
    const data = expectSuccess(response, 201);
    expect(data.widgetPushEnabled).toBe(true);
    expect(JSON.stringify(response.body).toLowerCase()).not.toContain(widgetPushToken.toLowerCase());
    expect(await widgetTokens(t, [data.id])).toEqual({ [data.id]: widgetPushToken.toLowerCase() });
    const read = expectSuccess(await get(t.app, `/api/v1/subscribers/${data.id}`, account.secretKey), 200);
    expect(read.widgetPushEnabled).toBe(true);
  });

  it('shows widgetPushEnabled false for a device without one', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const response = await post(t.app, '/api/v1/subscribers', account.publishableKey, {
      channelCode: 'news',
      platform: 'ios',
      token: tokens.ios(),
    });
    expect(expectSuccess(response, 201).widgetPushEnabled).toBe(false);
  });
});
