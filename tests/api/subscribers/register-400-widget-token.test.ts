import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountState } from '../../harness/account-state.ts';
import { expectError } from '../../harness/api-expect.ts';
import { post } from '../../harness/requests.ts';
import { tokens } from '../../harness/sample-requests.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('POST /api/v1/subscribers with a bad widgetPushToken → 400', () => {
  it.each([
    ['an Android subscriber', 'android', (): unknown => tokens.ios(), 'only iOS subscribers have a widget push token'],
    ['a web subscriber', 'web', (): unknown => tokens.ios(), 'only iOS subscribers have a widget push token'],
    ['a token that is not hex', 'ios', (): unknown => 'zz'.repeat(32), 'hex'],
    ['a token too short', 'ios', (): unknown => 'ab'.repeat(8), 'hex'],
    ['a token that is not a string', 'ios', (): unknown => 42, 'widgetPushToken'],
  ] as const)('refuses it for %s, storing nothing', async (_name, platform, widgetPushToken, message) => {
    const account = await t.newAccount({ channels: ['news'] });
    const before = await accountState(t, account.id);
    const error = expectError(
      await post(t.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode: 'news',
        platform,
        token: tokens[platform](),
        widgetPushToken: widgetPushToken(),
      }),
      'validation_failed',
    );
    const problem = error.details.fields.find((field: { field: string }) => field.field === 'widgetPushToken');
    expect(`${problem?.field} ${problem?.message}`).toContain(message);
    expect(await accountState(t, account.id)).toEqual(before);
  });
});
