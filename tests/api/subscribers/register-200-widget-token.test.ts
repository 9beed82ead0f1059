import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { widgetTokens } from '../widgets/widget-requests.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/subscribers again, with widgetPushToken → 200', () => {
  it('replaces the widget push token it reports anew, and keeps it when a registration leaves it out', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const token = tokens.ios();
    const register = (extra: Record<string, unknown>) =>
      post(t.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'news',
        platform: 'ios',
        token,
        ...extra,
      });
    const first = tokens.ios();
    const id = expectSuccess(await register({ widgetPushToken: first }), 201).id;
    const second = tokens.ios();
    expect(expectSuccess(await register({ widgetPushToken: second }), 200)).toMatchObject({
      id,
      widgetPushEnabled: true,
    });
    expect(await widgetTokens(t, [id])).toEqual({ [id]: second });
    expect(expectSuccess(await register({}), 200)).toMatchObject({ id, widgetPushEnabled: true });
    expect(await widgetTokens(t, [id])).toEqual({ [id]: second });
  });
});
