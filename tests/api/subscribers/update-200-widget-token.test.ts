import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { get, patch } from '../../harness/requests.ts';
import { subscribeDevice, tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { widgetTokens } from '../widgets/widget-requests.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('PATCH /api/v1/subscribers/:id with widgetPushToken → 200', () => {
  it('sets, replaces and (null) clears the widget push token, with the publishable key and its proof', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const { id, token } = await subscribeDevice(t.app, account.publishableKey, 'news', 'ios', { locale: 'de-DE' });
    const change = (widgetPushToken: string | null) =>
      patch(t.app, `/api/v1/subscribers/${id}`, account.publishableKey, { widgetPushToken, token });
    const first = tokens.ios();
    expect(expectSuccess(await change(first.toUpperCase()), 200)).toMatchObject({ id, widgetPushEnabled: true });
    expect(await widgetTokens(t, [id])).toEqual({ [id]: first });
    const second = tokens.ios();
    expectSuccess(await change(second), 200);
    expect(await widgetTokens(t, [id])).toEqual({ [id]: second });
    expect(expectSuccess(await change(null), 200)).toMatchObject({ widgetPushEnabled: false, locale: 'de-DE' });
    expect(await widgetTokens(t, [id])).toEqual({});
    const read = expectSuccess(await get(t.app, `/api/v1/subscribers/${id}`, account.secretKey), 200);
    expect(read).toMatchObject({ widgetPushEnabled: false, locale: 'de-DE' });
  });

  it('clearing a token that was never set is a 200 that changes nothing else', async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const { id } = await subscribeDevice(t.app, account.publishableKey, 'news', 'ios');
    expect(
      expectSuccess(await patch(t.app, `/api/v1/subscribers/${id}`, account.secretKey, { widgetPushToken: null }), 200),
    ).toMatchObject({ widgetPushEnabled: false });
  });
});
