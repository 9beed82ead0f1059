import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from '../../harness/api-expect.ts';
import { del, post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';
import { widgetTokens } from '../widgets/widget-requests.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('DELETE /api/v1/users/:externalId → 200, widget push tokens', () => {
  it("erases the person's widget push tokens with their subscribers, and leaves others' alone", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const register = async (externalId: string) =>
      expectSuccess(
        await post(t.app, '/api/v1/subscribers', account.publishableKey, {
          channelCode: 'news',
          platform: 'ios',
          token: tokens.ios(),
          widgetPushToken: tokens.ios(),
          externalId,
        }),
        201,
      ).id as string;
    const alice = await register('alice');
    const bob = await register('bob');
    expectSuccess(await del(t.app, '/api/v1/users/alice', account.secretKey), 200);
    const left = await widgetTokens(t, [alice, bob]);
    expect(Object.keys(left)).toEqual([bob]);
  });
});
